import Foundation
import GoldenOData
import GoldenOpenAPI
import Inbox
import MicrosoftIdentity
import Synchronization
import Testing

@testable import BinderyRuntime
@testable import Spark

@Suite struct DigestTests {
    @Test func knownVectors() {
        #expect(
            Digest.hex(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.hex(Digest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array(String(repeating: "a", count: 1000).utf8)
        #expect(Digest.hex(Digest.sha256(long)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        #expect(MD5.hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(
            MD5.hex(Array("The quick brown fox jumps over the lazy dog".utf8)) == "9e107d9d372bb6826bd81d3542a419d6")
    }

    @Test func pkceChallengeIsBase64URLOfSHA256() {
        // Expected value from Python's hashlib + urlsafe_b64encode, an independent implementation.
        #expect(
            PKCE.challenge(for: "dBjftJeZ4CVP-mJ92K1qUdyA3TQ1K8yBEb5lUeFFcr4")
                == "QgQTrQeC0x7At_6nXwp0YWmGt5pdU2mREd-aOT0st5E")
        let verifier = PKCE.makeVerifier()
        #expect(verifier.count == 43)
        #expect(verifier != PKCE.makeVerifier())
    }
}

@Suite struct OAuthFlowTests {
    func client(_ provider: IdentityProvider, log: CapturedLog? = nil) -> OAuth2Client {
        let middleware: [any HTTPMiddleware] =
            log.map { [HeadersMiddleware(), LoggingMiddleware(logger: $0.logger())] } ?? .defaults
        return OAuth2Client(provider.configuration, transport: loopbackTransport(), middleware: middleware)
    }

    @Test func authorizationCodeWithPKCEAndState() async throws {
        let provider = try await IdentityProvider()
        defer { Task { await provider.stop() } }
        let log = CapturedLog()
        let oauth = client(provider, log: log)
        let request = oauth.authorizationRequest(loginHint: "ada@example.com")
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
        #expect(query.first { $0.name == "login_hint" }?.value == "ada@example.com")
        #expect(query.first { $0.name == "scope" }?.value == "Files.ReadWrite offline_access")
        #expect(!request.url.absoluteString.contains(request.codeVerifier), "the verifier never goes to the browser")

        // The "browser": the provider redirects back with a code.
        let (head, _) = try await loopbackTransport().send(HTTPRequest(method: .get, url: request.url), body: nil)
        let callback = try #require(head.headerFields[.location].flatMap(URL.init(string:)))
        let token = try await oauth.exchange(callback: callback, for: request, account: "ada")
        #expect(token.accessToken.hasPrefix("access-"))
        #expect(token.refreshToken?.hasPrefix("refresh-") == true)
        #expect(token.scopes == ["Files.ReadWrite", "offline_access"])
        #expect(token.account == "ada")
        #expect(token.isValid())
        #expect(!"\(token)".contains(token.accessToken), "a token's description hides it")

        // A wrong verifier is refused by the provider.
        let second = oauth.authorizationRequest()
        let (head2, _) = try await loopbackTransport().send(HTTPRequest(method: .get, url: second.url), body: nil)
        let code = try second.code(fromCallback: try #require(head2.headerFields[.location].flatMap(URL.init(string:))))
        let refused = await #expect(throws: BinderyError.self) {
            _ = try await oauth.exchange(
                code: code, codeVerifier: "not-the-verifier", redirectURI: second.redirectURI, account: "ada")
        }
        #expect(refused?.kind == .authorization)
        #expect(refused?.serviceCode == "invalid_grant")
        assertNoSecrets(in: log, ["code-", "access-", "refresh-", request.codeVerifier])
    }

