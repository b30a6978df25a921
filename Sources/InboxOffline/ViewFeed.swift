import BinderyRuntime
import GRDB

/// What a view shows after one commit: its rows, how they differ from the previous update's, and how to get the
/// new models from the previous ones.
struct ViewUpdate: Sendable {
    enum Source: Sendable {
        /// The model at this index of the previous update (its JSON did not change).
        case previous(Int)
        /// New or changed: the JSON, decoded by the iterator.
        case json(String)
    }

    enum Models: Sendable {
        /// One source per new row.
        case rebuild([Source])
        /// Remove the models at `removing` (old indexes, ascending), then insert each of `inserting` at its new
        /// index (ascending); the other models stay as they are.
        case edit(removing: [Int], inserting: [(at: Int, source: Source)])
    }

    var rows: [ViewRow]
    var changes: ChangeSet
    var models: Models
}

/// Keeps a view's rows current from the store's writer. It observes the commits that touch the view's table and,
/// right after each one, brings its rows up to date and sends the update with its change set.
///
/// Why on the writer, and how: `databaseDidCommit` runs before the next transaction can begin, so every update
/// is exactly the state of one commit (a snapshot never mixes two), and the rowids SQLite reported for that
/// commit are the only rows of the view's table that can have changed. The cheap path re-reads just those rows
/// (the filter applied, by rowid), removes the touched rows from the previous rows and inserts those that still
/// match where binary search on the sort key puts them. The rows nobody touched keep their order and their decoded
/// models (the iterator edits its models the same way), so an update costs a few binary searches, array edits and
/// one pass over integers instead of re-reading, decoding and diffing the whole view. The change set comes from the
/// same edit: untouched rows keep their old index, touched ones are looked up by id, and moves come from the same
/// longest-run rule as `ChangeSet(from:to:)`, so both give identical change sets.
///
/// The view re-runs its whole query instead when the touched rowids cannot tell what changed:
/// - the filter reads the other table (a thread's `from` is its messages', a message's `tag` its thread's) and
///   that table changed: a row of this table can start or stop matching without being touched, and the other
///   row's old value (a deleted message's thread) is gone after the commit;
/// - the view has a limit or an offset: a row leaving the window lets the next one in, which the view never read
///   (in an order with an index, such a query stops once it has found offset + limit rows);
/// - more than `rereadLimit` rows were touched (a page of the first fetch): one query beats many lookups;
/// - SQLite reported a change it could not attribute to rows (`databaseDidChange()`).
///
/// The first update reads every row's JSON on the writer, once. Changes made by another process (a CLI run on the
/// same file) are not observed, as with GRDB's observations.
///
/// All state is read and written on the writer's serial queue only (the callbacks below and the registration),
/// hence `@unchecked Sendable`.
final class ViewFeed: TransactionObserver, @unchecked Sendable {
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

