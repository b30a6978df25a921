import BinderyEmitter
import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

/// What a request sends and an answer holds, read from OpenAPI and written as Swift: read-only and write-only
/// members, typed multipart parts, answers that differ by status, and operationIds that only spell method and path.
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

    // MARK: multipart parts

    @Test func multipartPartsAreTypedWithTheirContentTypes() throws {
        let spec = try Self.read(
            """
            "paths": {"/files/{id}/content": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "post": {"operationId": "upload", "parameters": [{"name": "fields", "in": "query", "schema": {"type": "string"}}],
                "requestBody": {"required": true, "content": {"multipart/form-data": {
                  "schema": {"type": "object", "required": ["meta", "file"], "properties": {
                    "meta": {"type": "object", "properties": {"name": {"type": "string"}}},
                    "file": {"type": "string", "format": "binary", "description": "The bytes."},
                    "thumb": {"type": "string", "contentMediaType": "image/png"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "count": {"type": "integer"},
                    "note": {"type": "string"}}},
                  "encoding": {"tags": {"contentType": "text/csv, text/plain"}}}}},
                "responses": {"204": {"description": "done"}}}}}
            """)
        let file = try Self.resource(spec, "file")
        let parts = try #require(file.operations.first?.requestBody?.parts)
        #expect(
            parts.map { "\($0.name) \($0.isFile) \($0.contentType) \($0.isRequired)" } == [
                "meta false application/json true", "file true application/octet-stream true",
                "thumb true image/png false", "tags false text/csv false", "count false text/plain false",
                "note false text/plain false",
            ])
        #expect(parts.first?.type == .named(QualifiedName(namespace: "store", name: "uploadRequestMeta")))
        #expect(parts[1].doc.summary == "The bytes.")

        let builder = try #require(Self.emit(spec)["Builders/FileRequestBuilder.swift"])
        // The form method stays; the typed overload builds the form and passes the other arguments on.
        #expect(builder.contains("public func upload(_ form: MultipartForm, fields: String? = nil)"))
        let overload = """
                public func upload(
                    meta: UploadRequestMeta,
                    file: MultipartFile,
                    thumb: MultipartFile? = nil,
                    tags: [String]? = nil,
                    count: Int64? = nil,
                    note: String? = nil,
                    fields: String? = nil
                ) -> OperationRequest<Void> {
                    var form = MultipartForm()
                    form.parts.append(.text(name: "meta", contentType: "application/json", value: meta.json.jsonText))
                    form.parts.append(.file("file", file))
                    if let thumb { form.parts.append(.file("thumb", thumb, declaredType: "image/png")) }
                    if let tags { form.parts.append(.text(name: "tags", contentType: "text/csv", value: tags.json.jsonText)) }
                    if let count { form.parts.append(.field(name: "count", value: ResourcePath.text(of: count))) }
                    if let note { form.parts.append(.field(name: "note", value: note)) }
                    return upload(form, fields: fields)
                }
            """
        #expect(builder.contains(overload), "\(builder)")
    }

    // MARK: answers by status

    static let commit = """
        "paths": {"/sessions/{id}": {
          "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
          "get": {"operationId": "getSession", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}}}},
          "put": {"operationId": "putSession", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
            "responses": {
              "200": {"description": "Kept.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
              "201": {"description": "Made.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}}}},
          "post": {"operationId": "commit", "responses": {
            "201": {"description": "The file.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
            "202": {"description": "Not yet."},
            "206": {"description": "A part.", "content": {"text/plain": {"schema": {"type": "string"}}}}}}}},
        "components": {"schemas": {"Session": {"type": "object", "properties": {"id": {"type": "string"}}}}}
        """

    @Test func statusesThatAnswerDifferentlyGetAnAnswerEach() throws {
        let spec = try Self.read(Self.commit)
        let session = try Self.resource(spec, "Session")
        let commit = try #require(session.operations.first { $0.name == "commit" }?.response)
        let model = TypeRef.named(QualifiedName(namespace: "store", name: "Session"))
        #expect(
            commit.answers == [
                StatusAnswer(status: 201, type: model, doc: Documentation(summary: "The file.")),
                StatusAnswer(status: 202, type: nil, doc: Documentation(summary: "Not yet.")),
                StatusAnswer(
                    status: 206, type: .primitive(.string), isRawBody: true, doc: Documentation(summary: "A part.")),
            ])
        // The first status still types the operation, for the route table and the fixtures.
        #expect(commit.type == model)
        #expect(commit.successCodes == [201, 202, 206])
        // 200 and 201 with the same schema are one answer: no enum.
        #expect(session.operations.first { $0.name == "putSession" }?.response?.answers == [])

        let builder = try #require(Self.emit(spec)["Builders/SessionRequestBuilder.swift"])
        let expected = """
                public func commit() -> OperationRequest<CommitAnswer> {
                    let request = APIRequest(method: .post, path: path)
                    return OperationRequest(
                        client: client,
                        request: request,
                        decoder: .byStatus([
                            201: ResponseDecoder<Session>.model(Session.self).map { .created($0) },
                            202: ResponseDecoder<Void>.empty.map { _ in .accepted },
                            206: ResponseDecoder<String>.text.map { .partialContent($0) },
                        ])
                    )
                }

                /// What `commit` answers, by status: each success status the spec lists.
                public enum CommitAnswer: Sendable, Hashable {
                    /// `201`: The file.
                    case created(Session)

                    /// `202`: Not yet.
                    case accepted

                    /// `206`: A part.
                    case partialContent(String)
                }
            """
        #expect(builder.contains(expected), "\(builder)")
    }

    /// `default` answers every status the spec does not list. With neither a success nor a failure listed, a
    /// success is answered by it, so its body is read (seen in a spec fuzzer's document: such an answer was dropped
    /// as `Void`). Beside a listed success or failure, it is not the success's answer.
    @Test func aDefaultAnswerWithNoSuccessListedIsTheSuccessAnswer() throws {
        let spec = try Self.read(
            """
            "paths": {"/sessions/{id}": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "get": {"operationId": "getSession", "responses": {"default": {"description": "The session.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}}}},
              "delete": {"operationId": "endSession", "responses": {
                "204": {"description": "Ended."},
                "default": {"description": "A failure.",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}}}},
              "put": {"operationId": "keepSession", "responses": {
                "404": {"description": "No such session.",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
                "default": {"description": "A failure.",
                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}}}}}},
            "components": {"schemas": {"Session": {"type": "object", "properties": {"id": {"type": "string"}}}}}
            """)
        let session = try Self.resource(spec, "Session")
        let get = try #require(session.operations.first { $0.name == "getSession" }?.response)
        #expect(get.type == .named(QualifiedName(namespace: "store", name: "Session")))
        #expect(get.successCodes == [200])
        let end = try #require(session.operations.first { $0.name == "endSession" }?.response)
        #expect(end.type == nil)
        #expect(end.successCodes == [204])
        // `default` beside a listed failure describes failures.
        let keep = try #require(session.operations.first { $0.name == "keepSession" })
        #expect(keep.response?.type == nil)
    }

    // MARK: operationIds that spell method and path

    @Test func anIdThatOnlySpellsMethodAndPathIsRecognized() {
        #expect(
            OpenAPIOperationNames.spellsMethodAndPath(
                "get_files_id_thumbnail_id", method: .get, template: "/files/{file_id}/thumbnail.{extension}"))
        #expect(
            OpenAPIOperationNames.spellsMethodAndPath(
                "post_files_id_metadata_enterprise_securityClassification-6VmVochwUWo", method: .post,
                template: "/files/{file_id}/metadata/enterprise/securityClassification-6VmVochwUWo"))
        // Parameters by their names, and a fragment, which is never sent.
        #expect(
            OpenAPIOperationNames.spellsMethodAndPath(
                "get_users_user_id", method: .get, template: "/users/{user_id}#summary"))
        // A person's choices: camel case, another verb, other words.
        #expect(!OpenAPIOperationNames.spellsMethodAndPath("getMyContact", method: .get, template: "/my/contact"))
        #expect(!OpenAPIOperationNames.spellsMethodAndPath("list_files", method: .get, template: "/files"))
        #expect(!OpenAPIOperationNames.spellsMethodAndPath("get_file", method: .get, template: "/files/{id}"))
        #expect(!OpenAPIOperationNames.spellsMethodAndPath("post_files", method: .put, template: "/files"))
    }

    @Test func pathSpelledOperationsAreNamedByTheirPlace() throws {
        let id = #"{"name": "file_id", "in": "path", "required": true, "schema": {"type": "string"}}"#
        let fields = #"{"name": "fields", "in": "query", "schema": {"type": "string"}}"#
        let ok =
            ##"{"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/File"}}}}}"##
        let spec = try Self.read(
            """
            "paths": {
              "/files": {"post": {"operationId": "post_files", "parameters": [\(fields)], "responses": \(ok)}},
              "/files/content": {"post": {"operationId": "post_files_content", "requestBody": {"content": {"application/octet-stream": {}}}, "responses": \(ok)}},
              "/files/{file_id}": {"parameters": [\(id)],
                "get": {"operationId": "get_files_id", "parameters": [\(fields)], "responses": \(ok)},
                "put": {"operationId": "put_files_id", "parameters": [\(fields)], "responses": \(ok)},
                "delete": {"operationId": "delete_files_id", "responses": {"204": {"description": "gone"}}},
                "post": {"operationId": "post_files_id", "responses": \(ok)}},
              "/files/{file_id}/copy": {"parameters": [\(id)], "post": {"operationId": "post_files_id_copy", "responses": \(ok)}},
              "/files/{file_id}/watermark": {"parameters": [\(id)],
                "get": {"operationId": "get_files_id_watermark", "responses": {"204": {"description": "ok"}}},
                "put": {"operationId": "put_files_id_watermark", "responses": {"204": {"description": "ok"}}},
                "delete": {"operationId": "deleteWatermarkNow", "responses": {"204": {"description": "ok"}}}},
              "/files/{file_id}/get": {"parameters": [\(id)], "post": {"operationId": "post_files_id_get", "responses": \(ok)}},
              "/files/{file_id}/0": {"parameters": [\(id)], "put": {"operationId": "put_files_id_0", "responses": \(ok)}},
              "/search": {"get": {"operationId": "get_search", "responses": {"204": {"description": "ok"}}}}
            },
            "components": {"schemas": {"File": {"type": "object", "properties": {"id": {"type": "string"}}}}}
            """)
        let file = try Self.resource(spec, "File")
        #expect(
            file.operations.map(\.name) == [
                "get", "update", "delete", "post", "copy", "getWatermark", "updateWatermark", "deleteWatermarkNow",
                // `get` is taken on this builder, and a segment without a letter names nothing: both keep their ids.
                "post_files_id_get", "put_files_id_0",
            ])
        #expect(file.collectionOperations.map(\.name) == ["create", "uploadContent"])
        // Its readable name spells like its id: only the id itself stood in the way.
        #expect(try Self.resource(spec, "Service").operations.map(\.name) == ["getSearch"])
    }
}