    @Test func aCallbackWithAnotherStateOrAnErrorIsRejected() throws {
        let oauth = OAuth2Client(
            MicrosoftIdentity.configuration(
                clientID: "app-id", scopes: ["User.Read"], redirectURI: "http://127.0.0.1/callback"))
        let request = oauth.authorizationRequest()
        let forged = URL(string: "http://127.0.0.1/callback?code=abc&state=someone-else")!
        #expect(throws: BinderyError.self) { try request.code(fromCallback: forged) }
        let denied = URL(
            string:
                "http://127.0.0.1/callback?error=access_denied&error_description=The+user+declined&state=\(request.state)"
        )!
        do {
            _ = try request.code(fromCallback: denied)
            Issue.record("a refused consent must throw")
        } catch {
            #expect(error.serviceCode == "access_denied")
            #expect(error.message == "The user declined")
            #expect(error.kind == .authorization)
        }
        #expect(
            try request.code(fromCallback: URL(string: "http://127.0.0.1/callback?code=abc&state=\(request.state)")!)
                == "abc")
    }

    @Test func terminalSignInThroughALoopbackRedirect() async throws {
        let provider = try await IdentityProvider()
        defer { Task { await provider.stop() } }
        let oauth = client(provider)
        let token = try await oauth.signInWithBrowser(account: "ada", timeout: .seconds(60)) { url in
            // Plays the browser: open the authorize URL, follow its redirect to the listener.
            Task {
                let (head, _) = try await loopbackTransport().send(HTTPRequest(method: .get, url: url), body: nil)
                let location = try #require(head.headerFields[.location].flatMap(URL.init(string:)))
                #expect(location.host == "127.0.0.1")
                let (page, body) = try await loopbackTransport().send(
                    HTTPRequest(method: .get, url: location), body: nil)
                #expect(page.status == .ok)
                #expect(String(decoding: body, as: UTF8.self).contains("Signed in"))
            }
        }
        #expect(token.accessToken.hasPrefix("access-"))
    }

    @Test func deviceCodePollsThroughPendingAndSlowDown() async throws {
        let provider = try await IdentityProvider(devicePollAnswers: [
            "authorization_pending", "slow_down", "authorization_pending",
        ])
        defer { Task { await provider.stop() } }
        let oauth = client(provider)
        let device = try await oauth.startDeviceAuthorization()
        #expect(device.userCode == "ABCD-EFGH")
        #expect(device.verificationURI == "https://microsoft.com/devicelogin")
        let sleeps = SleepRecorder()
        let token = try await oauth.completeDeviceAuthorization(device, account: "ada", sleep: sleeps.sleep)
        #expect(token.accessToken.hasPrefix("access-"))
        #expect(sleeps.recorded == [.seconds(1), .seconds(1), .seconds(6), .seconds(6)], "slow_down adds 5 s")
    }

    @Test func clientCredentialsAndRefreshRotation() async throws {
        let provider = try await IdentityProvider()
        defer { Task { await provider.stop() } }
        let oauth = client(provider)
        let app = try await oauth.clientCredentials()
        #expect(app.refreshToken == nil)
        let seeded = provider.seed(account: "ada", expired: true)
        let renewed = try await oauth.refresh(seeded)
        #expect(renewed.refreshToken != seeded.refreshToken, "the provider rotated the refresh token")
        let reused = await #expect(throws: BinderyError.self) { _ = try await oauth.refresh(seeded) }
        #expect(reused?.serviceCode == "invalid_grant", "the old refresh token no longer works")
    }
}

@Suite struct SessionRenewalTests {
    func api(_ provider: IdentityProvider) async throws -> LoopbackServer { try await provider.api() }