    /// The rows the view shows, as parallel arrays: their rowids (what SQLite reports), ids and fingerprints, and sort
    /// keys.
    private var rowIDs: [Int64] = []
    private var rows: [ViewRow] = []
    private var keys: [[SortValue]] = []
    private var touched: Set<Int64> = []
    private var mustRequery = false
    /// Set when a read failed: the iterator has the error, and the feed does nothing more.
    private var failed = false

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
        guard !failed, mustRequery || !touched.isEmpty else { return }
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
            failed = true
            continuation.finish(throwing: error)
        }
    }

    func databaseDidRollback(_ db: Database) {
        touched = []
        mustRequery = false
    }

    // MARK: Updating

    /// A row as read: rowid, id and fingerprint, sort key, and its JSON when asked for.
    private struct Read {
        var rowID: Int64
        var row: ViewRow
        var key: [SortValue]
        var json: String?
    }

    /// The columns every read selects: rowid, id, fingerprint, then the sort key.
    private func columns(json: Bool) -> String {
        let alias = table.alias
        return (["rowid", "id", "fingerprint"] + order.map(\.name) + (json ? ["json"] : [])).map { "\(alias).\($0)" }
            .joined(separator: ", ")
    }

    private func read(_ row: Row, json: Bool) -> Read {
        Read(
            rowID: row[0], row: ViewRow(id: row[1], fingerprint: row[2]),
            key: (0..<order.count).map { SortValue(row[3 + $0] as DatabaseValue) },
            json: json ? row[3 + order.count] : nil)
    }

    /// The whole query again, diffed from the previous rows by id; JSON is read for new and changed rows only.
    private func requery(_ db: Database, first: Bool) throws {
        let query = filter.query(over: table, namespace: namespace, order: order, selecting: columns(json: false))
        let fresh = try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map { read($0, json: false) }
        var oldIndex: [String: Int] = [:]
        for (index, row) in rows.enumerated() { oldIndex[row.id] = index }
        var sources: [Int] = []  // the previous index of each fresh row whose JSON did not change, else -1
        sources.reserveCapacity(fresh.count)
        var oldIndexOfNew: [Int] = []
        oldIndexOfNew.reserveCapacity(fresh.count)
        var inserted: [Int] = []
        var updated: [Int] = []
        for (index, row) in fresh.enumerated() {
            let before = oldIndex.removeValue(forKey: row.row.id)
            oldIndexOfNew.append(before ?? -1)
            if let before, rows[before].fingerprint != row.row.fingerprint { updated.append(index) }
            if before == nil { inserted.append(index) }
            sources.append(before.flatMap { rows[$0].fingerprint == row.row.fingerprint ? $0 : nil } ?? -1)
        }
        let changes = ChangeSet(
            removed: oldIndex.values.sorted(), inserted: inserted, updated: updated, oldIndexOfNew: oldIndexOfNew)
        rowIDs = fresh.map(\.rowID)
        rows = fresh.map(\.row)
        keys = fresh.map(\.key)
        guard first || !changes.isEmpty else { return }
        let json = try self.json(ofRowIDs: sources.indices.filter { sources[$0] < 0 }.map { rowIDs[$0] }, db)
        let models = try zip(rowIDs, sources).map { rowID, source -> ViewUpdate.Source in
            if source >= 0 { return .previous(source) }
            guard let text = json[rowID] else { throw Self.vanished }
            return .json(text)
        }
        continuation.yield(ViewUpdate(rows: rows, changes: changes, models: .rebuild(models)))
    }

    /// Only the touched rows, read again: removed from the rows, and inserted again where they now sort when they
    /// still match.
    private func reread(_ db: Database) throws {
        var fresh: [Read] = []
        let touchedIDs = Array(touched)
        for start in stride(from: 0, to: touchedIDs.count, by: Self.rereadLimit) {
            let chunk = Array(touchedIDs[start..<min(start + Self.rereadLimit, touchedIDs.count)])
            let query = filter.query(
                over: table, namespace: namespace, order: order, selecting: columns(json: true), rowIDs: chunk)
            fresh += try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map { read($0, json: true) }
        }
        if touchedIDs.count > Self.rereadLimit { fresh.sort { SortValue.precedes($0.key, $1.key, order) } }
        // The touched rows the view showed: old indexes, ascending (a plain scan beats hashing for a few rowids).
        var touchedOld: [Int] = []
        if touchedIDs.count <= 16 {
            for (index, rowID) in rowIDs.enumerated() where touchedIDs.contains(rowID) { touchedOld.append(index) }
        } else {
            for (index, rowID) in rowIDs.enumerated() where touched.contains(rowID) { touchedOld.append(index) }
        }
        var touchedByID: [String: Int] = [:]
        for index in touchedOld { touchedByID[rows[index].id] = index }
        // Where each fresh row lands: the old rows before it by the sort key (touched ones included, binary search
        // over the old order), less the touched ones among them, plus the fresh rows before it.
        var removedBefore = 0
        let places = fresh.enumerated().map { rank, row -> Int in
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if SortValue.precedes(keys[middle], row.key, order) { low = middle + 1 } else { high = middle }
            }
            while removedBefore < touchedOld.count, touchedOld[removedBefore] < low { removedBefore += 1 }
            return low - removedBefore + rank
        }
        let freshIDs = Set(fresh.map(\.row.id))
        let removed = touchedOld.filter { !freshIDs.contains(rows[$0].id) }
        var inserted: [Int] = []
        var updated: [Int] = []
        var inserting: [(at: Int, source: ViewUpdate.Source)] = []
        for (row, place) in zip(fresh, places) {
            let before = touchedByID[row.row.id]
            if before == nil { inserted.append(place) }
            let same = before.map { rows[$0].fingerprint == row.row.fingerprint } ?? false
            if before != nil, !same { updated.append(place) }
            if let before, same {
                inserting.append((place, .previous(before)))
            } else {
                inserting.append((place, .json(row.json ?? "")))
            }
        }
        // The old index of every new row (-1 for an inserted one), for the moves.
        var oldIndexOfNew: [Int] = []
        oldIndexOfNew.reserveCapacity(rows.count - touchedOld.count + fresh.count)
        var nextTouched = 0
        for index in rows.indices {
            if nextTouched < touchedOld.count, touchedOld[nextTouched] == index {
                nextTouched += 1
            } else {
                oldIndexOfNew.append(index)
            }
        }
        for (row, place) in zip(fresh, places) {
            oldIndexOfNew.insert(touchedByID[row.row.id] ?? -1, at: place)
        }
        let changes = ChangeSet(
            removed: removed, inserted: inserted, updated: updated, oldIndexOfNew: oldIndexOfNew)
        for index in touchedOld.reversed() {
            rowIDs.remove(at: index)
            rows.remove(at: index)
            keys.remove(at: index)
        }
        for (row, place) in zip(fresh, places) {
            rowIDs.insert(row.rowID, at: place)
            rows.insert(row.row, at: place)
            keys.insert(row.key, at: place)
        }
        guard !changes.isEmpty else { return }
        continuation.yield(
            ViewUpdate(rows: rows, changes: changes, models: .edit(removing: touchedOld, inserting: inserting)))
    }

    private static let vanished = BinderyError(kind: .storage, message: "a view's row vanished inside its commit")

    /// The JSON of rows by rowid.
    private func json(ofRowIDs rowIDs: [Int64], _ db: Database) throws -> [Int64: String] {
        var json: [Int64: String] = [:]
        for start in stride(from: 0, to: rowIDs.count, by: Self.rereadLimit) {
            let chunk = Array(rowIDs[start..<min(start + Self.rereadLimit, rowIDs.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try Row.fetchAll(
                db, sql: "SELECT rowid, json FROM \(table.name) WHERE rowid IN (\(marks))",
                arguments: StatementArguments(chunk))
            {
                json[row[0]] = row[1]
            }
        }
        return json
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
