import BinderyMock
import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import Synchronization
import Testing

/// Offline writes: applied to the cache at once, queued, replayed in order when the service answers, sends exactly
/// once, stale draft versions reported as conflicts.
@Suite struct OutboxTests {
    /// A client that cannot reach anything: port 1 on the loopback refuses connections.
    static let unreachable = InboxClient(
        baseURL: URL(string: "http://127.0.0.1:1")!, auth: InboxSignIn.auth(token: "t"), middleware: [])

    func outbox(_ fixture: OfflineFixture, client: InboxClient? = nil) -> InboxOutbox {
        var outbox = InboxOutbox(
            store: fixture.store, client: client ?? fixture.client, namespace: OfflineFixture.namespace)
        outbox.initialBackoff = .zero
        return outbox
    }

    func seedDraft(_ fixture: OfflineFixture, _ id: String, version: Int) {
        fixture.mock.store.insert(
            [
                "object": "draft", "thread_id": "t-x", "subject": .string("Draft \(id)"),
                "version": .number(JSONNumber(version)),
            ],
            into: fixture.drafts, key: id, logged: false)
    }

    @Test func writesApplyAtOnceQueueOfflineAndReplayInOrder() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 5, seed: 21)
        seedDraft(fixture, "d1", version: 2)
        try await fixture.sync.sync()

        let offline = outbox(fixture, client: Self.unreachable)
        try await offline.star(thread: ids[0])
        try await offline.archive(thread: ids[0])
        try await offline.markUnread(thread: ids[1])
        try await offline.send(draft: "d1")
        // The cache shows the writes before the service has seen any of them.
        let starred = try fixture.store.thread(ids[0])?.tags?.compactMap(\.id) ?? []
        #expect(starred.contains("starred") && starred.contains("archive") && !starred.contains("inbox"))
        #expect(try fixture.store.draft("d1") == nil)
        #expect(try offline.pending().map(\.operation) == [.changeTags, .changeTags, .changeTags, .send])

        // Offline, nothing is lost: the first write waits with its error.
        let failed = try await offline.replay()
        #expect(failed.retryAfter != nil && failed.completed.isEmpty)
        #expect(try offline.pending().count == 4)
        #expect(try offline.pending().first?.lastError != nil)

        // Back online: replayed in order, exactly the queued requests.
        let report = try await outbox(fixture).replay()
        #expect(report.completed.count == 4 && report.retryAfter == nil)
        #expect(try outbox(fixture).pending().isEmpty)
        let writes = fixture.mock.requests.filter { $0.method != "GET" && !$0.path.contains("/delta") }.map {
            "\($0.method) \($0.path)"
        }
        #expect(
            writes == [
                "PUT /n/ns/threads/\(ids[0])", "PUT /n/ns/threads/\(ids[0])", "PUT /n/ns/threads/\(ids[1])",
                "POST /n/ns/send",
            ])
        let serverTags = fixture.mock.store.object(at: fixture.threads + [ids[0]])?["tags"]?.arrayValue ?? []
        #expect(serverTags.contains { $0["id"] == "starred" } && !serverTags.contains { $0["id"] == "inbox" })
        #expect(fixture.mock.store.object(at: fixture.messages + ["d1"]) != nil)
        #expect(try fixture.store.message("d1") != nil)
    }

    @Test func aSendWhoseAnswerWasLostIsConfirmedNotRepeated() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        seedDraft(fixture, "d1", version: 1)
        try await fixture.sync.sync()
        try await outbox(fixture).send(draft: "d1")

        // The request reaches the service, then the answer is lost (a timeout).
        let losing = InboxClient(
            baseURL: fixture.mock.serviceURL, auth: InboxSignIn.auth(token: fixture.mock.identity.acceptedToken),
            transport: AnswerLosingTransport(), middleware: [])
        let lost = try await outbox(fixture, client: losing).replay()
        #expect(lost.retryAfter != nil)
        #expect(try outbox(fixture).pending().first?.inFlight == true)

        let report = try await outbox(fixture).replay()
        #expect(report.completed.map(\.targetID) == ["d1"])
        let sends = fixture.mock.requests.filter { $0.path.hasSuffix("/send") }
        #expect(sends.count == 1, "sent once, confirmed once")
        #expect(try outbox(fixture).pending().isEmpty)
    }

    @Test func twoReplaysAtOnceSendEachDraftOnce() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let drafts = (0..<8).map { "d\($0)" }
        for draft in drafts { seedDraft(fixture, draft, version: 1) }
        try await fixture.sync.sync()
        for draft in drafts { try await outbox(fixture).send(draft: draft) }
        // Slow sends keep the first replay busy while the second asks for the queue.
        fixture.mock.inject(.slow(.milliseconds(30)), count: drafts.count, pathContains: "/send")
        async let first = outbox(fixture).replay()
        async let second = outbox(fixture).replay()
        let reports = try await [first, second]
        #expect(reports.filter(\.busy).count == 1)
        #expect(reports.flatMap(\.completed).map(\.targetID).sorted() == drafts)
        let sends = fixture.mock.requests.filter { $0.path.hasSuffix("/send") }
        #expect(sends.count == drafts.count)
        // The lease is given back: a later replay is not busy.
        #expect(try await outbox(fixture).replay().busy == false)
    }

    @Test func aStaleDraftVersionIsAConflictAndRefreshesTheDraft() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        seedDraft(fixture, "d1", version: 2)
        try await fixture.sync.sync()
        // Edited elsewhere meanwhile: version 3 on the server.
        _ = fixture.mock.store.update(at: fixture.drafts + ["d1"], merging: ["version": 3, "subject": "Edited"])
        try await outbox(fixture).send(draft: "d1")
        let report = try await outbox(fixture).replay()
        #expect(report.conflicts.map(\.draftID) == ["d1"])
        #expect(report.conflicts.first?.serverVersion == 3)
        #expect(try fixture.store.draft("d1")?.version == 3)
        #expect(try fixture.store.draft("d1")?.subject == "Edited")
        #expect(fixture.mock.store.object(at: fixture.messages + ["d1"]) == nil)
        #expect(try outbox(fixture).pending().isEmpty)
    }

    @Test func aRefusedWriteIsDroppedAndTheServersStateRestored() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 2, seed: 22)
        try await fixture.sync.sync()
        try await outbox(fixture).star(thread: ids[0])
        try await outbox(fixture).deleteDraft("nowhere", version: 1)
        fixture.mock.store.remove(at: fixture.threads + [ids[0]])
        let report = try await outbox(fixture).replay()
        #expect(report.refused.map(\.write.targetID) == [ids[0]])
        // Deleting a draft that is already gone is what the write wanted.
        #expect(report.completed.map(\.targetID) == ["nowhere"])
        #expect(try outbox(fixture).pending().isEmpty)
    }
}

