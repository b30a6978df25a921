import BinderyRuntime
import GRDB
import Inbox

/// Which threads or messages to show, written once and read two ways: as the Inbox API's query parameters
/// (`request(in:)` for threads, `messagesRequest(in:)` for messages) and as a parameterised SQL query over the cache
/// (`sql(namespace:order:)`, `messagesSQL(namespace:order:)`). Both follow the API's rules (`InboxFilterRule`, which
/// the mock follows too), so the two give the same answer.
///
/// A struct rather than a walked `#Predicate`: the API filters only by a fixed set of parameters, all of which
/// must match (no OR, no NOT, no arbitrary properties). A struct makes every filter the API cannot express
/// impossible to write, where a predicate would compile and then fail when walked.
///
/// Unread and starred are tags: `InboxFilter(tag: "unread")`. Text compares without case, times are Unix seconds
/// and exclusive (`lastMessageAfter: t` keeps threads whose last message is later than `t`).
///
/// Over messages, as the service filters them: `subject`, the addresses, `filename` and `threadID` are the
/// message's own; `tag` and the four times are its thread's (a message has no tags of its own).
public struct InboxFilter: Sendable, Hashable {
    public var subject: String?
    public var anyEmail: String?
    public var to: String?
    public var from: String?
    public var cc: String?
    public var bcc: String?
    public var tag: String?
    public var threadID: String?
    public var filename: String?
    public var lastMessageBefore: Int64?
    public var lastMessageAfter: Int64?
    public var startedBefore: Int64?
    public var startedAfter: Int64?
    public var limit: Int?
    public var offset: Int?

    public init(
        subject: String? = nil, anyEmail: String? = nil, to: String? = nil, from: String? = nil, cc: String? = nil,
        bcc: String? = nil, tag: String? = nil, threadID: String? = nil, filename: String? = nil,
        lastMessageBefore: Int64? = nil, lastMessageAfter: Int64? = nil, startedBefore: Int64? = nil,
        startedAfter: Int64? = nil, limit: Int? = nil, offset: Int? = nil
    ) {
        self.subject = subject
        self.anyEmail = anyEmail
        self.to = to
        self.from = from
        self.cc = cc
        self.bcc = bcc
        self.tag = tag
        self.threadID = threadID
        self.filename = filename
        self.lastMessageBefore = lastMessageBefore
        self.lastMessageAfter = lastMessageAfter
        self.startedBefore = startedBefore
        self.startedAfter = startedAfter
        self.limit = limit
        self.offset = offset
    }

    public static let unread = InboxFilter(tag: "unread")
    public static let starred = InboxFilter(tag: "starred")

    // MARK: As the API's query

    /// The service's listing of the threads the filter selects, most recent first.
    public func request(in namespace: NamespaceRequestBuilder) -> CollectionRequest<MailThread> {
        listing(namespace.threads.list)
    }

    /// The service's listing of the messages the filter selects, newest first.
    public func messagesRequest(in namespace: NamespaceRequestBuilder) -> CollectionRequest<Message> {
        listing(namespace.messages.list)
    }

    /// The threads' and the messages' `list` take the same parameters, in the same order.
    private typealias Listing<Item: JSONModel> = (
        String?, String?, String?, String?, String?, String?, String?, String?, String?, Int64?, Int64?, Int64?,
        Int64?, Int32?, Int32?
    ) -> CollectionRequest<Item>

    private func listing<Item>(_ list: Listing<Item>) -> CollectionRequest<Item> {
        list(
            subject, anyEmail, to, from, cc, bcc, tag, threadID, filename, lastMessageBefore, lastMessageAfter,
            startedBefore, startedAfter, limit.map { Int32(clamping: $0) }, offset.map { Int32(clamping: $0) })
    }

    /// The filter as the API's query parameters, by their API names (`tag`, `any_email`, `last_message_after`…).
    public var parameters: [(name: String, value: String)] {
        let texts: [(String, String?)] = [
            ("subject", subject), ("any_email", anyEmail), ("to", to), ("from", from), ("cc", cc), ("bcc", bcc),
            ("tag", tag), ("thread_id", threadID), ("filename", filename),
        ]
        let numbers: [(String, Int64?)] = [
            ("last_message_before", lastMessageBefore), ("last_message_after", lastMessageAfter),
            ("started_before", startedBefore), ("started_after", startedAfter), ("limit", limit.map(Int64.init)),
            ("offset", offset.map(Int64.init)),
        ]
        return texts.compactMap { name, value in value.map { (name, $0) } }
            + numbers.compactMap { name, value in value.map { (name, String($0)) } }
    }

