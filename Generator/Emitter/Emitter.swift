import BinderySpec

/// The spec model → Swift source files. The only entry point of the emitter; it never looks at spec text.
public struct Emitter: Sendable {
    public struct Options: Sendable {
        public var moduleName: String
        public var clientName: String?
        /// The default service root; empty for the spec's first server (or `https://localhost` without one).
        public var baseURL: String
        /// Other service roots by name (`consumer` → `consumerBaseURL`).
        public var alternativeBaseURLs: [String: String]
        public var accessLevel: GeneratorConfig.AccessLevel
        public var nameOverrides: [String: String]
        /// How the spec is named in file headers (a path relative to the repository, not to this machine).
        public var specDisplayPath: String
        /// The file header's second line: how the files are made again.
        public var regenerateNote = Self.makeGen

        /// This repository's: `make gen` regenerates every checked-in module.
        public static let makeGen = "Regenerate with `make gen`; change the spec or the generator instead."
        public var layout: Layout
        /// Structs or tuples: `automatic` decides by the spec's size, as `Layout.automatic` does.
        public var fieldTables: GeneratorConfig.FieldTables = .automatic
        /// A page per type in the service's reference (`{name}`: see `GeneratorConfig.referenceURL`).
        public var referenceURL: String?

        public enum Layout: Sendable, Equatable {
            /// One file per model and per builder: easy to review, and an edit rebuilds little.
            case perType
            /// Declarations spread over this many files, for very large specs.
            case grouped(files: Int)
            /// `perType` or `grouped(files:)`, by the spec's size (`GeneratorConfig.Layout.groupingThreshold`).
            case automatic(files: Int)
            /// Exactly this many files, `BinderyGenerated1.swift` and on, whatever the spec holds (the last ones may
            /// declare nothing): names a build tool can declare before it runs the generator.
            case numbered(files: Int)
        }

        public init(
            moduleName: String, clientName: String? = nil, baseURL: String, alternativeBaseURLs: [String: String] = [:],
            accessLevel: GeneratorConfig.AccessLevel = .public,
            nameOverrides: [String: String] = [:], specDisplayPath: String, layout: Layout = .perType
        ) {
            self.moduleName = moduleName
            self.clientName = clientName
            self.baseURL = baseURL
            self.alternativeBaseURLs = alternativeBaseURLs
            self.accessLevel = accessLevel
            self.nameOverrides = nameOverrides
            self.specDisplayPath = specDisplayPath
            self.layout = layout
        }

        public init(config: GeneratorConfig, specDisplayPath: String) {
            let layout: Layout =
                switch config.layout {
                case .automatic: .automatic(files: max(1, config.fileCount))
                case .perType: .perType
                case .grouped: .grouped(files: max(1, config.fileCount))
                }
            self.init(
                moduleName: config.moduleName, clientName: config.clientName,
                baseURL: config.baseURL ?? "", alternativeBaseURLs: config.alternativeBaseURLs,
                accessLevel: config.accessLevel, nameOverrides: config.nameOverrides,
                specDisplayPath: specDisplayPath, layout: layout)
            referenceURL = config.referenceURL
            fieldTables = config.fieldTables
        }
    }

    /// One output file: a path relative to the output folder and its full text.
    public struct OutputFile: Equatable, Sendable {
        public var path: String
        public var contents: String
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// Translates and renders the whole spec. Warnings describe what was skipped; there are no errors at this
    /// stage, because the readers reject every spec the emitter could not handle.
    public func emit(_ spec: ServiceSpec) -> (files: [OutputFile], diagnostics: [Diagnostic]) {
        let renderer = SwiftRenderer(accessLevel: options.accessLevel)
        // Each unit is rendered by the worker that translated it, so its declarations are freed there too, in
        // parallel, instead of all at the end on one thread.
        let (files, diagnostics) = layOut(spec) { renderer.renderDeclarations($0) }
        let rendered = files.concurrentMap(chunk: 1) { file in
            OutputFile(
                path: file.path,
                contents: renderer.render(header: file.header, imports: file.imports, parts: file.parts))
        }
        return (rendered, diagnostics)
    }

    /// Swift that calls every conformance fixture's operation through the generated builders (`bindery-gen --calls`):
    /// one file, an extension of `BinderyMock`'s `ConformanceCalls`, compiled into `BinderyServiceMocks`.
    public func conformanceCalls(_ spec: ServiceSpec) -> (files: [OutputFile], diagnostics: [Diagnostic]) {
        var naming = Diagnostics()  // the same as `emit` reports
        let translators = Translators(spec: spec, options: options, diagnostics: &naming)
        var diagnostics = Diagnostics()
        let file = ConformanceCallEmitter(
            spec: spec, symbols: translators.symbols, builders: translators.builders, moduleName: options.moduleName,
            specDisplayPath: options.specDisplayPath, regenerateNote: options.regenerateNote
        ).emit(FixtureEmitter(spec: spec).cases(), diagnostics: &diagnostics)
        return (
            [OutputFile(path: file.path, contents: SwiftRenderer(accessLevel: .public).render(file))], diagnostics.all
        )
    }

