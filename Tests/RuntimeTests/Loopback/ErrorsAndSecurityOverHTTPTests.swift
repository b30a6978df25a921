import BinderyRuntime
import Foundation
import GoldenOData
import GoldenOpenAPI
import Inbox
import Spark
import Synchronization
import Testing

/// Every error dialect, retries, redirects and credential handling, over real loopback HTTP.
@Suite struct ErrorsAndSecurityOverHTTPTests {
    func graph(
        _ server: LoopbackServer, headers: HTTPFields = [:],
        conventions: ServiceConventions = GoldenODataClient.conventions
    ) -> GoldenODataClient {
        GoldenODataClient(
            client: ServiceClient(
                baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                conventions: conventions, defaultHeaders: headers))
    }

    /// Sends `GET /me` to a server that answers with `reply`, read by `shape`, and returns the error.
    func error(for reply: LoopbackServer.Reply, shape: ServiceConventions.ErrorShape = .odata) async throws
        -> BinderyError?
    {
        let server = try await LoopbackServer(["GET /me": { _ in reply }])
        defer { Task { await server.stop() } }
        var conventions = GoldenODataClient.conventions
        conventions.errors = shape
        let client = graph(server, conventions: conventions)
        return await #expect(throws: BinderyError.self) { _ = try await client.me.request().get() }
    }

