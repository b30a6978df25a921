import BinderyRuntime
import Foundation
import GoldenRealWorld
import Synchronization
import Testing

/// What large public OpenAPI specs use, generated from `Tests/Golden/RealWorld/spec.json` and sent for real:
/// choices, maps, forms, typed multipart parts, text and binary bodies, read-only members, answers by status,
/// operations named by their place, mixed path segments, `#fragment` operations, OPTIONS and servers with
/// variables, through the transport to a server on 127.0.0.1.
@Suite struct RealWorldOpenAPIOverHTTPTests {
    func client(_ server: LoopbackServer) -> GoldenRealWorldClient {
        GoldenRealWorldClient(baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware())
    }

    static let items = #"""
        {"total_count": 4, "entries": [
          {"type": "file", "id": "f1", "name": "a.txt", "size": 12, "metadata": {"project": "x"}, "x-new": 1},
          {"type": "folder", "id": "d1", "name": "docs", "item_count": 3},
          {"type": "web_link", "id": "w1", "url": "https://example.com"},
          {"type": "hub", "id": "h1", "title": "a kind added later"}
        ]}
        """#

    @Test func aOneOfReadsEachMemberByItsTagAndKeepsUnknownKinds() async throws {
        let server = try await LoopbackServer(["GET /folders/0/items": { _ in .init(json: Self.items) }])
        defer { Task { await server.stop() } }
        let page = try await client(server).folders("0").items.request().get()
        let entries = try #require(page.entries)
        #expect(entries.count == 4)
        guard case .file(let file) = entries[0] else {
            Issue.record("expected a file, got \(entries[0])")
            return
        }
        #expect(file.name == "a.txt")
        #expect(file.size == 12)
        #expect(file.metadata == ["project": "x"])
        guard case .folder(let folder) = entries[1], case .webLink(let link) = entries[2] else {
            Issue.record("expected a folder and a link, got \(entries[1]), \(entries[2])")
            return
        }
        #expect(folder.itemCount == 3)
        #expect(link.url == "https://example.com")
        // A kind this client does not know is kept as sent, and nothing is lost on the way back.
        guard case .other(let json) = entries[3] else {
            Issue.record("expected .other, got \(entries[3])")
            return
        }
        #expect(json.objectValue?["title"] == "a kind added later")
        let original = try JSONValue.parse(Array(Self.items.utf8))
        #expect(page.json == original)
        #expect(try JSONValue.parse(Array(try JSONEncoder().encode(page))) == original)
    }

    @Test func aMemberThatContradictsItsTagIsATypedError() async throws {
        let body = #"{"entries": [{"type": "file", "id": "f1", "size": "twelve"}]}"#
        let server = try await LoopbackServer(["GET /folders/0/items": { _ in .init(json: body) }])
        defer { Task { await server.stop() } }
        do {
            _ = try await client(server).folders("0").items.request().get()
            Issue.record("expected a decoding error")
        } catch {
            #expect(error.kind == .decoding)
            #expect(error.message.contains("$.entries[0].size"))
        }
    }

    @Test func anAnyOfWithoutATagTakesTheFirstMemberThatReadsTheValue() async throws {
        let server = try await LoopbackServer([
            "GET /events": { request in
                .init(
                    json: request.queryValue("stream_position") == nil
                        ? #"{"next_stream_position": 42}"# : #"{"next_stream_position": "now"}"#)
            }
        ])
        defer { Task { await server.stop() } }
        let first = try await client(server).events.listEvents().send()
        #expect(first.nextStreamPosition == .integer(42))
        let second = try await client(server).events.listEvents(streamPosition: "42").send()
        #expect(second.nextStreamPosition == .string("now"))
        // Neither a string nor an integer: no member reads it, so decoding fails with the path.
        #expect(EventsNextStreamPosition(json: .bool(true)) == nil)
    }

    @Test func aFormBodySendsTheModelsFieldsURLEncoded() async throws {
        let server = try await LoopbackServer([
            "POST /oauth2/token": { _ in
                .init(json: #"{"access_token": "t", "expires_in": 3600, "token_type": "bearer"}"#)
            }
        ])
        defer { Task { await server.stop() } }
        var grant = TokenRequest()
        grant.grantType = .authorizationCode
        grant.code = "a b&c=d"
        grant.scope = ["read", "write"]
        let token = try await client(server).oauth2.requestToken(grant).send()
        #expect(token.expiresIn == 3600)
        let sent = try #require(server.requests.first)
        #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: sent.body, as: UTF8.self)
                == "grant_type=authorization_code&code=a%20b%26c%3Dd&scope=read&scope=write")
    }

    @Test func textAndBytesTravelAsTheyAre() async throws {
        let csv = "day,bytes\n2026-11-24,1024\n"
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]
        let server = try await LoopbackServer([
            "GET /reports/usage": { _ in .init(headers: ["Content-Type": "text/csv"], body: Array(csv.utf8)) },
            "POST /files/f1/comments": { _ in .init(status: 201) },
            "PUT /files/f1/content": { request in
                .init(status: 201, json: #"{"type": "file", "id": "f1", "size": \#(request.body.count)}"#)
            },
            "GET /files/f1/thumbnail.png": { _ in .init(headers: ["Content-Type": "image/png"], body: png) },
        ])
        defer { Task { await server.stop() } }
        let storage = client(server)
        #expect(try await storage.reports.usageReport().send() == csv)
        try await storage.files("f1").addComment("Looks good ✓").send()
        let uploaded = try await storage.files("f1").uploadVersion(.bytes(png)).send()
        #expect(uploaded.size == Int64(png.count))
        #expect(try await storage.files("f1").getThumbnail(extension: .png).send() == .ok(png))

        let comment = try #require(server.requests.first { $0.method == "POST" })
        #expect(comment.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: comment.body, as: UTF8.self) == "Looks good ✓")
        let upload = try #require(server.requests.first { $0.method == "PUT" })
        #expect(upload.header("Content-Type") == "application/octet-stream")
        #expect(upload.body == png)
    }

    /// The URL only, so a recording transport (the round trip itself is proven above).
    @Test func aMixedSegmentEncodesItsValueInsideTheSegment() async throws {
        let transport = RecordingTransport { _, _ in APIResponse(status: .ok, body: [1]) }
        let storage = GoldenRealWorldClient(
            baseURL: URL(string: "https://storage.test")!, transport: transport, middleware: [])
        _ = try await storage.files("f 1").getThumbnail(extension: "a/b").send()
        #expect(transport.requests.first?.head.path == "/files/f%201/thumbnail.a%2Fb")
    }

    @Test func fragmentOperationsAndOptionsAreMethodsOfTheirResource() async throws {
        let server = try await LoopbackServer([
            "GET /files/f1": { request in
                .init(
                    json:
                        #"{"type": "file", "id": "f1", "shared_link": {"url": "https://s/\#(request.queryValue("fields") ?? "")"}}"#
                )
            },
            "OPTIONS /files/f1": { _ in .init(status: 200) },
        ])
        defer { Task { await server.stop() } }
        let file = try await client(server).files("f1").getSharedLink().send()
        #expect(file.sharedLink?.url == "https://s/shared_link")
        try await client(server).files("f1").checkUpload().send()
        #expect(server.requests.map(\.method) == ["GET", "OPTIONS"])
    }

    @Test func aStepFromACollectionsURLIsNotReadAsAKey() async throws {
        let server = try await LoopbackServer([
            "POST /files/upload_sessions": { request in
                .init(status: 201, json: #"{"id": "s1", "total_parts": 3, "file_size": 10}"#)
            },
            "GET /files/upload_sessions/s1": { _ in .init(json: #"{"id": "s1", "total_parts": 3}"#) },
        ])
        defer { Task { await server.stop() } }
        var start = UploadSession()
        start.fileSize = 10
        let session = try await client(server).files.uploadSessions.request().add(start)
        #expect(session.totalParts == 3)
        let again = try await client(server).files.uploadSessions("s1").request().get()
        #expect(again.id == "s1")
        // The route table (the mock server's and `bindery validate`'s) agrees: a step, not a file id.
        let routes = GoldenRealWorldService.descriptor.routes
        guard
            case .item(let resource, let keys)? = routes.match(
                method: .get, segments: ["files", "upload_sessions", "s1"])
        else {
            Issue.record("expected an upload session item")
            return
        }
        #expect(resource.name == "storage.UploadSession")
        #expect(keys == ["s1"])
        // A plain GET of a file is its own `getFile`, not the `#get_shared_link` alternative, which only its
        // fixed query names.
        guard case .operation(let plain, let file, _)? = routes.match(method: .get, segments: ["files", "f1"]),
            case .operation(let shared, _, _)? = routes.match(
                method: .get, segments: ["files", "f1"], query: [("fields", "shared_link")])
        else {
            Issue.record("expected the file's operations")
            return
        }
        #expect(file.name == "storage.File")
        #expect(plain.name == "getFile")
        #expect(shared.name == "get_shared_link")
    }

    @Test func aKeyRightAfterAKeyIsACollectionWithoutASegment() async throws {
        let server = try await LoopbackServer([
            "GET /files/f1/metadata/enterprise/invoice": { _ in
                .init(json: #"{"$scope": "enterprise", "$template": "invoice", "amount": "12"}"#)
            },
            "POST /files/f1/metadata/enterprise/invoice": { _ in
                .init(status: 201, json: #"{"$scope": "enterprise", "$template": "invoice"}"#)
            },
        ])
        defer { Task { await server.stop() } }
        let instance = try await client(server).files("f1").metadata("enterprise").templates("invoice").request().get()
        #expect(instance.template == "invoice")
        // A map of models as a body is sent as the object it is.
        var link = SharedLink()
        link.url = "https://s/1"
        _ = try await client(server).files("f1").metadata("enterprise").templates("invoice").applyTemplate([
            "site": link
        ])
        .send()
        let applied = try #require(server.requests.last)
        #expect(try JSONValue.parse(applied.body) == ["site": ["url": "https://s/1"]])
        #expect(instance.additionalData["amount"] == "12")
        guard
            case .item(let resource, let keys)? = GoldenRealWorldService.descriptor.routes.match(
                method: .get, segments: ["files", "f1", "metadata", "enterprise", "invoice"])
        else {
            Issue.record("expected a metadata instance")
            return
        }
        #expect(resource.model?.schema.typeName == "storage.MetadataInstance")
        #expect(keys == ["f1", "enterprise", "invoice"])
    }

    @Test func aModelReadFromTheServiceIsSentBackWithoutItsReadOnlyMembers() async throws {
        let server = try await LoopbackServer([
            "GET /files/upload_sessions/s1": { _ in
                .init(json: #"{"id": "s1", "total_parts": 3, "file_size": 10, "x-new": true}"#)
            },
            "POST /files/upload_sessions": { _ in .init(status: 201, json: #"{"id": "s2", "total_parts": 1}"#) },
        ])
        defer { Task { await server.stop() } }
        let storage = client(server)
        var session = try await storage.files.uploadSessions("s1").request().get()
        #expect(session.id == "s1")
        session.fileSize = 20
        let started = try await storage.files.uploadSessions.request().add(session)
        #expect(started.id == "s2")
        // `id` and `total_parts` are the service's: not echoed. What the caller set, and members this client does
        // not know, still go.
        let sent = try #require(server.requests.last)
        #expect(try JSONValue.parse(sent.body) == ["file_size": 20, "x-new": true])
        // The model itself keeps them.
        #expect(session.totalParts == 3)
        #expect(UploadSession.schema.readOnlyFieldNames == ["id", "total_parts"])
    }

    @Test func multipartPartsAreTypedArguments() async throws {
        let server = try await LoopbackServer([
            "POST /files/content": { _ in .init(status: 201, json: #"{"type": "file", "id": "f9", "name": "a.txt"}"#) }
        ])
        defer { Task { await server.stop() } }
        var attributes = PostFilesContentRequestAttributes()
        attributes.name = "a.txt"
        attributes.parentId = "0"
        let file = try await client(server).files.uploadContent(
            attributes: attributes, file: MultipartFile(Array("hello".utf8), filename: "a.txt"),
            preview: MultipartFile([0x89, 0x50], filename: "a.png"), note: "first"
        )
        .send()
        #expect(file.id == "f9")

        let sent = try #require(server.requests.first)
        let contentType = try #require(sent.header("Content-Type"))
        let boundary = try #require(contentType.split(separator: "boundary=").last.map(String.init))
        #expect(contentType.hasPrefix("multipart/form-data; "))
        // Each part in order, with its name, and its content type where it has one: the JSON document in its own,
        // a file in the caller's or else the spec's, a text field without one.
        let parts = String(decoding: sent.body, as: UTF8.self).components(separatedBy: "--" + boundary)
            .dropFirst().dropLast().map { String($0.dropFirst().dropLast()) }  // "\r\n" is one Character
        #expect(
            parts == [
                "Content-Disposition: form-data; name=\"attributes\"\r\nContent-Type: application/json\r\n\r\n"
                    + #"{"name":"a.txt","parent_id":"0"}"#,
                "Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\nhello",
                "Content-Disposition: form-data; name=\"preview\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
                    + String(decoding: [0x89, 0x50] as [UInt8], as: UTF8.self),
                "Content-Disposition: form-data; name=\"note\"\r\n\r\nfirst",
            ])
    }

    @Test func eachSuccessStatusGivesItsOwnTypedAnswer() async throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        let commits = Counter()
        let server = try await LoopbackServer([
            "POST /files/upload_sessions/s1/commit": { _ in
                switch commits.next() {
                case 1: .init(status: 202)
                case 2: .init(status: 201, json: #"{"type": "file", "id": "f1", "size": 4}"#)
                // A success status the spec does not list reads as the first one.
                default: .init(status: 200, json: #"{"type": "file", "id": "f2"}"#)
                }
            },
            "GET /files/f1/thumbnail.png": { _ in .init(status: 202) },
            "GET /files/f1/thumbnail.jpg": { _ in .init(headers: ["Content-Type": "image/png"], body: png) },
        ])
        defer { Task { await server.stop() } }
        let session = client(server).files.uploadSessions("s1")
        #expect(try await session.commit().send() == .accepted)
        guard case .created(let file) = try await session.commit().send() else {
            Issue.record("expected the file")
            return
        }
        #expect(file.size == 4)
        #expect(try await session.commit().send() == .created(File(storage: ["type": "file", "id": "f2"])))
        let thumbnails = client(server).files("f1")
        #expect(try await thumbnails.getThumbnail(extension: .png).send() == .accepted)
        #expect(try await thumbnails.getThumbnail(extension: .jpg).send() == .ok(png))
        // An error status is still an error, not an answer.
        let failing = try await LoopbackServer([
            "POST /files/upload_sessions/s1/commit": { _ in .init(status: 409, json: #"{"message": "busy"}"#) }
        ])
        defer { Task { await failing.stop() } }
        await #expect(throws: BinderyError.self) {
            try await client(failing).files.uploadSessions("s1").commit().send()
        }
    }

    /// `post_files_content`, `post_files_upload_sessions_id_commit`, `delete_folders_id`: ids that only spell the
    /// method and the path are named by what they are where they are.
    @Test func operationsWhoseIdsSpellTheirPathAreNamedByTheirPlace() async throws {
        let server = try await LoopbackServer(["DELETE /folders/d1": { _ in .init(status: 204) }])
        defer { Task { await server.stop() } }
        try await client(server).folders("d1").delete(recursive: true).send()
        #expect(server.requests.first?.queryValue("recursive") == "true")
        let routes = GoldenRealWorldService.descriptor.routes
        guard
            case .operation(let commit, _, _)? = routes.match(
                method: .post, segments: ["files", "upload_sessions", "s1", "commit"]),
            case .operation(let upload, _, _)? = routes.match(method: .post, segments: ["files", "content"])
        else {
            Issue.record("expected the commit and upload operations")
            return
        }
        #expect(commit.name == "commit")
        #expect(upload.name == "uploadContent")
    }

    @Test func theServersVariablesMakeTheBaseURL() {
        #expect(GoldenRealWorldClient.defaultBaseURL.absoluteString == "https://us.storage.example.com/2.0")
        #expect(GoldenRealWorldClient.baseURL(region: "eu")?.absoluteString == "https://eu.storage.example.com/2.0")
        // A value stays inside its place: it never makes a path or another host.
        let hostile = GoldenRealWorldClient.baseURL(region: "evil.com/x")
        #expect(hostile.map { $0.path == "/2.0" && $0.host != "evil.com" } ?? true)
    }
}

/// Counts calls from a server's handlers, which run concurrently.
private final class Counter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}
