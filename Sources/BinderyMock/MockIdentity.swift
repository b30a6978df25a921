import BinderyJSON
import BinderyRuntime
import Foundation
import Synchronization

/// The identity provider side of the mock: Microsoft's `/{tenant}/oauth2/v2.0/{authorize,token,devicecode}`,
/// Spark's OpenID (`/openid`, hybrid with `openid.spark.combined_flow`), OAuth grant and API-key session,
/// and Inbox's `/oauth/authorize` + `/oauth/token`. Consent is automatic; PKCE, refresh-token rotation and
/// request signatures are checked as the real providers check them.
public final class MockIdentity: Sendable {
    /// Seconds an issued access token lives.
    public let lifetime: TimeInterval = 3600
    private let state = Mutex(State())

    private struct State {
        var accessTokens: [String: Date] = [:]
        var refreshTokens: Set<String> = []
        /// Authorization code → the PKCE challenge it was issued with (nil without PKCE).
        var codes: [String: String?] = [:]
        var devicePolls: [String: Int] = [:]
        var sparkKeys: [String: String] = [:]
        var sparkSessions: [String: String] = [:]  // AuthToken → ApiKey
        var trustedSignatures: [String: String] = [:]  // ApiKey → a session signature taken as valid
        var issued = 0
        var refreshes = 0
    }

    public enum Check: Sendable { case valid, expired, missing, badSignature }

    /// How many polls of the device-code grant answer `authorization_pending` before the user "approves".
    public let pendingDevicePolls = 1

    public init() {
        // A token every mock accepts from the start: `StaticTokenAuth(mock.identity.acceptedToken)`.
        state.withLock { $0.accessTokens[Self.staticToken] = .distantFuture }
    }

    static let staticToken = "mock-access-token"
    public var acceptedToken: String { Self.staticToken }

    /// Refresh-token grants answered so far.
    public var refreshCount: Int { state.withLock { $0.refreshes } }

    /// A signed-in user's token, as if from an earlier session; `expired` makes the API refuse the access
    /// token (401 or 1020) while the refresh token still works.
    public func issueToken(account: String = "user@example.com", expired: Bool = false) -> Token {
        let (access, refresh) = state.withLock { state -> (String, String) in
            state.issued += 1
            let access = "access-\(state.issued)"
            state.accessTokens[access] = expired ? Date(timeIntervalSinceNow: -60) : Date(timeIntervalSinceNow: lifetime)
            state.refreshTokens.insert("refresh-\(state.issued)")
            return (access, "refresh-\(state.issued)")
        }
        return Token(accessToken: access, refreshToken: refresh, expiresAt: Date(timeIntervalSinceNow: expired ? -60 : lifetime), account: account)
    }

    /// Ends every session now: each issued token (the static one included) is refused as expired, as when a
    /// service revokes sessions. Refresh tokens and API keys still work.
    public func expireAllTokens() {
        state.withLock { state in
            for token in state.accessTokens.keys { state.accessTokens[token] = Date(timeIntervalSinceNow: -1) }
        }
    }

    /// Lets `key` open Spark API-key sessions signed with `secret`.
    public func registerSparkAPIKey(_ key: String, secret: String) {
        state.withLock { $0.sparkKeys[key] = secret }
    }

    /// Takes `code` as issued (for replaying a recorded grant).
    public func acceptCode(_ code: String) { state.withLock { $0.codes[code] = .some(nil) } }

    /// Takes `token` as a live refresh token (for replaying a recorded grant).
    public func acceptRefreshToken(_ token: String) { _ = state.withLock { $0.refreshTokens.insert(token) } }

    /// Takes `signature` as valid for opening a session with `key` (for replaying a recorded session request,
    /// whose secret the mock cannot know).
    public func trustSessionSignature(_ signature: String, forKey key: String) {
        state.withLock { state in
            state.trustedSignatures[key] = signature
            if state.sparkKeys[key] == nil { state.sparkKeys[key] = "" }
        }
    }

    // MARK: Checking requests