    /// The generic dialect, an OpenAPI spec's default, reads the shapes public APIs commonly send.
    @Test func genericErrorsReadEveryCommonShape() async throws {
        let cases: [(body: String, code: String?, message: String)] = [
            // RFC 7807 problem details, with a member of its own.
            (
                #"{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":403,"detail":"Your balance is 30, but that costs 50.","balance":30}"#,
                "https://example.com/probs/out-of-credit", "Your balance is 30, but that costs 50."
            ),
            (#"{"type":"about:blank","title":"Not Found","status":404}"#, "Not Found", "Not Found"),
            (#"{"message":"Bad credentials","documentation_url":"https://docs.example.com"}"#, nil, "Bad credentials"),
            (
                #"{"message":"Validation Failed","code":"invalid","errors":[{"field":"name"}]}"#, "invalid",
                "Validation Failed"
            ),
            (
                #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}"#, "404",
                "Requested entity was not found."
            ),
            (
                #"{"error":"invalid_grant","error_description":"The code has expired."}"#, "invalid_grant",
                "The code has expired."
            ),
            (
                #"{"errors":[{"message":"Field 'x' is missing"},{"message":"Field 'y' is too long"}]}"#, nil,
                "Field 'x' is missing; Field 'y' is too long"
            ),
        ]
        for (body, code, message) in cases {
            let error = try await error(for: .init(status: 400, json: body), shape: .common)
            #expect(error?.kind == .api && error?.status == 400)
            #expect(error?.serviceCode == code, "\(body)")
            #expect(error?.message == message, "\(body)")
            #expect(error?.body == Array(body.utf8), "the raw body is kept")
        }
        let problem = try await error(
            for: .init(status: 403, json: #"{"title":"Forbidden","detail":"No.","balance":30}"#), shape: .common)
        #expect(problem?.details?["balance"] == 30, "a problem's own members are its details")
    }

    @Test func odataErrorWithInnerError() async throws {
        let error = try await error(
            for: .init(
                status: 404,
                json:
                    #"{"error":{"code":"itemNotFound","message":"The resource could not be found.","innerError":{"date":"2026-11-22T10:00:00","request-id":"req-1","client-request-id":"c-1"}}}"#
            ))
        #expect(error?.kind == .api)
        #expect(error?.isAPIError == true)
        #expect(error?.status == 404)
        #expect(error?.serviceCode == "itemNotFound")
        #expect(error?.message == "The resource could not be found.")
        #expect(error?.requestID == "req-1")
        #expect(error?.date == "2026-11-22T10:00:00")
        #expect(error?.details?["client-request-id"] == "c-1")
    }

    /// A service that repeats the caller's token in its error: the body keeps it (nothing is lost), the message,
    /// and so every description and log line of the error, does not.
    @Test func aTokenTheServiceEchoesStaysOutOfTheErrorsText() async throws {
        let token = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2VuLWZvci10ZXN0cw.sig"
        let server = try await LoopbackServer([
            "GET /me": { request in
                let sent = request.header("Authorization") ?? ""
                return .init(
                    status: 400,
                    json: #"{"error":{"code":"badToken","message":"the header '\#(sent)' is not accepted"}}"#)
            },
            "GET /plain": { request in
                .init(status: 403, body: Array("forbidden for \(request.header("Authorization") ?? "")".utf8))
            },
        ])
        defer { Task { await server.stop() } }
        let client = GoldenODataClient(
            client: ServiceClient(
                baseURL: server.baseURL, transport: loopbackTransport(),
                middleware: fastMiddleware() + [AuthMiddleware(StaticTokenAuth(token))],
                conventions: GoldenODataClient.conventions))
        let json = await #expect(throws: BinderyError.self) { _ = try await client.me.request().get() }
        var plain = APIRequest(method: .get, path: ResourcePath("plain"))
        plain.headers[.accept] = "text/plain"
        let text = await #expect(throws: BinderyError.self) { _ = try await client.client.send(plain) }
        for error in [json, text] {
            let error = try #require(error)
            for shown in [error.description, String(reflecting: error), error.localizedDescription, error.message] {
                #expect(!shown.contains(token), "\(shown)")
            }
            #expect(error.message.contains(Redaction.placeholder))
            #expect(String(decoding: error.body ?? [], as: UTF8.self).contains(token), "the body is kept whole")
        }
    }

    @Test func legacyLowercaseInnerErrorAndOneNoteHelpURL() async throws {
        let nested = try await error(
            for: .init(
                status: 400,
                json:
                    #"{"error":{"code":"invalidRequest","message":"Bad","innererror":{"code":"badArgument","innererror":{"code":"deeper"}}}}"#
            ))
        #expect(nested?.details?["innererror"]?["code"] == "deeper")
        let onenote = try await error(
            for: .init(
                status: 400,
                json:
                    #"{"error":{"code":"10004","message":"Unsupported query","@api.url":"http://aka.ms/onenote-errors#C10004"}}"#
            ))
        #expect(onenote?.serviceCode == "10004")
        #expect(onenote?.helpURL == "http://aka.ms/onenote-errors#C10004")
    }

    /// The shapes generated OData modules declare are the runtime's own: the generator and the runtime agree.
    @Test func generatedODataConventionsAreTheRuntimes() {
        #expect(GoldenODataClient.conventions.errors == ServiceConventions.odata.errors)
        #expect(GoldenODataClient.conventions.errors == ServiceConventions.ErrorShape.odata)
        guard case .nextLink(let path) = GoldenODataClient.conventions.paging else {
            Issue.record("OData pages by next link")
            return
        }
        #expect(path == ["@odata.nextLink"])
    }

    /// Error shapes as the specs declare them: each part at its paths, the first present wins.
    @Test func errorsReadAtTheShapesPaths() async throws {
        let spark = try await error(
            for: .init(
                status: 400,
                json:
                    #"{"D":{"Success":false,"Code":1053,"Message":"Invalid parameter","Details":[{"_limit":"must be at most 25"}]}}"#
            ), shape: SparkClient.conventions.errors)
        #expect(spark?.serviceCode == "1053")
        #expect(spark?.message == "Invalid parameter")
        #expect(spark?.details?.arrayValue?.first?["_limit"] == "must be at most 25")
        let inbox = try await error(
            for: .init(status: 400, json: #"{"type":"invalid_request_error","message":"Missing namespace"}"#),
            shape: InboxClient.conventions.errors)
        #expect(inbox?.serviceCode == "invalid_request_error")
        #expect(inbox?.message == "Missing namespace")
        // Nylas v3, as a spec of its own would declare it, with a second place for the code.
        let nylas = ServiceConventions.ErrorShape(
            code: [["error", "type"], ["error", "code"]], message: [["error", "message"]],
            details: [["error", "provider_error"]], requestID: [["request_id"]])
        let unauthorized = try await error(
            for: .init(
                status: 401,
                json:
                    #"{"request_id":"n-7","error":{"type":"unauthorized","message":"Unauthorized","provider_error":{"error":"expired"}}}"#
            ), shape: nylas)
        #expect(unauthorized?.serviceCode == "unauthorized")
        #expect(unauthorized?.requestID == "n-7")
        #expect(unauthorized?.details?["error"] == "expired")
        let coded = try await error(
            for: .init(status: 400, json: #"{"error":{"code":"bad","type":null,"message":"No."}}"#), shape: nylas)
        #expect(coded?.serviceCode == "bad" && coded?.message == "No.")
    }

    @Test func surprisingBodiesGiveTypedErrors() async throws {
        let html = try await error(
            for: .init(
                status: 502, headers: ["Content-Type": "text/html"],
                body: Array("<html><body><h1>502 Bad Gateway</h1></body></html>".utf8)))
        #expect(html?.kind == .api)
        #expect(html?.status == 502)
        #expect(html?.message.contains("502 Bad Gateway") == true)
        let empty = try await error(for: .init(status: 500))
        #expect(empty?.kind == .api)
        #expect(empty?.status == 500)
        let truncated = try await error(for: .init(json: #"{"id":"me","displayName":"Ada"#))
        #expect(truncated?.kind == .invalidResponse)
        #expect(truncated?.body == Array(#"{"id":"me","displayName":"Ada"#.utf8), "the raw body is kept")
        let wrongType = try await error(for: .init(json: #"{"id":"me","displayName":42}"#))
        #expect(wrongType?.kind == .decoding)
        #expect(wrongType?.message.contains("displayName") == true)
    }

    @Test func sparkBodiesWithoutTheirEnvelopeOrWithSuccessFalseAreErrors() async throws {
        let spark = ServiceConventions(
            listShape: .wrapped(["D", "Results"]),
            paging: .pageNumber(
                page: "_page", size: "_limit", extraQuery: [], totalPages: ["D", "Pagination", "TotalPages"]),
            requestEnvelope: ["D"], errors: SparkClient.conventions.errors)
        for (body, kind) in [
            (#"{"Results":[]}"#, BinderyError.Kind.invalidResponse), (#"{"D":{"Success":false}}"#, .api),
        ] {
            let server = try await LoopbackServer(["GET /n/ns/threads": { _ in .init(json: body) }])
            let client = GoldenOpenAPIClient(
                client: ServiceClient(
                    baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                    conventions: spark))
            let error = await #expect(throws: BinderyError.self) {
                _ = try await client.n("ns").threads.request().get()
            }
            #expect(error?.kind == kind, "\(body)")
            await server.stop()
        }
    }

    @Test func throttlingIsRetriedAfterRetryAfter() async throws {
        let calls = Mutex(0)
        let server = try await LoopbackServer([
            "GET /me": { _ in
                let call = calls.withLock {
                    $0 += 1
                    return $0
                }
                if call <= 2 {
                    return .init(
                        status: 429, headers: ["Retry-After": "0.05"],
                        json: #"{"error":{"code":"TooManyRequests","message":"slow down"}}"#)
                }
                return .init(json: #"{"id":"me","displayName":"Ada"}"#)
            }
        ])
        defer { Task { await server.stop() } }
        let clock = ContinuousClock()
        let start = clock.now
        let me = try await graph(server).me.request().get()
        #expect(me.displayName == "Ada")
        #expect(server.requests.count == 3)
        #expect(clock.now - start >= .milliseconds(100), "two waits of 0.05 s")
        #expect(server.requests[2].header("Retry-Attempt") == "2")
    }

    @Test func throttlingThatNeverEndsSurfacesTheLastResponse() async throws {
        let server = try await LoopbackServer([
            "GET /me": { _ in
                .init(
                    status: 503, headers: ["Retry-After": "0.01"],
                    json: #"{"error":{"code":"serviceNotAvailable","message":"later"}}"#)
            }
        ])
        defer { Task { await server.stop() } }
        let error = await #expect(throws: BinderyError.self) { _ = try await graph(server).me.request().get() }
        #expect(error?.status == 503)
        #expect(error?.serviceCode == "serviceNotAvailable")
        #expect(error?.retryAfter == .milliseconds(10))
        #expect(server.requests.count == 4, "the default cap is four attempts")
    }

    @Test func aCrossOriginRedirectLeavesAuthorizationBehind() async throws {
        let other = try await LoopbackServer([
            "GET /profile": { _ in .init(json: #"{"id":"me","displayName":"Moved"}"#) }
        ])
        defer { Task { await other.stop() } }
        let target = other.baseURL.appendingPathComponent("profile").absoluteString
        let server = try await LoopbackServer([
            "GET /me": { _ in .init(status: 307, headers: ["Location": "/users/me"]) },
            "GET /users/me": { _ in .init(status: 302, headers: ["Location": target]) },
        ])
        defer { Task { await server.stop() } }
        let client = graph(server, headers: [.authorization: "Bearer secret-token", .cookie: "s=1"])
        let me = try await client.me.request().get()
        #expect(me.displayName == "Moved")
        #expect(server.requests.map(\.path) == ["/me", "/users/me"])
        #expect(
            server.requests.allSatisfy { $0.header("Authorization") == "Bearer secret-token" },
            "same origin keeps credentials")
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.header("Authorization") == nil)
        #expect(other.requests.first?.header("Cookie") == nil)
    }

    @Test func nextLinksToAnotherHostGoWithoutCredentials() async throws {
        let foreign = try await LoopbackServer(["GET /page2": { _ in .init(json: #"{"value":[{"id":"2"}]}"#) }])
        defer { Task { await foreign.stop() } }
        // Same machine, another host name: `localhost` is not the configured `127.0.0.1`.
        let next = "http://localhost:\(foreign.port)/page2"
        let server = try await LoopbackServer([
            "GET /drive/items": { _ in .init(json: #"{"value":[{"id":"1"}],"@odata.nextLink":"\#(next)"}"#) }
        ])
        defer { Task { await server.stop() } }
        var ids: [String] = []
        for try await item in graph(server, headers: [.authorization: "Bearer secret-token"]).drive.items.request()
            .all()
        {
            ids.append(item.id ?? "?")
        }
        #expect(ids == ["1", "2"])
        #expect(server.requests[0].header("Authorization") == "Bearer secret-token")
        #expect(foreign.requests.count == 1)
        #expect(foreign.requests[0].header("Authorization") == nil)
    }

    @Test func idsCannotChangeThePathTheServerSees() async throws {
        let server = try await LoopbackServer([
            "GET /drive/items/*": { _ in .init(json: #"{"id":"x"}"#) }, "GET /x": { _ in .init(status: 500) },
        ])
        defer { Task { await server.stop() } }
        let client = graph(server)
        _ = try await client.drive.items("../../x").request().get()
        _ = try await client.drive.items("a'b?c=d#e").request().get()
        let paths = server.requests.map(\.path)
        #expect(paths.count == 2)
        #expect(paths.allSatisfy { $0.hasPrefix("/drive/items/") }, "\(paths)")
        #expect(server.requests.allSatisfy { $0.query.isEmpty }, "a ? in an id does not start a query")
    }
}
