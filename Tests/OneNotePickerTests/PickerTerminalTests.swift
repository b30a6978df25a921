import BinderyMock
import BinderyServiceMocks
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `bindery onenote pick` on a pseudo-terminal the test opens: keys typed, the screen read back at each step, and
/// the terminal's settings and normal screen back once the program ends, however it ends.
@Suite(.serialized) struct PickerTerminalTests {
    /// The `bindery` the build put beside the test bundle.
    static let bindery: URL? = sequence(
        first: URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    ) { $0.deletingLastPathComponent() }
    .prefix(4)
    .map { $0.appendingPathComponent("bindery") }
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static let notebooks = [
        OneNoteMockFolder(
            id: "nb-work", name: "Work", sections: ["Meetings", "Budget"],
            groups: [OneNoteMockFolder(id: "g-projects", name: "Projects", sections: ["Meeting notes", "Plan"])]),
        OneNoteMockFolder(id: "nb-home", name: "Home", sections: ["Recipes"]),
    ]

    /// The picker running on its own pseudo-terminal against its own mock.
    struct Run {
        let mock: MockServer
        let terminal: PseudoTerminal
        let process: ChildProcess
        /// The terminal's settings before the program started.
        let before: termios

        func close() {
            terminal.close()
            Task { await mock.stop() }
        }
    }

    /// Starts `bindery onenote pick` on a new pseudo-terminal against a mock seeded with `notebooks`, two items a
    /// page; `prepare` can inject faults first.
    func start(
        columns: Int = 80, rows: Int = 24, environment: [String: String] = [:],
        prepare: (MockServer) -> Void = { _ in }
    ) async throws -> Run {
        let tool = try #require(Self.bindery, "bindery must be built beside the tests (swift build)")
        let mock = try await oneNoteMock(Self.notebooks)
        prepare(mock)
        let terminal = try PseudoTerminal(columns: columns, rows: rows)
        let before = terminal.attributes
        var inherited = ProcessInfo.processInfo.environment
        inherited["NO_COLOR"] = nil
        inherited["TERM"] = "xterm-256color"
        let process = try terminal.run(
            tool, Self.arguments(mock), environment: inherited.merging(environment) { $1 })
        return Run(mock: mock, terminal: terminal, process: process, before: before)
    }

    /// `bindery onenote pick` against `mock`, two items a page, with instructions.
    static func arguments(_ mock: MockServer, json: Bool = false) -> [String] {
        [
            "onenote", "pick", "--base-url", mock.serviceURL.absoluteString, "--token", mock.identity.acceptedToken,
            "--instructions", "Choose a section for the test", "--page-size", "2",
        ] + (json ? ["--json"] : [])
    }