    func check(_ request: MockRequest) -> Check {
        if let authToken = request.queryValue("AuthToken") { return checkSigned(request, authToken: authToken) }
        guard let header = request.header("Authorization") else { return .missing }
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return .missing }
        var token = parts[1]
        if parts[0].lowercased() == "basic" {
            // Inbox: the token is the user name, the password empty.
            guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8) else { return .missing }
            token = String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
        return validity(of: token)
    }

    private func validity(of token: String) -> Check {
        guard let expiry = state.withLock({ $0.accessTokens[token] }) else { return .missing }
        return expiry > Date() ? .valid : .expired
    }

    /// Spark API-key sessions sign every request: MD5(secret + "ApiKey" + key + "ServicePath" + path +
    /// sorted parameters + body).
    private func checkSigned(_ request: MockRequest, authToken: String) -> Check {
        guard let key = state.withLock({ $0.sparkSessions[authToken] }), let secret = state.withLock({ $0.sparkKeys[key] }) else {
            return validity(of: authToken) == .expired ? .expired : .missing
        }
        let parameters = request.query.filter { $0.name != "ApiSig" }.sorted { $0.name < $1.name }.map { $0.name + $0.value }.joined()
        let text = secret + "ApiKey" + key + "ServicePath" + (request.path.removingPercentEncoding ?? request.path) + parameters
        let expected = Digest.hex(Digest.md5(Array(text.utf8) + request.body))
        guard request.queryValue("ApiSig") == expected else { return .badSignature }
        return validity(of: authToken)
    }

    // MARK: Endpoints

    /// Answers identity-provider requests; nil for everything else.
    func handle(_ request: MockRequest, segments: [String], server: MockServer) async -> MockResponse? {
        if segments.count == 4, segments[1] == "oauth2", segments[2] == "v2.0" {
            switch (request.method, segments[3]) {
            case ("GET", "authorize"): return authorize(request, codeName: "code")
            case ("POST", "token"): return await token(grant: request.form, style: .form)
            case ("POST", "devicecode"): return deviceCode()
            default: return nil
            }
        }
        switch (request.method, segments) {
        case ("GET", ["openid"]): return openID(request)
        case ("GET", ["oauth2"]), ("GET", ["oauth", "authorize"]): return authorize(request, codeName: "code")
        case ("POST", ["oauth", "token"]): return await token(grant: request.form, style: .form)
        default: return nil
        }
    }

    /// Auto-consent: straight back to the redirect URI with a code (bound to the PKCE challenge) and `state`.
    private func authorize(_ request: MockRequest, codeName: String) -> MockResponse {
        guard let redirectURI = request.queryValue("redirect_uri"), request.queryValue("client_id") != nil else {
            return MockResponse(status: 400, json: ["error": "invalid_request", "error_description": "client_id and redirect_uri are required"])
        }
        let challenge = request.queryValue("code_challenge")
        if challenge != nil, request.queryValue("code_challenge_method") != "S256" {
            return MockResponse(status: 400, json: ["error": "invalid_request", "error_description": "only S256 PKCE is supported"])
        }
        let code = newCode(challenge: challenge)
        var parameters = [(codeName, code)]
        if let state = request.queryValue("state") { parameters.append(("state", state)) }
        return redirect(to: redirectURI, parameters)
    }

    /// Spark's OpenID endpoint: `checkid_setup` answers `id_res` with an identity, and in the hybrid flow
    /// (`openid.spark.combined_flow=true`) an OAuth 2 code to exchange at `/v1/oauth2/grant`.
    private func openID(_ request: MockRequest) -> MockResponse {
        guard let returnTo = request.queryValue("openid.return_to") else {
            return MockResponse(status: 400, json: ["error": "openid.return_to is required"])
        }
        var parameters = [("openid.mode", "id_res"), ("openid.identity", "https://sparkplatform.com/openid/id/mock-user")]
        if request.queryValue("openid.spark.combined_flow") == "true" {
            parameters.append(("openid.spark.code", newCode(challenge: nil)))
        }
        parameters += [("openid.sreg.email", "agent@example.com"), ("openid.sreg.fullname", "Mock Agent")]
        return redirect(to: returnTo, parameters)
    }

    private func deviceCode() -> MockResponse {
        let code = "device-\(UUID().uuidString)"
        state.withLock { $0.devicePolls[code] = 0 }
        return MockResponse(json: [
            "device_code": .string(code), "user_code": "MOCK-CODE", "verification_uri": "https://microsoft.com/devicelogin",
            "expires_in": 900, "interval": 1,
            "message": "To sign in, use a web browser to open https://microsoft.com/devicelogin and enter the code MOCK-CODE.",
        ])
    }

    enum GrantStyle { case form, json }

    /// The token endpoint: authorization code (PKCE checked), refresh token (rotated), device code,
    /// client credentials and password.
    func token(grant: [String: String], style: GrantStyle) async -> MockResponse {
        func refuse(_ error: String, _ description: String) -> MockResponse {
            MockResponse(status: 400, json: ["error": .string(error), "error_description": .string(description)])
        }
        switch grant["grant_type"] {
        case "authorization_code":
            guard let code = grant["code"], let challenge = state.withLock({ $0.codes.removeValue(forKey: code) }) else {
                return refuse("invalid_grant", "the code is unknown or used")
            }
            if let challenge, PKCE.challenge(for: grant["code_verifier"] ?? "") != challenge {
                return refuse("invalid_grant", "PKCE verification failed")
            }
            return issue()
        case "refresh_token":
            let presented = grant["refresh_token"] ?? ""
            let known = state.withLock { state in
                state.refreshes += 1
                return state.refreshTokens.remove(presented) != nil
            }
            guard known else { return refuse("invalid_grant", "the refresh token is unknown or was already used") }
            // Long enough for concurrent callers to pile up behind one refresh.
            try? await Task.sleep(for: .milliseconds(50))
            return issue()
        case "urn:ietf:params:oauth:grant-type:device_code":
            let polls = state.withLock { state -> Int? in
                guard let polls = state.devicePolls[grant["device_code"] ?? ""] else { return nil }
                state.devicePolls[grant["device_code"] ?? ""] = polls + 1
                return polls
            }
            guard let polls else { return refuse("expired_token", "the device code is unknown") }
            if polls < pendingDevicePolls { return refuse("authorization_pending", "the user has not signed in yet") }
            state.withLock { _ = $0.devicePolls.removeValue(forKey: grant["device_code"] ?? "") }
            return issue()
        case "password":
            guard grant["username"]?.isEmpty == false, grant["password"]?.isEmpty == false else {
                return refuse("invalid_grant", "username and password are required")
            }
            return issue()
        case "client_credentials":
            return issue(refresh: false)
        default:
            return refuse("unsupported_grant_type", "grant_type \(grant["grant_type"] ?? "(none)") is not supported")
        }
    }

    /// Spark's API-key session: `POST /v1/session?ApiKey=K&ApiSig=MD5(secret + "ApiKey" + K)`.
    func sparkSession(_ request: MockRequest, server: MockServer) -> MockResponse {
        let key = request.queryValue("ApiKey") ?? ""
        guard let secret = state.withLock({ $0.sparkKeys[key] }) else {
            return server.errorResponse(401, code: "1000", message: "Invalid API key and/or request signed improperly")
        }
        let signature = request.queryValue("ApiSig")
        let trusted = state.withLock { $0.trustedSignatures[key] }
        guard signature == Digest.hex(Digest.md5(Array((secret + "ApiKey" + key).utf8))) || (trusted != nil && signature == trusted) else {
            return server.errorResponse(401, code: "1000", message: "Invalid API key and/or request signed improperly")
        }
        let token = state.withLock { state -> String in
            state.issued += 1
            let token = "session-\(state.issued)"
            state.accessTokens[token] = Date(timeIntervalSinceNow: lifetime)
            state.sparkSessions[token] = key
            return token
        }
        return server.single([
            "AuthToken": .string(token), "Expires": .string(MockServer.isoDate(Date(timeIntervalSinceNow: lifetime))),
            "Roles": ["idx"],
        ])
    }

    private func issue(refresh: Bool = true) -> MockResponse {
        let number = state.withLock { state -> Int in
            state.issued += 1
            state.accessTokens["access-\(state.issued)"] = Date(timeIntervalSinceNow: lifetime)
            if refresh { state.refreshTokens.insert("refresh-\(state.issued)") }
            return state.issued
        }
        var body: JSONObject = [
            "token_type": "Bearer", "access_token": .string("access-\(number)"), "expires_in": .number(JSONNumber(Int(lifetime))),
            "scope": "openid offline_access",
        ]
        if refresh { body["refresh_token"] = .string("refresh-\(number)") }
        return MockResponse(json: .object(body))
    }

    private func newCode(challenge: String?) -> String {
        let code = "code-\(UUID().uuidString)"
        state.withLock { $0.codes[code] = .some(challenge) }
        return code
    }

    private func redirect(to base: String, _ parameters: [(String, String)]) -> MockResponse {
        let query = parameters.map { PercentEncoding.form($0.0) + "=" + PercentEncoding.form($0.1) }.joined(separator: "&")
        return MockResponse(status: 302, headers: [("Location", base + (base.contains("?") ? "&" : "?") + query)])
    }
}
