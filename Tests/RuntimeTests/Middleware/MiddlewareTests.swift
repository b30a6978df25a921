import BinderyRuntime
import Foundation
import Testing

/// Each middleware alone, over a recording transport (its decisions are a state machine); the same
/// behaviour over real loopback HTTP is in `ClientOverHTTPTests`.
@Suite struct RetryMiddlewareTests {
    let url = URL(string: "https://graph.example.com/v1.0/me")!

    func chain(_ retry: RetryMiddleware, _ answer: @escaping @Sendable (TransportRequest, Int) throws -> APIResponse)
        -> (MiddlewareChain, RecordingTransport)
    {
        let transport = RecordingTransport(answer)
        return (MiddlewareChain([retry], transport: transport), transport)
    }

    @Test(arguments: [("0.249", 249), ("3", 3000), ("0", 0)])
    func retryAfterSecondsIsHonoured(header: String, milliseconds: Int) async throws {
        let sleeps = SleepRecorder()
        let (chain, transport) = chain(RetryMiddleware(sleep: sleeps.sleep)) { _, index in
            index == 0
                ? APIResponse(status: .tooManyRequests, headers: [.retryAfter: header]) : APIResponse(status: .ok)
        }
        let response = try await chain.send(TransportRequest(HTTPRequest(method: .get, url: url)))
        #expect(response.status == .ok)
        #expect(sleeps.recorded == [.milliseconds(milliseconds)])
        #expect(transport.requests.count == 2)
        #expect(transport.requests[1].head.headerFields[HTTPField.Name("Retry-Attempt")!] == "1")
    }

    @Test func retryAfterAnHTTPDateWaitsUntilThen() async throws {
        let sleeps = SleepRecorder()
        let later = Date().addingTimeInterval(20)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let header = formatter.string(from: later)
        let (chain, _) = chain(RetryMiddleware(sleep: sleeps.sleep)) { _, index in
            index == 0
                ? APIResponse(status: .serviceUnavailable, headers: [.retryAfter: header]) : APIResponse(status: .ok)
        }
        _ = try await chain.send(TransportRequest(HTTPRequest(method: .get, url: url)))
        let waited = try #require(sleeps.recorded.first)
        #expect(waited > .seconds(17) && waited <= .seconds(20))
    }

    @Test func backoffGrowsWithJitterAndAttemptsAreCapped() async throws {
        let sleeps = SleepRecorder()
        let retry = RetryMiddleware(maxAttempts: 4, baseBackoff: .milliseconds(100), sleep: sleeps.sleep)
        let (chain, transport) = chain(retry) { _, _ in APIResponse(status: .gatewayTimeout) }
        let response = try await chain.send(TransportRequest(HTTPRequest(method: .get, url: url)))
        #expect(response.status == .gatewayTimeout, "the last response is returned as it was")
        #expect(transport.requests.count == 4)
        let waits = sleeps.recorded
        #expect(waits.count == 3)
        for (index, wait) in waits.enumerated() {
            let ceiling = Duration.milliseconds(100 << index)
            #expect(wait >= ceiling / 2 && wait <= ceiling, "attempt \(index + 1) waited \(wait)")
        }
    }

    @Test func totalDelayCapStopsRetriesThatWouldWaitTooLong() async throws {
        let sleeps = SleepRecorder()
        let retry = RetryMiddleware(maxAttempts: 10, maxTotalDelay: .seconds(5), sleep: sleeps.sleep)
        let (chain, transport) = chain(retry) { _, _ in
            APIResponse(status: .tooManyRequests, headers: [.retryAfter: "3"])
        }
        let response = try await chain.send(TransportRequest(HTTPRequest(method: .get, url: url)))
        #expect(response.status == .tooManyRequests)
        #expect(sleeps.recorded == [.seconds(3)], "a second 3 s wait would pass the 5 s budget")
        #expect(transport.requests.count == 2)
    }

