import Foundation
import Inbox
import Spark
import Synchronization
import Testing

@testable import BinderyRuntime

/// Spark's OAuth 2 grants and Inbox's Basic token, end to end against loopback stand-ins.
@Suite struct SparkAndInboxSignInTests {
    /// What the Spark stand-in has issued and still accepts.
    final class Ledger: Sendable {
        private let state = Mutex<(grants: [String], live: Set<String>)>(([], []))
        var grants: [String] { state.withLock { $0.grants } }

        func issue(_ grant: String) -> Int {
            state.withLock { state in
                state.grants.append(grant)
                state.live.insert("spark-access-\(state.grants.count)")
                return state.grants.count
            }
        }

        func accepts(_ token: String) -> Bool { state.withLock { $0.live.contains(token) } }
        func expireAll() { state.withLock { $0.live.removeAll() } }
    }

    /// Spark's `/v1/oauth2/grant` (JSON bodies) and `/v1/my/account`, which wants `OAuth <token>` and
    /// `X-SparkApi-User-Agent`, and answers code 1020 for a token it no longer accepts.
    func spark(_ ledger: Ledger) async throws -> LoopbackServer {
        try await LoopbackServer([
            "POST /v1/oauth2/grant": { request in
                guard case .object(let body)? = try? JSONValue.parse(request.body), body["client_id"] == "key",
                    body["client_secret"] == "secret", let grant = body["grant_type"]?.stringValue
                else { return .init(status: 400, json: #"{"error":"invalid_client"}"#) }
                let valid: Bool
                switch grant {
                case "authorization_code":
                    valid = body["code"] == "c0de" && body["redirect_uri"] == "https://app.example.com/cb"
                case "refresh_token": valid = body["refresh_token"]?.stringValue?.hasPrefix("spark-refresh-") == true
                case "password": valid = body["username"] == "ada" && body["password"] == "pw-secret"
                default: valid = false
                }
                guard valid else { return .init(status: 400, json: #"{"error":"invalid_grant"}"#) }
                let number = ledger.issue(grant)
                return .init(
                    json:
                        #"{"access_token":"spark-access-\#(number)","refresh_token":"spark-refresh-\#(number)","expires_in":"86400"}"#
                )
            },
            "GET /v1/my/account": { request in
                guard request.header("X-SparkApi-User-Agent") == "BinderyTests" else {
                    return .init(
                        status: 400, json: #"{"D":{"Success":false,"Code":1015,"Message":"API user agent required"}}"#)
                }
                guard let header = request.header("Authorization"), header.hasPrefix("OAuth "),
                    ledger.accepts(String(header.dropFirst("OAuth ".count)))
                else {
                    return .init(
                        status: 401, json: #"{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}"#
                    )
                }
                return .init(
                    json: #"{"D":{"Success":true,"Results":[{"Id":"20000426173054342350000000","Name":"Ada"}]}}"#)
            },
        ])
    }

    func account(_ server: LoopbackServer, auth: any AuthProvider, log: CapturedLog) async throws -> String? {
        let client = ServiceClient(
            baseURL: server.baseURL, transport: loopbackTransport(),
            middleware: [HeadersMiddleware(), LoggingMiddleware(logger: log.logger()), AuthMiddleware(auth)],
            conventions: ServiceConventions(
                listShape: .wrapped(["D", "Results"]), paging: .none, requestEnvelope: ["D"], errors: .spark),
            defaultHeaders: SparkSignIn.headers(userAgent: "BinderyTests"))
        let response = try await client.send(APIRequest(method: .get, path: ResourcePath("v1", "my", "account")))
        return try response.json()["D"]?["Results"]?.arrayValue?.first?["Name"]?.stringValue
    }

    @Test func hybridSignInThenRenewalOn1020() async throws {
        let ledger = Ledger()
        let server = try await spark(ledger)
        defer { Task { await server.stop() } }
        let log = CapturedLog()
        let sparkSignIn = SparkSignIn(
            clientID: "key", clientSecret: "secret", redirectURI: "https://app.example.com/cb", apiBase: server.baseURL)
        let callback = URL(
            string: "https://app.example.com/cb?openid.mode=id_res&openid.spark.code=c0de&openid.claimed_id=id1")!
        let token = try await sparkSignIn.completeHybrid(
            callback: callback, account: "ada", transport: loopbackTransport())
        #expect(token.accessToken == "spark-access-1")
        #expect(token.expiresAt.map { $0.timeIntervalSinceNow > 86000 } == true, "expires_in arrives as a string")

        let store = MemoryTokenStore([token])
        let session = sparkSignIn.session(account: "ada", store: store, transport: loopbackTransport())
        #expect(try await account(server, auth: session, log: log) == "Ada")
        ledger.expireAll()
        #expect(try await account(server, auth: session, log: log) == "Ada", "1020 → refresh → replay")
        #expect(ledger.grants == ["authorization_code", "refresh_token"])
        #expect(store.load(account: "ada")?.refreshToken == "spark-refresh-2", "the rotated refresh token was stored")
        assertNoSecrets(in: log, ["spark-access-", "spark-refresh-", "c0de"])
    }

    @Test func passwordGrantAndARefusedCancel() async throws {
        let ledger = Ledger()
        let server = try await spark(ledger)
        defer { Task { await server.stop() } }
        let sparkSignIn = SparkSignIn(
            clientID: "key", clientSecret: "secret", redirectURI: "https://app.example.com/cb", apiBase: server.baseURL)
        let token = try await OAuth2Client(sparkSignIn.oauth, transport: loopbackTransport()).password(
            username: "ada", password: "pw-secret")
        #expect(token.account == "ada")
        #expect(ledger.grants == ["password"])
        let cancelled = await #expect(throws: BinderyError.self) {
            _ = try await sparkSignIn.completeHybrid(
                callback: URL(string: "https://app.example.com/cb?openid.mode=cancel")!, account: "ada",
                transport: loopbackTransport())
        }
        #expect(cancelled?.serviceCode == "cancel")
    }

    @Test func inboxSendsTheTokenAsTheBasicUserName() async throws {
        let server = try await LoopbackServer([
            "GET /n": { request in
                request.header("Authorization") == "Basic " + Data("inbox-token:".utf8).base64EncodedString()
                    ? .init(json: #"[{"id":"ns1","email_address":"ada@example.com"}]"#)
                    : .init(status: 401, json: #"{"type":"api_error","message":"Unauthorized"}"#)
            }
        ])
        defer { Task { await server.stop() } }
        let client = ServiceClient(
            baseURL: server.baseURL, transport: loopbackTransport(),
            middleware: [AuthMiddleware(InboxSignIn.auth(token: "inbox-token"))],
            conventions: ServiceConventions(listShape: .bare, paging: .none, errors: .inbox))
        let response = try await client.send(APIRequest(method: .get, path: ResourcePath("n")))
        #expect(try response.json().arrayValue?.first?["id"] == "ns1")
    }
}
