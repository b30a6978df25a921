import BinderySpec

/// The module's entry point: a client struct that is the root request builder, with the service's
/// base URL and wire conventions.
struct ClientTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let options: Emitter.Options

    func translate(root: ResourceSpec, route: Declaration, members: [Declaration]) -> [Declaration] {
        let name = symbols.clientName
        let server = options.baseURL.isEmpty ? spec.servers.first : nil
        let baseURL = options.baseURL.isEmpty ? server?.defaultURL ?? "https://localhost" : options.baseURL
        var clientMembers: [Declaration] = [
            Declaration(
                doc: ["Where the service lives unless you say otherwise (tests point clients at a local mock)."],
                .variable(
                    .stored(
                        "defaultBaseURL", type: "URL", value: .raw("URL(string: \(baseURL.swiftLiteral))!"),
                        isStatic: true)))
        ]
        if let server, !server.variables.isEmpty { clientMembers.append(serverFunction(server)) }
        clientMembers += alternativeBaseURLs.map { alternative in
            Declaration(
                doc: ["The `\(alternative.name)` service root: the same API at \(alternative.url)."],
                .variable(
                    .stored(
                        alternative.member, type: "URL", value: .raw("URL(string: \(alternative.url.swiftLiteral))!"),
                        isStatic: true)))
        }
        clientMembers += [
            Declaration(
                doc: ["How the service pages, wraps bodies and reports errors."],
                .variable(.stored("conventions", type: nil, value: conventionsExpression(), isStatic: true))),
            route,
            Declaration(.variable(.stored("client", type: "ServiceClient"))),
            Declaration(.variable(.stored("path", type: "ResourcePath"))),
            Declaration(
                .function(
                    FunctionDeclaration(
                        "init",
                        parameters: [
                            .init("client", "ServiceClient"),
                            .init("path", "ResourcePath", default: .call("ResourcePath")),
                        ],
                        body: [
                            .assignment(.raw("self.client"), .raw("client")),
                            .assignment(.raw("self.path"), .raw("path")),
                        ]))),
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
                .function(
                    FunctionDeclaration(
                        "init",
                        parameters: [
                            .init("baseURL", "URL", default: .raw("defaultBaseURL")),
                            .optional("auth", .existential("AuthProvider")),
                            .init("transport", .existential("HTTPTransport"), default: .raw("DefaultTransport.shared")),
                            .init("middleware", .array(.existential("HTTPMiddleware")), default: .raw(".defaults")),
                            .init("headers", "HTTPFields", default: .dictionary([])),
                        ],
                        body: [
                            .expression(
                                .call(
                                    "self.init",
                                    [
                                        .init(
                                            "client",
                                            .call(
                                                "ServiceClient",
                                                [
                                                    .init("baseURL", .raw("baseURL")),
                                                    .init("transport", .raw("transport")),
                                                    .init(
                                                        "middleware",
                                                        .raw("middleware + (auth.map { [AuthMiddleware($0)] } ?? [])")),
                                                    .init("conventions", .raw("Self.conventions")),
                                                    .init("defaultHeaders", .raw("headers")),
                                                ]))
                                    ]))
                        ]))),
        ]
        clientMembers += members
        var doc = DocComment.lines(spec.doc, remark: nil)
        if doc.isEmpty { doc = ["A client for the \(options.moduleName) service."] }
        doc += [
            "", "Start here: its members lead to every resource of the service.", "",
            "- Remark: Generated from `\(root.name)`.",
        ]
        return [
            Declaration(
                doc: doc,
                .type(TypeDeclaration(.struct, name, conformances: ["RequestBuilder"], members: clientMembers)))
        ]
    }

    /// The module's descriptor: its name, base URLs, wire conventions and route table (every builder's route and
    /// every model type), read by the mock server, `bindery validate` and the conformance suite.
    func serviceDescriptor(builders: [String], models: [String], storage: [Expression] = []) -> Declaration {
        let client = symbols.clientName
        let baseURLs = ["\(client).defaultBaseURL"] + alternativeBaseURLs.map { "\(client).\($0.member)" }
        let routes = Expression.call(
            "RouteTable",
            [
                .init("root", .raw("\(client).route")),
                .init("resources", .array(builders.map { .raw($0 + ".route") })),
                .init("models", .array(models.map { .raw($0 + ".self") })),
            ] + (storage.isEmpty ? [] : [.init("storage", .array(storage))]))
        let descriptor = Expression.call(
            "ServiceDescriptor",
            [
                .init("name", .string(options.moduleName)),
                .init("baseURLs", .array(baseURLs.map(Expression.raw))),
                .init("conventions", .raw("\(client).conventions")),
                .init("routes", routes),
            ])
        return Declaration(
            doc: [
                "The \(options.moduleName) module as tools see it: what the mock server serves, `bindery validate` checks "
                    + "and the conformance suite replays.",
                "",
                "- Remark: Generated from `\(options.specDisplayPath)`.",
            ],
            .type(
                TypeDeclaration(
                    .enum, symbols.serviceName,
                    members: [
                        Declaration(.variable(.stored("descriptor", type: nil, value: descriptor, isStatic: true)))
                    ])))
    }

    /// `baseURL(region: "eu")`: the spec's server with its variables set; nil when a value makes no URL.
    private func serverFunction(_ server: ServerSpec) -> Declaration {
        var doc = ["The service root `\(server.url)` with its variables set.", "", "- Parameters:"]
        var parameters: [FunctionDeclaration.Parameter] = []
        var text = server.url.swiftLiteral
        for variable in server.variables {
            let name = SwiftNames.memberName(variable.name)
            parameters.append(.init(name, "String", default: .string(variable.defaultValue)))
            var facts: [String] = []
            if let summary = variable.doc.summary {
                let text = summary.docCommentLines.joined(separator: " ")
                facts.append(text.hasSuffix(".") ? text : text + ".")
            }
            if !variable.values.isEmpty {
                facts.append("One of " + variable.values.map { "`\($0)`" }.joined(separator: ", ") + ".")
            }
            facts.append("Default: `\(variable.defaultValue)`.")
            doc.append("  - \(name): " + facts.joined(separator: " "))
            let placeholder = "{\(variable.name)}".swiftLiteral.dropFirst().dropLast()
            text = text.replacingOccurrences(of: placeholder, with: "\\(PercentEncoding.segment(\(name)))")
        }
        return Declaration(
            doc: doc,
            .function(
                FunctionDeclaration(
                    "baseURL", parameters: parameters, returns: .optional("URL"), isStatic: true,
                    body: [.return(.call("URL", [.init("string", .raw(text))]))])))
    }

    /// `consumer` → `consumerBaseURL`, in name order.
    private var alternativeBaseURLs: [(member: String, url: String, name: String)] {
        options.alternativeBaseURLs.sorted { $0.key < $1.key }
            .map { (SwiftNames.memberName($0.key) + "BaseURL", $0.value, $0.key) }
    }

    private func conventionsExpression() -> Expression {
        let conventions = spec.conventions
        let listShape: Expression
        var requestEnvelope: [String] = []
        switch conventions.envelope {
        case .none:
            listShape = .raw(conventions.queryOptions == .odata ? ".odata" : ".bare")
        case .wrapped(let resultsPath, let requestPath):
            listShape = .dot("wrapped", [.init(ConventionExpressions.strings(resultsPath))])
            requestEnvelope = requestPath
        }
        let paging = ConventionExpressions.paging(conventions.paging)
        var arguments: [Expression.Argument] = [
            .init("listShape", listShape), .init("paging", paging),
            .init("requestEnvelope", ConventionExpressions.strings(requestEnvelope)),
        ]
        if case .cursor(let parameter, let start, let end)? = conventions.delta {
            arguments.append(
                .init(
                    "delta",
                    .dot(
                        "cursor",
                        [
                            .init("parameter", .string(parameter)), .init("start", .string(start)),
                            .init("end", .string(end)),
                        ])))
        }
        arguments.append(.init("errors", ConventionExpressions.errors(conventions.errors)))
        if let select = conventions.selectParameter, select != "$select" {
            arguments.append(.init("selectParameter", .string(select)))
        }
        return .call("ServiceConventions", arguments)
    }
}