    @Test func otherStatusesAreNotRetried() async throws {
        let sleeps = SleepRecorder()
        let (chain, transport) = chain(RetryMiddleware(sleep: sleeps.sleep)) { _, _ in
            APIResponse(status: .internalServerError)
        }
        _ = try await chain.send(TransportRequest(HTTPRequest(method: .get, url: url)))
        #expect(transport.requests.count == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func connectionFailuresAreRetriedOnlyWhenIdempotent() async throws {
        let sleeps = SleepRecorder()
        let (chain, transport) = chain(RetryMiddleware(sleep: sleeps.sleep)) { _, index in
            if index == 0 { throw BinderyError(kind: .connection, message: "reset") }
            return APIResponse(status: .ok)
        }
        let put = TransportRequest(HTTPRequest(method: .put, url: url), body: .bytes([1, 2, 3]))
        #expect(try await chain.send(put).status == .ok)
        #expect(transport.requests.count == 2)
        #expect(transport.requests[1].body == .bytes([1, 2, 3]), "the body is sent again")

        let (postChain, postTransport) = self.chain(RetryMiddleware(sleep: sleeps.sleep)) { _, _ in
            throw BinderyError(kind: .connection, message: "reset")
        }
        let error = await #expect(throws: BinderyError.self) {
            try await postChain.send(TransportRequest(HTTPRequest(method: .post, url: url), body: .bytes([1])))
        }
        #expect(error?.kind == .connection)
        #expect(postTransport.requests.count == 1, "a POST may have reached the service; it is not sent twice")
    }
}

@Suite struct RedirectMiddlewareTests {
    @Test func sameOriginRedirectKeepsCredentialsAndCrossOriginDropsThem() async throws {
        let transport = RecordingTransport { request, _ in
            switch request.head.url?.absoluteString {
            case "https://a.example.com/start": APIResponse(status: .found, headers: [.location: "/moved"])
            case "https://a.example.com/moved":
                APIResponse(status: .temporaryRedirect, headers: [.location: "https://cdn.example.net/file"])
            default: APIResponse(status: .ok, body: Array("done".utf8))
            }
        }
        let chain = MiddlewareChain([RedirectMiddleware()], transport: transport)
        var head = HTTPRequest(method: .get, url: URL(string: "https://a.example.com/start")!)
        head.headerFields[.authorization] = "Bearer secret"
        head.headerFields[.cookie] = "session=1"
        let response = try await chain.send(TransportRequest(head))
        #expect(response.body == Array("done".utf8))
        let seen = transport.requests
        #expect(
            seen.map { $0.head.url?.absoluteString } == [
                "https://a.example.com/start", "https://a.example.com/moved", "https://cdn.example.net/file",
            ])
        #expect(seen[1].head.headerFields[.authorization] == "Bearer secret")
        #expect(seen[2].head.headerFields[.authorization] == nil)
        #expect(seen[2].head.headerFields[.cookie] == nil)
    }

    @Test func seeOtherBecomesAGetWithoutBody() async throws {
        let transport = RecordingTransport { request, index in
            index == 0 ? APIResponse(status: .seeOther, headers: [.location: "/result"]) : APIResponse(status: .ok)
        }
        let chain = MiddlewareChain([RedirectMiddleware()], transport: transport)
        _ = try await chain.send(
            TransportRequest(
                HTTPRequest(method: .post, url: URL(string: "https://a.example.com/jobs")!), body: .bytes([1])))
        #expect(transport.requests[1].head.method == .get)
        #expect(transport.requests[1].body == nil)
    }

    @Test func aRedirectLoopStopsAfterFive() async throws {
        let transport = RecordingTransport { _, index in
            APIResponse(status: .found, headers: [.location: "/hop\(index)"])
        }
        let chain = MiddlewareChain([RedirectMiddleware()], transport: transport)
        let error = await #expect(throws: BinderyError.self) {
            try await chain.send(
                TransportRequest(HTTPRequest(method: .get, url: URL(string: "https://a.example.com/")!)))
        }
        #expect(error?.kind == .tooManyRedirects)
        #expect(transport.requests.count == 6)
    }
}

