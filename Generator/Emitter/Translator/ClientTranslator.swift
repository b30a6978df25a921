import BinderySpec

/// The module's entry point: a client struct that is the root request builder, with the service's
/// base URL and wire conventions.
struct ClientTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let options: Emitter.Options

    func translate(root: ResourceSpec, route: Declaration, members: [Declaration]) -> [Declaration] {
        let name = symbols.clientName
        var clientMembers: [Declaration] = [
            Declaration(
                doc: ["Where the service lives unless you say otherwise (tests point clients at a local mock)."],
                .variable(.stored("defaultBaseURL", type: "URL", value: "URL(string: \(options.baseURL.swiftLiteral))!", isStatic: true))),
        ]
        clientMembers += alternativeBaseURLs.map { alternative in
            Declaration(
                doc: ["The `\(alternative.name)` service root: the same API at \(alternative.url)."],
                .variable(.stored(alternative.member, type: "URL", value: "URL(string: \(alternative.url.swiftLiteral))!", isStatic: true)))
        }
        clientMembers += [
            Declaration(
                doc: ["How the service pages, wraps bodies and reports errors."],
                .variable(.stored("conventions", type: nil, value: conventionsExpression(), isStatic: true))),
            route,
            Declaration(.variable(.stored("client", type: "ServiceClient"))),
            Declaration(.variable(.stored("path", type: "ResourcePath"))),
            Declaration(.function(FunctionDeclaration(
                "init", parameters: [.init("client", "ServiceClient"), .init("path", "ResourcePath", default: "ResourcePath()")],
                body: ["self.client = client", "self.path = path"]))),
            Declaration(
                doc: [
                    "A client for the service.",
                    "",
                    "- Parameters:",
                    "  - baseURL: The service root; every request path is appended to it.",
                    "  - auth: Signs requests to the service's own hosts and renews the session when it expires.",
                    "  - transport: How requests travel (libcurl on Linux, URLSession on Apple platforms).",
                    "  - middleware: What every request passes through: headers, retry, redirects, logging.",
                    "  - headers: Sent with every request.",
                ],
                .function(FunctionDeclaration(
                    "init",
                    parameters: [
                        .init("baseURL", "URL", default: "defaultBaseURL"),
                        .init("auth", "(any AuthProvider)?", default: "nil"),
                        .init("transport", "any HTTPTransport", default: "DefaultTransport.shared"),
                        .init("middleware", "[any HTTPMiddleware]", default: ".defaults"),
                        .init("headers", "HTTPFields", default: "[:]"),
                    ],
                    body: [
                        "self.init(client: ServiceClient(",
                        "    baseURL: baseURL, transport: transport, middleware: middleware + (auth.map { [AuthMiddleware($0)] } ?? []),",
                        "    conventions: Self.conventions,",
                        "    defaultHeaders: headers))",
                    ]))),
        ]
        clientMembers += members
        var doc = DocComment.lines(spec.doc, remark: nil)
        if doc.isEmpty { doc = ["A client for the \(options.moduleName) service."] }
        doc += ["", "Start here: its members lead to every resource of the service.", "", "- Remark: Generated from `\(root.name)`."]
        return [Declaration(doc: doc, .type(TypeDeclaration(.struct, name, conformances: ["RequestBuilder"], members: clientMembers)))]
    }

    /// The module's descriptor: its name, base URLs, wire conventions and route table (every builder's route and
    /// every model type), read by the mock server, `bindery validate` and the conformance suite.
    func serviceDescriptor(builders: [String], models: [String]) -> Declaration {
        func list(_ items: [String], indent: String) -> String {
            "[\n" + items.map { indent + "    " + $0 + "," }.joined(separator: "\n") + "\n" + indent + "]"
        }
        let client = symbols.clientName
        let baseURLs = ["\(client).defaultBaseURL"] + alternativeBaseURLs.map { "\(client).\($0.member)" }
        let routes = "RouteTable(\n        root: \(client).route,\n        resources: "
            + list(builders.map { $0 + ".route" }, indent: "        ") + ",\n        models: "
            + list(models.map { $0 + ".self" }, indent: "        ") + "\n    )"
        let value = "ServiceDescriptor(\n    name: \(options.moduleName.swiftLiteral),\n    baseURLs: ["
            + baseURLs.joined(separator: ", ") + "],\n    conventions: \(client).conventions,\n    routes: \(routes)\n)"
        return Declaration(
            doc: [
                "The \(options.moduleName) module as tools see it: what the mock server serves, `bindery validate` checks",
                "and the conformance suite replays.",
                "",
                "- Remark: Generated from `\(options.specDisplayPath)`.",
            ],
            .type(TypeDeclaration(.enum, symbols.serviceName, members: [
                Declaration(.variable(.stored("descriptor", type: nil, value: value, isStatic: true)))
            ])))
    }

    /// `consumer` → `consumerBaseURL`, in name order.
    private var alternativeBaseURLs: [(member: String, url: String, name: String)] {
        options.alternativeBaseURLs.sorted { $0.key < $1.key }
            .map { (SwiftNames.memberName($0.key) + "BaseURL", $0.value, $0.key) }
    }

    private func conventionsExpression() -> String {
        let conventions = spec.conventions
        let listShape: String
        var requestEnvelope = "[]"
        switch conventions.envelope {
        case .none:
            listShape = conventions.queryOptions == .odata ? ".odata" : ".bare"
        case .wrapped(let resultsPath, let requestPath):
            listShape = ".wrapped(\(literal(resultsPath)))"
            requestEnvelope = literal(requestPath)
        }
        let paging: String
        switch conventions.paging {
        case .nextLink(let field):
            paging = ".nextLink(field: \(field.swiftLiteral))"
        case .pageNumber(let page, let size, let extra, let totalPages):
            let extraQuery = extra.isEmpty ? "[]" : "[" + extra.sorted { $0.key < $1.key }
                .map { "(\($0.key.swiftLiteral), \($0.value.swiftLiteral))" }.joined(separator: ", ") + "]"
            paging = ".pageNumber(page: \(page.swiftLiteral), size: \(size.swiftLiteral), extraQuery: \(extraQuery), totalPages: \(literal(totalPages)))"
        case .offset(let offset, let limit):
            paging = ".offset(offset: \(offset.swiftLiteral), limit: \(limit.swiftLiteral), defaultLimit: 100)"
        case .cursor(let field, let parameter):
            paging = ".cursor(field: \(field.swiftLiteral), parameter: \(parameter.swiftLiteral))"
        case .none:
            paging = ".none"
        }
        var delta = ""
        if case .cursor(let parameter, let start, let end)? = conventions.delta {
            delta = "\n    delta: .cursor(parameter: \(parameter.swiftLiteral), start: \(start.swiftLiteral), end: \(end.swiftLiteral)),"
        }
        return "ServiceConventions(\n    listShape: \(listShape),\n    paging: \(paging),\n    requestEnvelope: \(requestEnvelope),\(delta)\n    errors: .\(conventions.errors.rawValue)\n)"
    }

    private func literal(_ path: [String]) -> String {
        "[" + path.map(\.swiftLiteral).joined(separator: ", ") + "]"
    }
}
