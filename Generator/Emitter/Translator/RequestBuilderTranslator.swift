import BinderySpec
import Foundation

/// Resources → request builders in the OneDrive SDK's shape: `client.drive.items("id").children.request().get()`.
///
/// One builder per resource (not per URL path, which for a cyclic graph such as OData's would never end):
/// its navigation leads to other builders, its operations are methods, and operations on a collection of it
/// go in a constrained extension of `CollectionRequestBuilder`.
struct RequestBuilderTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let operations: OperationTranslator
    let models: ModelTranslator
    /// Resources whose builder reads a model (`ModelRequestBuilder`), which a collection's items must be.
    let modelResources: Set<QualifiedName>
    /// The `ServiceConventions.Listing` of each collection (by its items' resource) that lists its own way.
    let listings: [QualifiedName: Expression]

    init(
        spec: ServiceSpec, symbols: SymbolTable, operations: OperationTranslator, models: ModelTranslator,
        modelResources: Set<QualifiedName>
    ) {
        self.spec = spec
        self.symbols = symbols
        self.operations = operations
        self.models = models
        self.modelResources = modelResources
        var listings: [QualifiedName: Expression] = [:]
        for resource in spec.resources {
            let list = resource.collectionOperations.first { $0.kind == .list }
            if let listing = ConventionExpressions.listing(of: list?.response) { listings[resource.name] = listing }
        }
        self.listings = listings
    }

    static let reservedBuilderMembers: Set<String> = ["client", "path", "request", "Resource", "init", "route"]

    func builderDeclarations(_ resource: ResourceSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        var surface = BuilderSurface()
        return builderDeclarations(resource, surface: &surface, diagnostics: &diagnostics)
    }

    /// What a call site can reach from the builder of `resource` (the client's, for the root).
    func surface(of resource: ResourceSpec) -> BuilderSurface {
        var surface = BuilderSurface()
        var diagnostics = Diagnostics()  // already reported when the builders were written
        if resource.name == spec.rootResource {
            _ = clientMembers(resource, surface: &surface, diagnostics: &diagnostics)
        } else {
            _ = builderDeclarations(resource, surface: &surface, diagnostics: &diagnostics)
        }
        return surface
    }

    private func builderDeclarations(
        _ resource: ResourceSpec, surface: inout BuilderSurface, diagnostics: inout Diagnostics
    ) -> [Declaration] {
        let builderName = symbols.builderName(resource.name)
        var members: [Declaration] = []
        var conformance = "RequestBuilder"
        if case .named(let model)? = resource.model, operations.modelNames.contains(model) {
            conformance = "ModelRequestBuilder"
            members.append(Declaration(.typeAlias(name: "Resource", type: .named(symbols.typeName(model)))))
        }
        members += [
            Declaration(.variable(.stored("client", type: "ServiceClient"))),
            Declaration(.variable(.stored("path", type: "ResourcePath"))),
            Declaration(
                .function(
                    FunctionDeclaration(
                        "init", parameters: [.init("client", "ServiceClient"), .init("path", "ResourcePath")],
                        body: [
                            .assignment(.raw("self.client"), .raw("client")),
                            .assignment(.raw("self.path"), .raw("path")),
                        ]))),
        ]
        members.append(routeDeclaration(resource))
        var usedNames = Self.reservedBuilderMembers
        surface.isModelBuilder = conformance == "ModelRequestBuilder"
        members += childMembers(resource, usedNames: &usedNames, surface: &surface, diagnostics: &diagnostics)
        members += streamMembers(resource, usedNames: &usedNames)
        members += operationMembers(
            resource.operations, onCollection: false, owner: resource.name, model: resource.model,
            usedNames: &usedNames, surface: &surface, diagnostics: &diagnostics)

        var doc = DocComment.lines(resource.doc, remark: nil)
        if doc.isEmpty {
            doc =
                conformance == "ModelRequestBuilder"
                ? [
                    "Requests for one `\(symbols.typeName(resource.model?.namedTypes.first ?? resource.name))`: `request()` reads, updates or deletes it."
                ]
                : ["Requests under `\(resource.name.name)`."]
        }
        doc += ["", "- Remark: Generated from `\(resource.name)`."]
        var declarations = [
            Declaration(
                doc: doc, .type(TypeDeclaration(.struct, builderName, conformances: [conformance], members: members)))
        ]

        // Steps and operations from the collection of this resource (delta, collection-bound functions, typed list,
        // `files.uploadSessions`).
        var collectionNames = Set<String>(["request", "client", "path", "callAsFunction"])
        var collectionSurface = BuilderSurface()
        let collectionMembers =
            childMembers(
                resource, onCollection: true, usedNames: &collectionNames, surface: &collectionSurface,
                diagnostics: &diagnostics)
            + operationMembers(
                resource.collectionOperations, onCollection: true, owner: resource.name, model: resource.model,
                usedNames: &collectionNames, surface: &collectionSurface, diagnostics: &diagnostics)
        if !collectionMembers.isEmpty, conformance == "ModelRequestBuilder" {
            surface.calls.merge(collectionSurface.calls) { first, _ in first }
            surface.collectionNavigation = collectionSurface.navigation
            declarations.append(
                Declaration(
                    .extension(
                        ExtensionDeclaration(
                            "CollectionRequestBuilder", where: [.init("ItemBuilder", .named(builderName))],
                            members: collectionMembers))))
        }
        return declarations
    }

    /// The client: the root resource's builder plus how to make one.
    func clientMembers(_ root: ResourceSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        var surface = BuilderSurface()
        return clientMembers(root, surface: &surface, diagnostics: &diagnostics)
    }

    private func clientMembers(_ root: ResourceSpec, surface: inout BuilderSurface, diagnostics: inout Diagnostics)
        -> [Declaration]
    {
        var usedNames = Self.reservedBuilderMembers.union(["defaultBaseURL", "conventions"])
        return childMembers(root, usedNames: &usedNames, surface: &surface, diagnostics: &diagnostics)
            + operationMembers(
                root.operations, onCollection: false, owner: root.name, model: nil, usedNames: &usedNames,
                surface: &surface, diagnostics: &diagnostics)
    }

    /// The builder's own entry of the module's route table.
    func routeDeclaration(_ resource: ResourceSpec) -> Declaration {
        var arguments: [Expression.Argument] = [.init(.string(resource.name.description))]
        if case .named(let model)? = resource.model, operations.modelNames.contains(model) {
            arguments.append(.init("model", .raw("\(symbols.typeName(model)).self")))
        }
        let children = resource.children.map { child in
            var arguments: [Expression.Argument] = [
                .init(.string(child.segment)), .init(.string(child.target.description)),
                .init("collection", .raw(child.isCollection ? "true" : "false")),
            ]
            let refusals = Refusals(child)
            if !refusals.atStep.isEmpty { arguments.append(.init("refusing", .string(refusals.list(refusals.atStep)))) }
            if !refusals.byItems.isEmpty {
                arguments.append(.init("itemsRefusing", .string(refusals.list(refusals.byItems))))
            }
            if child.isOnCollection { arguments.append(.init("onCollection", .raw("true"))) }
            return Expression.initializer(arguments)
        }
        // Overloads share one route: a URL names the operation, not its overload. (Read by position: Graph's
        // resources have thousands of operations, and every copy of one retains all it holds.)
        var seen = Set<String>()
        var routes: [Expression] = []
        for (operations, onCollection) in [(resource.operations, false), (resource.collectionOperations, true)] {
            for index in operations.indices
            where !OperationTranslator.isGenericCRUD(operations[index], model: resource.model)
                // An alternative that no fixed query names would take the resource's own requests.
                && (!operations[index].isAlternative || !operations[index].fixedQuery.isEmpty)
                // Spelled out: interpolating a Bool or an enum goes through reflection.
                && seen.insert(
                    "\(operations[index].name) \(operations[index].method.rawValue) \(onCollection ? "collection" : "item")"
                ).inserted
            {
                routes.append(route(operations[index], onCollection: onCollection))
            }
        }
        if !children.isEmpty { arguments.append(.init("children", .array(children))) }
        if !routes.isEmpty { arguments.append(.init("operations", .array(routes))) }
        // Computed, not stored: the compiler job that writes the module's interface compiles the initializer of
        // every stored static, and routes are the largest in a module. The route table reads each one once.
        return Declaration(
            doc: ["What this resource answers, for the module's route table."],
            .variable(
                .computed(
                    "route", type: "ResourceRoute", getter: [.expression(.call("ResourceRoute", arguments))],
                    isStatic: true)))
    }

    /// One operation of the route table. Lists are written as strings (`path: "a/b"`, `query: "view=count"`):
    /// nested collection literals in a large static table make the optimizer's time grow faster than the table.
    private func route(_ operation: OperationSpec, onCollection: Bool) -> Expression {
        var arguments: [Expression.Argument] = [
            .init(.string(operation.name)), .init(.raw(".\(operation.method.rawValue.lowercased())")),
        ]
        let segments = operation.pathSuffix.map { operations.routeSegment($0) }
        if segments != [operation.name] { arguments.append(.init("path", .string(segments.joined(separator: "/")))) }
        if onCollection { arguments.append(.init("onCollection", .raw("true"))) }
        // Only JSON bodies are checked against a type; forms, text and bytes are not JSON.
        if let body = operation.requestBody, body.isJSON, let kind = operations.mapping.fieldKind(body.type) {
            arguments.append(.init("request", .raw(kind)))
        }
        if let type = operation.response?.type, operation.response?.isRawBody != true,
            let kind = operations.mapping.fieldKind(type)
        {
            arguments.append(.init("response", .raw(kind)))
        }
        if !operation.isEnveloped { arguments.append(.init("enveloped", .raw("false"))) }
        if !operation.fixedQuery.isEmpty {
            // Form-encoded, as the runtime reads it back (`PercentEncoding.formValues`).
            func escaped(_ text: String) -> String {
                text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"]))
                    ?? text
            }
            let items = operation.fixedQuery.sorted { $0.key < $1.key }.map {
                "\(escaped($0.key))=\(escaped($0.value))"
            }
            arguments.append(.init("query", .string(items.joined(separator: "&"))))
        }
        if let payloadPath = operation.response?.payloadPath {
            arguments.append(.init("payload", .string(payloadPath.joined(separator: "/"))))
        }
        if !operation.segmentAliases.isEmpty {
            arguments.append(.init("aliases", .string(operation.segmentAliases.joined(separator: " "))))
        }
        if operation.response?.monitor != nil { arguments.append(.init("monitor", .raw("true"))) }
        return .initializer(arguments)
    }

    /// `.init(client: client, path: path.appending("segment"))`: the builder one segment further down, with what
    /// the service refuses there.
    /// A collection that lists its own way also gets its `listing`.
    private func builder(at segment: String, refusals: Refusals = Refusals(), listing: Expression? = nil) -> Statement {
        let listingArgument = listing.map { [Expression.Argument("listing", $0)] } ?? []
        // Keys that follow the owner's URL directly: the same path, read as a collection.
        if segment.isEmpty, refusals.atStep.isEmpty, refusals.byItems.isEmpty {
            return .expression(
                .initializer([.init("client", .raw("client")), .init("path", .raw("path"))] + listingArgument))
        }
        var arguments: [Expression.Argument] = [.init(.string(segment))]
        if !refusals.atStep.isEmpty { arguments.append(.init("refusing", .raw(refusals.literal(refusals.atStep)))) }
        if !refusals.byItems.isEmpty {
            arguments.append(.init("itemsRefusing", .raw(refusals.literal(refusals.byItems))))
        }
        return .expression(
            .initializer(
                [
                    .init("client", .raw("client")),
                    .init("path", Expression.raw("path").call("appending", arguments)),
                ] + listingArgument))
    }

    /// The steps from the item's URL, or with `onCollection` those from the collection's.
    private func childMembers(
        _ resource: ResourceSpec, onCollection: Bool = false, usedNames: inout Set<String>,
        surface: inout BuilderSurface, diagnostics: inout Diagnostics
    ) -> [Declaration] {
        var members: [Declaration] = []
        for child in resource.children where child.isOnCollection == onCollection {
            let name = symbols.memberName(child.name, of: resource.name)
            guard usedNames.insert(name).inserted else {
                diagnostics.warning(
                    "skipped navigation '\(child.name)' on '\(resource.name)': the name is taken", at: resource.location
                )
                continue
            }
            surface.navigation[child.name] = name
            let target = symbols.builderName(child.target)
            let refusals = Refusals(child)
            var doc = DocComment.lines(child.doc, remark: nil)
            if let refused = refusals.sentence {
                if !doc.isEmpty { doc.append("") }
                doc.append(refused)
            }
            let remark = "- Remark: Generated from `\(resource.name)/\(child.name)`."
            if child.isCollection {
                if !doc.isEmpty { doc.append("") }
                // A long name with a long key would make a code span no line can hold: the key is then just "id".
                let key = child.keyName.flatMap { name.count + $0.count <= 70 ? $0 : nil } ?? "id"
                // Items no model describes are addressed, not listed: `CollectionRequestBuilder` has no `request()`.
                doc.append(
                    modelResources.contains(child.target)
                        ? "`\(name).request()` lists them; `\(name)(\"\(key)\")` addresses one."
                        : "`\(name)(\"\(key)\")` addresses one.")
                doc += ["", remark]
                members.append(
                    Declaration(
                        doc: doc,
                        .variable(
                            .computed(
                                name, type: .generic("CollectionRequestBuilder", [.named(target)]),
                                getter: [
                                    builder(at: child.segment, refusals: refusals, listing: listings[child.target])
                                ])
                        )))
            } else {
                doc += doc.isEmpty ? [remark] : ["", remark]
                members.append(
                    Declaration(
                        doc: doc,
                        .variable(
                            .computed(
                                name, type: .named(target), getter: [builder(at: child.segment, refusals: refusals)]))))
            }
        }
        return members
    }

    /// `content` and other stream properties: their bytes are read and written at their own URL.
    private func streamMembers(_ resource: ResourceSpec, usedNames: inout Set<String>) -> [Declaration] {
        guard case .named(let model)? = resource.model, operations.modelNames.contains(model) else { return [] }
        let modelName = symbols.typeName(model)
        return models.streamProperties(of: model).compactMap { property in
            let name = SwiftNames.memberName(property.name)
            guard usedNames.insert(name).inserted else { return nil }
            var doc = DocComment.lines(property.doc, remark: nil)
            if !doc.isEmpty { doc.append("") }
            doc.append(
                "The `\(property.name)` stream: `\(name).download()`, `\(name).download(to:)`, `\(name).upload(_:)`.")
            return Declaration(
                doc: doc,
                .variable(
                    .computed(
                        name, type: .generic("StreamRequestBuilder", [.named(modelName)]),
                        getter: [builder(at: property.name)])))
        }
    }

    /// `ApiCredential` for `ApiCredentialRequestBuilder` (a numbered builder keeps its whole name).
    private func collectionTypePrefix(_ owner: QualifiedName) -> String {
        let builder = symbols.builderName(owner)
        return builder.hasSuffix("RequestBuilder") ? String(builder.dropLast("RequestBuilder".count)) : builder
    }

    private func operationMembers(
        _ specs: [OperationSpec], onCollection: Bool, owner: QualifiedName, model: TypeRef?,
        usedNames: inout Set<String>,
        surface: inout BuilderSurface, diagnostics: inout Diagnostics
    ) -> [Declaration] {
        specs.enumerated().flatMap { index, operation -> [Declaration] in
            guard !OperationTranslator.isGenericCRUD(operation, model: model),
                let translation = operations.translate(
                    operation, owner: owner,
                    typePrefix: onCollection ? collectionTypePrefix(owner) : "",
                    usedNames: &usedNames, diagnostics: &diagnostics)
            else { return [] }
            surface.calls[.init(index: index, onCollection: onCollection)] = translation.call
            return translation.declaration.map { [$0] + translation.companions } ?? []
        }
    }
}

