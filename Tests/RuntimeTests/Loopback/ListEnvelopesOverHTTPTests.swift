import BinderyRuntime
import Foundation
import GoldenShapes
import HTTPTypes
import Testing

/// Lists that public APIs answer inside an object, generated from `Tests/Golden/Shapes/spec.yaml` with no setting
/// but the spec, and paged for real over HTTP on 127.0.0.1: Stripe's `has_more` + `starting_after`, a last id
/// and `has_more`, a relative next link under `links`, offset and limit, and a list the spec names itself.
@Suite struct ListEnvelopesOverHTTPTests {
    func client(_ server: LoopbackServer) -> GoldenShapesClient {
        GoldenShapesClient(baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware())
    }

    /// `{"id": "e<n>"}` for each of `numbers`.
    static func events(_ numbers: some Sequence<Int>) -> String {
        numbers.map { #"{"id": "e\#($0)", "type": "t", "x-new": \#($0)}"# }.joined(separator: ", ")
    }

    @Test func afterTheLastItemWhileTheServiceHasMore() async throws {
        let server = try await LoopbackServer([
            "GET /events": { request in
                // Seven events, three a page, continued after the id the client sends.
                let after = request.queryValue("starting_after").flatMap { Int($0.dropFirst()) } ?? 0
                let numbers = (after + 1)...min(after + 3, 7)
                return .init(
                    json: #"{"object": "list", "data": [\#(Self.events(numbers))], "has_more": \#(numbers.last! < 7)}"#
                )
            }
        ])
        defer { Task { await server.stop() } }
        var ids: [String?] = []
        for try await event in client(server).events.request().all() { ids.append(event.id) }
        #expect(ids == (1...7).map { "e\($0)" })
        #expect(server.requests.map { $0.queryValue("starting_after") } == [nil, "e3", "e6"])
        let page = try await client(server).events.request().get()
        #expect(page.additionalData["object"] == "list", "the answer's other members stay on the page")
        #expect(page.value.first?.json["x-new"] == 1, "members no schema declares survive")
    }

    /// Elasticsearch's paths: a key first in the path, items no model describes, and a second description of the
    /// same URL with a body of its own, each sent where the spec says.
    @Test func keysFirstInThePathAndSecondDescriptionsOfAURL() async throws {
        let server = try await LoopbackServer([
            "PUT /logs-2026/_doc/*": { _ in .init(json: "{}") },
            "POST /logs-2026/_search": { _ in .init(json: #"{"took": 3}"#) },
        ])
        defer { Task { await server.stop() } }
        let index = client(server).indexes("logs-2026")
        try await index.doc("d1").indexDocument(["message": "hello"]).send()
        var body = IndexAi21DocumentRequest()
        body.model = "j2-ultra"
        try await index.doc("d1").indexAi21Document(body).send()
        #expect(server.requests.last.map { String(decoding: $0.body, as: UTF8.self) } == #"{"model":"j2-ultra"}"#)
        #expect(try await index.searchIndex().send().took == 3)
        #expect(server.requests.map(\.path) == ["/logs-2026/_doc/d1", "/logs-2026/_doc/d1", "/logs-2026/_search"])
    }

    @Test func aLastIdPagesUntilHasMoreIsFalse() async throws {
        let server = try await LoopbackServer([
            "GET /runs": { request in
                let first = request.queryValue("after") == nil
                let body =
                    first
                    ? #"{"data": [\#(Self.events(1...2))], "first_id": "e1", "last_id": "e2", "has_more": true}"#
                    : #"{"data": [\#(Self.events(3...3))], "first_id": "e3", "last_id": "e3", "has_more": false}"#
                return .init(json: body)
            }
        ])
        defer { Task { await server.stop() } }
        var ids: [String?] = []
        for try await run in client(server).listRuns().all() { ids.append(run.id) }
        #expect(ids == ["e1", "e2", "e3"])
        #expect(server.requests.count == 2, "has_more: false ends it, though last_id is set")
        #expect(server.requests.last?.queryValue("after") == "e2")
    }

    @Test func aRelativeNextLinkUnderLinksIsReadAgainstThePage() async throws {
        let server = try await LoopbackServer([
            "GET /projects": { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                let next = page < 3 ? #", "next": "/projects?page=\#(page + 1)""# : ""
                return .init(json: #"{"items": [{"key": "p\#(page)"}], "links": {"self": "/projects"\#(next)}}"#)
            }
        ])
        defer { Task { await server.stop() } }
        var keys: [String?] = []
        for try await project in client(server).projects.request().all() { keys.append(project.key) }
        #expect(keys == ["p1", "p2", "p3"])
        #expect(server.requests.map { $0.queryValue("page") } == [nil, "2", "3"])
    }

    @Test func anOffsetAndALimitEndOnAShortPage() async throws {
        let server = try await LoopbackServer([
            "GET /folders": { request in
                let offset = Int(request.queryValue("offset") ?? "0") ?? 0
                let limit = Int(request.queryValue("limit") ?? "100") ?? 100
                let numbers = (offset + 1)...min(offset + limit, 5)
                return .init(
                    json: #"{"total_count": 5, "entries": [\#(Self.events(numbers))], "order": ["id"]}"#)
            }
        ])
        defer { Task { await server.stop() } }
        var ids: [String?] = []
        for try await folder in client(server).listFolders(limit: 2).all() { ids.append(folder.id) }
        #expect(ids == ["e1", "e2", "e3", "e4", "e5"])
        #expect(server.requests.map { $0.queryValue("offset") } == [nil, "2", "4"])
    }

    @Test func theListTheSpecNamesIsTheOneThatPages() async throws {
        let server = try await LoopbackServer([
            "GET /logs": { request in
                let more = request.queryValue("from") == nil
                let cursor = more ? #", "cursor": "c2""# : ""
                let numbers = more ? 1...2 : 3...3
                return .init(
                    json: #"{"sources": ["a", "b"], "results": {"lines": [\#(Self.events(numbers))]\#(cursor)}}"#)
            }
        ])
        defer { Task { await server.stop() } }
        var ids: [String?] = []
        for try await line in client(server).listLogs().all() { ids.append(line.id) }
        #expect(ids == ["e1", "e2", "e3"])
        #expect(server.requests.last?.queryValue("from") == "c2")
    }

    @Test func anEmptyPageEndsTheListThoughItSaysItHasMore() async throws {
        let server = try await LoopbackServer([
            "GET /events": { _ in .init(json: #"{"data": [], "has_more": true}"#) }
        ])
        defer { Task { await server.stop() } }
        var count = 0
        for try await _ in client(server).events.request().all() { count += 1 }
        #expect(count == 0)
        #expect(server.requests.count == 1)
    }

    @Test func aServiceThatAnswersTheSamePageForeverIsAPagingLoop() async throws {
        // Offsets make a new URL every time; the items show that nothing moves on.
        let server = try await LoopbackServer([
            "GET /folders": { _ in .init(json: #"{"entries": [\#(Self.events(1...2))]}"#) }
        ])
        defer { Task { await server.stop() } }
        await #expect(throws: BinderyError.self) {
            for try await _ in client(server).listFolders(limit: 2).all() {}
        }
        #expect(server.requests.count == 2)
    }

    @Test func aNextLinkToAnotherHostGetsNoneOfTheClientsHeaders() async throws {
        let elsewhere = try await LoopbackServer([
            "GET /more": { _ in .init(json: #"{"items": [{"key": "p2"}], "links": {}}"#) }
        ])
        defer { Task { await elsewhere.stop() } }
        let next = elsewhere.baseURL.appendingPathComponent("more").absoluteString
        let server = try await LoopbackServer([
            "GET /projects": { _ in .init(json: #"{"items": [{"key": "p1"}], "links": {"next": "\#(next)"}}"#) }
        ])
        defer { Task { await server.stop() } }
        let client = GoldenShapesClient(
            baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
            headers: [HTTPField.Name("X-API-Key")!: "secret"])
        var keys: [String?] = []
        for try await project in client.projects.request().all() { keys.append(project.key) }
        #expect(keys == ["p1", "p2"])
        #expect(server.requests.first?.header("X-API-Key") == "secret")
        #expect(elsewhere.requests.first?.header("X-API-Key") == nil, "an API key must not follow a link elsewhere")
    }

    @Test func aNextLinkThatIsNoURLIsATypedError() async throws {
        let server = try await LoopbackServer([
            "GET /projects": { _ in .init(json: #"{"items": [{"key": "p1"}], "links": {"next": "abc123"}}"#) }
        ])
        defer { Task { await server.stop() } }
        await #expect(throws: BinderyError.self) {
            for try await _ in client(server).projects.request().all() {}
        }
        #expect(server.requests.count == 1, "a cursor under a link's name is not fetched as a sibling URL")
    }
}