    /// The typed declarations, before rendering (snippet tests compare these).
    public func translate(_ spec: ServiceSpec) -> (files: [SwiftFile], diagnostics: [Diagnostic]) {
        let (files, diagnostics) = layOut(spec) { $0 }
        return (
            files.map {
                SwiftFile(path: $0.path, header: $0.header, imports: $0.imports, declarations: $0.parts.flatMap { $0 })
            }, diagnostics
        )
    }

    /// A file as the layout plans it: what each unit put in it, in order, as `makePart` made it. A part is a
    /// collection (declarations, or their rendered bytes), empty when its unit declared nothing.
    private struct PlannedFile<Part: Collection & Sendable>: Sendable {
        var path: String
        var header: [String]
        var imports: [Import]
        var parts: [Part]
    }

    /// Translates every unit, makes each one's declarations into a `Part` in the worker that translated them, and
    /// places the parts in files. `emit` makes rendered text of them, `translate` keeps the declarations.
    private func layOut<Part: Collection & Sendable>(_ spec: ServiceSpec, makePart: @Sendable ([Declaration]) -> Part)
        -> (files: [PlannedFile<Part>], diagnostics: [Diagnostic])
    {
        var diagnostics = Diagnostics()
        let translators = Translators(spec: spec, options: options, diagnostics: &diagnostics)
        let (symbols, models, builders) = (translators.symbols, translators.models, translators.builders)

        // Each unit is what one type contributes; the layout decides which file it lands in. Units are independent,
        // so they are translated on every core; their diagnostics are merged back in spec order. The client and the
        // module's descriptor go first, into files of their own: made beside the types, they hold up nothing.
        let root = spec.resources.first { $0.name == spec.rootResource } ?? ResourceSpec(name: spec.rootResource)
        // Types by position: the list is made on one thread, and copies of thousands of specs would cost it.
        let work: [UnitWork] =
            [.client(root), .serviceDescriptor]
            + spec.enums.indices.map(UnitWork.enumeration) + spec.structures.indices.map(UnitWork.structure)
            + spec.choices.indices.map(UnitWork.choice)
            + spec.resources.indices.filter { spec.resources[$0].name != spec.rootResource }.map(UnitWork.resource)
        let clientTranslator = ClientTranslator(spec: spec, symbols: symbols, options: options)
        let translated = work.concurrentMap { work in
            var unitDiagnostics = Diagnostics()
            let (name, folder, declarations): (String, String, [Declaration])
            switch work {
            case .client(let root):
                declarations = clientTranslator.translate(
                    root: root, route: builders.routeDeclaration(root),
                    members: builders.clientMembers(root, diagnostics: &unitDiagnostics))
                (name, folder) = (symbols.clientName, "")
            case .serviceDescriptor:
                declarations = [descriptor(spec, clientTranslator: clientTranslator, builders: builders)]
                (name, folder) = (symbols.serviceName, "")
            case .enumeration(let position):
                declarations = models.translate(spec.enums[position], diagnostics: &unitDiagnostics)
                (name, folder) = (symbols.typeName(spec.enums[position].name), "Models")
            case .structure(let position):
                declarations = models.translate(spec.structures[position], diagnostics: &unitDiagnostics)
                (name, folder) = (symbols.typeName(spec.structures[position].name), "Models")
            case .choice(let position):
                declarations = models.translate(spec.choices[position], diagnostics: &unitDiagnostics)
                (name, folder) = (symbols.typeName(spec.choices[position].name), "Models")
            case .resource(let position):
                declarations = builders.builderDeclarations(spec.resources[position], diagnostics: &unitDiagnostics)
                (name, folder) = (symbols.builderName(spec.resources[position].name), "Builders")
            }
            return (name: name, folder: folder, part: makePart(declarations), diagnostics: unitDiagnostics.all)
        }
        let (client, service, units) = (translated[0], translated[1], translated.dropFirst(2))
        for unit in units { diagnostics.append(contentsOf: unit.diagnostics) }
        diagnostics.append(contentsOf: client.diagnostics)

        let header = [
            "// DO NOT EDIT. Generated by bindery-gen from \(options.specDisplayPath).", "// " + options.regenerateNote,
        ]
        let imports: [Import] = [.runtime, "Foundation"]
        let (clientPart, servicePart) = (client.part, service.part)
        var fileNames = FileNames()
        func file(_ stem: String, in folder: String = "", _ parts: [Part], imports: [Import] = imports)
            -> PlannedFile<Part>
        {
            PlannedFile(path: fileNames.claim(stem, in: folder), header: header, imports: imports, parts: parts)
        }
        var files = [file(symbols.clientName, [clientPart]), file(symbols.serviceName, [servicePart])]
        var layout = options.layout
        if case .automatic(let count) = layout {
            layout = Self.isLarge(spec) ? .grouped(files: count) : .perType
        }
        switch layout {
        case .automatic, .perType:
            for unit in units.sorted(by: { $0.name < $1.name }) {
                files.append(file(unit.name, in: unit.folder, [unit.part]))
            }
        case .grouped(let count), .numbered(let count):
            let sorted = units.sorted { $0.name < $1.name }
            let perFile = max(1, (sorted.count + count - 1) / count)
            let chunks = (0..<count).map { sorted.dropFirst($0 * perFile).prefix(perFile) }
            guard case .numbered = layout else {
                // Named by the first and last type they hold (cut when very long), so that a reader finds a type by
                // the file names alone.
                for chunk in chunks {
                    guard let first = chunk.first, let last = chunk.last else { continue }
                    files.append(file("\(first.name)-\(last.name)", chunk.map(\.part)))
                }
                break
            }
            // The client and the descriptor open the first file; a file left without declarations imports nothing.
            let opening = [clientPart, servicePart]
            fileNames = FileNames()
            files = chunks.enumerated().map { index, chunk in
                let parts = (index == 0 ? opening : []) + chunk.map(\.part)
                return file(
                    "BinderyGenerated\(index + 1)", parts, imports: parts.allSatisfy(\.isEmpty) ? [] : imports)
            }
        }
        return (files, diagnostics.all)
    }
}

extension Emitter {
    /// The module's descriptor: its routes, its models, and the requests to URLs that payloads carry, on storage
    /// hosts (`Bindery.StorageOperation`).
    private func descriptor(
        _ spec: ServiceSpec, clientTranslator: ClientTranslator, builders: RequestBuilderTranslator
    ) -> Declaration {
        let symbols = builders.symbols
        let storage = spec.structures.flatMap { structure in
            structure.storageOperations.map { operation in
                var arguments: [Expression.Argument] = [
                    .init(.string(operation.name)), .init(.raw(".\(operation.method.rawValue.lowercased())")),
                    .init("owner", .string(structure.name.description)), .init("url", .string(operation.urlMember)),
                ]
                if case .primitive(.stream)? = operation.response {
                    arguments.append(.init("rawBody", .raw("true")))
                } else if let type = operation.response, let kind = builders.operations.mapping.fieldKind(type) {
                    arguments.append(.init("response", .raw(kind)))
                }
                return Expression.call("StorageRoute", arguments)
            }
        }
        return clientTranslator.serviceDescriptor(
            builders: spec.resources.filter { $0.name != spec.rootResource }.map { symbols.builderName($0.name) }
                .sorted(),
            models: spec.structures.map { symbols.typeName($0.name) }.sorted(), storage: storage)
    }

