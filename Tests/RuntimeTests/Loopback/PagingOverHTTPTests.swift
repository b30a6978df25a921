import BinderyRuntime
import Foundation
import GoldenOData
import GoldenOpenAPI
import Spark
import Testing

/// Paging and delta in every dialect, end to end: generated builders → middleware → the real
/// transport → a server on 127.0.0.1 that pages the way each service does.
@Suite struct PagingOverHTTPTests {
    /// 23 items served in pages of `size`, in whichever dialect the test asks for.
    static let items = (1...23).map { #"{"id":"\#($0)","subject":"s\#($0)"}"# }

    func client(_ server: LoopbackServer, _ conventions: ServiceConventions) -> GoldenOpenAPIClient {
        GoldenOpenAPIClient(
            client: ServiceClient(
                baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                conventions: conventions))
    }

    func ids(_ client: GoldenOpenAPIClient) async throws -> [String] {
        var ids: [String] = []
        for try await thread in client.n("ns").threads.request().all() { ids.append(thread.id ?? "?") }
        return ids
    }

    @Test func odataNextLinks() async throws {
        let server = try await LoopbackServer([
            "GET /n/ns/threads": { request in
                let skip = Int(request.queryValue("$skiptoken") ?? "0") ?? 0
                let page = Self.items.dropFirst(skip).prefix(10)
                var body = #"{"value":[\#(page.joined(separator: ","))]"#
                if skip + 10 < Self.items.count {
                    body +=
                        #","@odata.nextLink":"http://127.0.0.1:\#(request.header("Host")?.split(separator: ":").last ?? "")/n/ns/threads?$skiptoken=\#(skip + 10)""#
                }
                return .init(json: body + "}")
            }
        ])
        defer { Task { await server.stop() } }
        #expect(try await ids(client(server, .odata)) == (1...23).map(String.init))
        #expect(server.requests.map { $0.queryValue("$skiptoken") } == [nil, "10", "20"])
    }

    @Test func sparkPageNumbersStopAtTotalPages() async throws {
        let server = try await LoopbackServer([
            "GET /n/ns/threads": { request in
                #expect(request.queryValue("_pagination") == "1")
                let page = Int(request.queryValue("_page") ?? "") ?? 0
                let limit = Int(request.queryValue("_limit") ?? "") ?? 25
                let results = Self.items.dropFirst((page - 1) * limit).prefix(limit)
                let total = (Self.items.count + limit - 1) / limit
                return .init(
                    json:
                        #"{"D":{"Success":true,"Results":[\#(results.joined(separator: ","))],"Pagination":{"TotalRows":23,"PageSize":\#(limit),"TotalPages":\#(total),"CurrentPage":\#(page)}}}"#
                )
            }
        ])
        defer { Task { await server.stop() } }
        let spark = ServiceConventions(
            listShape: .wrapped(["D", "Results"]),
            paging: .pageNumber(
                page: "_page", size: "_limit", extraQuery: [("_pagination", "1")],
                totalPages: ["D", "Pagination", "TotalPages"]),
            requestEnvelope: ["D"], errors: SparkClient.conventions.errors)
        let client = client(server, spark)
        var ids: [String] = []
        for try await thread in client.n("ns").threads.request().query("_limit", "10").all() {
            ids.append(thread.id ?? "?")
        }
        #expect(ids == (1...23).map(String.init))
        #expect(server.requests.map { $0.queryValue("_page") } == ["1", "2", "3"])
        let firstPage = try await client.n("ns").threads.request().query("_limit", "10").get()
        #expect(firstPage.additionalData["Pagination"]?["TotalPages"] == 3, "the pagination block stays available")
    }

    @Test func inboxOffsetsStopOnAShortPage() async throws {
        let server = try await LoopbackServer([
            "GET /n/ns/threads": { request in
                let offset = Int(request.queryValue("offset") ?? "0") ?? 0
                let limit = Int(request.queryValue("limit") ?? "") ?? 100
                return .init(json: "[" + Self.items.dropFirst(offset).prefix(limit).joined(separator: ",") + "]")
            }
        ])
        defer { Task { await server.stop() } }
        let client = client(server, GoldenOpenAPIClient.conventions)
        var ids: [String] = []
        for try await thread in client.n("ns").threads.request().query("limit", "10").all() {
            ids.append(thread.id ?? "?")
        }
        #expect(ids == (1...23).map(String.init))
        #expect(server.requests.map { $0.queryValue("offset") } == [nil, "10", "20"])
    }

    @Test func nylasCursorsFollowNextCursorUntilItIsAbsent() async throws {
        let server = try await LoopbackServer([
            "GET /n/ns/threads": { request in
                let start = Int(request.queryValue("page_token") ?? "0") ?? 0
                let page = Self.items.dropFirst(start).prefix(10)
                let next = start + 10 < Self.items.count ? #","next_cursor":"\#(start + 10)""# : ""
                return .init(json: #"{"request_id":"r","data":[\#(page.joined(separator: ","))]\#(next)}"#)
            }
        ])
        defer { Task { await server.stop() } }
        let nylas = ServiceConventions(
            listShape: .wrapped(["data"]), paging: .cursor(path: ["next_cursor"], parameter: "page_token"),
            errors: .init(code: [["error", "type"]], message: [["error", "message"]]))
        #expect(try await ids(client(server, nylas)) == (1...23).map(String.init))
        #expect(server.requests.map { $0.queryValue("page_token") } == [nil, "10", "20"])
    }

    @Test func aNextLinkThatLoopsBackIsAnError() async throws {
        let server = try await LoopbackServer([
            "GET /n/ns/threads": { request in
                let port = request.header("Host")?.split(separator: ":").last ?? ""
                return .init(
                    json:
                        #"{"value":[{"id":"x"}],"@odata.nextLink":"http://127.0.0.1:\#(port)/n/ns/threads?$skiptoken=same"}"#
                )
            }
        ])
        defer { Task { await server.stop() } }
        let error = await #expect(throws: BinderyError.self) { _ = try await ids(client(server, .odata)) }
        #expect(error?.kind == .pagingLoop)
        #expect(server.requests.count == 2)
    }

    @Test func odataDeltaResumesFromTheSavedToken() async throws {
        let server = try await LoopbackServer([
            "GET /drive/items/*": { request in
                let port = request.header("Host")?.split(separator: ":").last ?? ""
                switch request.path.removingPercentEncoding ?? request.path {
                case "/drive/items/delta()":
                    return .init(
                        json:
                            #"{"value":[{"id":"1","name":"a"}],"@odata.nextLink":"http://127.0.0.1:\#(port)/drive/items/delta(token='p2')"}"#
                    )
                case "/drive/items/delta(token='p2')":
                    return .init(
                        json:
                            #"{"value":[{"id":"2","name":"b"}],"@odata.deltaLink":"http://127.0.0.1:\#(port)/drive/items/delta(token='t1')"}"#
                    )
                case "/drive/items/delta(token='t1')":
                    return .init(
                        json:
                            #"{"value":[{"id":"1","@removed":{"reason":"deleted"}},{"id":"3","name":"c"}],"@odata.deltaLink":"http://127.0.0.1:\#(port)/drive/items/delta(token='t2')"}"#
                    )
                default:
                    return .init(status: 404, json: #"{"error":{"code":"itemNotFound","message":"no"}}"#)
                }
            }
        ])
        defer { Task { await server.stop() } }
        let graph = GoldenODataClient(
            client: ServiceClient(
                baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                conventions: GoldenODataClient.conventions))
        var token: String?
        var firstRound: [String] = []
        for try await page in graph.drive.items.delta().pages() {
            firstRound += page.value.compactMap(\.id)
            token = page.deltaToken ?? token
        }
        #expect(firstRound == ["1", "2"])
        #expect(token == "t1")

        // Later, from the saved token: changes only, deletions marked.
        let changes = try await graph.drive.items.delta(token: token ?? "").get()
        #expect(changes.value.map(\.id) == ["1", "3"])
        #expect(changes.value.map(\.isDeletedInDelta) == [true, false])
        #expect(changes.deltaToken == "t2")
    }

    @Test func inboxCursorDeltaEndsWhenStartEqualsEnd() async throws {
        let rounds = [
            "c0":
                #"{"cursor_start":"c0","cursor_end":"c1","deltas":[{"object":"message","event":"create","id":"m1","cursor":"c0a","attributes":{"id":"m1","subject":"Hi"}},{"object":"thread","event":"delete","id":"t9","cursor":"c1"}]}"#,
            "c1":
                #"{"cursor_start":"c1","cursor_end":"c2","deltas":[{"object":"message","event":"modify","id":"m1","cursor":"c2","attributes":{"id":"m1","subject":"Re: Hi"}}]}"#,
            "c2": #"{"cursor_start":"c2","cursor_end":"c2","deltas":[]}"#,
        ]
        let server = try await LoopbackServer([
            "GET /n/ns/delta": { request in
                guard let body = rounds[request.queryValue("cursor") ?? ""] else {
                    return .init(status: 400, json: #"{"type":"invalid_request_error","message":"bad cursor"}"#)
                }
                return .init(json: body)
            }
        ])
        defer { Task { await server.stop() } }
        let inbox = client(server, GoldenOpenAPIClient.conventions)
        var events: [String] = []
        var last: DeltaRound?
        for try await round in inbox.n("ns").delta.getDelta(cursor: "c0").deltaRounds() {
            events += round.events.map { "\($0.event) \($0.object) \($0.id)" }
            last = round
        }
        #expect(events == ["create message m1", "delete thread t9", "modify message m1"])
        #expect(last?.isLast == true)
        #expect(last?.cursorEnd == "c2")
        #expect(server.requests.map { $0.queryValue("cursor") } == ["c0", "c1", "c2"])
        let message = try #require(
            try await inbox.n("ns").delta.getDelta(cursor: "c1").deltaRounds().first { _ in true }?.events.first)
        let decoded = try #require(try message.decode(GoldenOpenAPI.Message.self))
        #expect(decoded.subject == "Re: Hi")
    }

    @Test func anExpandedCollectionContinuesFromItsOwnNextLink() async throws {
        let server = try await LoopbackServer([
            "GET /drive/items/*": { request in
                let port = request.header("Host")?.split(separator: ":").last ?? ""
                if request.path.hasSuffix("/children") {
                    return .init(json: #"{"value":[{"id":"c3"}]}"#)
                }
                return .init(
                    json:
                        #"{"id":"root","children":[{"id":"c1"},{"id":"c2"}],"children@odata.nextLink":"http://127.0.0.1:\#(port)/drive/items/root/children?$skiptoken=2"}"#
                )
            }
        ])
        defer { Task { await server.stop() } }
        let graph = GoldenODataClient(
            client: ServiceClient(
                baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                conventions: GoldenODataClient.conventions))
        let root = try await graph.drive.items("root").request().expand("children").get()
        #expect(root.children?.compactMap(\.id) == ["c1", "c2"])
        let link = try #require(root.nextLink(of: "children"))
        let rest = try await graph.drive.items("root").children.request().following(link).get()
        #expect(rest.value.map(\.id) == ["c3"])
        #expect(server.requests.last?.queryValue("$skiptoken") == "2")
    }
}
