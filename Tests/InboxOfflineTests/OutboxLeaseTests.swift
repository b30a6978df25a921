import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import TestSupport
import Testing

/// Exactly-once sending when a send outlasts the outbox's lease: the holder renews its lease while the request
/// is in flight, so a second replaying process finds the queue busy instead of taking it over and sending again.
// The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
// wait a minute or more for a thread before its first line runs.
@Suite(.timeLimit(.minutes(5))) struct OutboxLeaseTests {
    /// Starts `inbox-offline-worker replay` with a one-second lease; returns the process and its output so far.
    static func replay(_ fixture: OfflineFixture) throws -> (ChildProcess, Capture) {
        let worker = try #require(CrashTests.worker, "inbox-offline-worker must be built beside the tests")
        let output = try Capture()
        let process = try ChildProcess(
            worker,
            [
                "replay", fixture.databasePath, fixture.mock.serviceURL.absoluteString,
                fixture.mock.identity.acceptedToken, OfflineFixture.namespace,
            ],
            environment: ProcessInfo.processInfo.environment.merging(["LEASE_SECONDS": "1"]) { $1 },
            output: .capture(output))
        return (process, output)
    }

    @Test func aSendThatOutlastsTheLeaseIsSentOnceThoughASecondProcessReplays() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        Mailbox.seed(fixture, threads: 3, seed: 7)
        fixture.mock.store.insert(
            ["object": "draft", "subject": "Offer", "version": 1], into: fixture.drafts, key: "d1", logged: false)
        try await fixture.sync.sync()
        let outbox = InboxOutbox(store: fixture.store, client: fixture.client, namespace: OfflineFixture.namespace)
        try await outbox.send(draft: "d1")
        // The service takes four seconds to answer the send: four times the lease.
        fixture.mock.inject(.slow(.seconds(4)), count: 1, pathContains: "/send")

        let (first, firstOutput) = try Self.replay(fixture)
        let sendArrived = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < sendArrived, !fixture.mock.requests.contains(where: { $0.path.hasSuffix("/send") })
        {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Past the lease's second: without renewal the second process would take the queue here.
        try await Task.sleep(for: .milliseconds(1_800))
        let (second, secondOutput) = try Self.replay(fixture)
        #expect(await second.ended() == .exited(0))
        #expect(await first.ended() == .exited(0))
        await secondOutput.finished()
        await firstOutput.finished()
        #expect(secondOutput.text.contains("replayed 0 busy"), "\(secondOutput.text)")
        #expect(firstOutput.text.contains("replayed 1"), "\(firstOutput.text)")
        let sends = fixture.mock.requests.filter { $0.path.hasSuffix("/send") }.count
        #expect(sends == 1, "one send request for one queued send")
        #expect(try outbox.pending().isEmpty)
    }
}
