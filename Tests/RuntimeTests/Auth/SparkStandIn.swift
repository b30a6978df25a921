import Foundation
import Synchronization

@testable import BinderyRuntime
@testable import Spark

/// Spark's sign-in on 127.0.0.1: `/v1/oauth2/grant` (JSON bodies), `/v1/session` for API-key sessions, and
/// `/v1/my/account`, which wants `X-SparkApi-User-Agent` and either `OAuth <token>` or a signed `AuthToken` + `ApiSig`
/// query, and answers code 1020 for a token or session it no longer accepts.
final class SparkStandIn: Sendable {
    /// What the app and the user present. The tokens the stand-in issues begin with `secretPrefix`.
    struct Credentials: Sendable {
        var clientID = "key"
        var clientSecret = "secret"
        var code = "c0de"
        var password = "pw-secret"
        /// The API key's secret, for `SparkAPIKeySession`.
        var apiSecret = "api-secret"
        var secretPrefix = ""
    }

    /// What the stand-in has issued and still accepts.
    final class Ledger: Sendable {
        private let state = Mutex<(grants: [String], live: Set<String>)>(([], []))
        let prefix: String
        var grants: [String] { state.withLock { $0.grants } }

        init(prefix: String = "") { self.prefix = prefix }

        /// Issues a token for `grant` ("session" for an API-key session) and returns its number.
        func issue(_ grant: String) -> Int {
            state.withLock { state in
                state.grants.append(grant)
                let kind = grant == "session" ? "session" : "access"
                state.live.insert("\(prefix)spark-\(kind)-\(state.grants.count)")
                return state.grants.count
            }
        }

        func accepts(_ token: String) -> Bool { state.withLock { $0.live.contains(token) } }
        func expireAll() { state.withLock { $0.live.removeAll() } }
    }

    let credentials: Credentials
    let ledger: Ledger
    let server: LoopbackServer
    var baseURL: URL { server.baseURL }

