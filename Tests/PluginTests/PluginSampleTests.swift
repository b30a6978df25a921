import Foundation
import TestSupport
import Testing

/// Both SwiftPM plugins as a user's package meets them: Tests/PluginSample, copied and pointed at this checkout,
/// is built in a nested `swift build` (the build-tool plugin generates four of its modules, two of them the README's
/// recipes for a part of Microsoft Graph), its executable calls the generated builders, then OneDrive and a generated part of Graph against mocks on
/// 127.0.0.1 as the DocC article "Using Bindery in an app" has them, and the command plugin regenerates its checked-in module. Every target of the sample builds with Swift 6.2's
/// approachable concurrency (main-actor default isolation, `NonisolatedNonsendingByDefault`,
/// `InferIsolatedConformances`), as an app's code does, and the build must print no warning.
///
/// The nested build compiles the runtime and the generator once (about a minute on two cores); its folder,
/// .build/plugin-sample inside this checkout, is kept, so later runs rebuild only what changed.
@Suite(.serialized) struct PluginSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sample = root.appendingPathComponent("Tests/PluginSample")
    static let work = root.appendingPathComponent(".build/plugin-sample")
    static let package = work.appendingPathComponent("package")
    static let scratch = work.appendingPathComponent("build")

    @Test(.timeLimit(.minutes(30)))
    func theSampleBuildsRunsAndRegenerates() async throws {
        try Self.copySample()

        // The build-tool plugin: Library (OData) and Weather (OpenAPI) exist only once it has run.
        let build = try await Self.swift(["build"], minutes: 20)
        try #require(build.status == 0, "swift build of the plugin sample failed:\n\(build.output)")
        #expect(!build.output.contains("warning:"), "the plugin sample builds with warnings:\n\(build.output)")

        let run = try await Self.run(Self.scratch.appendingPathComponent("debug/plugin-sample"), [], minutes: 2)
        try #require(run.status == 0, "plugin-sample failed:\n\(run.output)")
        #expect(
            run.stdout == """
                Library: Dune by Frank Herbert, 412 pages, fiction
                Weather: Säntis at 2502 m, 2 readings, 11.3 °F
                Tasks: created t3, 1 open
                GraphMail: Inbox, 3 unread of 12
                GraphFiles: Plans (folder), cabin.jpg (file)
                OneDrive: Notes holds ["hello.txt"], a missing item is 404 itemNotFound

                """)

        // What the build-tool plugin wrote says how it is made and names the spec by its place in the package,
        // never by this machine's absolute path.
        var pluginOutputs: [URL] = []
        let walker = FileManager.default.enumerator(at: Self.scratch, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent.hasPrefix("BinderyGenerated"), url.pathExtension == "swift" {
                pluginOutputs.append(url)
            }
        }
        #expect(!pluginOutputs.isEmpty, "no file of the build-tool plugin under \(Self.scratch.path)")
        for url in pluginOutputs {
            let header = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").prefix(2).joined(
                separator: "\n")
            #expect(header.contains("from Sources/"), "\(url.lastPathComponent): \(header)")
            #expect(header.contains("Made on every build by the BinderyGenerator plugin"), "\(header)")
            #expect(!header.contains(Self.work.path) && !header.contains("make gen"), "\(header)")
        }

        // The command plugin: Tasks' Generated/ comes back exactly as checked in.
        let generated = Self.package.appendingPathComponent("Sources/Tasks/Generated")
        try FileManager.default.removeItem(at: generated)
        let regenerate = try await Self.swift(
            ["package", "--allow-writing-to-package-directory", "bindery-gen", "--target", "Tasks"], minutes: 10)
        try #require(regenerate.status == 0, "swift package bindery-gen failed:\n\(regenerate.output)")
        let checkedIn = Self.sample.appendingPathComponent("Sources/Tasks/Generated")
        let files = try Self.files(in: checkedIn)
        #expect(files.contains("TasksClient.swift") && files.contains("Models/Todo.swift"))
        #expect(try Self.files(in: generated) == files)
        for file in files {
            let made = try String(contentsOf: generated.appendingPathComponent(file), encoding: .utf8)
            #expect(
                made == (try String(contentsOf: checkedIn.appendingPathComponent(file), encoding: .utf8)), "\(file)")
        }

        // Extra arguments reach bindery-gen: --check passes now, and fails once the configuration changes.
        let check = try await Self.swift(
            ["package", "--allow-writing-to-package-directory", "bindery-gen", "--check"], minutes: 5)
        #expect(check.status == 0, "\(check.output)")
        try Data(#"{"moduleName": "Tasks", "baseURL": "https://tasks.example.org"}"#.utf8)
            .write(to: Self.package.appendingPathComponent("Sources/Tasks/bindery.json"))
        let stale = try await Self.swift(
            ["package", "--allow-writing-to-package-directory", "bindery-gen", "--check"], minutes: 5)
        #expect(stale.status != 0)
        #expect(stale.output.contains("~ Sources/Tasks/Generated/TasksClient.swift"), "\(stale.output)")
        #expect(stale.output.contains("target 'Tasks' is out of date"), "\(stale.output)")
    }

    /// A fresh copy of the sample whose dependency is this checkout (it says `../..`, which the copy is not in).
    static func copySample() throws {
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: package)
        try fileManager.createDirectory(at: work, withIntermediateDirectories: true)
        try fileManager.copyItem(at: sample, to: package)
        try? fileManager.removeItem(at: package.appendingPathComponent(".build"))
        let manifest = package.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let pointed = text.replacingOccurrences(of: #"let bindery = "../..""#, with: "let bindery = \"\(root.path)\"")
        try #require(pointed != text, "Tests/PluginSample/Package.swift no longer says let bindery = \"../..\"")
        try Data(pointed.utf8).write(to: manifest)
        // The Graph recipes take all of Graph as their spec, as a user's target would, and choose with `include`.
        for recipe in ["GraphMail", "GraphFiles"] {
            try fileManager.copyItem(
                at: root.appendingPathComponent("Specs/Graph/Graph.csdl.xml"),
                to: package.appendingPathComponent("Sources/\(recipe)/Graph.csdl.xml"))
        }
    }

    /// `swift` with the sample package and the kept build folder.
    static func swift(_ arguments: [String], minutes: Int) async throws -> Outcome {
        let (command, rest) = (arguments[0], arguments.dropFirst())
        let paths = ["--package-path", package.path, "--scratch-path", scratch.path]
        return try await run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", command] + paths + rest, minutes: minutes)
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Both streams, for failure messages.
        var output: String { stdout + stderr }
    }

    /// Runs a program to the end or the deadline; its streams are read as they come, so a chatty build never
    /// blocks on a pipe.
    static func run(_ executable: URL, _ arguments: [String], minutes: Int) async throws -> Outcome {
        let (out, err) = (try Capture(), try Capture())
        let process = try ChildProcess(
            executable, arguments, directory: package, output: .capture(out), errors: .capture(err))
        let deadline = ContinuousClock.now + .seconds(minutes * 60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(250)) }
        let timedOut = process.isRunning
        if timedOut { process.signal(SIGTERM) }
        let ending = await process.ended()
        await out.finished()
        await err.finished()
        var outcome = Outcome(status: ending.status, stdout: out.text, stderr: err.text)
        if timedOut {
            outcome.status = -1
            outcome.stderr +=
                "\n(stopped after \(minutes) minutes: \(executable.path) \(arguments.joined(separator: " ")))\n"
        }
        return outcome
    }

    /// Every file below a folder, as relative paths.
    static func files(in folder: URL) throws -> [String] {
        try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
    }
}
