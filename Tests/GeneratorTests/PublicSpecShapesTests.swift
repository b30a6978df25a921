import BinderySpec
import Foundation
import Testing

@testable import BinderyEmitter
@testable import BinderyReaders

/// What public OpenAPI specs do that a generator must survive: recursion through any container, and names that
/// collide once they are Swift. Each rule is one row.
@Suite struct PublicSpecShapesTests {
    private func read(schemas: String, paths: String = "{}") -> (spec: ServiceSpec?, diagnostics: [String]) {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Shapes", "version": "1"},
             "servers": [{"url": "https://shapes.example"}],
             "paths": \(paths),
             "components": {"schemas": {\(schemas)}}}
            """
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "s.json")
        return (result.spec, result.diagnostics.map(\.description))
    }

    private func ref(_ name: String) -> String { "{\"$ref\": \"#/components/schemas/\(name)\"}" }

    private func choice(_ name: String, in spec: ServiceSpec?) -> ChoiceSpec? {
        spec?.choices.first { $0.name.name == name }
    }

    private func named(_ name: String) -> TypeRef { .named(QualifiedName(namespace: "shapes", name: name)) }

    // MARK: Recursion

    @Test func aUnionRecursesThroughAMapAndAList() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "ErrorDetails": {"oneOf": [
                  {"type": "string"},
                  {"type": "object", "additionalProperties": \(ref("ErrorDetails"))},
                  {"type": "array", "items": \(ref("ErrorDetails"))}]}
                """)
        #expect(diagnostics == [])
        let details = try #require(choice("ErrorDetails", in: spec))
        #expect(
            details.members.map(\.type) == [
                .primitive(.string), .dictionary(named("ErrorDetails")), .collection(named("ErrorDetails")),
            ])
    }

    @Test func anArrayOfItselfBecomesAOneCaseChoiceAndAMapOfItselfAModel() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "Path": {"type": "array", "items": \(ref("Path"))},
                "Tree": {"type": "object", "additionalProperties": \(ref("Tree"))}
                """)
        #expect(diagnostics == [])
        #expect(choice("Path", in: spec)?.members.map(\.type) == [.collection(named("Path"))])
        #expect(spec?.structures.map(\.name.name) == ["Tree"])
    }

    @Test func mutualRecursionThroughTwoArrays() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "Rows": {"type": "array", "items": \(ref("Cells"))},
                "Cells": {"type": "array", "items": \(ref("Rows"))}
                """)
        #expect(diagnostics == [])
        // `Rows` is met again first, so it holds the cycle; `Cells` stays a plain array of it.
        #expect(choice("Rows", in: spec)?.members.map(\.type) == [.collection(.collection(named("Rows")))])
        #expect(choice("Cells", in: spec) == nil)
    }

    @Test func objectsRecurseDirectlyAndMutuallyAsTheyAre() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "Node": {"type": "object", "properties": {"children": {"type": "array", "items": \(ref("Node"))},
                                                         "parent": \(ref("Node"))}},
                "Message": {"type": "object", "properties": {"thread": \(ref("Thread"))}},
                "Thread": {"type": "object", "properties": {"first": \(ref("Message"))}}
                """)
        #expect(diagnostics == [])
        #expect(spec?.structures.map(\.name.name) == ["Node", "Message", "Thread"])
        #expect(spec?.choices.isEmpty == true)
    }

    @Test func onlyACycleWithNothingInBetweenIsAnError() {
        let (spec, diagnostics) = read(
            schemas: """
                "A": \(ref("B")),
                "B": \(ref("A"))
                """)
        #expect(spec == nil)
        #expect(diagnostics.contains { $0.contains("error: $ref cycle") }, "\(diagnostics)")
        let (alone, aloneDiagnostics) = read(schemas: "\"Self\": {\"oneOf\": [\(ref("Self")), {\"type\": \"null\"}]}")
        #expect(alone == nil)
        #expect(
            aloneDiagnostics.contains {
                $0.contains("error: $ref cycle: 'Self' refers to itself with no type in between")
            },
            "\(aloneDiagnostics)")
    }

    /// Found in review: the order of the components decided whether this was an error.
    @Test func anAliasOfAnArrayOfItselfReadsInEitherOrder() {
        for schemas in [
            "\"Alias\": \(ref("List")), \"List\": {\"type\": \"array\", \"items\": \(ref("Alias"))}",
            "\"List\": {\"type\": \"array\", \"items\": \(ref("Alias"))}, \"Alias\": \(ref("List"))",
        ] {
            let (spec, diagnostics) = read(schemas: schemas)
            #expect(diagnostics == [], "\(schemas)")
            #expect(spec?.choices.count == 1, "\(schemas)")
        }
    }

    /// A member that leads back to its union through unions alone describes nothing, and a decoder would try it
    /// without end: it is dropped, with a warning.
    @Test func aUnionMemberThatLeadsBackThroughUnionsAloneIsDropped() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "A": {"oneOf": [\(ref("B")), {"type": "string"}]},
                "B": {"oneOf": [\(ref("A")), {"type": "integer"}]},
                "Self": {"oneOf": [\(ref("Self")), {"type": "boolean"}]}
                """)
        #expect(diagnostics.count == 2, "\(diagnostics)")
        #expect(diagnostics.allSatisfy { $0.contains("leads back to it through unions alone") })
        #expect(choice("A", in: spec)?.members.map(\.type) == [.primitive(.string)])
        #expect(choice("B", in: spec)?.members.map(\.type) == [named("A"), .primitive(.int64)])
        #expect(choice("Self", in: spec)?.members.map(\.type) == [.primitive(.boolean)])
    }

    /// Two members that become one type cannot be told apart on the wire; the warning names them as the spec does.
    @Test func aMemberListedTwiceIsNamedInTheSpecsWords() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
                "Code": {"oneOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "maxLength": 3},
                                   {"type": "integer", "format": "int32"}, {"type": "integer", "format": "int32"},
                                   {"type": "array", "items": \(ref("Pet"))}, {"type": "array", "items": \(ref("Pet"))}]}
                """)
        #expect(
            diagnostics.map { $0.components(separatedBy: "warning: ").last ?? $0 } == [
                "this union lists string twice; the second is ignored",
                "this union lists integer (int32) twice; the second is ignored",
                "this union lists array of Pet twice; the second is ignored",
            ])
        #expect(
            choice("Code", in: spec)?.members.map(\.type) == [
                .primitive(.string), .primitive(.int32), .collection(named("Pet")),
            ])
    }

    @Test func anEnumThatIsNoStringIsNamedInTheSpecsWords() {
        let (spec, diagnostics) = read(
            schemas: """
                "Flag": {"type": "boolean", "enum": [true]},
                "Ratio": {"type": "number", "enum": [0.5, 1]},
                "Level": {"type": "integer", "format": "int32", "enum": [1, 2]}
                """)
        #expect(
            diagnostics.map { $0.components(separatedBy: "warning: ").last ?? $0 } == [
                "only string enums become enums; this boolean enum is read as its primitive type",
                "only string enums become enums; this number enum is read as its primitive type",
                "only string enums become enums; this integer (int32) enum is read as its primitive type",
            ])
        #expect(spec?.enums.isEmpty == true)
    }

    /// `oneOf` beside properties: members that only constrain the shared ones are no shape.
    @Test func sharedMembersBesideAOneOfGiveAVariantOfTheShapedMembersOnly() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "Reach": {"type": "object", "properties": {"id": {"type": "string"}},
                  "oneOf": [{"required": ["id"]}, {"properties": {"phone": {"type": "string"}}},
                            {"properties": {"email": {"type": "string"}}}]},
                "Plain": {"type": "object", "properties": {"id": {"type": "string"}},
                  "anyOf": [{"required": ["id"]}, {"required": ["name"]}]}
                """)
        #expect(diagnostics == [])
        let reach = try #require(spec?.structures.first { $0.name.name == "Reach" })
        #expect(reach.variants == named("ReachVariant"))
        #expect(choice("ReachVariant", in: spec)?.members.count == 2)
        #expect(spec?.structures.first { $0.name.name == "Plain" }?.variants == nil)
    }

    // MARK: Webhooks

    /// Each webhook's body is a model, and one `Webhook` choice reads any of them, by the tag they imply.
    @Test func webhookPayloadsBecomeModelsAndOneChoice() throws {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Hooks", "version": "1"}, "paths": {},
             "webhooks": {
               "fileCreated": {"post": {"requestBody": {"content": {"application/json": {"schema":
                 {"type": "object", "properties": {"event": {"const": "file.created"}, "id": {"type": "string"}}}}}},
                 "responses": {"200": {"description": "ok"}}}},
               "fileDeleted": {"post": {"requestBody": {"content": {"application/json": {"schema":
                 {"$ref": "#/components/schemas/Deleted"}}}}, "responses": {"200": {"description": "ok"}}}}},
             "components": {"schemas": {"Deleted": {"type": "object",
               "properties": {"event": {"const": "file.deleted"}, "id": {"type": "string"}}}}}}
            """
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "h.json")
        #expect(result.diagnostics.map(\.description) == [])
        let spec = try #require(result.spec)
        let hook = try #require(spec.choices.first { $0.name.name == "Webhook" })
        let payload = TypeRef.named(QualifiedName(namespace: "hooks", name: "fileCreatedPayload"))
        let deleted = TypeRef.named(QualifiedName(namespace: "hooks", name: "Deleted"))
        #expect(hook.members.map(\.type) == [payload, deleted])
        #expect(hook.discriminator == "event")
        #expect(hook.members.map(\.tags) == [["file.created"], ["file.deleted"]])
        #expect(spec.structures.map(\.name.name).contains("fileCreatedPayload"))
    }

    @Test func aWebhookMayBeAReferenceToAPathItem() throws {
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Hooks", "version": "1"}, "paths": {},
             "webhooks": {"ping": {"$ref": "#/components/pathItems/Ping"}},
             "components": {"pathItems": {"Ping": {"post": {"requestBody": {"content": {"application/json":
               {"schema": {"type": "object", "properties": {"at": {"type": "string"}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}}
            """
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "h.json")
        #expect(result.diagnostics.map(\.description) == [])
        let hook = try #require(result.spec?.choices.first { $0.name.name == "Webhook" })
        #expect(hook.members.map(\.type) == [.named(QualifiedName(namespace: "hooks", name: "pingPayload"))])
    }

    // MARK: Names

    /// Union members written inline are named by the tag that tells them apart, else a short title, else their
    /// position.
    @Test func inlineUnionMembersAreNamedByTheirPlace() {
        let (spec, diagnostics) = read(
            schemas: """
                "Entry": {"oneOf": [
                  {"type": "object", "properties": {"type": {"const": "file"}, "size": {"type": "integer"}}},
                  {"type": "object", "properties": {"type": {"enum": ["web_link"]}, "url": {"type": "string"}}}]},
                "Shape": {"oneOf": [
                  {"title": "Circle", "type": "object", "properties": {"r": {"type": "number"}}},
                  {"type": "object", "properties": {"side": {"type": "number"}}}]}
                """)
        #expect(diagnostics == [])
        #expect(choice("Entry", in: spec)?.members.map(\.type) == [named("EntryFile"), named("EntryWeb_link")])
        #expect(choice("Shape", in: spec)?.members.map(\.type) == [named("ShapeCircle"), named("ShapeOption2")])
    }

    @Test(arguments: [
        ("DateSent", true, "DateSent"),
        ("DateSent<", true, "DateSent Before "),
        ("DateSent>", true, "DateSent After "),
        ("StartTime<=", true, "StartTime OnOrBefore "),
        ("StartTime>=", true, "StartTime OnOrAfter "),
        ("Price<", false, "Price LessThan "),
        ("Price>", false, "Price GreaterThan "),
        ("Size<=", false, "Size AtMost "),
        ("Size>=", false, "Size AtLeast "),
        ("Status!=", false, "Status Not "),
    ])
    func comparisonOperatorsAreSpelledAsWords(wire: String, temporal: Bool, spelled: String) {
        #expect(SwiftNames.spellingComparisons(in: wire, temporal: temporal) == spelled)
    }

    @Test(arguments: [
        // preferred, reserved, already used, result
        ("pageSize", [String](), [String](), "pageSize"),
        ("pageSize", [], ["pageSize"], "pageSize2"),
        ("pageSize", [], ["pageSize", "pageSize2"], "pageSize3"),
        ("body", ["body"], [], "bodyValue"),
        ("body", ["body"], ["bodyValue"], "bodyValue2"),
        ("`default`", [], ["`default`"], "default2"),
    ])
    func aNameTakenInItsScopeGetsTheFirstFreeNumber(
        preferred: String, reserved: [String], used: [String], result: String
    ) {
        var taken = Set(used)
        #expect(SwiftNames.unique(preferred, reserved: Set(reserved), in: &taken) == result)
        #expect(taken.contains(result))
    }

    /// Query parameters that differ only by punctuation or case get names of their own in the method.
    @Test func parametersThatDifferOnlyInPunctuationGetDistinctNames() throws {
        let paths = """
            {"/messages": {"get": {"operationId": "listMessages", "parameters": [
              {"name": "DateSent", "in": "query", "schema": {"type": "string", "format": "date-time"}},
              {"name": "DateSent<", "in": "query", "schema": {"type": "string", "format": "date-time"}},
              {"name": "DateSent>", "in": "query", "schema": {"type": "string", "format": "date-time"}},
              {"name": "Price<", "in": "query", "schema": {"type": "number"}},
              {"name": "page_size", "in": "query", "schema": {"type": "integer"}},
              {"name": "PageSize", "in": "query", "schema": {"type": "integer"}},
              {"name": "request", "in": "query", "schema": {"type": "string"}}],
              "responses": {"200": {"description": "ok", "content": {"application/json": {"schema":
                {"type": "array", "items": {"type": "string"}}}}}}}}}
            """
        let (spec, diagnostics) = read(schemas: "", paths: paths)
        #expect(diagnostics == [])
        let files = Emitter(options: .init(moduleName: "Shapes", baseURL: "https://x", specDisplayPath: "s.json"))
            .emit(try #require(spec)).files
        let client = try #require(files.first { $0.path == "ShapesClient.swift" }).contents
        for parameter in [
            "dateSent: Date?", "dateSentBefore: Date?", "dateSentAfter: Date?", "priceLessThan: Double?",
            "pageSize: Int64?", "pageSize2: Int64?", "requestValue: String?",
        ] {
            #expect(client.contains("        \(parameter) = nil"), "missing \(parameter) in \(client)")
        }
        #expect(client.contains(#"request.setQuery("DateSent<", json: dateSentBefore)"#))
    }

    /// A case or member spelled like a type would hide the type in its scope: it gets `Value`.
    @Test func aCaseOrMemberNeverShadowsAType() throws {
        let (spec, diagnostics) = read(
            schemas: """
                "11Option1": {"type": "object", "properties": {"a": {"type": "string"}}},
                "Pick": {"oneOf": [\(ref("11Option1")), {"type": "string"}]},
                "2fa": {"type": "object", "properties": {"b": {"type": "string"}}},
                "Login": {"allOf": [\(ref("2fa")), {"properties": {"2fa": {"type": "string"}}}]}
                """)
        #expect(diagnostics == [])
        let files = Emitter(options: .init(moduleName: "Shapes", baseURL: "https://x", specDisplayPath: "s.json"))
            .emit(try #require(spec)).files
        let pick = try #require(files.first { $0.path.hasSuffix("Pick.swift") }).contents
        #expect(pick.contains("case _11Option1Value(_11Option1)"), "\(pick)")
        #expect(pick.contains(".member(_11Option1.self, Self._11Option1Value)"), "\(pick)")
        // Found by the spec fuzzer: a member `_2fa` made `base: _2fa.self` name the member.
        let login = try #require(files.first { $0.path.hasSuffix("Login.swift") }).contents
        #expect(login.contains("base: _2fa.self"), "\(login)")
        #expect(login.contains("public let _2faValue: Field<String>"), "\(login)")
    }
}

/// A spec type named like a runtime type that generated code names (`JSONChoice`, `ServiceClient`) would hide it
/// in the module: such names get `Model`. The list is checked against the runtime's own declarations.
@Suite struct RuntimeTypeNamesTests {
    /// Every top-level public type of the runtime that some checked-in generated file names.
    static func runtimeTypesNamedByGeneratedCode() throws -> Set<String> {
        let root = GoldenTests.packageRoot
        func swiftFiles(under folder: String) -> [URL] {
            let base = root.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            return (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
        }
        var declared: Set<String> = []
        for file in swiftFiles(under: "Sources/BinderyRuntime") + swiftFiles(under: "Sources/BinderyJSON") {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                // Top level only: a nested type (`BinderyError.Kind`) is never named unqualified.
                guard line.hasPrefix("public ") else { continue }
                let words = line.split(separator: " ")
                guard words.count > 2 else { continue }
                let keywordAt = words[1] == "final" ? 2 : 1
                guard keywordAt + 1 < words.count,
                    ["struct", "enum", "class", "protocol", "actor", "typealias"].contains(words[keywordAt])
                else { continue }
                let name = words[keywordAt + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                declared.insert(String(name))
            }
        }
        var named: Set<String> = []
        let generated = [
            "Tests/Golden/OData/Generated", "Tests/Golden/OpenAPI/Generated",
            "Tests/Golden/RealWorld/Generated", "Tests/Golden/Shapes/Generated", "Sources/OneDrive/Generated",
        ]
        for folder in generated {
            for file in swiftFiles(under: folder) {
                let text = try String(contentsOf: file, encoding: .utf8)
                for word in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }) {
                    if declared.contains(String(word)) { named.insert(String(word)) }
                }
            }
        }
        return named
    }

    @Test func everyRuntimeTypeThatGeneratedCodeNamesIsAvoided() throws {
        let named = try Self.runtimeTypesNamedByGeneratedCode()
        #expect(named.count > 20)
        #expect(named.subtracting(SwiftNames.typeNamesToAvoid).sorted() == [])
    }
}
