import BinderyRuntime
import Foundation
import OneDrive
import Synchronization
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

    @Test(.enabled(if: tool != nil, "bindery must be built beside the tests"))
    func printsItsURLAndTokenIntoAPipeWhileItServes() async throws {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = ["mock", "--service", "onedrive", "--fixtures", FixtureTests.root.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        let output = Mutex("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
        }

        // Read what a script would read: the service URL and the token, from the pipe, while the mock runs.
        // Generous: under a loaded machine (the whole suite runs in parallel) the mock may take a while to start.
        let deadline = ContinuousClock.now + .seconds(120)
        var url: URL?
        var token: String?
        while ContinuousClock.now < deadline, url == nil || token == nil {
            let text = output.withLock { $0 }
            url = Self.value(after: "OneDrive mock on ", in: text).flatMap(URL.init(string:))
            token = Self.value(after: "a token it accepts: ", in: text)
            try await Task.sleep(for: .milliseconds(50))
        }
        let serviceURL = try #require(url, "no URL in the output: \(output.withLock { $0 })")
        let accepted = try #require(token, "no token in the output: \(output.withLock { $0 })")
        #expect(process.isRunning, "the mock is still serving")

        // And they work: the typed client lists the seeded drives through the printed URL with the printed token.
        let client = OneDriveClient(baseURL: serviceURL, auth: StaticTokenAuth(accepted), middleware: [])
        let drives = try await client.drives.request().get()
        #expect(!drives.value.isEmpty)
    }

    /// The rest of the line after `prefix`, once the whole line has arrived.
    static func value(after prefix: String, in text: String) -> String? {
        guard let start = text.range(of: prefix) else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: "\n") else { return nil }
        return String(rest[..<end]).trimmingCharacters(in: .whitespaces)
    }
}
