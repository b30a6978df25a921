import Testing

@testable import BinderyEmitter

/// The typed syntax tree: the renderer spells types, attributes, effects, defaults and statements from values, and
/// its one-line form is one writer whether it renders text or measures columns.
@Suite struct SwiftSyntaxTests {
    static func render(_ declarations: [Declaration]) -> String {
        SwiftRenderer().render(SwiftFile(path: "F.swift", header: [], imports: [], declarations: declarations))
    }

    @Test func typesAreSpelledFromTheirStructure() {
        #expect(SwiftType.optional(.existential("AuthProvider")).text == "(any AuthProvider)?")
        #expect(SwiftType.optional(.array(.existential("HTTPMiddleware"))).text == "[any HTTPMiddleware]?")
        #expect(SwiftType.dictionary(key: "String", value: .array("Int64")).text == "[String: [Int64]]")
        #expect(SwiftType.array(.tuple(["String", "ODataLiteral"])).text == "[(String, ODataLiteral)]")
        #expect(
            SwiftType.generic("OperationRequest", [.generic("OperationMonitor", ["Status"])]).text
                == "OperationRequest<OperationMonitor<Status>>")
    }

    @Test func declarationsSpellAttributesEffectsDefaultsAndRequirements() {
        var function = FunctionDeclaration(
            "send",
            parameters: [
                .init(label: "_", "body", "Message"), .optional("auth", .existential("AuthProvider")),
                .init("headers", "HTTPFields", default: .dictionary([])),
            ],
            effects: [.async, .throws], returns: .optional("URL"), body: [.return(.raw("nil"))])
        function.isStatic = true
        let text = Self.render([
            Declaration(attributes: [.deprecated], .function(function)),
            Declaration(
                .extension(
                    ExtensionDeclaration(
                        "CollectionRequestBuilder", where: [.init("ItemBuilder", "DriveItemRequestBuilder")],
                        members: [Declaration(.enumCase(name: "ok", associatedValues: [.array("UInt8")]))]))),
        ])
        #expect(
            text == """
                @available(*, deprecated)
                public static func send(
                    _ body: Message,
                    auth: (any AuthProvider)? = nil,
                    headers: HTTPFields = [:]
                ) async throws -> URL? {
                    return nil
                }

                extension CollectionRequestBuilder where ItemBuilder == DriveItemRequestBuilder {
                    case ok([UInt8])
                }

                """)
    }

    @Test func switchWritesACasePerLineAndBreaksABodyThatDoesNotFit() {
        let long = String(repeating: "a", count: 120)
        let getter: [Statement] = [
            .switch(
                .raw("self"),
                [
                    .init("file", binding: "value", [.return(.raw("value.json"))]),
                    .init("other", binding: "json", [.return(.raw(long))]),
                    .init("none", [.binding(.let, "empty", type: "JSONValue", .raw(".null")), .return(.raw("empty"))]),
                ])
        ]
        let text = Self.render([Declaration(.variable(.computed("json", type: "JSONValue", getter: getter)))])
        #expect(
            text == """
                public var json: JSONValue {
                    switch self {
                    case .file(let value): return value.json
                    case .other(let json):
                        return \(long)
                    case .none:
                        let empty: JSONValue = .null
                        return empty
                    }
                }

                """)
    }

    /// Text and columns come from the same writer: the columns of every expression's one-line form are its
    /// length, and a limit one short gives up.
    @Test func measuringAndWritingTheOneLineFormAgree() {
        let expressions: [Expression] = [
            .raw("client"),
            .string("naïve café"),
            .call("Field", [.init(.string("name")), .init("loose", .raw("true"))]),
            .metatype(.generic("Model", ["DriveItemFields"])),
            .cast(.tuple([.init("id", .raw("a")), .init("name", .raw("b"))]), to: "Table"),
            .dictionary([.init(.string("ü"), .array([.raw("1"), .raw("2")]))]),
            .dictionary([]),
            .keyword("try await", Expression.raw("client").call("send", [.init(.dot("get", []))])),
            .dot("byStatus", [.init(.dictionary([.init(.raw("200"), .type(.optional(.existential("P"))))]))]),
        ]
        for expression in expressions {
            let text = try! #require(expression.flat)
            #expect(expression.flatColumns(limit: 1_000) == text.count, "\(text)")
            #expect(expression.flatColumns(limit: text.count) == text.count, "\(text)")
            #expect(expression.flatColumns(limit: text.count - 1) == nil, "\(text)")
        }
        // No one-line form: a closure, or text with a line break in it.
        #expect(Expression.closure(parameters: [], body: [.expression(.raw("x"))]).flat == nil)
        #expect(Expression.call("f", [.init(.raw("a\nb"))]).flatColumns(limit: 1_000) == nil)
    }

    /// A request body's encoding is a value, and each kind sets the body its own way.
    @Test func bodyEncodingsSetTheirBodies() {
        func text(_ encoding: OperationTranslator.BodyEncoding) -> [String] {
            encoding.statements.map { $0.flat ?? "" }
        }
        #expect(text(.json(isModel: true)) == ["request.setJSONBody(client.body(for: body))"])
        #expect(text(.json(isModel: false)) == ["request.setJSONBody(client.conventions.wrapRequestBody(body.json))"])
        #expect(text(.formFields(isModel: true)) == ["request.setFormBody(.object(body.requestMembers))"])
        #expect(text(.text(contentType: "text/csv")) == [#"request.setTextBody(body, contentType: "text/csv")"#])
        #expect(text(.multipart) == ["request.setMultipartBody(form)"])
        #expect(
            text(.content(contentType: "image/png")) == [
                "request.body = content", #"request.setHeader("Content-Type", json: "image/png")"#,
            ])
        #expect(
            text(.members([.expression(.raw("body").call("set", [.init(.string("a")), .init(.raw("a"))]))])) == [
                "var body = JSONObject()", #"body.set("a", a)"#,
                "request.setJSONBody(client.conventions.wrapRequestBody(.object(body)))",
            ])
    }
}
