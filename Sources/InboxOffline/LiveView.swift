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
/// One implementation serves both kinds: `Item` is `MailThread` (`ThreadView`) or `Message` (`MessageView`), and
/// the view reads that kind's table.
public struct LiveView<Item: JSONModel>: AsyncSequence, Sendable {
    public typealias Element = ViewSnapshot<Item>
    let store: InboxStore
    let table: FilteredTable
    let filter: InboxFilter
    let namespace: String
    let order: [SortColumn]
    /// Tests set it: every commit re-runs the whole query (the reference for the incremental path).
    var alwaysRequery = false

    public func makeAsyncIterator() -> Iterator { Iterator(view: self) }

    public struct Iterator: AsyncIteratorProtocol {
        let view: LiveView
        /// Starts observing on the first `next()`.
        var feed: ViewFeed?
        var updates: AsyncThrowingStream<ViewUpdate, any Error>.Iterator?
        /// The models of the last snapshot, index for index.
        var models: [Item] = []

        init(view: LiveView) { self.view = view }

        public mutating func next() async throws -> ViewSnapshot<Item>? {
            if updates == nil {
                let feed = ViewFeed(
                    table: view.table, filter: view.filter, namespace: view.namespace, order: view.order,
                    alwaysRequery: view.alwaysRequery)
                try await feed.start(in: view.store.database)
                self.feed = feed
                updates = feed.updates.makeAsyncIterator()
            }
            guard let update = try await updates?.next() else { return nil }
            switch update.models {
            case .rebuild(let sources):
                models = try sources.map(model)
            case .edit(let removing, let inserting):
                let added = try inserting.map { try model($0.source) }
                for index in removing.reversed() { models.remove(at: index) }
                for (model, entry) in zip(added, inserting) { models.insert(model, at: entry.at) }
            }
            return ViewSnapshot(items: models, rows: update.rows, changes: update.changes)
        }

        private func model(_ source: ViewUpdate.Source) throws -> Item {
            switch source {
            case .previous(let index): return models[index]
            case .json(let json): return try InboxStore.model(Item.self, json: json)
            }
        }
    }
}

/// A live list of threads.
public typealias ThreadView = LiveView<MailThread>
/// A live list of messages.
public typealias MessageView = LiveView<Message>

/// One row a view shows: its id and the fingerprint of its JSON (equal JSON, equal fingerprint).
public struct ViewRow: Hashable, Sendable {
    public var id: String
    public var fingerprint: Int64

    public init(id: String, fingerprint: Int64) {
        self.id = id
        self.fingerprint = fingerprint
    }
}

/// What a view shows now, and how it differs from what it showed before.
public struct ViewSnapshot<Item: JSONModel>: Sendable {
    /// The threads or messages, in the view's order.
    public var items: [Item]
    /// Their ids and fingerprints, index for index.
    public var rows: [ViewRow]
    public var changes: ChangeSet
}

extension ViewSnapshot where Item == MailThread {
    public var threads: [MailThread] { items }
}

extension ViewSnapshot where Item == Message {
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
        var inserted: [Int] = []
        var updated: [Int] = []
        let oldIndexOfNew = new.map { oldIndex[$0.id] ?? -1 }
        for (index, before) in oldIndexOfNew.enumerated() {
            if before < 0 {
                inserted.append(index)
            } else if old[before].fingerprint != new[index].fingerprint {
                updated.append(index)
            }
        }
        self.init(
            removed: old.indices.filter { newIndex[old[$0].id] == nil }, inserted: inserted, updated: updated,
            oldIndexOfNew: oldIndexOfNew)
    }

    /// The change set of rows already matched: `oldIndexOfNew` gives each new row's old index (-1 for an inserted
    /// one). The moves are the kept rows outside the longest run that kept its relative order.
    init(removed: [Int], inserted: [Int], updated: [Int], oldIndexOfNew: [Int]) {
        self.removed = removed
        self.inserted = inserted
        self.updated = updated
        var olds: [Int] = []
        var news: [Int] = []
        olds.reserveCapacity(oldIndexOfNew.count)
        news.reserveCapacity(oldIndexOfNew.count)
        for (index, before) in oldIndexOfNew.enumerated() where before >= 0 {
            olds.append(before)
            news.append(index)
        }
        let staying = Self.longestIncreasingRun(olds)
        moves = olds.indices.filter { !staying[$0] }.map { Move(from: olds[$0], to: news[$0]) }
    }

    /// Whether each position of `values` is in a longest strictly increasing subsequence (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []  // positions in `values`, by run length
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            // Mostly in order (a view after a small change): extending the longest run needs no search.
            if let last = tails.last, values[last] < value {
                previous[position] = last
                tails.append(position)
                continue
            }
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run = [Bool](repeating: false, count: values.count)
        var position = tails.last ?? -1
        while position >= 0 {
            run[position] = true
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
        ThreadView(store: self, table: .threads, filter: filter, namespace: namespace, order: order.columns)
    }

    /// A live view of the messages `filter` selects (its limit and offset included), sorted by `order`.
    public func messageView(
        namespace: String, filter: InboxFilter = InboxFilter(), order: MessageOrder = .newestFirst
    ) -> MessageView {
        MessageView(store: self, table: .messages, filter: filter, namespace: namespace, order: order.columns)
    }
}
