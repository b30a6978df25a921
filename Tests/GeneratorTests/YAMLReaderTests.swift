import BinderyEmitter
import BinderyJSON
import BinderySpec
import Foundation
import Testing
import Yams

@testable import BinderyReaders

/// OpenAPI in YAML: read into the same document a JSON spec gives, so the two generate the same Swift, with YAML's
/// own positions in diagnostics.
@Suite struct YAMLReaderTests {
    private func parse(_ yaml: String) throws -> JSONValue {
        try YAMLDocument.parse(Array(yaml.utf8)).value
    }

    // MARK: The same document as JSON

    /// The golden specs written out as block YAML by Yams' own emitter (an independent writer), then read back:
    /// every generated file is byte for byte the one the JSON spec gives.
    @Test(arguments: ["OpenAPI", "RealWorld"])
    func aSpecWrittenAsYAMLGeneratesWhatItsJSONGenerates(folder: String) throws {
        let jsonPath = GoldenTests.packageRoot.appendingPathComponent("Tests/Golden/\(folder)/spec.json").path
        let json = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: jsonPath))))
        let yaml = try Yams.serialize(node: Self.node(json))
        #expect(yaml.contains("\n  /"), "expected block-style paths, got: \(yaml.prefix(300))")
        #expect(!yaml.hasPrefix("{"))

        let yamlFile = try CommandLineTests.temporaryFolder().appendingPathComponent("spec.yaml")
        defer { try? FileManager.default.removeItem(at: yamlFile.deletingLastPathComponent()) }
        try yaml.write(to: yamlFile, atomically: true, encoding: .utf8)

        let shownPath = "Tests/Golden/\(folder)/spec"
        let fromJSON = try Self.generate(path: jsonPath, shownAs: shownPath)
        let fromYAML = try Self.generate(path: yamlFile.path, shownAs: shownPath)
        #expect(fromJSON.count > 20)
        #expect(fromYAML.map(\.path) == fromJSON.map(\.path))
        for (yamlFile, jsonFile) in zip(fromYAML, fromJSON) where yamlFile.contents != jsonFile.contents {
            Issue.record("\(folder): \(jsonFile.path) differs between the YAML and the JSON spec")
        }
    }

    /// The checked-in YAML golden reads to exactly the document its JSON form reads to.
    @Test func theShapesGoldenReadsLikeItsJSONForm() throws {
        let path = GoldenTests.packageRoot.appendingPathComponent("Tests/Golden/Shapes/spec.yaml").path
        let value = try YAMLDocument.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).value
        let json = value.serialized()
        let fromYAML = try Self.generate(path: path, shownAs: "spec")
        let jsonFile = try CommandLineTests.temporaryFolder().appendingPathComponent("spec.json")
        defer { try? FileManager.default.removeItem(at: jsonFile.deletingLastPathComponent()) }
        try Data(json).write(to: jsonFile)
        let fromJSON = try Self.generate(path: jsonFile.path, shownAs: "spec")
        #expect(fromYAML.count > 10)
        #expect(fromYAML.map(\.contents) == fromJSON.map(\.contents))
    }

    static func generate(path: String, shownAs shownPath: String) throws -> [BinderyEmitter.Emitter.OutputFile] {
        let (spec, diagnostics) = SpecReader.read(path: path, displayPath: shownPath)
        guard let spec else { throw TestFailure(diagnostics.map(\.description).joined(separator: "\n")) }
        let options = BinderyEmitter.Emitter.Options(
            moduleName: "Golden", baseURL: "https://example.com", specDisplayPath: shownPath)
        return BinderyEmitter.Emitter(options: options).emit(spec).files
    }

    /// A JSON value as a YAML node: a string that would read as something else (`"200"`, `"true"`, `"null"`) is
    /// quoted, every other scalar is plain.
    static func node(_ value: JSONValue) -> Node {
        switch value {
        case .null: Node("null", Tag(.null))
        case .bool(let bool): Node(bool ? "true" : "false", Tag(.bool))
        case .number(let number): Node(number.text, Tag(number.text.contains(".") ? .float : .int))
        case .string(let string):
            Node(string, Tag(.str), CoreSchema.value(ofPlain: string) == nil ? .any : .doubleQuoted)
        case .array(let elements): Node(elements.map(node))
        case .object(let object): Node(object.members.map { (Node($0.key, Tag(.str)), node($0.value)) })
        }
    }

    // MARK: Scalars, keys and YAML's own constructs

    @Test func scalarsFollowTheCoreSchemaThatJSONIsASubsetOf() throws {
        let value = try parse(
            """
            yes: yes
            on: on
            day: 2024-01-01
            version: 1.0.3
            count: 42
            price: 2.50
            exponent: 1e3
            hex: 0x1F
            octal: 0o17
            plus: +7
            leading: .5
            padded: 007
            infinite: .inf
            nothing: ~
            empty:
            truth: true
            Capital: False
            quoted: "42"
            single: 'true'
            tagged: !!str 12
            taggedInt: !!int "12"
            200: the key is text
            """)
        let expected: JSONValue = [
            "yes": "yes", "on": "on", "day": "2024-01-01", "version": "1.0.3", "count": 42,
            "price": .number(JSONNumber(unchecked: "2.50")), "exponent": .number(JSONNumber(unchecked: "1e3")),
            "hex": 31, "octal": 15, "plus": 7, "leading": .number(JSONNumber(0.5)), "padded": 7, "infinite": ".inf",
            "nothing": nil, "empty": nil, "truth": true, "Capital": false, "quoted": "42", "single": "true",
            "tagged": "12", "taggedInt": 12, "200": "the key is text",
        ]
        #expect(value == expected)
        // A number keeps its text, as the JSON reader keeps it.
        #expect(value.objectValue?["price"]?.numberValue?.text == "2.50")
    }

    @Test func anchorsAliasesMergesAndBlockTextRead() throws {
        let value = try parse(
            """
            base: &base
              in: query
              schema: {type: string}
            list:
              - *base
              - <<: *base
                name: extra
                in: header
            many:
              <<: [{a: 1}, {b: 2}]
              c: 3
            literal: |
              line one
              line two
            folded: >
              one
              paragraph
            """)
        let base: JSONValue = ["in": "query", "schema": ["type": "string"]]
        #expect(value.objectValue?["list"] == [base, ["name": "extra", "in": "header", "schema": ["type": "string"]]])
        #expect(value.objectValue?["many"] == ["c": 3, "a": 1, "b": 2])
        #expect(value.objectValue?["literal"] == "line one\nline two\n")
        #expect(value.objectValue?["folded"] == "one paragraph")
    }

    /// Found in review: a merged mapping's own `<<` was copied as a member named "<<".
    @Test func aMergedMappingsOwnMergeIsMergedToo() throws {
        let value = try parse(
            """
            root: &root {type: object, description: root}
            base: &base {<<: *root, description: base}
            holder: {<<: *base, title: holder}
            """)
        #expect(value.objectValue?["holder"] == ["title": "holder", "description": "base", "type": "object"])
    }

    /// The core schema's hexadecimal and octal integers have no sign, and a number has one sign at most.
    @Test(arguments: ["-0x1F", "+0x1F", "-0o17", "+-5", "0x", "0x-5", "++1"])
    func signedOrBrokenRadixFormsAreStrings(text: String) throws {
        #expect(try parse("v: \(text)") == ["v": .string(text)])
    }

    /// Aliases of aliases: a few hundred bytes that would stand for billions of values are an error, at once.
    @Test func anAliasBombIsAnError() {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            yaml +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        let result = OpenAPIReader().read(bytes: Array(yaml.utf8), path: "bomb.yaml", syntax: .yaml)
        #expect(result.spec == nil)
        #expect(result.diagnostics.first?.description.contains("aliases expand to too many values") == true)
    }

    // MARK: Diagnostics

    @Test func malformedYAMLIsAnErrorAtItsLineAndColumn() {
        let text = "openapi: 3.1.0\ninfo:\n  title: x\n   version: 1\n"
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "spec.yaml", syntax: .yaml)
        #expect(result.spec == nil)
        let messages = result.diagnostics.map(\.description)
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("spec.yaml:4:") == true, "\(messages)")
        #expect(messages.first?.contains("error: invalid YAML: ") == true, "\(messages)")
    }

    @Test func aRepeatedKeyIsAnError() {
        let text = "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths: {}\npaths: {}\n"
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "spec.yaml", syntax: .yaml)
        #expect(result.spec == nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "spec.yaml:3:1: error: invalid YAML: a mapping repeats the key 'paths'"
            ])
    }

    @Test func notUTF8AndTooDeepAreErrorsNotCrashes() {
        let latin1: [UInt8] = Array("title: ".utf8) + [0xE9, 0x0A]
        #expect(
            OpenAPIReader().read(bytes: latin1, path: "a.yaml", syntax: .yaml).diagnostics.map(\.description) == [
                "a.yaml:1:1: error: invalid YAML: a YAML document must be UTF-8"
            ])
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let result = OpenAPIReader().read(bytes: Array(deep.utf8), path: "deep.yaml", syntax: .yaml)
        #expect(result.spec == nil)
        #expect(result.diagnostics.first?.description.contains("error: invalid YAML: ") == true)
    }

    /// A spec error in a YAML document points at the YAML, as it would at the JSON.
    @Test func aSpecErrorPointsIntoTheYAML() {
        let text = """
            openapi: 3.1.0
            info: {title: Points, version: "1"}
            paths:
              /things:
                get:
                  responses:
                    200:
                      description: ok
                      content:
                        application/json:
                          schema:
                            $ref: '#/components/schemas/Missing'
            """
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "spec.yml", syntax: .yaml)
        #expect(result.spec == nil)
        #expect(
            result.diagnostics.filter { $0.severity == .error }.map(\.description) == [
                "spec.yml:12:23: error: unknown $ref '#/components/schemas/Missing'"
            ])
    }

    @Test func theFileExtensionPicksTheReader() throws {
        let folder = try CommandLineTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = "openapi: 3.0.3\ninfo: {title: Both, version: '1'}\npaths: {}\n"
        for name in ["spec.yaml", "spec.yml", "SPEC.YAML"] {
            let url = folder.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            let (spec, diagnostics) = SpecReader.read(path: url.path)
            #expect(spec?.primaryNamespace == "both", "\(name): \(diagnostics)")
        }
    }
}
