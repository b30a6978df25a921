import Foundation
import HTTPTypes
import Inbox
import Synchronization
import Testing

@testable import BinderyRuntime
@testable import Spark

/// Everything a credential flow could leak a secret through: every line `LoggingMiddleware` writes at `trace`, and
/// the `String(describing:)`, `String(reflecting:)` (what a crash prints) and `localizedDescription` of every error
/// it throws and of every value that holds a credential.
///
/// The stand-ins begin every secret they issue or check with `marker`, so one grep finds them all and matches
/// nothing else; the secrets the client makes itself (the PKCE verifier, `ApiSig`, the Basic header) are added
/// one by one.
final class CredentialAudit: Sendable {
    static let marker = "Qz7SECRETk"

    let log = CapturedLog()
    private let state = Mutex<(texts: [String], secrets: Set<String>, errors: Int)>(([], [], 0))

    var logging: LoggingMiddleware { LoggingMiddleware(logger: log.logger(level: .trace)) }

    /// The token endpoint's middleware: the defaults with quick retries, logging everything.
    var middleware: [any HTTPMiddleware] {
        [
            HeadersMiddleware(), RetryMiddleware(baseBackoff: .milliseconds(5), maxBackoff: .milliseconds(20)),
            RedirectMiddleware(), logging,
        ]
    }

    /// A service client's middleware: logging outside the auth middleware, as a generated client has it, and
    /// inside it too, where requests carry their credentials.
    func middleware(auth: any AuthProvider) -> [any HTTPMiddleware] { middleware + [AuthMiddleware(auth), logging] }

    /// An OAuth client whose token requests go through `middleware`.
    func oauth(_ configuration: OAuth2Configuration) -> OAuth2Client {
        OAuth2Client(configuration, transport: loopbackTransport(), middleware: middleware)
    }

    /// A secret that does not begin with the marker.
    func secret(_ value: String) { state.withLock { _ = $0.secrets.insert(value) } }

    /// The texts a value shows when it is printed, logged or fails a test.
    func record(value: Any) {
        state.withLock { $0.texts += [String(describing: value), String(reflecting: value)] }
    }

    /// The texts an error shows in a log, a crash or an alert, and those of the error it wraps.
    func record(_ error: any Error) {
        var texts = [String(describing: error), String(reflecting: error), error.localizedDescription]
        if let underlying = (error as? BinderyError)?.underlying {
            texts += [String(describing: underlying), String(reflecting: underlying), underlying.localizedDescription]
        }
        state.withLock {
            $0.texts += texts
            $0.errors += 1
        }
    }

    /// Runs `body`, which must throw, and records its error.
    @discardableResult
    func failure(
        _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> BinderyError? {
        do {
            try await body()
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            record(error)
            return error as? BinderyError
        }
    }

    /// Every captured text that contains a secret.
    func leaks() -> [String] {
        let (texts, secrets) = state.withLock { ($0.texts, $0.secrets) }
        return (log.all + texts).filter { text in
            text.contains(Self.marker) || secrets.contains { text.contains($0) }
        }
    }

    /// Fails unless the log has trace lines with redacted credentials, `errors` errors were recorded, and no
    /// captured text holds a secret.
    func verify(errors expected: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = log.all
        #expect(lines.contains { $0.hasPrefix("trace: ") }, "trace lines were logged", sourceLocation: sourceLocation)
        #expect(
            lines.contains { $0.contains(Redaction.placeholder) }, "credentials were logged, redacted",
            sourceLocation: sourceLocation)
        #expect(state.withLock { $0.errors } == expected, "errors recorded", sourceLocation: sourceLocation)
        for leak in leaks() { Issue.record("a secret leaked: \(leak)", sourceLocation: sourceLocation) }
    }
}

/// Every credential flow of the runtime over HTTP on 127.0.0.1, each audited for leaks.
@Suite struct CredentialAuditTests {
    static let marker = CredentialAudit.marker

    func identityProvider(devicePollAnswers: [String] = []) async throws -> IdentityProvider {
        try await IdentityProvider(
            devicePollAnswers: devicePollAnswers, secretPrefix: Self.marker, clientSecret: "\(Self.marker)client-secret"
        )
    }

    /// `GET /me` through a service client authorized by `auth`.
    func me(_ api: LoopbackServer, auth: any AuthProvider, audit: CredentialAudit) async throws -> String? {
        let client = ServiceClient(
            baseURL: api.baseURL, transport: loopbackTransport(), middleware: audit.middleware(auth: auth),
            conventions: ServiceConventions(listShape: .bare, paging: .none, errors: .odata))
        return try await client.send(APIRequest(method: .get, path: ResourcePath("me"))).json()["displayName"]?
            .stringValue
    }

