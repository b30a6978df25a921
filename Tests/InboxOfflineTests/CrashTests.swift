import BinderyMock
import BinderyRuntime
import Foundation
import GRDB
import Inbox
import InboxOffline
import TestSupport
import Testing

/// A child process syncs or replays against the mock server and is killed with SIGKILL at random points; the file
/// must then be sound, hold nothing twice, lose nothing committed, and resume.
@Suite(.timeLimit(.minutes(5))) struct CrashTests {
    static let worker = builtExecutable("inbox-offline-worker")

    @Test
    func syncKilledAtRandomPointsResumesToExactlyTheServersState() async throws {
        try #require(Self.worker != nil, "inbox-offline-worker must be built beside the tests")
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 800, seed: 31)
        // Ten children, each killed after 1 to 12 lines (a page or a delta round each). Some rounds first change
        // the server, so that children also die inside delta rounds and resume after changes; the others let a
        // child resume its predecessor's fetch where it stopped.
        var random = SeededRandom(seed: 32)
        var killedMidWork: [Bool] = []
        for round in 0..<10 {
            if round % 4 == 1 {
                for id in ids.shuffled(using: &random).prefix(100) {
                    if Int.random(in: 0..<10, using: &random) == 0 {
                        fixture.mock.store.remove(at: fixture.threads + [id])
                    } else {
                        _ = fixture.mock.store.update(
                            at: fixture.threads + [id], merging: ["snippet": .string("round \(round)")])
                    }
                }
            }
            let lines = Int.random(in: 1...12, using: &random)
            killedMidWork.append(try await runAndKill("sync", fixture, afterLines: lines))
            #expect(try fixture.store.integrityCheck() == ["ok"])
        }
        // Some child went on from its predecessor's page: its first listing after the cursor starts at an offset.
        let requests = fixture.mock.requests
        let resumed = zip(requests, requests.dropFirst()).contains { cursor, listing in
            cursor.path.hasSuffix("/latest_cursor") && Int(listing.queryValue("offset") ?? "0") ?? 0 > 0
        }
        #expect(resumed)
        // Resume in this process, then compare with the server, object by object.
        try await fixture.sync.sync()
        #expect(try fixture.store.integrityCheck() == ["ok"])
        let server = fixture.serverObjects(fixture.threads)
        #expect(try fixture.store.ids(of: .thread) == server.keys.sorted())
        for (id, object) in server where try fixture.store.thread(id)?.storage != object {
            Issue.record("thread \(id) differs from the server's")
        }
        #expect(try fixture.store.ids(of: .message) == fixture.serverObjects(fixture.messages).keys.sorted())
        try expectIndexRowsMatchJSON(fixture.store)
        // The children really died mid-work, not after finishing.
        #expect(killedMidWork.filter { $0 }.count >= 5)
    }

    @Test
    func replayKilledAtRandomPointsSendsEachDraftExactlyOnce() async throws {
        try #require(Self.worker != nil, "inbox-offline-worker must be built beside the tests")
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 60, seed: 41)
        let drafts = (0..<40).map { "d\($0)" }
        for draft in drafts {
            fixture.mock.store.insert(
                ["object": "draft", "subject": .string(draft), "version": 1], into: fixture.drafts, key: draft,
                logged: false)
        }
        try await fixture.sync.sync()
        let outbox = InboxOutbox(store: fixture.store, client: fixture.client, namespace: OfflineFixture.namespace)
        for (index, draft) in drafts.enumerated() {
            try await outbox.star(thread: ids[index])
            try await outbox.send(draft: draft)
            try await outbox.markRead(thread: ids[index + 1])
        }
        // 120 writes; each child is killed after 1 to 30 of them (and a pause), often in the middle of the next.
        var random = SeededRandom(seed: 42)
        var killedMidWork: [Bool] = []
        for _ in 0..<6 {
            killedMidWork.append(
                try await runAndKill(
                    "replay", fixture, afterLines: Int.random(in: 1...30, using: &random),
                    extraDelay: .microseconds(Int.random(in: 0..<3000, using: &random))))
            #expect(try fixture.store.integrityCheck() == ["ok"])
        }
        #expect(killedMidWork.filter { $0 }.count >= 3)
        var finishing = outbox
        finishing.initialBackoff = .zero
        let report = try await finishing.replay()
        #expect(report.retryAfter == nil && report.conflicts.isEmpty && report.refused.isEmpty)
        #expect(try outbox.pending().isEmpty)

        // Every draft became exactly one message, through exactly one send request.
        var sendsPerDraft: [String: Int] = [:]
        for request in fixture.mock.requests where request.path.hasSuffix("/send") {
            let draft = (try? JSONValue.parse(request.body))?["draft_id"]?.stringValue ?? "?"
            sendsPerDraft[draft, default: 0] += 1
        }
        #expect(sendsPerDraft == Dictionary(uniqueKeysWithValues: drafts.map { ($0, 1) }))
        for draft in drafts { #expect(fixture.mock.store.object(at: fixture.messages + [draft]) != nil) }
        // Every tag change reached the server.
        for index in drafts.indices {
            let tags = fixture.mock.store.object(at: fixture.threads + [ids[index]])?["tags"]?.arrayValue ?? []
            #expect(tags.contains { $0["id"] == "starred" })
        }
    }

    /// Starts the worker, waits for `afterLines` lines of output past `ready` (plus `extraDelay`), kills it with
    /// SIGKILL and returns whether it was still working when killed.
    func runAndKill(
        _ mode: String, _ fixture: OfflineFixture, afterLines: Int, extraDelay: Duration = .zero
    ) async throws -> Bool {
        let worker = try #require(Self.worker, "inbox-offline-worker must be built beside the tests")
        let output = try Capture()
        let process = try ChildProcess(
            worker,
            [
                mode, fixture.databasePath, fixture.mock.serviceURL.absoluteString,
                fixture.mock.identity.acceptedToken, OfflineFixture.namespace,
            ],
            output: .capture(output))
        while process.isRunning, output.bytes.count(where: { $0 == UInt8(ascii: "\n") }) < afterLines + 1 {
            try await Task.sleep(for: .milliseconds(1))
        }
        try await Task.sleep(for: extraDelay)
        process.signal(SIGKILL)
        return await process.ended() == .signalled(SIGKILL)
    }

    /// No index row is missing or repeated: each table's rows are exactly what the cached JSON implies.
    func expectIndexRowsMatchJSON(_ store: InboxStore) throws {
        try store.read { db in
            var expectedTags = 0
            for json in try String.fetchAll(db, sql: "SELECT json FROM threads") {
                let tags = (try JSONValue.parse(json))["tags"]?.arrayValue ?? []
                expectedTags += tags.map {
                    Set([$0["id"]?.scalarText?.lowercased(), $0["name"]?.scalarText?.lowercased()].compactMap { $0 })
                        .count
                }.reduce(0, +)
            }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM thread_tags") == expectedTags)
            let orphans = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM thread_tags WHERE thread_id NOT IN (SELECT id FROM threads)")
            #expect(orphans == 0)
        }
    }
}