    @Test func hundredConcurrentRequestsOverAnExpiredTokenRefreshOnce() async throws {
        let provider = try await IdentityProvider()
        let api = try await api(provider)
        defer {
            Task {
                await provider.stop()
                await api.stop()
            }
        }
        let store = MemoryTokenStore([provider.seed(account: "ada", expired: true)])
        let session = OAuth2Client(provider.configuration, transport: loopbackTransport()).session(
            account: "ada", store: store)
        let graph = GoldenODataClient(
            baseURL: api.baseURL, auth: session, transport: loopbackTransport(), middleware: fastMiddleware())
        let names = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<100 { group.addTask { try await graph.me.request().get().displayName } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(names.count == 100)
        #expect(names.allSatisfy { $0 == "Ada" })
        #expect(provider.state.withLock { $0.refreshes } == 1)
        #expect(await session.refreshCount == 1)
        #expect(store.load(account: "ada")?.accessToken.hasPrefix("access-") == true, "the renewed token was stored")
    }

    @Test func a401RenewsOnceAndReplaysTheRequest() async throws {
        let provider = try await IdentityProvider()
        let api = try await api(provider)
        defer {
            Task {
                await provider.stop()
                await api.stop()
            }
        }
        let store = MemoryTokenStore([provider.seed(account: "ada", expired: false)])
        provider.revokeAccessTokens()  // valid by the clock, rejected by the service
        let session = OAuth2Client(provider.configuration, transport: loopbackTransport()).session(
            account: "ada", store: store)
        let graph = GoldenODataClient(
            baseURL: api.baseURL, auth: session, transport: loopbackTransport(), middleware: fastMiddleware())
        #expect(try await graph.me.request().get().displayName == "Ada")
        #expect(api.requests.count == 2)
        #expect(provider.state.withLock { $0.refreshes } == 1)
    }

    @Test func aRefusedRefreshClearsTheStoreAndAsksForSignIn() async throws {
        let provider = try await IdentityProvider()
        let api = try await api(provider)
        defer {
            Task {
                await provider.stop()
                await api.stop()
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-tokens-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        try store.save(
            Token(
                accessToken: "expired", refreshToken: "revoked-refresh", expiresAt: Date().addingTimeInterval(-10),
                account: "ada"))
        let session = OAuth2Client(provider.configuration, transport: loopbackTransport()).session(
            account: "ada", store: store)
        let graph = GoldenODataClient(
            baseURL: api.baseURL, auth: session, transport: loopbackTransport(), middleware: fastMiddleware())
        let error = await #expect(throws: BinderyError.self) { _ = try await graph.me.request().get() }
        #expect(error?.kind == .interactionRequired)
        #expect(try store.load(account: "ada") == nil)
        #expect(api.requests.isEmpty, "nothing was sent without a token")
    }

    @Test func aRequestIsRenewedAtMostOnce() async throws {
        let provider = try await IdentityProvider()
        // An API that rejects every token: one renewal, one replay, then the 401 is the answer.
        let api = try await LoopbackServer([
            "GET /me": { _ in
                .init(status: 401, json: #"{"error":{"code":"InvalidAuthenticationToken","message":"no"}}"#)
            }
        ])
        defer {
            Task {
                await provider.stop()
                await api.stop()
            }
        }
        let store = MemoryTokenStore([provider.seed(account: "ada", expired: false)])
        let session = OAuth2Client(provider.configuration, transport: loopbackTransport()).session(
            account: "ada", store: store)
        let graph = GoldenODataClient(
            baseURL: api.baseURL, auth: session, transport: loopbackTransport(), middleware: fastMiddleware())
        let error = await #expect(throws: BinderyError.self) { _ = try await graph.me.request().get() }
        #expect(error?.status == 401)
        #expect(api.requests.count == 2)
        #expect(provider.state.withLock { $0.refreshes } == 1)
    }

    @Test func sparkCode1020MidPagingRenewsAndPagingContinues() async throws {
        let sessions = Mutex(0)
        let live = Mutex<String?>(nil)
        let items = (1...12).map { #"{"id":"\#($0)"}"# }
        let api = try await LoopbackServer([
            "POST /v1/session": { request in
                #expect(request.queryValue("ApiKey") == "key")
                #expect(request.queryValue("ApiSig") == MD5.hex(Array("secretApiKeykey".utf8)))
                let session = sessions.withLock { count in
                    count += 1
                    return count
                }
                let token = "auth-\(session)"
                live.withLock { $0 = token }
                return .init(
                    json:
                        #"{"D":{"Success":true,"Results":[{"AuthToken":"\#(token)","Expires":"2026-11-23T00:00:00Z","Roles":["idx"]}]}}"#
                )
            },
            "GET /n/ns/threads": { request in
                let page = Int(request.queryValue("_page") ?? "1") ?? 1
                // The session expires after the first page.
                if page == 2 && sessions.withLock({ $0 }) == 1 { live.withLock { $0 = nil } }
                guard let token = request.queryValue("AuthToken"), token == live.withLock({ $0 }) else {
                    return .init(
                        status: 401, json: #"{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}"#
                    )
                }
                // Every request is signed over its path, sorted parameters and body.
                var parameters = request.query.filter { $0.name != "ApiSig" }.map { ($0.name, $0.value) }
                parameters.sort { $0.0 < $1.0 }
                let expected = MD5.hex(
                    Array(("secretApiKeykeyServicePath" + request.path + parameters.map { $0.0 + $0.1 }.joined()).utf8))
                guard request.queryValue("ApiSig") == expected else {
                    return .init(status: 401, json: #"{"D":{"Success":false,"Code":1000,"Message":"bad signature"}}"#)
                }
                let results = items.dropFirst((page - 1) * 5).prefix(5)
                return .init(
                    json:
                        #"{"D":{"Success":true,"Results":[\#(results.joined(separator: ","))],"Pagination":{"TotalPages":3,"CurrentPage":\#(page)}}}"#
                )
            },
        ])
        defer { Task { await api.stop() } }
        let spark = ServiceConventions(
            listShape: .wrapped(["D", "Results"]),
            paging: .pageNumber(
                page: "_page", size: "_limit", extraQuery: [("_pagination", "1")],
                totalPages: ["D", "Pagination", "TotalPages"]),
            requestEnvelope: ["D"], errors: SparkClient.conventions.errors)
        let auth = SparkAPIKeySession(
            apiKey: "key", secret: "secret", apiBase: api.baseURL, transport: loopbackTransport())
        let client = GoldenOpenAPIClient(
            client: ServiceClient(
                baseURL: api.baseURL, transport: loopbackTransport(),
                middleware: fastMiddleware() + [AuthMiddleware(auth)], conventions: spark))
        var ids: [String] = []
        for try await thread in client.n("ns").threads.request().all() { ids.append(thread.id ?? "?") }
        #expect(ids == (1...12).map(String.init), "nothing lost, nothing repeated")
        #expect(sessions.withLock { $0 } == 2, "one renewal")
    }
}

@Suite struct TokenStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-store-\(UUID())")

    @Test func filesAreWrittenAtomicallyWithMode0600() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        let first = Token(
            accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2_000_000_000), scopes: ["x"],
            account: "ada@example.com")
        try store.save(first)
        let path = store.file(for: "ada@example.com").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
        let inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue

        var rotated = first
        rotated.refreshToken = "r2"
        try store.save(rotated)
        let after = try FileManager.default.attributesOfItem(atPath: path)
        #expect(
            (after[.systemFileNumber] as? NSNumber)?.intValue != inode, "replaced by rename, not rewritten in place")
        #expect((after[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try store.load(account: "ada@example.com") == rotated)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1, "no temporary files left")
        try store.remove(account: "ada@example.com")
        #expect(try store.load(account: "ada@example.com") == nil)
        try store.remove(account: "ada@example.com")  // removing twice is fine
    }

    @Test func aCorruptFileIsAClearErrorNotACrash() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(directory: directory)
        try store.save(Token(accessToken: "a", account: "bob"))
        try Data("{\"accessToken\": tru".utf8).write(to: store.file(for: "bob"))
        do {
            _ = try store.load(account: "bob")
            Issue.record("a corrupt file must throw")
        } catch {
            #expect(error.kind == .storage)
            #expect(error.message.contains(store.file(for: "bob").path))
        }
    }
}

@Suite struct ServiceSignInTests {
    @Test func sparkHybridCallbacks() throws {
        let spark = SparkSignIn(clientID: "key", clientSecret: "secret", redirectURI: "https://app.example.com/cb")
        let url = spark.hybridURL().absoluteString
        #expect(url.hasPrefix("https://sparkplatform.com/openid?"))
        #expect(url.contains("openid.spark.combined_flow=true"))
        #expect(url.contains("openid.spark.client_id=key"))
        #expect(
            try SparkSignIn.parseCallback(
                URL(
                    string:
                        "https://app.example.com/cb?openid.mode=id_res&openid.spark.code=c0de&openid.claimed_id=https://sparkplatform.com/openid/id/1"
                )!)
                == .code("c0de", identity: "https://sparkplatform.com/openid/id/1"))
        #expect(
            try SparkSignIn.parseCallback(URL(string: "https://app.example.com/cb?openid.mode=cancel")!) == .cancelled)
        #expect(
            try SparkSignIn.parseCallback(
                URL(
                    string:
                        "https://app.example.com/cb?openid.mode=id_res&openid.claimed_id=id1&openid.sreg.email=a@b.c&openid.ax.value.fullname=Ada"
                )!)
                == .identity("id1", attributes: ["email": "a@b.c", "fullname": "Ada"]))
        do {
            _ = try SparkSignIn.parseCallback(
                URL(string: "https://app.example.com/cb?openid.mode=error&openid.error=Invalid+key")!)
            Issue.record("openid.mode=error must throw")
        } catch {
            #expect(error.message == "Invalid key")
        }
    }

    @Test func inboxAndSparkAuthorizationHeaders() async throws {
        var request = TransportRequest(HTTPRequest(method: .get, url: URL(string: "https://api.inboxapp.com/n")!))
        try await InboxSignIn.auth(token: "tok").authorize(&request)
        #expect(request.head.headerFields[.authorization] == "Basic " + Data("tok:".utf8).base64EncodedString())
        try await StaticTokenAuth("tok", scheme: .oauth).authorize(&request)
        #expect(request.head.headerFields[.authorization] == "OAuth tok")
        let inbox = InboxSignIn.authorizeURL(clientID: "c", redirectURI: "https://app/cb", email: "ada@example.com")
            .absoluteString
        #expect(inbox.contains("login_hint=ada%40example.com"))
    }
}

/// Fails the test if any captured log line contains one of the secrets.
func assertNoSecrets(in log: CapturedLog, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!log.all.isEmpty, "the log captured something", sourceLocation: sourceLocation)
    for line in log.all {
        for secret in secrets where line.contains(secret) {
            Issue.record("a secret (\(secret.prefix(6))…) is in the log: \(line)", sourceLocation: sourceLocation)
        }
    }
}