    /// A filter from API parameter names and values (`tag=unread`, `from=ann@example.com`), as a command line
    /// or a saved search gives them.
    public init(parameters: [(name: String, value: String)]) throws(BinderyError) {
        self.init()
        for (name, value) in parameters {
            func number() throws(BinderyError) -> Int64 {
                guard let number = Int64(value) else {
                    throw BinderyError(kind: .refused, message: "\(name) takes a number (Unix seconds or a count)")
                }
                return number
            }
            switch name {
            case "subject": subject = value
            case "any_email": anyEmail = value
            case "to": to = value
            case "from": from = value
            case "cc": cc = value
            case "bcc": bcc = value
            case "tag": tag = value
            case "thread_id": threadID = value
            case "filename": filename = value
            case "last_message_before": lastMessageBefore = try number()
            case "last_message_after": lastMessageAfter = try number()
            case "started_before": startedBefore = try number()
            case "started_after": startedAfter = try number()
            case "limit": limit = Int(try number())
            case "offset": offset = Int(try number())
            default:
                throw BinderyError(
                    kind: .refused,
                    message: "unknown filter \(name); the API's thread and message filters are "
                        + InboxFilter.parameterNames.joined(separator: ", "))
            }
        }
    }

    /// The API's thread and message filters, then the page's `limit` and `offset`.
    public static let parameterNames = InboxFilterRule.all.map(\.parameter) + ["limit", "offset"]

    // MARK: As SQL

    /// `SELECT id, json FROM threads WHERE …` with one `?` per value; `order` sorts (the API's order is `recentFirst`).
    public func sql(namespace: String, order: ThreadOrder = .recentFirst) -> (
        sql: String, arguments: StatementArguments
    ) {
        query(over: .threads, namespace: namespace, order: order.columns, selecting: "t.id, t.json")
    }

    /// `SELECT id, json FROM messages WHERE …`: the messages the filter selects, in `order` (the API's is
    /// `newestFirst`).
    public func messagesSQL(namespace: String, order: MessageOrder = .newestFirst) -> (
        sql: String, arguments: StatementArguments
    ) {
        query(over: .messages, namespace: namespace, order: order.columns, selecting: "m.id, m.json")
    }

    /// The filter over `table` (aliased `t` or `m`), selecting `columns`, sorted by `order`, paged by the limit
    /// and offset. With `rowIDs`, only those rows, unpaged: what a view re-reads after a commit that touched them.
    func query(
        over table: FilteredTable, namespace: String, order: [SortColumn], selecting columns: String,
        rowIDs: [Int64]? = nil
    ) -> (sql: String, arguments: StatementArguments) {
        var (conditions, values) = self.conditions(over: table, namespace: namespace)
        if let rowIDs {
            conditions.append(
                "\(table.alias).rowid IN (\(Array(repeating: "?", count: rowIDs.count).joined(separator: ", ")))")
            values += rowIDs.map { $0 }
        }
        var sql = "SELECT \(columns) FROM \(table.name) \(table.alias) WHERE " + conditions.joined(separator: " AND ")
        sql +=
            " ORDER BY "
            + order.map { "\(table.alias).\($0.name)" + ($0.descending ? " DESC" : " ASC") }
            .joined(separator: ", ")
        if rowIDs == nil, limit != nil || offset != nil {
            // SQLite's LIMIT -1 is "no limit", for an offset alone.
            sql += " LIMIT ? OFFSET ?"
            values += [limit ?? -1, offset ?? 0]
        }
        return (sql, StatementArguments(values))
    }

    /// Whether the filter reads the other table than the one listed: a thread's addresses and file names are
    /// those of its messages, a message's tag and times are its thread's (`InboxFilterRule`).
    func readsOtherTable(listing table: FilteredTable) -> Bool {
        rules.contains { rule, _ in rule.source(listingThreads: table == .threads) == .related }
    }

