import BinderyEmitter
import Testing

/// The renderer's layout: an expression on one line when it fits 120 columns at its indentation, otherwise one
/// argument or element per line; doc comments wrapped at word boundaries. (No Foundation here: it has an
/// `Expression` of its own.)
@Suite struct RendererTests {
    /// `value` as the initial value of `static let name` inside `enum Box`.
    static func render(_ value: Expression, doc: [String] = []) -> String {
        let property = Declaration(doc: doc, .variable(.stored("name", type: nil, value: value, isStatic: true)))
        let file = SwiftFile(
            path: "Box.swift", header: [], imports: [],
            declarations: [Declaration(.type(TypeDeclaration(.enum, "Box", members: [property])))])
        return SwiftRenderer().render(file)
    }

    static func boxed(_ lines: String) -> String {
        "public enum Box {\n"
            + lines.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
            .joined(separator: "\n") + "\n}\n"
    }

    static func strings(_ count: Int, _ stem: String = "element") -> [Expression] {
        (1...count).map { .string("\(stem)\($0)") }
    }

    /// Files are joined from pieces rendered apart: one blank line after a header without imports, one between
    /// declarations, none at the top of a file without a header.
    @Test func piecesJoinWithOneBlankLineBetween() {
        let declarations = [
            Declaration(.typeAlias(name: "A", type: "Int")), Declaration(.typeAlias(name: "B", type: "Int")),
        ]
        let renderer = SwiftRenderer()
        let withHeader = SwiftFile(path: "A.swift", header: ["// header"], imports: [], declarations: declarations)
        let expected = "public typealias A = Int\n\npublic typealias B = Int\n"
        #expect(renderer.render(withHeader) == "// header\n\n" + expected)
        let bare = SwiftFile(path: "A.swift", header: [], imports: [], declarations: declarations)
        #expect(renderer.render(bare) == expected)
        let pieces = declarations.map { renderer.renderDeclarations([$0]) }
        #expect(renderer.render(header: ["// header"], imports: [], parts: [[]] + pieces) == "// header\n\n" + expected)
    }

    @Test func aCallThatFitsStaysOnOneLine() {
        let value = Expression.call(
            "ModelSchema",
            [.init(.string("contoso.item")), .init("base", .raw("Entity.self")), .init("fields", .raw("all"))])
        #expect(
            Self.render(value)
                == Self.boxed(#"public static let name = ModelSchema("contoso.item", base: Entity.self, fields: all)"#))
    }

    @Test func aLongCallPutsOneArgumentOnEachLineWithoutATrailingComma() {
        let value = Expression.call(
            "ResourceRoute",
            [
                .init(.string("contoso.averyveryveryveryverylongresourcename")),
                .init("model", .raw("AVeryVeryVeryLongModelName.self")),
                .init(
                    "children", .array([.initializer([.init(.string("children")), .init("collection", .raw("true"))])])),
            ])
        #expect(
            Self.render(value)
                == Self.boxed(
                    """
                    public static let name = ResourceRoute(
                        "contoso.averyveryveryveryverylongresourcename",
                        model: AVeryVeryVeryLongModelName.self,
                        children: [.init("children", collection: true)]
                    )
                    """))
    }

    @Test func aLongArrayPutsOneElementOnEachLineWithATrailingComma() {
        #expect(
            Self.render(.array(Self.strings(3)))
                == Self.boxed(#"public static let name = ["element1", "element2", "element3"]"#))
        #expect(
            Self.render(.array(Self.strings(9)))
                == Self.boxed(
                    """
                    public static let name = [
                        "element1",
                        "element2",
                        "element3",
                        "element4",
                        "element5",
                        "element6",
                        "element7",
                        "element8",
                        "element9",
                    ]
                    """))
    }

