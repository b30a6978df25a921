import BinderyRuntime
import GRDB
import Inbox

/// A live list of threads or messages: a filter, a sort order and a limit over the cache. Iterating it yields the
/// current snapshot first (everything inserted), then a new snapshot with its change set whenever a commit (a delta
/// round, a local write) changes what the view shows. Commits that leave the view as it was yield nothing.
///
/// ```swift
/// for try await snapshot in store.view(namespace: "ns", filter: .unread) {
///     table.apply(snapshot.changes)   // removed, inserted, updated and moved row indexes
/// }
/// ```
///
/// One implementation serves both kinds: `Model` is `MailThread` (`ThreadView`) or `Message` (`MessageView`), and
/// the view reads that kind's table.
public struct LiveView<Model: JSONModel>: AsyncSequence, Sendable {
    public typealias Element = ViewSnapshot<Model>
    let store: InboxStore
    let table: FilteredTable
    let query: (sql: String, arguments: StatementArguments)

    public func makeAsyncIterator() -> Iterator {
        let query = query
        // The observation reads ids and revisions only (from the index); JSON is read for new revisions alone.
        let observation = ValueObservation.tracking { db in
            try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map {
                ViewRow(id: $0["id"], revision: $0["revision"])
            }
        }.removeDuplicates()
        return Iterator(
            store: store, table: table,
            rows: observation.values(in: store.database, scheduling: .task).makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        let store: InboxStore
        let table: FilteredTable
        var rows: AsyncValueObservation<[ViewRow]>.Iterator
        var previous: [ViewRow]?
        /// The decoded models of the last snapshot, by id, with the revision they were read at.
        var models: [String: (revision: Int64, model: Model)] = [:]

        public mutating func next() async throws -> ViewSnapshot<Model>? {
            rows: while let current = try await rows.next() {
                let changes = ChangeSet(from: previous ?? [], to: current)
                guard previous == nil || !changes.isEmpty else { continue }
                let stale = current.filter { models[$0.id]?.revision != $0.revision }.map(\.id)
                let fresh = try await Self.read(stale, from: table, in: store)
                var kept: [String: (revision: Int64, model: Model)] = [:]
                var items: [Model] = []
                items.reserveCapacity(current.count)
                for row in current {
                    // Deleted between the two reads: that commit brings another value, diffed from `previous`.
                    guard let entry = fresh[row.id] ?? models[row.id] else { continue rows }
                    kept[row.id] = entry
                    items.append(entry.model)
                }
                previous = current
                models = kept
                return ViewSnapshot(items: items, rows: current, changes: changes)
            }
            return nil
        }

        /// The JSON of `ids`, decoded, with the revision it was read at.
        static func read(_ ids: [String], from table: FilteredTable, in store: InboxStore) async throws -> [String: (
            revision: Int64, model: Model
        )] {
            guard !ids.isEmpty else { return [:] }
            let rows = try await store.database.read { db in
                var rows: [(id: String, revision: Int64, json: String)] = []
                // Well under SQLite's limit on bound values a statement.
                for start in stride(from: 0, to: ids.count, by: 500) {
                    let chunk = Array(ids[start..<Swift.min(start + 500, ids.count)])
                    let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    rows += try Row.fetchAll(
                        db, sql: "SELECT id, revision, json FROM \(table.name) WHERE id IN (\(marks))",
                        arguments: StatementArguments(chunk)
                    ).map { ($0["id"], $0["revision"], $0["json"]) }
                }
                return rows
            }
            var read: [String: (revision: Int64, model: Model)] = [:]
            for row in rows { read[row.id] = (row.revision, try InboxStore.model(Model.self, json: row.json)) }
            return read
        }
    }
}

/// A live list of threads.
public typealias ThreadView = LiveView<MailThread>
/// A live list of messages.
public typealias MessageView = LiveView<Message>

/// One row a view shows: its id and the revision of its JSON (equal JSON, equal revision).
public struct ViewRow: Hashable, Sendable {
    public var id: String
    public var revision: Int64

    public init(id: String, revision: Int64) {
        self.id = id
        self.revision = revision
    }
}

/// What a view shows now, and how it differs from what it showed before.
public struct ViewSnapshot<Model: JSONModel>: Sendable {
    /// The threads or messages, in the view's order.
    public var items: [Model]
    /// Their ids and revisions, index for index.
    public var rows: [ViewRow]
    public var changes: ChangeSet
}

extension ViewSnapshot where Model == MailThread {
    public var threads: [MailThread] { items }
}

extension ViewSnapshot where Model == Message {
    public var messages: [Message] { items }
}

/// The difference between two snapshots of a view, as a list UI applies it: remove `removed` (indexes in the old
/// snapshot), insert `inserted` (indexes in the new one), apply `moves`, then reload `updated` (new indexes).
public struct ChangeSet: Sendable, Hashable {
    public struct Move: Sendable, Hashable {
        public var from: Int
        public var to: Int
    }

    public var removed: [Int] = []
    public var inserted: [Int] = []
    public var updated: [Int] = []
    public var moves: [Move] = []

    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && updated.isEmpty && moves.isEmpty }

    public init(removed: [Int] = [], inserted: [Int] = [], updated: [Int] = [], moves: [Move] = []) {
        self.removed = removed
        self.inserted = inserted
        self.updated = updated
        self.moves = moves
    }

    /// The changes that turn `old` into `new`. Rows are the same thread or message when their ids are equal; the fewest
    /// moves are reported: rows outside the longest run that kept its relative order.
    public init(from old: [ViewRow], to new: [ViewRow]) {
        var oldIndex: [String: Int] = [:]
        for (index, row) in old.enumerated() { oldIndex[row.id] = index }
        var newIndex: [String: Int] = [:]
        for (index, row) in new.enumerated() { newIndex[row.id] = index }
        removed = old.indices.filter { newIndex[old[$0].id] == nil }
        var kept: [(old: Int, new: Int)] = []
        for (index, row) in new.enumerated() {
            guard let before = oldIndex[row.id] else {
                inserted.append(index)
                continue
            }
            kept.append((before, index))
            if old[before].revision != row.revision { updated.append(index) }
        }
        let staying = Self.longestIncreasingRun(kept.map(\.old))
        moves = kept.enumerated().filter { !staying.contains($0.offset) }.map {
            Move(from: $0.element.old, to: $0.element.new)
        }
    }

    /// The positions in `values` of a longest strictly increasing subsequence (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values`, by run length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run: Set<Int> = []
        var position = tails.last ?? -1
        while position >= 0 {
            run.insert(position)
            position = previous[position]
        }
        return run
    }
}

extension InboxStore {
    /// A live view of the threads `filter` selects (its limit and offset included), sorted by `order`.
    public func view(namespace: String, filter: InboxFilter = InboxFilter(), order: ThreadOrder = .recentFirst)
        -> ThreadView
    {
        ThreadView(
            store: self, table: .threads,
            query: filter.query(
                over: .threads, namespace: namespace, order: order.columns, selecting: "t.id, t.revision"))
    }

    /// A live view of the messages `filter` selects (its limit and offset included), sorted by `order`.
    public func messageView(
        namespace: String, filter: InboxFilter = InboxFilter(), order: MessageOrder = .newestFirst
    ) -> MessageView {
        MessageView(
            store: self, table: .messages,
            query: filter.query(
                over: .messages, namespace: namespace, order: order.columns, selecting: "m.id, m.revision"))
    }
}