    init(_ credentials: Credentials = Credentials()) async throws {
        self.credentials = credentials
        let ledger = Ledger(prefix: credentials.secretPrefix)
        self.ledger = ledger
        let signature = SparkSignature(apiKey: credentials.clientID, secret: credentials.apiSecret)
        server = try await LoopbackServer([
            // The OpenID provider's direct verification: these tests are about the OAuth side, so it confirms
            // any assertion (the mock's provider in ServiceTests checks them for real).
            "POST /openid": { _ in
                .init(status: 200, body: Array("ns:http://specs.openid.net/auth/2.0\nis_valid:true\n".utf8))
            },
            "POST /v1/oauth2/grant": { request in
                guard case .object(let body)? = try? JSONValue.parse(request.body),
                    body["client_id"]?.stringValue == credentials.clientID,
                    body["client_secret"]?.stringValue == credentials.clientSecret,
                    let grant = body["grant_type"]?.stringValue
                else { return .init(status: 400, json: #"{"error":"invalid_client"}"#) }
                let presented: String
                switch grant {
                case "authorization_code":
                    presented = body["code"]?.stringValue ?? ""
                    guard presented == credentials.code, body["redirect_uri"] == "https://app.example.com/cb" else {
                        break
                    }
                    return Self.grant(ledger.issue(grant), prefix: credentials.secretPrefix)
                case "refresh_token":
                    presented = body["refresh_token"]?.stringValue ?? ""
                    guard presented.hasPrefix("\(credentials.secretPrefix)spark-refresh-") else { break }
                    return Self.grant(ledger.issue(grant), prefix: credentials.secretPrefix)
                case "password":
                    presented = body["password"]?.stringValue ?? ""
                    guard body["username"] == "ada", presented == credentials.password else { break }
                    return Self.grant(ledger.issue(grant), prefix: credentials.secretPrefix)
                default:
                    presented = ""
                }
                // Echoes what it refuses, as careless providers do.
                return .init(
                    status: 400, json: #"{"error":"invalid_grant","error_description":"\#(presented) is refused"}"#)
            },
            "POST /v1/session": { request in
                let presented = request.queryValue("ApiSig") ?? ""
                guard request.queryValue("ApiKey") == credentials.clientID, presented == signature.session else {
                    return .init(
                        status: 401,
                        json: #"{"D":{"Success":false,"Code":1000,"Message":"Invalid ApiSig \#(presented)"}}"#)
                }
                let number = ledger.issue("session")
                return .init(
                    json:
                        #"{"D":{"Success":true,"Results":[{"AuthToken":"\#(credentials.secretPrefix)spark-session-\#(number)","Roles":["idx"]}]}}"#
                )
            },
            "GET /v1/my/account": { request in
                guard request.header("X-SparkApi-User-Agent") == "BinderyTests" else {
                    return .init(
                        status: 400, json: #"{"D":{"Success":false,"Code":1015,"Message":"API user agent required"}}"#)
                }
                let accepted: Bool
                if let session = request.queryValue("AuthToken") {
                    // Signed over the path and the sorted parameters (the body is empty).
                    let parameters = request.query.filter { $0.name != "ApiSig" }.map { ($0.name, $0.value) }
                    accepted =
                        ledger.accepts(session)
                        && request.queryValue("ApiSig")
                            == signature.request(path: request.path, parameters: parameters, body: [])
                } else if let header = request.header("Authorization"), header.hasPrefix("OAuth ") {
                    accepted = ledger.accepts(String(header.dropFirst("OAuth ".count)))
                } else {
                    accepted = false
                }
                guard accepted else {
                    return .init(
                        status: 401, json: #"{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}"#
                    )
                }
                return .init(
                    json: #"{"D":{"Success":true,"Results":[{"Id":"20000426173054342350000000","Name":"Ada"}]}}"#)
            },
        ])
    }

    func stop() async { await server.stop() }

    /// The sign-in configuration pointed at this stand-in.
    var signIn: SparkSignIn {
        SparkSignIn(
            clientID: credentials.clientID, clientSecret: credentials.clientSecret,
            redirectURI: "https://app.example.com/cb", openIDBase: baseURL, apiBase: baseURL, userAgent: "BinderyTests")
    }

    /// A hybrid callback carrying `code`, made for this app's redirect URI with a fresh nonce, from this provider,
    /// with the fields it believes signed.
    func callback(code: String) -> URL {
        let nonce = ISO8601DateFormatter().string(from: Date()) + UUID().uuidString
        return OAuth2Client.url(
            URL(string: "https://app.example.com/cb")!,
            adding: [
                ("openid.mode", "id_res"), ("openid.spark.code", code), ("openid.claimed_id", "id1"),
                ("openid.return_to", "https://app.example.com/cb"), ("openid.response_nonce", nonce),
                ("openid.op_endpoint", baseURL.appendingPathComponent("openid").absoluteString),
                ("openid.assoc_handle", "stand-in"),
                ("openid.signed", "spark.code,claimed_id,return_to,response_nonce,op_endpoint,assoc_handle"),
                ("openid.sig", "stand-in"),
            ])
    }

    /// A Spark client of `/v1/my/account` through `middleware`.
    func client(middleware: [any HTTPMiddleware]) -> ServiceClient {
        ServiceClient(
            baseURL: baseURL, transport: loopbackTransport(), middleware: middleware,
            conventions: ServiceConventions(
                listShape: .wrapped(["D", "Results"]), paging: .none, requestEnvelope: ["D"],
                errors: SparkClient.conventions.errors),
            defaultHeaders: SparkSignIn.headers(userAgent: "BinderyTests"))
    }

    /// The account's name, read through `middleware`.
    func accountName(middleware: [any HTTPMiddleware]) async throws -> String? {
        let response = try await client(middleware: middleware).send(
            APIRequest(method: .get, path: ResourcePath("v1", "my", "account")))
        return try response.json()["D"]?["Results"]?.arrayValue?.first?["Name"]?.stringValue
    }

    private static func grant(_ number: Int, prefix: String) -> LoopbackServer.Reply {
        .init(
            json:
                #"{"access_token":"\#(prefix)spark-access-\#(number)","refresh_token":"\#(prefix)spark-refresh-\#(number)","expires_in":"86400"}"#
        )
    }
}

/// Inbox's `/n` on 127.0.0.1: accepts only `Authorization: Basic base64(token + ":")`.
func inboxStandIn(token: String) async throws -> LoopbackServer {
    try await LoopbackServer([
        "GET /n": { request in
            request.header("Authorization") == "Basic " + Data("\(token):".utf8).base64EncodedString()
                ? .init(json: #"[{"id":"ns1","email_address":"ada@example.com"}]"#)
                : .init(status: 401, json: #"{"type":"api_error","message":"Unauthorized"}"#)
        }
    ])
}
