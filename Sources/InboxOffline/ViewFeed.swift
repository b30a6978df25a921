import BinderyRuntime
import GRDB

/// What a view shows after one commit: its rows, how they differ from the previous update's, and where each row's
/// model comes from.
struct ViewUpdate: Sendable {
    enum Source: Sendable {
        /// The model at this index of the previous update (its JSON did not change).
        case previous(Int)
        /// New or changed: the JSON, decoded by the iterator.
        case json(String)
    }

    var rows: [ViewRow]
    var changes: ChangeSet
    var sources: [Source]
}

/// Keeps a view's rows current from the store's writer. It observes the commits that touch the view's table and,
/// right after each one, brings its rows up to date and sends the update with its change set.
///
/// Why on the writer, and how: `databaseDidCommit` runs before the next transaction can begin, so every update
/// is exactly the state of one commit (a snapshot never mixes two), and the rowids SQLite reported for that
/// commit are the only rows of the view's table that can have changed. The cheap path re-reads just those rows
/// (the filter applied, by rowid) and merges them into the previous rows by the sort key; the rows nobody touched
/// keep their order and their decoded models, so an update costs a few binary searches and one pass over the rows
/// instead of re-reading and diffing the whole view. The same pass yields the change set: the untouched rows keep
/// their old index, the touched ones are looked up by id, and moves come from the same longest-run rule as
/// `ChangeSet(from:to:)`, so both give identical change sets.
///
/// The view re-runs its whole query instead when the touched rowids cannot tell what changed:
/// - the filter reads the other table (a thread's `from` is its messages', a message's `tag` its thread's) and
///   that table changed: a row of this table can start or stop matching without being touched, and the other
///   row's old value (a deleted message's thread) is gone after the commit;
/// - the view has a limit or an offset: a row leaving the window lets the next one in, which the view never read
///   (such a query reads at most offset + limit rows in the order's index);
/// - more than `rereadLimit` rows were touched (a page of the first fetch): one query beats many lookups;
/// - SQLite reported a change it could not attribute to rows (`databaseDidChange()`).
///
/// Changes made by another process (a CLI run on the same file) are not observed, as with GRDB's observations.
///
/// All state is read and written on the writer's serial queue only (the callbacks below and the registration),
/// hence `@unchecked Sendable`.
final class ViewFeed: TransactionObserver, @unchecked Sendable {
    /// A row as the feed keeps it: its rowid (what SQLite reports), id and revision, and its sort key.
    struct Entry {
        var rowID: Int64
        var row: ViewRow
        var key: [SortValue]
    }

    static let rereadLimit = 500

    let table: FilteredTable
    let filter: InboxFilter
    let namespace: String
    let order: [SortColumn]
    /// Set in tests: every commit re-runs the whole query, the reference the cheap path is compared with.
    let alwaysRequery: Bool
    private let readsOtherTable: Bool
    private let continuation: AsyncThrowingStream<ViewUpdate, any Error>.Continuation
    let updates: AsyncThrowingStream<ViewUpdate, any Error>

    private var entries: [Entry] = []
    private var touched: Set<Int64> = []
    private var mustRequery = false

    init(table: FilteredTable, filter: InboxFilter, namespace: String, order: [SortColumn], alwaysRequery: Bool) {
        self.table = table
        self.filter = filter
        self.namespace = namespace
        self.order = order
        self.alwaysRequery = alwaysRequery
        readsOtherTable = filter.readsOtherTable(listing: table)
        (updates, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
    }

    deinit { continuation.finish() }

    /// Registers the feed and sends the first update (everything inserted), in one writer access: no commit can
    /// fall between the two.
    func start(in database: DatabasePool) async throws {
        try await database.writeWithoutTransaction { db in
            db.add(transactionObserver: self, extent: .observerLifetime)
            try self.requery(db, first: true)
        }
    }

    // MARK: Observing the writer

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == table.name || (readsOtherTable && eventKind.tableName == table.other.name)
    }

    func databaseDidChange() { mustRequery = true }

    func databaseDidChange(with event: DatabaseEvent) {
        if event.tableName == table.name { touched.insert(event.rowID) } else { mustRequery = true }
    }

    func databaseDidCommit(_ db: Database) {
        guard mustRequery || !touched.isEmpty else { return }
        defer {
            touched = []
            mustRequery = false
        }
        do {
            if mustRequery || alwaysRequery || filter.limit != nil || filter.offset != nil
                || touched.count > Self.rereadLimit
            {
                try requery(db, first: false)
            } else {
                try reread(db)
            }
        } catch {
            continuation.finish(throwing: error)
        }
    }

    func databaseDidRollback(_ db: Database) {
        touched = []
        mustRequery = false
    }

    // MARK: Updating