    /// Whether the spec declares more types (enums, models, builders) than `GeneratorConfig.Layout.groupingThreshold`:
    /// what the `automatic` choices go by.
    static func isLarge(_ spec: ServiceSpec) -> Bool {
        let count =
            spec.enums.count + spec.structures.count + spec.choices.count
            + spec.resources.filter { $0.name != spec.rootResource }.count
        return count > GeneratorConfig.Layout.groupingThreshold
    }
}

/// The translators of one spec, made in one place so that the builders and the conformance calls that reach
/// them are named by the same rules.
private struct Translators {
    let symbols: SymbolTable
    let models: ModelTranslator
    let builders: RequestBuilderTranslator

    init(spec: ServiceSpec, options: Emitter.Options, diagnostics: inout Diagnostics) {
        symbols = SymbolTable(
            spec: spec, moduleName: options.moduleName, clientName: options.clientName,
            overrides: options.nameOverrides, diagnostics: &diagnostics)
        let mapping = TypeMapping(
            symbols: symbols, enumNames: Set(spec.enums.map(\.name)), choiceNames: Set(spec.choices.map(\.name)))
        let tupleTables =
            switch options.fieldTables {
            case .automatic: Emitter.isLarge(spec)
            case .structs: false
            case .tuples: true
            }
        models = ModelTranslator(
            spec: spec, symbols: symbols, mapping: mapping, referenceURL: options.referenceURL,
            tupleTables: tupleTables)
        let operations = OperationTranslator(
            spec: spec, symbols: symbols, mapping: mapping, modelNames: Set(spec.structures.map(\.name)))
        // Resources whose builder reads a model: only those can be the items of a collection step.
        let modelResources = Set(
            spec.resources.compactMap { resource -> QualifiedName? in
                guard case .named(let model)? = resource.model, operations.modelNames.contains(model) else {
                    return nil
                }
                return resource.name
            })
        builders = RequestBuilderTranslator(
            spec: spec, symbols: symbols, operations: operations, models: models, modelResources: modelResources)
    }
}

/// What one unit is translated from: one type of the spec (by its position in the spec), the client, or the
/// module's descriptor.
private enum UnitWork {
    case client(ResourceSpec)
    case serviceDescriptor
    case enumeration(Int)
    case structure(Int)
    case choice(Int)
    case resource(Int)
}