    /// Waits for the program to end and returns its exit status.
    func exitStatus(_ process: ChildProcess) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.signal(SIGKILL)
                Issue.record("the picker did not exit")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return await process.ended().status
    }

    /// The program left the alternate screen after it last entered it, showed the cursor, and put the terminal's
    /// settings back as they were before it started.
    func expectRestored(
        _ terminal: PseudoTerminal, as before: termios, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let output = terminal.output
        let entered = output.range(of: "\u{1B}[?1049h", options: .backwards)
        let left = output.range(of: "\u{1B}[?1049l", options: .backwards)
        #expect(entered != nil, "it used the alternate screen", sourceLocation: sourceLocation)
        if let entered, let left {
            #expect(left.lowerBound > entered.lowerBound, "back on the normal screen", sourceLocation: sourceLocation)
        } else {
            Issue.record("it never left the alternate screen", sourceLocation: sourceLocation)
        }
        #expect(output.contains("\u{1B}[?25h"), "cursor shown", sourceLocation: sourceLocation)
        let after = terminal.attributes
        #expect(after.c_lflag == before.c_lflag, "echo and line editing back", sourceLocation: sourceLocation)
        #expect(after.c_iflag == before.c_iflag && after.c_oflag == before.c_oflag, sourceLocation: sourceLocation)
    }

    @Test func opensANotebookSearchesAndPicksThenRestoresTheTerminal() async throws {
        let run = try await start()
        defer { run.close() }
        let (terminal, process) = (run.terminal, run.process)

        var screen = try await terminal.waitFor("the notebooks") { $0.contains("> Work/") && $0.contains("  Home/") }
        #expect(screen.isAlternate)
        #expect(screen.rows[0].hasPrefix("OneNote"))
        #expect(screen.rows[1] == "Choose a section for the test")
        #expect(screen.rows[23].hasPrefix("↑↓/jk move"))
        #expect(terminal.output.contains("| loading"), "the spinner while the notebooks load")
        #expect(terminal.attributes.c_lflag & tcflag_t(ICANON | ECHO) == 0, "raw mode while it runs")

        terminal.type("j")
        try await terminal.waitFor("Home selected") { $0.contains("> Home/") && $0.contains("  Work/") }
        terminal.type("k")
        try await terminal.waitFor("Work selected") { $0.contains("> Work/") }
        terminal.type("\r")
        screen = try await terminal.waitFor("the notebook's level, two pages") {
            $0.rows[0].hasPrefix("OneNote › Work") && $0.contains("3 items")
        }
        #expect(Array(screen.rows[3...5]) == ["> Projects/", "  Meetings", "  Budget"])

        // A smaller window: the program hears of it and draws to the new size.
        terminal.setWindowSize(columns: 50, rows: 12)
        process.signal(SIGWINCH)
        screen = try await terminal.waitFor("the screen redrawn 50 wide") {
            $0.rows.contains(String(repeating: "─", count: 50)) && $0.rows[11].hasPrefix("↑↓/jk move")
        }

        terminal.type("/")
        try await terminal.waitFor("the search line") { $0.rows[0].hasPrefix("Search: _") }
        terminal.type("meet")
        screen = try await terminal.waitFor("two hits with their paths") { $0.contains("2 matches") }
        #expect(screen.rows[0].hasPrefix("Search: meet_"))
        #expect(Array(screen.rows[3...4]) == ["> Meetings  Work", "  Meeting notes  Work / Projects"])
        terminal.type("\u{1B}[B")
        try await terminal.waitFor("the second hit selected") { $0.contains("> Meeting notes  Work / Projects") }
        terminal.type("\r")

        #expect(try await exitStatus(process) == 0)
        screen = try await terminal.waitFor("the pick printed on the normal screen") {
            !$0.isAlternate && $0.contains("Picked section: Meeting notes")
        }
        #expect(screen.contains("in                Work / Projects"))
        #expect(screen.contains("last modified by  Adele Vance"))
        #expect(terminal.output.contains("\u{1B}[7m"), "the selection in reverse video: colour is on")
        expectRestored(terminal, as: run.before)
    }

    @Test func showsTheAPIErrorWithRetryWithoutColourAndCancelsWithEsc() async throws {
        // Unavailable for as long as the client retries on its own: the picker must show it.
        let run = try await start(columns: 100, rows: 20, environment: ["NO_COLOR": "1"]) { mock in
            mock.inject(.status(503, retryAfter: 0), count: 4, pathContains: "/notebooks/nb-work/sections")
        }
        defer { run.close() }
        let (terminal, process) = (run.terminal, run.process)

        try await terminal.waitFor("the notebooks") { $0.contains("> Work/") }
        terminal.type("\r")
        var screen = try await terminal.waitFor("the error banner") {
            $0.contains("! OneNote said 503 ServiceUnavailable: injected fault: HTTP 503 — r retry, q quit")
        }
        #expect(screen.contains("> Projects/"), "what loaded before the failure stays")
        terminal.type("r")
        screen = try await terminal.waitFor("the level after the retry") { $0.contains("3 items") }
        #expect(!screen.contains("! OneNote said"))
        #expect(screen.contains("  Budget"))
        #expect(!terminal.output.contains("bindery.http"), "no request log drawn over the screen")

        terminal.type("\u{1B}")
        #expect(try await exitStatus(process) == 1, "cancelled")
        try await terminal.waitFor("the cancellation on the normal screen") {
            !$0.isAlternate && $0.contains("Cancelled.")
        }
        #expect(
            terminal.output.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) == nil,
            "NO_COLOR: no colour or style codes at all")
        expectRestored(terminal, as: run.before)
    }

    @Test(arguments: [("Ctrl-C", 130), ("SIGTERM", 143)])
    func restoresTheTerminalWhenInterrupted(how: String, status: Int32) async throws {
        let run = try await start()
        defer { run.close() }
        let (terminal, process) = (run.terminal, run.process)
        try await terminal.waitFor("the notebooks") { $0.contains("> Work/") }
        if how == "Ctrl-C" { terminal.type("\u{03}") } else { process.signal(SIGTERM) }
        #expect(try await exitStatus(process) == status)
        try await terminal.waitFor("the normal screen") { !$0.isAlternate }
        expectRestored(terminal, as: run.before)
    }

    @Test func answersANumberedPromptWithoutATerminal() async throws {
        let tool = try #require(Self.bindery, "bindery must be built beside the tests (swift build)")
        let mock = try await oneNoteMock(Self.notebooks)
        defer { Task { await mock.stop() } }
        /// Runs the picker with pipes for its standard streams: `answers` typed, then the input closed.
        func pick(answering answers: String) async throws -> (status: Int32, output: String, prompts: String) {
            let input = try makePipe()
            let (output, prompts) = (try Capture(), try Capture())
            let process = try ChildProcess(
                tool, Self.arguments(mock, json: true), input: .descriptor(input.read), output: .capture(output),
                errors: .capture(prompts))
            close(input.read)
            writeAll(Array(answers.utf8), to: input.write)
            close(input.write)
            let status = try await exitStatus(process)
            await output.finished()
            await prompts.finished()
            return (status, output.text, prompts.text)
        }

        // Work, then Projects, then a search whose second hit is picked.
        let picked = try await pick(answering: "1\n1\n/meet\n2\n")
        #expect(picked.status == 0)
        #expect(picked.prompts.contains("Choose a section for the test\n  1. Work/\n  2. Home/\n"))
        #expect(
            picked.prompts.contains("OneNote › Work\nChoose a section for the test\n  1. Projects/\n  2. Meetings\n"))
        #expect(picked.prompts.contains("  2. Meeting notes  (Work / Projects)"))
        let json = try JSONSerialization.jsonObject(with: Data(picked.output.utf8)) as? [String: Any]
        #expect(json?["name"] as? String == "Meeting notes")
        #expect(json?["id"] as? String == "g-projects-s1")
        #expect(json?["path"] as? [String] == ["Work", "Projects"])
        #expect(json?["lastModifiedBy"] as? String == "Adele Vance")
        #expect(json?["modifiedTime"] as? String == "2026-11-21T17:45:00Z")
        #expect((json?["pagesUrl"] as? String)?.hasSuffix("/sections/g-projects-s1/pages") == true)

        // The input ends before anything is picked: cancelled, and nothing on standard output.
        let cancelled = try await pick(answering: "1\n")
        #expect(cancelled.status == 1)
        #expect(cancelled.output.isEmpty)
        #expect(cancelled.prompts.hasSuffix("Cancelled.\n"))
    }
}