    /// The rules this filter sets, with their values as the API sends them.
    private var rules: [(rule: InboxFilterRule, value: String)] {
        parameters.compactMap { name, value in InboxFilterRule.named(name).map { ($0, value) } }
    }

    /// The WHERE conditions over `table`, one `?` per value: each rule the filter sets, as `InboxFilterRule` says.
    private func conditions(over table: FilteredTable, namespace: String) -> (
        [String], [(any DatabaseValueConvertible)?]
    ) {
        let isThread = table == .threads
        var conditions = ["\(table.alias).namespace_id = ?"]
        var values: [(any DatabaseValueConvertible)?] = [namespace]
        // Addresses and file names are kept per message; tags and times per thread.
        let messageRows = isThread ? "thread_id = t.id" : "message_id = m.id"
        let thread = isThread ? "t.id" : "m.thread_id"
        for (rule, value) in rules {
            let related = rule.source(listingThreads: isThread) == .related
            switch rule.comparison {
            case .text(let member):
                // The cache keeps a member's folded text in `<member>_key`.
                conditions.append("\(table.alias).\(member)_key = ?")
            case .address(nil) where isThread:
                conditions.append(
                    "EXISTS (SELECT 1 FROM thread_participants p WHERE p.thread_id = t.id AND p.email = ?)")
            case .address(let role):
                let roleCondition = role.map { " AND a.role = '\($0)'" } ?? ""
                conditions.append(
                    "EXISTS (SELECT 1 FROM message_addresses a WHERE a.\(messageRows)\(roleCondition) AND a.email = ?)")
            case .tag:
                conditions.append("EXISTS (SELECT 1 FROM thread_tags g WHERE g.thread_id = \(thread) AND g.tag = ?)")
            case .thread:
                conditions.append("\(thread) = ?")
            case .filename:
                conditions.append("EXISTS (SELECT 1 FROM message_files f WHERE f.\(messageRows) AND f.filename = ?)")
            case .time(let member, let before):
                let comparison = "\(member) \(before ? "<" : ">") ?"
                conditions.append(
                    related
                        ? "EXISTS (SELECT 1 FROM threads t WHERE t.id = m.thread_id AND t.\(comparison))"
                        : "\(table.alias).\(comparison)")
            }
            switch rule.comparison {
            case .time: values.append(Int64(value))
            case .thread: values.append(value)
            default: values.append(value.lowercased())
            }
        }
        return (conditions, values)
    }
}

/// The tables a filter lists, with the alias its SQL gives them.
enum FilteredTable: Sendable {
    case threads, messages

    var name: String { self == .threads ? "threads" : "messages" }
    var alias: String { self == .threads ? "t" : "m" }
    /// The table whose rows this one's filters may also read.
    var other: FilteredTable { self == .threads ? .messages : .threads }
}

/// One column a view sorts by. Every order ends with the id, so that equal values still give one order.
struct SortColumn: Sendable, Hashable {
    var name: String
    var descending = false
}

/// How a view sorts its threads. The service sorts by recency only; the other orders are the cache's.
public enum ThreadOrder: Sendable, Hashable {
    /// Most recent message first, as the service lists them.
    case recentFirst
    case oldestFirst
    /// By subject, then most recent first.
    case subject

    var columns: [SortColumn] {
        switch self {
        case .recentFirst:
            return [SortColumn(name: "last_message_timestamp", descending: true), SortColumn(name: "id")]
        case .oldestFirst: return [SortColumn(name: "last_message_timestamp"), SortColumn(name: "id")]
        case .subject:
            return [
                SortColumn(name: "subject_key"), SortColumn(name: "last_message_timestamp", descending: true),
                SortColumn(name: "id"),
            ]
        }
    }
}

/// How a view sorts its messages. The service lists the newest first; the other orders are the cache's.
public enum MessageOrder: Sendable, Hashable {
    /// Newest first (by `date`), as the service lists them.
    case newestFirst
    case oldestFirst
    /// By subject, then newest first.
    case subject

    var columns: [SortColumn] {
        switch self {
        case .newestFirst: return [SortColumn(name: "date", descending: true), SortColumn(name: "id")]
        case .oldestFirst: return [SortColumn(name: "date"), SortColumn(name: "id")]
        case .subject:
            return [
                SortColumn(name: "subject_key"), SortColumn(name: "date", descending: true), SortColumn(name: "id"),
            ]
        }
    }
}
