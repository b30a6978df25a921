import ArgumentParser
import BinderyEmitter
import BinderyReaders
import BinderySpec
import Foundation

@main
struct BinderyGen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bindery-gen",
        abstract:
            "Generates Swift models and request builders from an OData CSDL (.xml) or OpenAPI (.json, .yaml) spec.",
        discussion: """
            Reads SPEC into Bindery's spec model and writes one Swift module's sources into --output.
            Settings come from --config, or from bindery.json beside the spec (see README, "Configuration").
            Errors are printed as file:line:column: error: message, and then nothing is written.
            Output folders change together or not at all; only files bindery-gen generated are ever removed.
            """)

    @Argument(help: "The spec: .xml, .csdl or .edmx (OData CSDL) or .json, .yaml or .yml (OpenAPI 3.0/3.1).")
    var spec: String

    @Option(
        name: .long,
        help:
            "The folder that receives the generated sources (generated files it no longer makes are removed; others are kept)."
    )
    var output: String

    @Option(name: .long, help: "The configuration file (default: bindery.json beside the spec).")
    var config: String?

    @Option(name: .long, help: "The module name, when there is no configuration file.")
    var module: String?

    @Option(name: .long, help: "Also write a conformance fixture (JSON) for every operation into this folder.")
    var fixtures: String?

    @Option(
        name: .long,
        help: "Also write Swift that calls every fixture's operation through the generated builders into this folder.")
    var calls: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write exactly N files, BinderyGenerated1.swift to BinderyGeneratedN.swift, instead of the configured layout.",
            discussion: "For build tools, which must name their outputs before the generator runs.", valueName: "N"))
    var numberedFiles: Int?

    @Option(
        name: .long,
        help:
            "The spec's path as file headers show it (default: SPEC as given); tools pass one relative to the package.")
    var specName: String?

    @Option(
        name: .long,
        help: "The file header's second line, how the files are made again (default: this repository's `make gen`).")
    var regenerateNote: String?

    @Flag(name: .long, help: "Write nothing; exit 1 and list the files that differ from what would be generated.")
    var check = false

    @Flag(name: .long, help: "Print how long each stage took.")
    var timings = false

    func run() throws {
        let clock = ContinuousClock()
        let start = clock.now
        let configuration = try loadConfiguration()

        let (read, diagnostics) = SpecReader.read(path: spec)
        Self.print(diagnostics)
        guard var spec = read, !diagnostics.contains(where: { $0.severity == .error }) else { throw ExitCode.failure }
        if let descriptions = configuration.descriptions {
            let (documented, found) = SpecReader.read(path: descriptions)
            Self.print(found)
            guard let documented, !found.contains(where: { $0.severity == .error }) else { throw ExitCode.failure }
            spec = spec.documented(from: documented).spec
        }
        let readTime = clock.now - start

        let pruned = spec.pruned(include: configuration.include, exclude: configuration.exclude)
        var options = Emitter.Options(config: configuration, specDisplayPath: specName ?? self.spec)
        if let regenerateNote { options.regenerateNote = regenerateNote }
        if let numberedFiles {
            guard numberedFiles > 0 else { throw ValidationError("--numbered-files must be at least 1") }
            options.layout = .numbered(files: numberedFiles)
        }
        let emitter = Emitter(options: options)
        let (files, warnings) = emitter.emit(pruned)
        Self.print(warnings)
        let emitTime = clock.now - start - readTime

        var outputs = [OutputWriter.Output(folder: output, files: files)]
        if let fixtures {
            outputs.append(.init(folder: fixtures, files: FixtureEmitter(spec: pruned).emit(), fileExtension: "json"))
        }
        if let calls {
            let (files, warnings) = emitter.conformanceCalls(pruned)
            Self.print(warnings)
            outputs.append(.init(folder: calls, files: files))
        }
        try OutputWriter.validate(outputs.map(\.folder))
        let writer = OutputWriter(outputs)
        if check {
            let differences = try writer.differences()
            for difference in differences { FileHandle.standardError.write(Data("\(difference)\n".utf8)) }
            if !differences.isEmpty {
                let folders = Set(
                    outputs.map(\.folder).filter { folder in differences.contains { $0.contains(folder) } })
                FileHandle.standardError.write(
                    Data("\(folders.sorted().joined(separator: ", ")) is out of date: regenerate it.\n".utf8))
                throw ExitCode.failure
            }
        } else {
            for report in try writer.write() {
                Swift.print("\(report.folder): \(report.files) files, \(report.changed) changed")
                for path in report.foreign {
                    FileHandle.standardError.write(
                        Data("\(report.folder)/\(path): warning: not generated by bindery-gen; left as it is\n".utf8))
                }
            }
        }
        if timings {
            let writeTime = clock.now - start - readTime - emitTime
            Swift.print(
                "timings: read \(Self.ms(readTime)) ms, emit \(Self.ms(emitTime)) ms, write \(Self.ms(writeTime)) ms")
        }
    }

    private func loadConfiguration() throws -> GeneratorConfig {
        let path =
            config ?? ((spec as NSString).deletingLastPathComponent as NSString).appendingPathComponent("bindery.json")
        guard FileManager.default.fileExists(atPath: path) else {
            if config != nil { throw ValidationError("\(path): error: no such configuration file") }
            // No configuration: name the module after the output folder (`Sources/Graph/Generated` → `Graph`).
            let folder = (output as NSString).standardizingPath
            let name =
                module
                ?? ((folder as NSString).lastPathComponent == "Generated"
                    ? ((folder as NSString).deletingLastPathComponent as NSString).lastPathComponent
                    : (folder as NSString).lastPathComponent)
            return GeneratorConfig(moduleName: name)
        }
        let (read, diagnostics) = ConfigReader.read(path: path)
        Self.print(diagnostics)
        guard var configuration = read else { throw ExitCode.failure }
        if let module { configuration.moduleName = module }
        if let descriptions = configuration.descriptions, !descriptions.hasPrefix("/") {
            configuration.descriptions = ((path as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent(descriptions)
        }
        return configuration
    }

    static func print(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics { FileHandle.standardError.write(Data("\(diagnostic)\n".utf8)) }
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
