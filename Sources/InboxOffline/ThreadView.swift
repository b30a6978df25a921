import BinderyRuntime
import GRDB
import Inbox

/// A live list of threads: a filter, a sort order and a limit over the cache. Iterating it yields the current
/// snapshot first (everything inserted), then a new snapshot with its change set whenever a commit (a delta
/// round, a local write) changes what the view shows. Commits that leave the view as it was yield nothing.
///
/// ```swift
/// for try await snapshot in store.view(namespace: "ns", filter: .unread) {
///     table.apply(snapshot.changes)   // removed, inserted, updated and moved row indexes
/// }
/// ```
public struct ThreadView: AsyncSequence, Sendable {
    public typealias Element = ViewSnapshot
    let store: InboxStore
    let query: (sql: String, arguments: StatementArguments)

    public func makeAsyncIterator() -> Iterator {
        let query = query
        let observation = ValueObservation.tracking { db in
            try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map {
                ViewRow(id: $0["id"], json: $0["json"])
            }
        }.removeDuplicates()
        return Iterator(rows: observation.values(in: store.database, scheduling: .task).makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var rows: AsyncValueObservation<[ViewRow]>.Iterator
        var previous: [ViewRow]?
        var models: [ViewRow: MailThread] = [:]

        public mutating func next() async throws -> ViewSnapshot? {
            while let current = try await rows.next() {
                let changes = ChangeSet(from: previous ?? [], to: current)
                let isFirst = previous == nil
                previous = current
                guard isFirst || !changes.isEmpty else { continue }
                // A row whose JSON did not change keeps its decoded model.
                var decoded: [ViewRow: MailThread] = [:]
                var threads: [MailThread] = []
                threads.reserveCapacity(current.count)
                for row in current {
                    let model = try models[row] ?? InboxStore.model(MailThread.self, json: row.json)
                    decoded[row] = model
                    threads.append(model)
                }
                models = decoded
                return ViewSnapshot(threads: threads, changes: changes)
            }
            return nil
        }
    }
}

/// One row a view shows: a thread's id and JSON.
public struct ViewRow: Hashable, Sendable {
    public var id: String
    public var json: String

    public init(id: String, json: String) {
        self.id = id
        self.json = json
    }
}

/// What a view shows now, and how it differs from what it showed before.
public struct ViewSnapshot: Sendable {
    public var threads: [MailThread]
    public var changes: ChangeSet
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

    /// The changes that turn `old` into `new`. Rows are the same thread when their ids are equal; the fewest
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
            if old[before].json != row.json { updated.append(index) }
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
        ThreadView(store: self, query: filter.sql(namespace: namespace, order: order))
    }
}
