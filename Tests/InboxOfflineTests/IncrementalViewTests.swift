import BinderyRuntime
import Foundation
import GRDB
import Inbox
import Testing

@testable import InboxOffline

/// A view re-reads only the rows a commit touched and merges them into its previous rows; after random commits
/// over a real SQLite file its snapshots must equal those of a view that re-runs its whole query every time, and
/// both must equal the query's answer with `ChangeSet(from:to:)` between consecutive answers.
/// The time limit only guards against a hang: alone this takes about 10 s, under the whole suite on 2 cores it took
/// over 2 minutes once.
@Suite(.timeLimit(.minutes(6))) struct IncrementalViewTests {
    static let people = ["ann@example.com", "ben@example.com", "cy@example.org"]
    static let subjects: [JSONValue?] = ["Lunch", "lunch", "Report", "Ünïcode", "Zed", nil]
    static let tags = ["inbox", "unread", "starred"]

    @Test func incrementalUpdatesEqualAFullRequeryAfterRandomCommits() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-incremental-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try InboxStore(path: folder.appendingPathComponent("views.sqlite").path)
        var random = SeededRandom(seed: 2026)
        let seed = (0..<40).map { _ in Self.randomChange(&random) }
        try await store.database.write { db in for change in seed { try change(db) } }

        // Views the incremental path serves, and views that fall back (a filter reading the other table, a limit).
        var pairs: [any ViewPair] = [
            Pair<MailThread>(store, .threads, InboxFilter(), ThreadOrder.recentFirst.columns),
            Pair<MailThread>(store, .threads, InboxFilter(tag: "unread"), ThreadOrder.subject.columns),
            Pair<MailThread>(
                store, .threads, InboxFilter(anyEmail: "ann@example.com"), ThreadOrder.oldestFirst.columns),
            Pair<MailThread>(store, .threads, InboxFilter(from: "ben@example.com"), ThreadOrder.recentFirst.columns),
            Pair<MailThread>(store, .threads, InboxFilter(limit: 8, offset: 2), ThreadOrder.recentFirst.columns),
            Pair<Message>(store, .messages, InboxFilter(), MessageOrder.newestFirst.columns),
            Pair<Message>(store, .messages, InboxFilter(subject: "lunch"), MessageOrder.oldestFirst.columns),
            Pair<Message>(store, .messages, InboxFilter(to: "cy@example.org"), MessageOrder.subject.columns),
            Pair<Message>(store, .messages, InboxFilter(tag: "inbox"), MessageOrder.newestFirst.columns),
        ]
        for index in pairs.indices { _ = try await pairs[index].check(round: -1) }
        var snapshots = 0
        for round in 0..<120 {
            // Mostly small commits; now and then one larger than the re-read limit (a page of a first fetch).
            let count = round % 40 == 39 ? ViewFeed.rereadLimit + 20 : Int.random(in: 1...5, using: &random)
            let changes = (0..<count).map { _ in Self.randomChange(&random) }
            try await store.database.write { db in for change in changes { try change(db) } }
            for index in pairs.indices { snapshots += try await pairs[index].check(round: round) }
        }
        // The commits changed what the views show often enough to test something.
        #expect(snapshots > 400)
    }

    /// One random write as sync or the outbox makes it: a thread or a message saved (new or changed) or removed.
    static func randomChange(_ random: inout SeededRandom) -> @Sendable (Database) throws -> Void {
        let kind = Int.random(in: 0..<10, using: &random)
        let thread = "t\(Int.random(in: 0..<60, using: &random))"
        let message = "m\(Int.random(in: 0..<150, using: &random))"
        // Few distinct times, so that ties are broken by id; sometimes none (NULL sorts first).
        let time: JSONValue =
            Int.random(in: 0..<8, using: &random) == 0
            ? .null : .number(JSONNumber(1_400_000_000 + Int.random(in: 0..<12, using: &random)))
        var object: JSONObject = ["id": .string(kind < 5 ? thread : message)]
        if let subject = subjects.randomElement(using: &random)! { object["subject"] = subject }
        let person = JSONValue.string(people.randomElement(using: &random)!)
        let snippet = JSONValue.string("s\(Int.random(in: 0..<3, using: &random))")
        switch kind {
        case 0..<4:
            object["object"] = "thread"
            object["last_message_timestamp"] = time
            object["first_message_timestamp"] = time
            object["snippet"] = snippet
            object["participants"] = [["email": person]]
            object["tags"] = .array(tags.filter { _ in Bool.random(using: &random) }.map { ["id": .string($0)] })
            let saved = object
            return { db in try InboxRows.save(db, .thread, saved, namespace: "ns") }
        case 4: return { db in try InboxRows.remove(db, .thread, id: thread) }
        case 5..<9:
            object["object"] = "message"
            object["thread_id"] = .string(thread)
            object["date"] = time
            object["snippet"] = snippet
            object[["from", "to", "cc"].randomElement(using: &random)!] = [["email": person]]
            let saved = object
            return { db in try InboxRows.save(db, .message, saved, namespace: "ns") }
        default: return { db in try InboxRows.remove(db, .message, id: message) }
        }
    }
}

protocol ViewPair {
    /// Compares both views with the query's answer after a commit; returns 1 when the answer changed (and both
    /// views yielded a snapshot), else 0.
    mutating func check(round: Int) async throws -> Int
}

/// The same view twice, incremental and always re-querying, and the answer it last showed.
struct Pair<Item: JSONModel>: ViewPair {
    let store: InboxStore
    let table: FilteredTable
    let filter: InboxFilter
    let order: [SortColumn]
    var incremental: LiveView<Item>.Iterator
    var reference: LiveView<Item>.Iterator
    var shown: [ViewRow] = []

    init(_ store: InboxStore, _ table: FilteredTable, _ filter: InboxFilter, _ order: [SortColumn]) {
        self.store = store
        self.table = table
        self.filter = filter
        self.order = order
        let view = LiveView<Item>(store: store, table: table, filter: filter, namespace: "ns", order: order)
        var requerying = view
        requerying.alwaysRequery = true
        incremental = view.makeAsyncIterator()
        reference = requerying.makeAsyncIterator()
    }

    mutating func check(round: Int) async throws -> Int {
        let query = filter.query(
            over: table, namespace: "ns", order: order,
            selecting: ["id", "fingerprint", "json"].map { "\(table.alias).\($0)" }.joined(separator: ", "))
        let rows = try await store.database.read { db in
            try Row.fetchAll(db, sql: query.sql, arguments: query.arguments).map {
                (row: ViewRow(id: $0[0], fingerprint: $0[1]), json: $0[2] as String)
            }
        }
        let answer = rows.map(\.row)
        let expected = ChangeSet(from: shown, to: answer)
        // The first snapshot comes whatever it holds; later ones only when the answer changed.
        guard round < 0 || !expected.isEmpty else { return 0 }
        let fast = try #require(try await incremental.next())
        let slow = try #require(try await reference.next())
        let context = Comment(rawValue: "round \(round), \(table.name) \(filter) \(order)")
        #expect(fast.rows == answer, context)
        #expect(slow.rows == answer, context)
        if round >= 0 {
            #expect(fast.changes == expected, context)
            #expect(slow.changes == expected, context)
        }
        // The models kept from earlier snapshots are those of the rows' current JSON.
        #expect(fast.items.map { JSONValue.object($0.storage).jsonText } == rows.map(\.json), context)
        #expect(slow.items.map { JSONValue.object($0.storage).jsonText } == rows.map(\.json), context)
        shown = answer
        return 1
    }
}
