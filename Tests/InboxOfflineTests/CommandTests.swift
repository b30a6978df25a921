import BinderyMock
import Foundation
import InboxOffline
import TestSupport
import Testing

/// `bindery inbox sync` fills a file from the mock; `bindery inbox list` answers from the file alone.
@Suite struct CommandTests {
    static let tool = builtExecutable("bindery")

    @Test
    func syncThenListOffline() async throws {
        try #require(Self.tool != nil, "bindery must be built beside the tests")
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        Mailbox.seed(fixture, threads: 30, seed: 51)
        let synced = try await run([
            "inbox", "sync", "--db", fixture.databasePath, "--url", fixture.mock.serviceURL.absoluteString,
            "--token", fixture.mock.identity.acceptedToken, "--namespace", OfflineFixture.namespace,
        ])
        #expect(synced.status == 0, "\(synced.output)")
        #expect(synced.output.contains("fetch threads"))
        await fixture.mock.stop()

        // The server is gone: the list comes from the file.
        let listed = try await run([
            "inbox", "list", "--db", fixture.databasePath, "--namespace", OfflineFixture.namespace,
            "--filter", "tag=unread", "--filter", "limit=5",
        ])
        #expect(listed.status == 0, "\(listed.output)")
        let expected = try fixture.store.threads(
            namespace: OfflineFixture.namespace, matching: InboxFilter(tag: "unread", limit: 5))
        let shownIDs = listed.output.split(separator: "\n").dropLast().map { $0.split(separator: " ")[1] }
        #expect(shownIDs.map(String.init) == expected.compactMap(\.id))
        #expect(!expected.isEmpty)

        // Messages: newest first, a thread's tag applies to its messages.
        let messages = try await run([
            "inbox", "list", "--db", fixture.databasePath, "--namespace", OfflineFixture.namespace, "--messages",
            "--filter", "tag=inbox", "--filter", "from=ann@example.com",
        ])
        #expect(messages.status == 0, "\(messages.output)")
        let expectedMessages = try fixture.store.messages(
            namespace: OfflineFixture.namespace, matching: InboxFilter(from: "ann@example.com", tag: "inbox"))
        let messageLines = messages.output.split(separator: "\n")
        #expect(
            messageLines.dropLast().map { String($0.split(separator: " ")[1]) } == expectedMessages.compactMap(\.id))
        #expect(messageLines.last == "\(expectedMessages.count) messages" && expectedMessages.count > 1)
        #expect(messageLines.first?.hasSuffix("<ann@example.com>") == true)

        let refused = try await run([
            "inbox", "list", "--db", fixture.databasePath, "--namespace", "ns", "--filter", "x=1",
        ])
        #expect(refused.status != 0 && refused.output.contains("unknown filter x"))
    }

    /// Runs `bindery` without blocking a thread of the shared pool while it works (other suites run meanwhile).
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let tool = try #require(Self.tool, "bindery must be built beside the tests")
        let run = try await ChildProcess.run(tool, arguments, mergingErrors: true)
        return (run.ending.status, run.output)
    }
}
