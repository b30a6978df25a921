import BinderyRuntime
import GRDB
import Inbox

/// Which threads to show, written once and read two ways: as the Inbox API's query parameters (`request(in:)`)
/// and as a parameterised SQL query over the cache (`sql(namespace:order:)`). The two give the same answer.
///
/// A struct rather than a walked `#Predicate`: the API filters only by a fixed set of parameters, all of which
/// must match (no OR, no NOT, no arbitrary properties). A struct makes every filter the API cannot express
/// impossible to write, where a predicate would compile and then fail when walked.
///
/// Unread and starred are tags: `InboxFilter(tag: "unread")`. Text compares without case, times are Unix seconds
/// and exclusive (`lastMessageAfter: t` keeps threads whose last message is later than `t`).
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

    /// The service's listing of the same threads, most recent first.
    public func request(in namespace: NamespaceRequestBuilder) -> CollectionRequest<MailThread> {
        namespace.threads.list(
            subject: subject, anyEmail: anyEmail, to: to, from: from, cc: cc, bcc: bcc, tag: tag, threadId: threadID,
            filename: filename, lastMessageBefore: lastMessageBefore, lastMessageAfter: lastMessageAfter,
            startedBefore: startedBefore, startedAfter: startedAfter, limit: limit.map { Int32(clamping: $0) },
            offset: offset.map { Int32(clamping: $0) })
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
                    message: "unknown filter \(name); the API's thread filters are "
                        + InboxFilter.parameterNames.joined(separator: ", "))
            }
        }
    }

    public static let parameterNames = [
        "subject", "any_email", "to", "from", "cc", "bcc", "tag", "thread_id", "filename", "last_message_before",
        "last_message_after", "started_before", "started_after", "limit", "offset",
    ]

    // MARK: As SQL

    /// `SELECT id, json FROM threads WHERE …` with one `?` per value; `order` sorts (the API's order is `recentFirst`).
    public func sql(namespace: String, order: ThreadOrder = .recentFirst) -> (
        sql: String, arguments: StatementArguments
    ) {
        sql(namespace: namespace, order: order, selecting: "t.id, t.json")
    }

    /// The same query with other columns of `threads t` (a view reads `t.id, t.revision`).
    func sql(namespace: String, order: ThreadOrder, selecting columns: String) -> (
        sql: String, arguments: StatementArguments
    ) {
        var conditions = ["t.namespace_id = ?"]
        var values: [(any DatabaseValueConvertible)?] = [namespace]
        func add(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            guard let value else { return }
            conditions.append(condition)
            values.append(value)
        }
        func addressed(_ role: String, _ email: String?) {
            add(
                "EXISTS (SELECT 1 FROM message_addresses a WHERE a.thread_id = t.id AND a.role = '\(role)' "
                    + "AND a.email = ?)", email?.lowercased())
        }
        add("t.subject_key = ?", subject?.lowercased())
        add(
            "EXISTS (SELECT 1 FROM thread_participants p WHERE p.thread_id = t.id AND p.email = ?)",
            anyEmail?.lowercased())
        addressed("to", to)
        addressed("from", from)
        addressed("cc", cc)
        addressed("bcc", bcc)
        add("EXISTS (SELECT 1 FROM thread_tags g WHERE g.thread_id = t.id AND g.tag = ?)", tag?.lowercased())
        add("t.id = ?", threadID)
        add(
            "EXISTS (SELECT 1 FROM message_files f WHERE f.thread_id = t.id AND f.filename = ?)",
            filename?.lowercased())
        add("t.last_message_timestamp < ?", lastMessageBefore)
        add("t.last_message_timestamp > ?", lastMessageAfter)
        add("t.first_message_timestamp < ?", startedBefore)
        add("t.first_message_timestamp > ?", startedAfter)
        var sql = "SELECT \(columns) FROM threads t WHERE " + conditions.joined(separator: " AND ")
        sql += " ORDER BY " + order.sql
        if limit != nil || offset != nil {
            // SQLite's LIMIT -1 is "no limit", for an offset alone.
            sql += " LIMIT ? OFFSET ?"
            values += [limit ?? -1, offset ?? 0]
        }
        return (sql, StatementArguments(values))
    }
}

/// How a view sorts its threads. The service sorts by recency only; the other orders are the cache's.
public enum ThreadOrder: Sendable, Hashable {
    /// Most recent message first, as the service lists them.
    case recentFirst
    case oldestFirst
    /// By subject, then most recent first.
    case subject

    var sql: String {
        // The id breaks ties, so that equal timestamps still give one order.
        switch self {
        case .recentFirst: return "t.last_message_timestamp DESC, t.id ASC"
        case .oldestFirst: return "t.last_message_timestamp ASC, t.id ASC"
        case .subject: return "t.subject_key ASC, t.last_message_timestamp DESC, t.id ASC"
        }
    }
}
