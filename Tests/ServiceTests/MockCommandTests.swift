import BinderyRuntime
import Foundation
import OneDrive
import Synchronization
import TestSupport
import Testing

/// `bindery mock` as a script runs it: its output is a pipe, and the script waits for the URL and the token before
/// it sends anything. They must arrive while the server runs, not when it exits.
@Suite struct MockCommandTests {
    /// The built `bindery`, beside the test bundle in the build folder.
    static let tool: URL? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("bindery")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    /// A running `bindery mock` and everything it has printed so far.
    final class Launched: Sendable {
        let process: ChildProcess
        let output: Capture

        init(_ arguments: [String]) throws {
            let tool = try #require(MockCommandTests.tool, "bindery must be built beside the tests")
            output = try Capture()
            process = try ChildProcess(tool, arguments, output: .capture(output))
        }

        var text: String { output.text }

        /// Waits for the whole banner (it ends with the line on stopping). Generous: under a loaded machine (the
        /// whole suite runs in parallel) the mock may take a while to start.
        func banner() async throws -> String {
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline, !text.contains("Ctrl-C stops it.") {
                try await Task.sleep(for: .milliseconds(50))
            }
            return text
        }

        /// Asks the mock to stop; the child's own thread reaps it, so nothing here blocks.
        func stop() { process.signal(SIGTERM) }
    }

    @Test
    func printsItsURLAndTokenIntoAPipeWhileItServes() async throws {
        try #require(Self.tool != nil, "bindery must be built beside the tests")
        let mock = try Launched(["mock", "--service", "onedrive", "--fixtures", FixtureTests.root.path])
        defer { mock.stop() }

        // Read what a script would read: the service URL and the token, from the pipe, while the mock runs.
        let deadline = ContinuousClock.now + .seconds(120)
        var url: URL?
        var token: String?
        while ContinuousClock.now < deadline, url == nil || token == nil {
            let text = mock.text
            url = Self.value(after: "OneDrive mock on ", in: text).flatMap(URL.init(string:))
            token = Self.value(after: "a token it accepts: ", in: text)
            try await Task.sleep(for: .milliseconds(50))
        }
        let serviceURL = try #require(url, "no URL in the output: \(mock.text)")
        let accepted = try #require(token, "no token in the output: \(mock.text)")
        #expect(mock.process.isRunning, "the mock is still serving")

        // And they work: the typed client lists the seeded drives through the printed URL with the printed token,
        // and the sample's root (issue 20: it was a 404).
        let client = OneDriveClient(baseURL: serviceURL, auth: StaticTokenAuth(accepted), middleware: [])
        let drives = try await client.drives.request().get()
        #expect(drives.value.contains { $0.id == "sample-drive" })
        let root = try await client.me.drive.root.children.request().get()
        #expect(root.value.map(\.name) == ["Documents", "Photos", "Welcome.txt"])
    }

    static let curl = "/usr/bin/curl"

    /// The banner's `curl` commands, run as printed by a shell: each answers 200 with something in it.
    @Test(arguments: ["onedrive", "onenote", "graph", "spark", "inbox"])
    func theBannersCurlCommandsWorkAsPrinted(_ service: String) async throws {
        try #require(
            Self.tool != nil && FileManager.default.isExecutableFile(atPath: Self.curl),
            "bindery must be built and curl installed (make setup)")
        let mock = try Launched(["mock", "--service", service, "--fixtures", FixtureTests.root.path])
        defer { mock.stop() }
        let banner = try await mock.banner()
        #expect(banner.contains("Sample: "))
        let commands = banner.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("curl ") }
        #expect(commands.count >= 4, "the banner shows the sample's paths: \(banner)")
        for command in commands {
            // The status on a line of its own after the body.
            let (status, body) = try await Self.shell("curl -s -w '\\n%{http_code}' " + command.dropFirst(5))
            #expect(status == "200", "\(command) answered \(status)")
            #expect(MockSampleTests.holdsSomething(Array(body.utf8)), "\(command) answered \(body)")
        }
    }

    /// `--no-sample` serves the fixtures alone, as before the sample: no sample in the banner or the store.
    @Test
    func noSampleServesTheFixturesAlone() async throws {
        try #require(Self.tool != nil, "bindery must be built beside the tests")
        let mock = try Launched(["mock", "--service", "onedrive", "--fixtures", FixtureTests.root.path, "--no-sample"])
        defer { mock.stop() }
        let banner = try await mock.banner()
        #expect(!banner.contains("Sample: "))
        let url = try #require(Self.value(after: "OneDrive mock on ", in: banner).flatMap(URL.init(string:)))
        let token = try #require(Self.value(after: "a token it accepts: ", in: banner))
        let client = OneDriveClient(baseURL: url, auth: StaticTokenAuth(token), middleware: [])
        let drives = try await client.drives.request().get().value.compactMap(\.id)
        #expect(!drives.isEmpty, "the fixtures' drives")
        #expect(!drives.contains("sample-drive"))
    }

    /// Runs `command` with `sh -c`: the last line of its output, and the lines before it.
    static func shell(_ command: String) async throws -> (last: String, rest: String) {
        let text = try await runToEnd(URL(fileURLWithPath: "/bin/sh"), ["-c", command]).output
        let last = text.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return (last, String(text.dropLast(last.count)))
    }

    /// The rest of the line after `prefix`, once the whole line has arrived.
    static func value(after prefix: String, in text: String) -> String? {
        guard let start = text.range(of: prefix) else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "\n") else { return nil }
        return String(rest[..<end]).trimmingCharacters(in: .whitespaces)
    }
}