    @Test func innerListsBreakOnlyWhenTheyStillDoNotFit() {
        let value = Expression.call(
            "RouteTable",
            [
                .init("root", .raw("Client.route")), .init("resources", .array(Self.strings(2, "short"))),
                .init("models", .array(Self.strings(12, "model"))),
            ])
        #expect(
            Self.render(value)
                == Self.boxed(
                    """
                    public static let name = RouteTable(
                        root: Client.route,
                        resources: ["short1", "short2"],
                        models: [
                            "model1",
                            "model2",
                            "model3",
                            "model4",
                            "model5",
                            "model6",
                            "model7",
                            "model8",
                            "model9",
                            "model10",
                            "model11",
                            "model12",
                        ]
                    )
                    """))
    }

    @Test func aLoneArgumentHugsTheParentheses() {
        let value = Expression.call(
            "Outer",
            [
                .init("client", .call("ServiceClient", Self.strings(6, "argument").map { .init("label", $0) }))
            ])
        #expect(
            Self.render(value)
                == Self.boxed(
                    """
                    public static let name = Outer(client: ServiceClient(
                        label: "argument1",
                        label: "argument2",
                        label: "argument3",
                        label: "argument4",
                        label: "argument5",
                        label: "argument6"
                    ))
                    """))
    }

    @Test func aChainBreaksBeforeCallsKeepingPropertiesAndArgumentlessCallsWithThem() {
        let client = Expression.call("ContosoClient", [.init("client", .raw("client"))])
        let short = client.call("drives", [.init(.string("id"))]).dot("root").call("request").call("get")
        #expect(
            Self.render(.keyword("try await", short))
                == Self.boxed(
                    #"public static let name = try await ContosoClient(client: client).drives("id").root.request().get()"#
                ))

        let long = client.call("drives", [.init(.string("drive-id-1"))]).dot("root")
            .call("copy", [.init("parentReference", .raw(#"arguments.bodyMember("parentReference")"#))]).call("send")
        #expect(
            Self.render(.keyword("try await", long))
                == Self.boxed(
                    """
                    public static let name = try await ContosoClient(client: client).drives("drive-id-1").root
                        .copy(parentReference: arguments.bodyMember("parentReference")).send()
                    """))
    }

    @Test func aDictionaryOfClosuresPutsOneEntryOnEachLine() {
        let closure = Expression.closure(
            parameters: ["client", "arguments"], body: [.assignment(.raw("_"), .raw("client"))])
        #expect(
            Self.render(.dictionary([.init(.string("a"), closure), .init(.string("b"), closure)]))
                == Self.boxed(
                    """
                    public static let name = [
                        "a": { client, arguments in
                            _ = client
                        },
                        "b": { client, arguments in
                            _ = client
                        },
                    ]
                    """))
        #expect(Self.render(.dictionary([])) == Self.boxed("public static let name = [:]"))
    }

    @Test func statementsBreakLikeExpressions() {
        let function = FunctionDeclaration(
            "make",
            body: [
                .binding(
                    .let, "request",
                    .call(
                        "APIRequest",
                        [
                            .init("method", .raw(".get")),
                            .init(
                                "path",
                                Expression.raw("path").call(
                                    "appending",
                                    [
                                        .init("function", .string("aVeryLongFunctionName")),
                                        .init(
                                            "parameters",
                                            .array([.tuple([.init(.string("page")), .init(.raw("page"))])])),
                                    ])),
                        ])),
                .ifLet("name", [.expression(.raw("body").call("set", [.init(.string("name")), .init(.raw("name"))]))]),
                .return(
                    .call("OperationRequest", [.init("client", .raw("client")), .init("request", .raw("request"))])),
            ])
        let file = SwiftFile(path: "F.swift", header: [], imports: [], declarations: [Declaration(.function(function))])
        #expect(
            SwiftRenderer().render(file) == """
                public func make() {
                    let request = APIRequest(
                        method: .get,
                        path: path.appending(function: "aVeryLongFunctionName", parameters: [("page", page)])
                    )
                    if let name { body.set("name", name) }
                    return OperationRequest(client: client, request: request)
                }

                """)
    }

    @Test func docCommentsWrapAtWordsKeepingListItemsAndCodeSpans() {
        let words = Array(repeating: "word", count: 24).joined(separator: " ")
        let doc = [
            words + " `a code span with spaces` " + words,
            "",
            "- Parameters:",
            "  - name: " + words + " " + words,
            "- Remark: Generated from `" + String(repeating: "x", count: 130) + "`.",
            "Ends with a dash - " + Array(repeating: "word", count: 20).joined(separator: " ") + " - and more",
            // Not ASCII: wrapped by characters rather than bytes, to the same width.
            "Café " + Array(repeating: "word", count: 25).joined(separator: " "),
        ]
        let lines = Self.render(.raw("1"), doc: doc).split(separator: "\n").map(String.init)
        #expect(
            lines.filter { $0.hasPrefix("    ///") } == [
                "    /// word word word word word word word word word word word word word word word word word word word word word word",
                "    /// word word `a code span with spaces` word word word word word word word word word word word word word word word",
                "    /// word word word word word word word word word",
                "    ///",
                "    /// - Parameters:",
                "    ///   - name: word word word word word word word word word word word word word word word word word word word word",
                "    ///     word word word word word word word word word word word word word word word word word word word word word",
                "    ///     word word word word word word word",
                "    /// - Remark: Generated from",
                "    ///   `" + String(repeating: "x", count: 130) + "`.",
                "    /// Ends with a dash - word word word word word word word word word word word word word word word word word word",
                "    /// word word - and more",
                "    /// Café " + Array(repeating: "word", count: 21).joined(separator: " "),
                "    /// word word word word",
            ])
    }
}

