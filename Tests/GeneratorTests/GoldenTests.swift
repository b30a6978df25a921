import BinderyEmitter
import BinderyReaders
import BinderySpec
import Foundation
import Testing

/// The checked-in golden modules are exactly what the generator makes of their specs, and the full
/// Microsoft Graph generates without errors.
@Suite struct GoldenTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// All of Graph v1.0 as the repository keeps it (Microsoft's metadata, facts only, and Bindery's monitors).
    static let graphCorpus = packageRoot.appendingPathComponent("Specs/Graph/Graph.csdl.xml").path

    /// Reads a golden spec and its bindery.json, as `make gen` would.
    static func read(_ folder: String, spec specFile: String) throws -> (spec: ServiceSpec, options: Emitter.Options) {
        let folderURL = packageRoot.appendingPathComponent("Tests/Golden/\(folder)")
        let displayPath = "Tests/Golden/\(folder)/\(specFile)"
        let (spec, diagnostics) = SpecReader.read(
            path: folderURL.appendingPathComponent(specFile).path, displayPath: displayPath)
        let errors = diagnostics.filter { $0.severity == .error }
        guard let spec, errors.isEmpty else { throw TestFailure(errors.map(\.description).joined(separator: "\n")) }
        let (read, configDiagnostics) = ConfigReader.read(path: folderURL.appendingPathComponent("bindery.json").path)
        guard let config = read else { throw TestFailure(configDiagnostics.map(\.description).joined(separator: "\n")) }
        return (spec, Emitter.Options(config: config, specDisplayPath: displayPath))
    }

    /// Generates a golden spec in memory, as `make gen` would.
    static func generate(_ folder: String, spec specFile: String) throws -> (files: [Emitter.OutputFile], output: URL) {
        let (spec, options) = try read(folder, spec: specFile)
        return (
            Emitter(options: options).emit(spec).files,
            packageRoot.appendingPathComponent("Tests/Golden/\(folder)/Generated")
        )
    }

    @Test(arguments: [("OData", "spec.csdl.xml"), ("OpenAPI", "spec.json"), ("Shapes", "spec.yaml")])
    func checkedInOutputMatchesTheGenerator(folder: String, spec: String) throws {
        let (files, output) = try Self.generate(folder, spec: spec)
        #expect(files.count > 5)
        for file in files {
            let url = output.appendingPathComponent(file.path)
            let checkedIn = try? String(contentsOf: url, encoding: .utf8)
            #expect(checkedIn == file.contents, "\(file.path) differs from the generator's output: run `make gen`")
        }
        let onDisk =
            FileManager.default.enumerator(atPath: output.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") } ?? []
        #expect(Set(onDisk) == Set(files.map(\.path)))
    }

    /// The build-tool plugin declares its outputs before it runs: the numbered layout always writes exactly the
    /// files it was asked for, however many declarations there are, and loses none.
    @Test(arguments: [1, 8, 200])
    func theNumberedLayoutWritesExactlyTheFilesAskedFor(count: Int) throws {
        var (spec, options) = try Self.read("OData", spec: "spec.csdl.xml")
        let perType = Emitter(options: options).translate(spec).files
        options.layout = .numbered(files: count)
        let numbered = Emitter(options: options).translate(spec).files
        #expect(numbered.map(\.path) == (1...count).map { "BinderyGenerated\($0).swift" })
        #expect(numbered.flatMap(\.declarations).count == perType.flatMap(\.declarations).count)
        #expect(numbered.filter { $0.declarations.isEmpty }.allSatisfy { $0.imports.isEmpty })
    }

    /// `emit` renders each unit in the worker that translated it and joins the pieces; that must be the text of
    /// rendering the translated files whole, in every layout (a numbered layout leaves files without declarations).
    @Test(arguments: [Emitter.Options.Layout.perType, .grouped(files: 3), .numbered(files: 40)])
    func renderingInPiecesIsRenderingWhole(layout: Emitter.Options.Layout) throws {
        var (spec, options) = try Self.read("OData", spec: "spec.csdl.xml")
        options.layout = layout
        let emitter = Emitter(options: options)
        let translated = emitter.translate(spec).files
        let renderer = SwiftRenderer(accessLevel: options.accessLevel)
        let pieces = emitter.emit(spec).files
        #expect(pieces.map(\.path) == translated.map(\.path))
        for (piece, file) in zip(pieces, translated) {
            #expect(piece.contents == renderer.render(file), "\(piece.path)")
        }
        // The edge case is there to be checked: files the numbered layout leaves empty.
        #expect(translated.contains { $0.declarations.isEmpty } == (layout == .numbered(files: 40)))
    }

    @Test func theWholeMicrosoftGraphGenerates() throws {
        let (spec, diagnostics) = SpecReader.read(path: Self.graphCorpus, displayPath: "graph-v1.0.csdl.xml")
        let errors = diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors.prefix(5))")
        let graph = try #require(spec)
        #expect(graph.structures.count == 2963)  // Microsoft's 2,962 and Bindery's copy monitor
        #expect(graph.enums.count == 861)

        let emitter = Emitter(
            options: .init(
                moduleName: "Graph", baseURL: "https://graph.microsoft.com/v1.0", specDisplayPath: "graph-v1.0.csdl.xml"
            ))
        let (files, _) = emitter.emit(graph)

        // Models (3,823 of Microsoft's and Bindery's copy monitor), builders, the client and the route table.
        #expect(files.count == 3824 + 1182 + 2)
        let builder = try #require(files.first { $0.path == "Builders/DriveItemRequestBuilder.swift" })
        #expect(builder.contents.contains("public var children: CollectionRequestBuilder<DriveItemRequestBuilder>"))
        // Graph binds driveItem's delta to one item (`root/delta()`), user's to the collection (`users/delta()`);
        // driveItem declares a `token` overload, and both are generated as declared.
        #expect(builder.contents.contains("public func delta() -> CollectionRequest<DriveItem>"))
        #expect(builder.contents.contains("public func delta(token: String) -> CollectionRequest<DriveItem>"))
        let client = try #require(files.first { $0.path == "GraphClient.swift" })
        #expect(client.contents.contains("public var me: UserRequestBuilder"))
        let user = try #require(files.first { $0.path == "Builders/UserRequestBuilder.swift" })
        #expect(
            user.contents.contains(
                "public func sendMail(message: Message, saveToSentItems: Bool) -> OperationRequest<Void>"))
        #expect(user.contents.contains("extension CollectionRequestBuilder where ItemBuilder == UserRequestBuilder"))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
