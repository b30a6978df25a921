import BinderyMock
import BinderyRuntime
import Foundation
import GRDB
import Inbox
import Synchronization
import Testing

@testable import InboxOffline

/// The first sync (paged fetch), cursor delta after it, deletions, lossless rows and idempotent rounds, over HTTP
/// against the mock server and into a real SQLite file.
@Suite struct SyncTests {
    @Test func firstSyncPagesThroughEverythingThenDeltaKeepsTheCacheEqualToTheServer() async throws {
        let fixture = try await OfflineFixture(pageSize: 100)
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 250, seed: 1)
        try await fixture.sync.sync()

        #expect(try fixture.store.ids(of: .thread) == ids.sorted())
        #expect(try fixture.store.ids(of: .message) == fixture.serverObjects(fixture.messages).keys.sorted())
        #expect(try fixture.store.ids(of: .namespace) == [OfflineFixture.namespace])
        // Offset paging, 100 a page: three pages of threads.
        let offsets = fixture.mock.requests.filter { $0.path.hasSuffix("/threads") }.map { $0.queryValue("offset") }
        #expect(offsets == [nil, "100", "200"])

        // Changes on the server: a modified, a new and a deleted thread, and a deleted message.
        let changed = fixture.mock.store.update(
            at: fixture.threads + [ids[0]],
            merging: ["subject": "Changed", "tags": [["id": "starred", "name": "starred"]]])
        fixture.mock.store.insert(
            ["object": "thread", "subject": "New", "last_message_timestamp": 1_500_000_000], into: fixture.threads,
            key: "fresh")
        fixture.mock.store.remove(at: fixture.threads + [ids[1]])
        fixture.mock.store.remove(at: fixture.messages + ["\(ids[2])-m0"])
        fixture.mock.clearRequests()
        try await fixture.sync.sync()

        // Only delta requests: the first fetch is not repeated.
        #expect(fixture.mock.requests.allSatisfy { $0.path.hasSuffix("/delta") })
        let server = fixture.serverObjects(fixture.threads)
        #expect(try fixture.store.ids(of: .thread) == server.keys.sorted())
        for (id, object) in server { #expect(try fixture.store.thread(id)?.storage == object, "thread \(id)") }
        #expect(try fixture.store.thread(ids[0])?.subject == changed?["subject"]?.stringValue)
        #expect(try fixture.store.thread(ids[1]) == nil)
        #expect(try fixture.store.message("\(ids[2])-m0") == nil)
        // The index rows follow the JSON: the changed thread is found by its new tag only.
        #expect(try fixture.store.threads(namespace: "ns", matching: .starred).map(\.id).contains(ids[0]))
        #expect(!(try fixture.store.threads(namespace: "ns", matching: .unread).map(\.id).contains(ids[0])))
        #expect(try fixture.store.cursor(namespace: "ns") == MockCursor.text(fixture.mock.store.latestSequence))
    }

    @Test func aDeletionWhileTheFirstFetchPagesLosesNothing() async throws {
        let fixture = try await OfflineFixture(pageSize: 50)
        defer { Task { await fixture.stop() } }
        Mailbox.seed(fixture, threads: 200, seed: 5)
        // After the first page of threads, the newest thread goes: every later page shifts by one, and the
        // thread that was first on page two is now last on page one, which was already read.
        let deleted = Mutex(false)
        let mock = fixture.mock
        let threads = fixture.threads
        try await fixture.sync.sync { progress in
            guard progress.phase == "fetch threads", !deleted.withLock({ $0 }) else { return }
            deleted.withLock { $0 = true }
            let listed = mock.store.items(in: threads).max {
                ($0.object["last_message_timestamp"]?.int64 ?? 0) < ($1.object["last_message_timestamp"]?.int64 ?? 0)
            }
            if let newest = listed?.key { mock.store.remove(at: threads + [newest]) }
        }
        #expect(deleted.withLock { $0 })
        #expect(try fixture.store.ids(of: .thread) == fixture.serverObjects(fixture.threads).keys.sorted())
    }

    @Test func rowsKeepTheModelsJSONLosslessly() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let wire =
            #"{"id":"t1","object":"thread","subject":"Ünïcode \"quoted\"","last_message_timestamp":1400000000,"#
            + #""x_score":1.50,"x_big":12345678901234567890,"x_nested":{"b":[1,null,true],"a":"z"},"tags":[]}"#
        guard case .object(let object) = try JSONValue.parse(wire) else {
            throw BinderyError(kind: .decoding, message: "")
        }
        fixture.mock.store.insert(object, into: fixture.threads, logged: false)
        try await fixture.sync.sync()
        let cached = try #require(try fixture.store.thread("t1"))
        // Member order, number text and unknown members survive: the row re-encodes to the wire text.
        #expect(JSONValue.object(cached.storage).jsonText == JSONValue.object(object).jsonText)
        #expect(cached.additionalData["x_score"] == .number(JSONNumber(unchecked: "1.50")))
    }

    @Test func applyingTheSameRoundsAgainChangesNothing() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 20, seed: 2)
        try await fixture.sync.sync()
        let before = try fixture.store.cursor(namespace: "ns")
        for (index, id) in ids.prefix(10).enumerated() {
            if index % 3 == 0 {
                fixture.mock.store.remove(at: fixture.threads + [id])
            } else {
                _ = fixture.mock.store.update(at: fixture.threads + [id], merging: ["snippet": .string("v\(index)")])
            }
        }
        Mailbox.seed(fixture, threads: 5, seed: 3, logged: true)
        try await fixture.sync.sync()
        let once = try dump(fixture.store)

        // Rewind the cursor, as a crash between a round's request and its commit would: the rounds come again.
        try await fixture.store.database.write { db in
            try SyncState.write(db, namespace: "ns", cursor: before, fetched: true)
        }
        let replayed = try await fixture.sync.sync()
        #expect(replayed > 0)
        #expect(try dump(fixture.store) == once)
    }

    @Test func longpollBringsAChangeAsItHappens() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        Mailbox.seed(fixture, threads: 3, seed: 4)
        try await fixture.sync.sync()
        // The change lands while the longpoll waits (the mock holds it up to 30 s, polling its log). The pause
        // only makes that likely; a change made before the longpoll arrives is answered at once, just the same.
        let waiting = Task { try await fixture.sync.waitForChanges(timeout: 30) }
        try await Task.sleep(for: .milliseconds(200))
        fixture.mock.store.insert(
            ["object": "thread", "subject": "Realtime", "last_message_timestamp": 1_500_000_000],
            into: fixture.threads, key: "live")
        #expect(try await waiting.value >= 1)
        #expect(try fixture.store.thread("live")?.subject == "Realtime")
        #expect(try fixture.store.cursor(namespace: "ns") == MockCursor.text(fixture.mock.store.latestSequence))
    }

    /// Every row of every table, as text.
    func dump(_ store: InboxStore) throws -> [String] {
        try store.database.read { db in
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            return try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { "\(table) \($0)" }.sorted()
            }
        }
    }
}
