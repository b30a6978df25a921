import BinderyRuntime
import Foundation
import GRDB
import Inbox

/// The local cache of one Inbox account: a SQLite file (WAL) holding namespaces, threads, messages, drafts,
/// contacts, tags, files (metadata), calendars and events, each row the model's JSON as the server sent it beside
/// the columns that filters and sort orders read; the sync cursor; and the outbox of offline writes.
///
/// Every change (a delta round, a fetched page, a local write) is one transaction, so a crash leaves the file at
/// the last committed change and nothing in between.
public final class InboxStore: Sendable {
    /// The database, for this package's tests and benchmarks. Writes go through the store's own methods, which
    /// keep the index rows in step with the JSON; readers outside the package get `read(_:)`.
    package let database: DatabasePool
    public let path: String

    /// Opens (or creates) the store at `path` and brings its schema up to date.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        // Another process (a CLI run, a crashed sync) may hold the write lock for a moment.
        configuration.busyMode = .timeout(10)
        database = try DatabasePool(path: path, configuration: configuration)
        try InboxSchema.migrator.migrate(database)
    }

    /// Reads the file directly, for queries the store has no method for: a read-only transaction, so nothing read
    /// here can put the tables out of step.
    public func read<Value>(_ body: (Database) throws -> Value) throws -> Value {
        try database.read(body)
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    // MARK: Reading

    /// One cached object as its model, or nil.
    public func object<Decoded: JSONModel>(_ type: Decoded.Type, kind: InboxObjectKind, id: String) throws -> Decoded? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT json FROM \(kind.table) WHERE id = ?", arguments: [id])
        }.map { try Self.model(Decoded.self, json: $0) }
    }

    public func thread(_ id: String) throws -> MailThread? { try object(MailThread.self, kind: .thread, id: id) }
    public func draft(_ id: String) throws -> Draft? { try object(Draft.self, kind: .draft, id: id) }
    public func message(_ id: String) throws -> Message? { try object(Message.self, kind: .message, id: id) }

    /// The ids of every cached object of `kind`, sorted.
    public func ids(of kind: InboxObjectKind) throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "SELECT id FROM \(kind.table) ORDER BY id") }
    }

    /// The threads `filter` selects, in `order`: the same answer the service gives for the same filter.
    public func threads(
        namespace: String, matching filter: InboxFilter = InboxFilter(), order: ThreadOrder = .recentFirst
    ) throws -> [MailThread] {
        try models(MailThread.self, filter.sql(namespace: namespace, order: order))
    }

    /// The messages `filter` selects, in `order`: the same answer the service gives for the same filter.
    public func messages(
        namespace: String, matching filter: InboxFilter = InboxFilter(), order: MessageOrder = .newestFirst
    ) throws -> [Message] {
        try models(Message.self, filter.messagesSQL(namespace: namespace, order: order))
    }

    private func models<Decoded: JSONModel>(
        _ type: Decoded.Type, _ query: (sql: String, arguments: StatementArguments)
    ) throws -> [Decoded] {
        try database.read { db in
            try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map { row -> String in row["json"] }
        }.map { try Self.model(Decoded.self, json: $0) }
    }

    /// The saved cursor of `namespace`: where the next delta round starts.
    public func cursor(namespace: String) throws -> String? {
        try database.read { db in try SyncState.read(db, namespace: namespace).cursor }
    }

    static func model<Decoded: JSONModel>(_ type: Decoded.Type, json: String) throws -> Decoded {
        guard case .object(let object) = try JSONValue.parse(Array(json.utf8)) else {
            throw BinderyError(kind: .storage, message: "a cached row is not a JSON object")
        }
        return Decoded(storage: object)
    }
}

/// The kinds of object the store keeps, by the name Inbox gives them in `object` and in delta events.
public enum InboxObjectKind: String, Sendable, CaseIterable {
    case namespace, thread, message, draft, contact, tag, file, calendar, event

    /// Its table, and the collection below `/n/{ns}/` it is fetched from.
    public var table: String { self == .namespace ? "namespaces" : rawValue + "s" }
}

/// The sync state of a namespace: its cursor, whether the first full fetch finished, and where an interrupted
/// first fetch resumes (the collection, how many of its items were saved, and the service's latest cursor when that
/// attempt began).
struct SyncState {
    var cursor: String?
    var fetched: Bool
    var fetchKind: InboxObjectKind? = nil
    var fetchOffset = 0
    var fetchCursor: String? = nil

    static func read(_ db: Database, namespace: String) throws -> SyncState {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT cursor, fetched, fetch_kind, fetch_offset, fetch_cursor FROM sync_state WHERE namespace_id = ?
                """, arguments: [namespace])
        return SyncState(
            cursor: row?["cursor"], fetched: row?["fetched"] ?? false,
            fetchKind: (row?["fetch_kind"] as String?).flatMap(InboxObjectKind.init(rawValue:)),
            fetchOffset: row?["fetch_offset"] ?? 0, fetchCursor: row?["fetch_cursor"])
    }

    /// Saves the cursor and whether the first fetch is done; the fetch position is left as it is.
    static func write(_ db: Database, namespace: String, cursor: String?, fetched: Bool) throws {
        try db.execute(
            sql: """
                INSERT INTO sync_state (namespace_id, cursor, fetched) VALUES (?, ?, ?)
                ON CONFLICT (namespace_id) DO UPDATE SET cursor = excluded.cursor, fetched = excluded.fetched
                """,
            arguments: [namespace, cursor, fetched])
    }

    static func writeFetchCursor(_ db: Database, namespace: String, cursor: String?) throws {
        try db.execute(
            sql: "UPDATE sync_state SET fetch_cursor = ? WHERE namespace_id = ?", arguments: [cursor, namespace])
    }

    static func writeFetchPosition(_ db: Database, namespace: String, kind: InboxObjectKind?, offset: Int) throws {
        try db.execute(
            sql: "UPDATE sync_state SET fetch_kind = ?, fetch_offset = ? WHERE namespace_id = ?",
            arguments: [kind?.rawValue, offset, namespace])
    }
}