    /// The columns every read selects: rowid, id, revision, then the sort key.
    private var columns: String {
        let alias = table.alias
        return (["rowid", "id", "revision"] + order.map(\.name)).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    private func entry(_ row: Row) -> Entry {
        Entry(
            rowID: row[0], row: ViewRow(id: row[1], revision: row[2]),
            key: (0..<order.count).map { SortValue(row[3 + $0] as DatabaseValue) })
    }

    /// The whole query again, diffed from the previous rows by id.
    private func requery(_ db: Database, first: Bool) throws {
        let query = filter.query(over: table, namespace: namespace, order: order, selecting: columns)
        let fresh = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map(entry)
        var oldIndex: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { oldIndex[entry.row.id] = index }
        var kept: [(old: Int, new: Int)] = []
        var sources: [Int?] = []
        for (index, entry) in fresh.enumerated() {
            let before = oldIndex[entry.row.id]
            if let before { kept.append((before, index)) }
            sources.append(before.flatMap { entries[$0].row.revision == entry.row.revision ? $0 : nil })
        }
        let newIDs = Set(fresh.map(\.row.id))
        let changes = ChangeSet(
            removed: entries.indices.filter { !newIDs.contains(entries[$0].row.id) },
            inserted: fresh.indices.filter { oldIndex[fresh[$0].row.id] == nil },
            updated: kept.filter { entries[$0.old].row.revision != fresh[$0.new].row.revision }.map(\.new),
            kept: kept)
        try send(fresh, changes, sources, db, always: first)
    }

    /// Only the touched rows, read again and merged into the others by the sort key.
    private func reread(_ db: Database) throws {
        var fresh: [Entry] = []
        let rowIDs = Array(touched)
        for start in stride(from: 0, to: rowIDs.count, by: Self.rereadLimit) {
            let chunk = Array(rowIDs[start..<min(start + Self.rereadLimit, rowIDs.count)])
            let query = filter.query(over: table, namespace: namespace, order: order, selecting: columns, rowIDs: chunk)
            fresh += try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map(entry)
        }
        if rowIDs.count > Self.rereadLimit { fresh.sort { SortValue.precedes($0.key, $1.key, order) } }
        // Where each fresh row lands among the old rows: the old rows before it by the sort key (touched ones
        // included, as they are dropped below and do not change the place of the others).
        let places = fresh.map { row in
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if SortValue.precedes(entries[middle].key, row.key, order) { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var touchedOld: [String: Int] = [:]
        var removed: [Int] = []
        let freshIDs = Set(fresh.map(\.row.id))
        var next: [Entry] = []
        next.reserveCapacity(entries.count + fresh.count)
        var kept: [(old: Int, new: Int)] = []
        kept.reserveCapacity(entries.count + fresh.count)
        var sources: [Int?] = []
        sources.reserveCapacity(entries.count + fresh.count)
        var inserted: [Int] = []
        var updated: [Int] = []
        var pending = 0  // the next fresh row to place
        for (index, entry) in entries.enumerated() where touched.contains(entry.rowID) {
            touchedOld[entry.row.id] = index
            if !freshIDs.contains(entry.row.id) { removed.append(index) }
        }
        func placeFresh(upTo limit: Int) {
            while pending < fresh.count, places[pending] <= limit {
                let row = fresh[pending]
                if let before = touchedOld[row.row.id] {
                    kept.append((before, next.count))
                    let same = entries[before].row.revision == row.row.revision
                    if !same { updated.append(next.count) }
                    sources.append(same ? before : nil)
                } else {
                    inserted.append(next.count)
                    sources.append(nil)
                }
                next.append(row)
                pending += 1
            }
        }
        for (index, entry) in entries.enumerated() {
            placeFresh(upTo: index)
            guard !touched.contains(entry.rowID) else { continue }
            kept.append((index, next.count))
            sources.append(index)
            next.append(entry)
        }
        placeFresh(upTo: entries.count)
        let changes = ChangeSet(removed: removed, inserted: inserted, updated: updated, kept: kept)
        try send(next, changes, sources, db, always: false)
    }

    /// Keeps `next` and sends it with the JSON of its new and changed rows, unless nothing the view shows changed.
    private func send(
        _ next: [Entry], _ changes: ChangeSet, _ sources: [Int?], _ db: Database, always: Bool
    ) throws {
        entries = next
        guard always || !changes.isEmpty else { return }
        let needed = sources.indices.filter { sources[$0] == nil }
        var json: [Int64: String] = [:]
        for start in stride(from: 0, to: needed.count, by: Self.rereadLimit) {
            let chunk = needed[start..<min(start + Self.rereadLimit, needed.count)].map { next[$0].rowID }
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try Row.fetchAll(
                db, sql: "SELECT rowid, json FROM \(table.name) WHERE rowid IN (\(marks))",
                arguments: StatementArguments(chunk))
            {
                json[row[0]] = row[1]
            }
        }
        let resolved = try zip(next, sources).map { entry, source -> ViewUpdate.Source in
            if let source { return .previous(source) }
            guard let text = json[entry.rowID] else {
                throw BinderyError(kind: .storage, message: "a view's row vanished inside its commit")
            }
            return .json(text)
        }
        continuation.yield(ViewUpdate(rows: next.map(\.row), changes: changes, sources: resolved))
    }
}

/// A value of a sort column, ordered as SQLite orders them (NULL, then numbers, then text by its bytes, then
/// blobs), so that the cache's order and the merge's agree.
enum SortValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }

    private var rank: Int {
        switch self {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// -1, 0 or 1, as SQLite's BINARY collation compares.
    static func compare(_ a: SortValue, _ b: SortValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .real(let y)): return Double(x) < y ? -1 : (Double(x) == y ? 0 : 1)
        case (.real(let x), .integer(let y)): return x < Double(y) ? -1 : (x == Double(y) ? 0 : 1)
        case (.real(let x), .real(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.text(let x), .text(let y)): return bytes(x.utf8, y.utf8)
        case (.blob(let x), .blob(let y)): return bytes(x, y)
        default: return a.rank < b.rank ? -1 : 1
        }
    }

    private static func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
        if a.elementsEqual(b) { return 0 }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    /// Whether key `a` sorts before key `b` in `order`.
    static func precedes(_ a: [SortValue], _ b: [SortValue], _ order: [SortColumn]) -> Bool {
        for (index, column) in order.enumerated() {
            let comparison = compare(a[index], b[index])
            if comparison != 0 { return column.descending ? comparison > 0 : comparison < 0 }
        }
        return false
    }
}