/// What a call site can reach from one builder: the conformance calls are written from it.
struct BuilderSurface {
    struct OperationKey: Hashable {
        /// The operation's place in `ResourceSpec.operations` or `.collectionOperations`.
        var index: Int
        var onCollection: Bool
    }

    /// Whether it is a `ModelRequestBuilder`, whose `request()` reads, updates and deletes.
    var isModelBuilder = false
    /// A navigation property's name in the spec → its member on the builder.
    var navigation: [String: String] = [:]
    /// The same for steps from the collection's URL: members of its `CollectionRequestBuilder`.
    var collectionNavigation: [String: String] = [:]
    var calls: [OperationKey: OperationCall] = [:]
}

/// The methods a step refuses, from its capability restrictions: at its own URL (a collection's POST, a single
/// entity's PATCH, PUT or DELETE) and on each item of a collection.
struct Refusals {
    var atStep: [String] = []
    var byItems: [String] = []

    init() {}

    init(_ child: ChildSpec) {
        let restrictions = child.restrictions
        var writes: [String] = []
        if !restrictions.updatable { writes += ["patch", "put"] }
        if !restrictions.deletable { writes.append("delete") }
        if child.isCollection {
            if !restrictions.insertable { atStep = ["post"] }
            byItems = writes
        } else {
            atStep = writes
        }
    }

    var isEmpty: Bool { atStep.isEmpty && byItems.isEmpty }

    /// `[.post]`, a `Set<HTTPRequest.Method>` literal.
    func literal(_ methods: [String]) -> String { "[" + methods.map { "." + $0 }.joined(separator: ", ") + "]" }

    /// `"POST PATCH"`, as a route table writes them.
    func list(_ methods: [String]) -> String { methods.map { $0.uppercased() }.joined(separator: " ") }

    /// What the builder's doc comment says, or nil when nothing is refused.
    var sentence: String? {
        func names(_ methods: [String]) -> String { methods.map { "`\($0.uppercased())`" }.joined(separator: ", ") }
        var parts: [String] = []
        if !atStep.isEmpty { parts.append("\(names(atStep)) here") }
        if !byItems.isEmpty { parts.append("\(names(byItems)) on its items") }
        guard !parts.isEmpty else { return nil }
        return "The service refuses " + parts.joined(separator: " and ")
            + " (capability restrictions): those calls fail with `BinderyError.Kind.refused`, unsent."
    }
}
