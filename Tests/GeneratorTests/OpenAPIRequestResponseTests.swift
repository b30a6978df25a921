import BinderyEmitter
import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

/// What a request sends and an answer holds, read from OpenAPI and written as Swift: read-only and write-only
/// members.
@Suite struct OpenAPIRequestResponseTests {
    static func read(_ members: String) throws -> ServiceSpec {
        let text = """
            {
            "openapi": "3.1.0",
            "info": {"title": "Store", "version": "1"},
            \(members)
            }
            """
        let result = OpenAPIReader().read(bytes: Array(text.utf8), path: "inline.json")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.spec)
    }

    static func emit(_ spec: ServiceSpec) -> [String: String] {
        let emitter = Emitter(options: .init(moduleName: "Store", baseURL: "", specDisplayPath: "inline.json"))
        return Dictionary(uniqueKeysWithValues: emitter.emit(spec).files.map { ($0.path, $0.contents) })
    }

    static func fixtures(_ spec: ServiceSpec) -> [String: String] {
        Dictionary(uniqueKeysWithValues: FixtureEmitter(spec: spec).emit().map { ($0.path, $0.contents) })
    }

    static func resource(_ spec: ServiceSpec, _ name: String) throws -> ResourceSpec {
        try #require(spec.resources.first { $0.name.name == name })
    }

    // MARK: readOnly / writeOnly

    static let accounts = """
        "paths": {
          "/accounts": {"post": {"operationId": "createAccount",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Account"}}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Account"}}}}}}},
          "/accounts/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "get": {"operationId": "getAccount",
              "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Account"}}}}}}}
        },
        "components": {"schemas": {
          "Account": {"type": "object", "required": ["id", "password"], "properties": {
            "id": {"type": "string", "readOnly": true},
            "name": {"type": "string"},
            "password": {"type": "string", "writeOnly": true},
            "both": {"type": "string", "readOnly": true, "writeOnly": true},
            "owner": {"$ref": "#/components/schemas/Person"}}},
          "Person": {"type": "object", "properties": {"id": {"type": "string", "readOnly": true}}}
        }}
        """

    @Test func readOnlyMembersAreMarkedAndLeftOutOfRequestFixtures() throws {
        let spec = try Self.read(Self.accounts)
        let account = try #require(spec.structures.first { $0.name.name == "Account" })
        #expect(account.properties.filter(\.isLeftOutOfRequests).map(\.name) == ["id"])
        // `readOnly` and `writeOnly` together say nothing a client can act on: sent as written.
        #expect(account.properties.first { $0.name == "both" }?.isReadOnly == true)

        let model = try #require(Self.emit(spec)["Models/Account.swift"])
        #expect(model.contains(#"self.id = Field("id", readOnly: true)"#))
        #expect(model.contains(#"self.both = Field("both")"#))
        #expect(model.contains("Set by the service: read it; request bodies leave it out."))
        #expect(
            model.contains("Sent to the service, never returned by it: answers may leave it out, even when required."))

        let fixtures = Self.fixtures(spec)
        let create = try JSONSerialization.jsonObject(
            with: Data(try #require(fixtures["Account/createAccount.json"]).utf8))
        let request = try #require((create as? [String: Any])?["request"] as? [String: Any])
        let body = try #require(request["body"] as? [String: Any])
        // The body's own read-only member is not sent; a nested reference keeps the id that names it.
        #expect(body["id"] == nil)
        #expect(body["password"] as? String == "text")
        #expect((body["owner"] as? [String: Any])?["id"] as? String == "text")
        // A service never answers with a write-only member.
        let response = try #require((create as? [String: Any])?["response"] as? [String: Any])
        let answer = try #require(response["body"] as? [String: Any])
        #expect(answer["id"] as? String == "text")
        #expect(answer["password"] == nil)
    }
}