/// Declarations whose names and types alone pass 120 columns (the full Microsoft Graph has hundreds): the type or
/// the value moves to the next line, as swift-format lays them out, instead of running past the width.
@Suite struct RendererLongDeclarationTests {
    static let longName = "userExperienceAnalyticsAppHealthApplicationPerformanceByAppVersionDetails"
    static let longType = SwiftType.generic(
        "CollectionRequestBuilder", ["UserExperienceAnalyticsAppHealthAppPerformanceByAppVersionDetailsBuilder"])
    static let longTypeText =
        "CollectionRequestBuilder<UserExperienceAnalyticsAppHealthAppPerformanceByAppVersionDetailsBuilder>"

    static func render(_ declarations: [Declaration]) -> String {
        SwiftRenderer().render(SwiftFile(path: "Long.swift", header: [], imports: [], declarations: declarations))
    }

    @Test func aLongTypeAliasBreaksAfterTheEqualsSign() {
        let text = Self.render([
            Declaration(
                .typeAlias(
                    name: "UserExperienceAnalyticsAppHealthAppPerformance",
                    type: .generic("Model", ["UserExperienceAnalyticsAppHealthAppPerformanceByAppVersionDetailsFields"])
                ))
        ])
        #expect(
            text == """
                public typealias UserExperienceAnalyticsAppHealthAppPerformance =
                    Model<UserExperienceAnalyticsAppHealthAppPerformanceByAppVersionDetailsFields>

                """)
    }

    /// A tuple table: its type and its value cast to it, each on one line when they fit, else one element a line.
    @Test func labelledTuplesAndCastsBreakOneElementALine() {
        func table(_ count: Int) -> [Declaration] {
            let labels = (0..<count).map { "field\($0)" }
            return [
                Declaration(
                    .tupleAlias(name: "Table", elements: labels.map { TupleElement($0, .generic("Field", ["String"])) })
                ),
                Declaration(
                    .variable(
                        .stored(
                            "table", type: nil,
                            value: .cast(
                                .tuple(labels.map { .init($0, .call("Field", [.init(.string($0))])) }), to: "Table"),
                            isStatic: true))),
            ]
        }
        #expect(
            Self.render(table(2)) == """
                public typealias Table = (field0: Field<String>, field1: Field<String>)

                public static let table = (field0: Field("field0"), field1: Field("field1")) as Table

                """)
        #expect(
            Self.render(table(6)) == """
                public typealias Table = (
                    field0: Field<String>,
                    field1: Field<String>,
                    field2: Field<String>,
                    field3: Field<String>,
                    field4: Field<String>,
                    field5: Field<String>
                )

                public static let table = (
                    field0: Field("field0"),
                    field1: Field("field1"),
                    field2: Field("field2"),
                    field3: Field("field3"),
                    field4: Field("field4"),
                    field5: Field("field5")
                ) as Table

                """)
    }

    @Test func aLongComputedPropertyPutsItsTypeAndBraceOnLinesOfTheirOwn() {
        let property = Declaration(
            .variable(.computed(Self.longName, type: Self.longType, getter: [.expression(.raw(".init()"))])))
        let text = Self.render([Declaration(.type(TypeDeclaration(.struct, "Root", members: [property])))])
        #expect(
            text == """
                public struct Root {
                    public var \(Self.longName):
                        \(Self.longTypeText)
                    {
                        .init()
                    }
                }

                """)
    }

    @Test func aLongStoredPropertyPutsItsTypeOnTheNextLine() {
        let property = Declaration(.variable(.stored(Self.longName, type: Self.longType)))
        let text = Self.render([Declaration(.type(TypeDeclaration(.struct, "Root", members: [property])))])
        #expect(text.contains("    public let \(Self.longName):\n        \(Self.longTypeText)\n}"))
    }

    @Test func aLongFunctionWithoutParametersPutsItsResultOnTheNextLine() {
        let function = FunctionDeclaration(
            "getAttackSimulationSimulationUserCoverageForTheWholeTenant", returns: Self.longType,
            body: [.expression(.call("fatalError"))])
        let text = Self.render([Declaration(.function(function))])
        #expect(
            text == """
                public func getAttackSimulationSimulationUserCoverageForTheWholeTenant()
                    -> \(Self.longTypeText)
                {
                    fatalError()
                }

                """)
    }

    @Test func aValueThatCannotBreakGoesOnTheLineAfterItsLabel() {
        let call = Expression.call(
            "update", [.init(Self.longName, .raw("arguments.bodyMember(\"\(Self.longName)\")"))])
        let text = RendererTests.render(call)
        #expect(
            text
                == RendererTests.boxed(
                    """
                    public static let name = update(
                        \(Self.longName):
                            arguments.bodyMember("\(Self.longName)")
                    )
                    """))
    }
}