@Suite struct HeadersAndLoggingTests {
    @Test func userAgentAndClientRequestIDAreAddedUnlessSet() async throws {
        let transport = RecordingTransport { _, _ in APIResponse(status: .ok) }
        let chain = MiddlewareChain([HeadersMiddleware(userAgent: "Test/1")], transport: transport)
        _ = try await chain.send(
            TransportRequest(HTTPRequest(method: .get, url: URL(string: "https://a.example.com/")!)))
        var custom = HTTPRequest(method: .get, url: URL(string: "https://a.example.com/")!)
        custom.headerFields[.userAgent] = "Mine/2"
        _ = try await chain.send(TransportRequest(custom))
        let first = transport.requests[0].head.headerFields
        #expect(first[.userAgent] == "Test/1")
        let id = try #require(first[HTTPField.Name("client-request-id")!])
        #expect(UUID(uuidString: id) != nil)
        #expect(transport.requests[1].head.headerFields[.userAgent] == "Mine/2")
        #expect(transport.requests[1].head.headerFields[HTTPField.Name("client-request-id")!] != id)
    }

    /// A token endpoint's OAuth errors (4xx) are thrown to the caller and logged at debug; its outages are not hidden.
    @Test func clientErrorsCanBeQuieterThanServerErrors() async throws {
        let log = CapturedLog()
        let transport = RecordingTransport { _, index in
            APIResponse(status: index == 0 ? .badRequest : .serviceUnavailable)
        }
        let chain = MiddlewareChain(
            [LoggingMiddleware(logger: log.logger(level: .trace), clientErrorLevel: .debug)], transport: transport)
        let head = HTTPRequest(method: .post, url: URL(string: "https://login.example.com/token")!)
        _ = try await chain.send(TransportRequest(head))
        _ = try await chain.send(TransportRequest(head))
        #expect(log.all.contains { $0.hasPrefix("debug: POST https://login.example.com/token → 400 in") })
        #expect(log.all.contains { $0.hasPrefix("info: POST https://login.example.com/token → 503 in") })
        let logged = OAuth2Client.tokenEndpointDefaults(logger: log.logger())
        #expect(logged.compactMap { ($0 as? LoggingMiddleware)?.clientErrorLevel } == [.debug])
        #expect(logged.compactMap { ($0 as? LoggingMiddleware)?.failureLevel } == [.info])
        #expect(!OAuth2Client.tokenEndpointDefaults.contains { $0 is LoggingMiddleware }, "silent without a logger")
    }

    @Test func oneLinePerRequestWithSecretsRedactedAtEveryLevel() async throws {
        let log = CapturedLog()
        let transport = RecordingTransport { _, index in
            index == 0
                ? APIResponse(
                    status: .found,
                    headers: [
                        .setCookie: "session=cookie-secret",
                        .location: "http://127.0.0.1:9/callback?code=location-secret&state=s",
                    ])
                : APIResponse(status: .unauthorized)
        }
        let chain = MiddlewareChain([LoggingMiddleware(logger: log.logger(level: .trace))], transport: transport)
        var head = HTTPRequest(
            method: .post,
            url: URL(
                string:
                    "https://login.example.com/token?code=code-secret&ApiSig=sig-secret&state=visible&access_token=at-secret"
            )!)
        head.headerFields[.authorization] = "Bearer bearer-secret"
        head.headerFields[.contentType] = "application/x-www-form-urlencoded"
        head.headerFields[.cookie] = "session=cookie-secret"
        let form = "grant_type=refresh_token&refresh_token=rt-secret&client_id=app&code_verifier=verifier-secret"
        _ = try await chain.send(TransportRequest(head, body: .bytes(Array(form.utf8))))

        var json = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/session")!)
        json.headerFields[.contentType] = "application/json"
        let body = #"{"D":{"AuthToken":"auth-secret","password":"pw-secret","Name":"visible"}}"#
        _ = try await chain.send(TransportRequest(json, body: .bytes(Array(body.utf8))))

        let lines = log.all
        #expect(
            lines.contains { $0.hasPrefix("debug: POST https://login.example.com/token?") && $0.contains("→ 302 in") })
        #expect(lines.contains { $0.hasPrefix("info: POST https://api.example.com/v1/session → 401") })
        #expect(lines.contains { $0.contains("state=visible") && $0.contains("client_id=app") })
        #expect(lines.contains { $0.contains("\"Name\":\"visible\"") })
        for secret in [
            "location-secret", "code-secret", "sig-secret", "at-secret", "bearer-secret", "cookie-secret", "rt-secret",
            "verifier-secret", "auth-secret", "pw-secret",
        ] {
            #expect(!lines.contains { $0.contains(secret) }, "\(secret) leaked into the log")
        }
    }
}