/// Sends each request for real, then loses the answer of the first `send`: the request left, the caller never
/// learns how it ended.
final class AnswerLosingTransport: HTTPTransport {
    private let lost = Mutex(false)

    func send(_ request: TransportRequest) async throws -> APIResponse {
        let response = try await DefaultTransport.shared.send(request)
        let loseIt = lost.withLock { alreadyLost in
            guard request.head.path?.hasSuffix("/send") == true, !alreadyLost else { return false }
            alreadyLost = true
            return true
        }
        if loseIt { throw BinderyError(kind: .timeout, message: "the answer was lost") }
        return response
    }
}

/// Drafts written offline: created under a local id, replaced at their version, and every later write follows
/// the id and version the service gives them.
@Suite struct OfflineDraftTests {
    func outbox(_ fixture: OfflineFixture, client: InboxClient? = nil) -> InboxOutbox {
        var outbox = InboxOutbox(
            store: fixture.store, client: client ?? fixture.client, namespace: OfflineFixture.namespace)
        outbox.initialBackoff = .zero
        return outbox
    }

    func writes(_ fixture: OfflineFixture) -> [String] {
        fixture.mock.requests.filter { $0.method != "GET" }.map { "\($0.method) \($0.path)" }
    }

    @Test func aDraftWrittenOfflineIsCreatedReplacedAndSentUnderTheServiceID() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        try await fixture.sync.sync()
        let offline = outbox(fixture, client: OutboxTests.unreachable)
        var draft = Draft(storage: [:])
        draft.subject = "Plan"
        draft.body = "<p>first</p>"
        let local = try await offline.saveDraft(draft)
        #expect(local.hasPrefix(InboxOutbox.localDraftPrefix))
        var edited = try #require(try fixture.store.draft(local))
        #expect(edited.subject == "Plan")
        edited.subject = "Plan, take two"
        #expect(try await offline.saveDraft(edited) == local)
        try await offline.send(draft: local)
        #expect(try offline.pending().map(\.operation) == [.saveDraft, .saveDraft, .send])
        #expect(try await offline.replay().retryAfter != nil)