    @Test func theAuditFindsASecretItIsShown() {
        let audit = CredentialAudit()
        audit.secret("client-made")
        audit.log.logger().info("a line with \(Self.marker)access-1")
        audit.record(BinderyError(kind: .authorization, message: "client-made is refused"))
        #expect(audit.leaks().count >= 3, "the log line, the description and the reflection")
    }

    @Test func authorizationCodeWithPKCEAndState() async throws {
        let provider = try await identityProvider()
        defer { Task { await provider.stop() } }
        let audit = CredentialAudit()
        let oauth = audit.oauth(provider.configuration)
        let request = oauth.authorizationRequest(loginHint: "ada@example.com")
        audit.secret(request.codeVerifier)
        audit.record(value: request)
        audit.record(value: provider.configuration)
        // The "browser", logged too: the provider's redirect carries the code in its Location.
        let browser = MiddlewareChain([audit.logging], transport: loopbackTransport())
        let redirect = try await browser.send(TransportRequest(HTTPRequest(method: .get, url: request.url)))
        let callback = try #require(redirect.headers[.location].flatMap(URL.init(string:)))
        #expect(callback.query?.contains(Self.marker) == true, "the provider issued a marked code")

        let token = try await oauth.exchange(callback: callback, for: request, account: "ada")
        #expect(token.accessToken.hasPrefix(Self.marker))
        audit.record(value: token)

        // A code used twice, and one exchanged with the wrong verifier: the provider echoes both in its refusal.
        let reused = await audit.failure {
            _ = try await oauth.exchange(callback: callback, for: request, account: "ada")
        }
        #expect(reused?.serviceCode == "invalid_grant")
        let second = oauth.authorizationRequest()
        let redirect2 = try await browser.send(TransportRequest(HTTPRequest(method: .get, url: second.url)))
        let code = try second.code(fromCallback: try #require(redirect2.headers[.location].flatMap(URL.init(string:))))
        let wrongVerifier = "\(Self.marker)wrong-verifier"
        let refused = await audit.failure {
            _ = try await oauth.exchange(
                code: code, codeVerifier: wrongVerifier, redirectURI: second.redirectURI, account: "ada")
        }
        #expect(refused?.message.hasPrefix("PKCE verification failed for \(Redaction.placeholder)") == true)
        let body = String(decoding: refused?.body ?? [], as: UTF8.self)
        #expect(body.contains(wrongVerifier), "the caller still has the body as the provider sent it")
        // A forged callback: another state, a code of its own.
        await audit.failure {
            _ = try await oauth.exchange(
                callback: URL(string: "http://127.0.0.1/callback?code=\(Self.marker)forged&state=other")!,
                for: second, account: "ada")
        }
        audit.verify(errors: 3)
    }

    @Test func deviceCode() async throws {
        let provider = try await identityProvider(devicePollAnswers: ["authorization_pending", "slow_down"])
        defer { Task { await provider.stop() } }
        let audit = CredentialAudit()
        let oauth = audit.oauth(provider.configuration)
        let device = try await oauth.startDeviceAuthorization()
        #expect(device.deviceCode.hasPrefix(Self.marker))
        audit.record(value: device)
        let token = try await oauth.completeDeviceAuthorization(device, account: "ada") { _ in }
        audit.record(value: token)

        let refusing = try await IdentityProvider(devicePollAnswers: ["access_denied"], secretPrefix: Self.marker)
        defer { Task { await refusing.stop() } }
        let refusingOAuth = audit.oauth(refusing.configuration)
        let refusedDevice = try await refusingOAuth.startDeviceAuthorization()
        let refused = await audit.failure {
            _ = try await refusingOAuth.completeDeviceAuthorization(refusedDevice, account: "ada") { _ in }
        }
        #expect(refused?.serviceCode == "access_denied")
        audit.verify(errors: 1)
    }

    @Test func clientCredentials() async throws {
        let provider = try await identityProvider()
        defer { Task { await provider.stop() } }
        let audit = CredentialAudit()
        let oauth = audit.oauth(provider.configuration)
        let app = try await oauth.clientCredentials()
        #expect(app.accessToken.hasPrefix(Self.marker))
        audit.record(value: app)
        var wrong = provider.configuration
        wrong.clientSecret = "\(Self.marker)wrong-client-secret"
        let refused = await audit.failure {
            _ = try await audit.oauth(wrong)
                .clientCredentials()
        }
        #expect(refused?.serviceCode == "invalid_client")
        audit.verify(errors: 1)
    }

    /// The regression case of the audit: the provider answers a revoked refresh token with
    /// `"error_description": "refresh token <the token> is revoked"`, which the error's message used to repeat.
    @Test func refreshWithRotationAndARevokedRefreshTokenEchoed() async throws {
        let provider = try await identityProvider()
        defer { Task { await provider.stop() } }
        let audit = CredentialAudit()
        let oauth = audit.oauth(provider.configuration)
        let seeded = provider.seed(account: "ada", expired: true)
        let renewed = try await oauth.refresh(seeded)
        #expect(renewed.refreshToken != seeded.refreshToken, "rotated")
        audit.record(value: renewed)
        let reused = await audit.failure { _ = try await oauth.refresh(seeded) }
        #expect(reused?.serviceCode == "invalid_grant")
        #expect(reused?.message == "refresh token \(Redaction.placeholder) is revoked")
        let body = String(decoding: reused?.body ?? [], as: UTF8.self)
        #expect(body.contains(seeded.refreshToken ?? "?"), "the body is the provider's, unchanged")
        audit.verify(errors: 1)
    }

    /// A provider, its `/me` API, and a session over the token `seed` makes that renews through the audited
    /// token endpoint.
    struct Renewal {
        let provider: IdentityProvider
        let api: LoopbackServer
        let store: MemoryTokenStore
        let session: TokenSession

        func stop() async {
            await provider.stop()
            await api.stop()
        }
    }

    func renewal(_ audit: CredentialAudit, seed: (IdentityProvider) -> Token) async throws -> Renewal {
        let provider = try await identityProvider()
        let store = MemoryTokenStore([seed(provider)])
        let session = audit.oauth(provider.configuration)
            .session(account: "ada", store: store)
        return Renewal(provider: provider, api: try await provider.api(), store: store, session: session)
    }

    @Test func a401RenewsTheTokenAndReplays() async throws {
        let audit = CredentialAudit()
        let renewal = try await renewal(audit) { $0.seed(account: "ada", expired: false) }
        defer { Task { await renewal.stop() } }
        renewal.provider.revokeAccessTokens()
        #expect(try await me(renewal.api, auth: renewal.session, audit: audit) == "Ada")
        #expect(await renewal.session.refreshCount == 1)
        #expect(renewal.api.requests.map { $0.header("Authorization")?.contains(Self.marker) } == [true, true])
        audit.record(value: try #require(renewal.store.load(account: "ada")))
        audit.verify(errors: 0)
    }

    @Test func aRefusedRefreshAsksForSignIn() async throws {
        let audit = CredentialAudit()
        let renewal = try await renewal(audit) { _ in
            Token(
                accessToken: "\(Self.marker)expired", refreshToken: "\(Self.marker)revoked-refresh",
                expiresAt: Date().addingTimeInterval(-10), account: "ada")
        }
        defer { Task { await renewal.stop() } }
        let error = await audit.failure { _ = try await me(renewal.api, auth: renewal.session, audit: audit) }
        #expect(error?.kind == .interactionRequired)
        #expect((error?.underlying as? BinderyError)?.serviceCode == "invalid_grant")
        #expect(renewal.store.load(account: "ada") == nil)
        #expect(renewal.api.requests.isEmpty, "nothing was sent without a token")
        audit.verify(errors: 1)
    }

    func spark() async throws -> SparkStandIn {
        try await SparkStandIn(
            SparkStandIn.Credentials(
                clientSecret: "\(Self.marker)spark-client-secret", code: "\(Self.marker)spark-code",
                password: "\(Self.marker)spark-password", apiSecret: "\(Self.marker)spark-api-secret",
                secretPrefix: Self.marker))
    }

    @Test func sparkOAuthGrantsAnd1020Renewal() async throws {
        let spark = try await spark()
        defer { Task { await spark.stop() } }
        let audit = CredentialAudit()
        let signIn = spark.signIn
        audit.record(value: signIn)
        audit.record(value: signIn.oauth)
        let callback = spark.callback(code: "\(Self.marker)spark-code")
        let token = try await signIn.completeHybrid(
            callback: callback, account: "ada", transport: loopbackTransport(), middleware: audit.middleware)
        audit.record(value: token)
        let store = MemoryTokenStore([token])
        let session = signIn.session(
            account: "ada", store: store, transport: loopbackTransport(), middleware: audit.middleware)
        let middleware = audit.middleware(auth: session)
        #expect(try await spark.accountName(middleware: middleware) == "Ada")
        spark.ledger.expireAll()
        #expect(try await spark.accountName(middleware: middleware) == "Ada", "1020 → refresh → replay")
        #expect(spark.ledger.grants == ["authorization_code", "refresh_token"])

        let oauth = audit.oauth(signIn.oauth)
        _ = try await oauth.password(username: "ada", password: "\(Self.marker)spark-password")
        // Refusals the stand-in answers by echoing the secret it was given.
        let wrongPassword = await audit.failure {
            _ = try await oauth.password(username: "ada", password: "\(Self.marker)wrong-password")
        }
        #expect(wrongPassword?.message == "\(Redaction.placeholder) is refused")
        await audit.failure {
            _ = try await oauth.exchange(
                code: "\(Self.marker)wrong-code", codeVerifier: nil, redirectURI: signIn.redirectURI, account: "ada")
        }
        let revoked = MemoryTokenStore([
            Token(
                accessToken: "\(Self.marker)old", refreshToken: "\(Self.marker)revoked",
                expiresAt: Date().addingTimeInterval(-10), account: "ada")
        ])
        let refused = signIn.session(
            account: "ada", store: revoked, transport: loopbackTransport(), middleware: audit.middleware)
        let signInAgain = await audit.failure {
            _ = try await spark.accountName(middleware: audit.middleware(auth: refused))
        }
        #expect(signInAgain?.kind == .interactionRequired)
        audit.verify(errors: 3)
    }

    @Test func sparkSignedAPIKeySession() async throws {
        let spark = try await spark()
        defer { Task { await spark.stop() } }
        let audit = CredentialAudit()
        let key = SparkAPIKeySession(
            apiKey: "key", secret: "\(Self.marker)spark-api-secret", apiBase: spark.baseURL, userAgent: "BinderyTests",
            transport: loopbackTransport(), middleware: audit.middleware)
        audit.secret(key.sessionSignature())
        audit.record(value: key)
        audit.record(value: SparkSignature(apiKey: "key", secret: "\(Self.marker)spark-api-secret"))
        let middleware = audit.middleware(auth: key)
        #expect(try await spark.accountName(middleware: middleware) == "Ada")
        spark.ledger.expireAll()
        #expect(try await spark.accountName(middleware: middleware) == "Ada", "1020 → a new session → replay")
        #expect(spark.ledger.grants == ["session", "session"])

        // A key with the wrong secret: the stand-in echoes the ApiSig it refuses.
        let wrong = SparkAPIKeySession(
            apiKey: "key", secret: "\(Self.marker)wrong-api-secret", apiBase: spark.baseURL, userAgent: "BinderyTests",
            transport: loopbackTransport(), middleware: audit.middleware)
        audit.secret(wrong.sessionSignature())
        let refused = await audit.failure { _ = try await spark.accountName(middleware: audit.middleware(auth: wrong)) }
        #expect(refused?.serviceCode == "1000")
        #expect(refused?.message == "Invalid ApiSig \(Redaction.placeholder)")

        // Every signature that went over the wire is a secret too.
        let signatures = spark.server.requests.compactMap { $0.queryValue("ApiSig") }
        #expect(signatures.count == 6, "2 sessions opened, 1 refused, 3 signed requests")
        for signature in signatures { audit.secret(signature) }
        audit.verify(errors: 1)
    }

    @Test func inboxBasicToken() async throws {
        let token = "\(Self.marker)inbox-token"
        let server = try await inboxStandIn(token: token)
        defer { Task { await server.stop() } }
        let audit = CredentialAudit()
        audit.secret(Data("\(token):".utf8).base64EncodedString())
        let auth = InboxSignIn.auth(token: token)
        audit.record(value: auth)
        let client = ServiceClient(
            baseURL: server.baseURL, transport: loopbackTransport(), middleware: audit.middleware(auth: auth),
            conventions: ServiceConventions(listShape: .bare, paging: .none, errors: InboxClient.conventions.errors))
        let response = try await client.send(APIRequest(method: .get, path: ResourcePath("n")))
        #expect(try response.json().arrayValue?.first?["id"] == "ns1")

        let wrong = InboxSignIn.auth(token: "\(Self.marker)revoked-inbox-token")
        audit.secret(Data("\(Self.marker)revoked-inbox-token:".utf8).base64EncodedString())
        let refusing = ServiceClient(
            baseURL: server.baseURL, transport: loopbackTransport(), middleware: audit.middleware(auth: wrong),
            conventions: ServiceConventions(listShape: .bare, paging: .none, errors: InboxClient.conventions.errors))
        let refused = await audit.failure {
            _ = try await refusing.send(APIRequest(method: .get, path: ResourcePath("n")))
        }
        #expect(refused?.status == 401)
        audit.verify(errors: 1)
    }
}