        fixture.mock.clearRequests()
        let report = try await outbox(fixture).replay()
        #expect(report.completed.count == 3 && report.conflicts.isEmpty && report.refused.isEmpty, "\(report)")
        let created = try #require(fixture.mock.requests.first { $0.method == "POST" }?.path)
        #expect(created == "/n/ns/drafts")
        let sent = try #require(fixture.serverObjects(fixture.messages).first)
        #expect(!sent.key.hasPrefix(InboxOutbox.localDraftPrefix))
        #expect(writes(fixture) == ["POST /n/ns/drafts", "PUT /n/ns/drafts/\(sent.key)", "POST /n/ns/send"])
        // The replace went at the version the create gave, the send at the one the replace gave.
        #expect(fixture.mock.requests.first { $0.method == "PUT" }?.json?["version"] == 0)
        #expect(fixture.mock.requests.last?.json?["version"] == 1)
        #expect(sent.value["subject"] == "Plan, take two" && sent.value["body"] == "<p>first</p>")
        #expect(fixture.serverObjects(fixture.drafts).isEmpty)
        #expect(try fixture.store.draft(local) == nil)
        #expect(try fixture.store.message(sent.key)?.subject == "Plan, take two")
        #expect(try outbox(fixture).pending().isEmpty)
    }

    @Test func aCreateWhoseAnswerWasLostIsFoundNotMadeTwice() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        try await fixture.sync.sync()
        var draft = Draft(storage: [:])
        draft.subject = "Once"
        let local = try await outbox(fixture).saveDraft(draft)
        // The service creates the draft, then the connection drops before the answer.
        fixture.mock.inject(.reset, count: 1, pathContains: "/drafts")
        let first = try await outbox(fixture).replay()
        #expect(first.retryAfter != nil && first.completed.isEmpty)
        #expect(fixture.serverObjects(fixture.drafts).count == 1)

        let second = try await outbox(fixture).replay()
        #expect(second.completed.map(\.operation) == [.saveDraft])
        let drafts = fixture.serverObjects(fixture.drafts)
        #expect(drafts.count == 1, "the draft was found on the server, not created again")
        #expect(writes(fixture).filter { $0 == "POST /n/ns/drafts" }.count == 1)
        let id = try #require(drafts.keys.first)
        #expect(try fixture.store.draft(id)?.subject == "Once")
        #expect(try fixture.store.draft(local) == nil)
    }

    @Test func aReplaceAtAStaleVersionIsAConflictAndOneTheServiceRefusesIsUndone() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        fixture.mock.store.insert(
            ["object": "draft", "subject": "Old", "version": 2], into: fixture.drafts, key: "d1", logged: false)
        try await fixture.sync.sync()
        var draft = try #require(try fixture.store.draft("d1"))
        draft.subject = "Mine"
        try await outbox(fixture).saveDraft(draft)
        #expect(try fixture.store.draft("d1")?.subject == "Mine")
        // Someone else edits it first.
        _ = fixture.mock.store.update(at: fixture.drafts + ["d1"], merging: ["version": 3, "subject": "Theirs"])
        let report = try await outbox(fixture).replay()
        #expect(report.conflicts.map(\.draftID) == ["d1"] && report.conflicts.first?.serverVersion == 3)
        #expect(try fixture.store.draft("d1")?.subject == "Theirs")

        // A new draft the service refuses: it leaves the cache, and so does the send that named it.
        var refused = Draft(storage: [:])
        refused.subject = "Refused"
        let local = try await outbox(fixture).saveDraft(refused)
        try await outbox(fixture).send(draft: local)
        fixture.mock.inject(.status(400), count: 1, pathContains: "/drafts")
        let undone = try await outbox(fixture).replay()
        #expect(undone.refused.map(\.write.operation) == [.saveDraft])
        #expect(try fixture.store.draft(local) == nil)
        #expect(try outbox(fixture).pending().isEmpty)
        #expect(!writes(fixture).contains("POST /n/ns/send"))
    }
}
