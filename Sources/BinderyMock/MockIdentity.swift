import BinderyJSON
import BinderyRuntime
import Foundation
import Synchronization

/// The identity provider side of the mock: OAuth 2 at Microsoft's `/{tenant}/oauth2/v2.0/{authorize,token,devicecode}`,
/// at `/oauth/authorize` + `/oauth/token` (Inbox) and `/oauth2` (Spark's authorize page), with every grant the
/// services use. Consent is automatic; PKCE and refresh-token rotation are checked as the real providers check them.
/// Sign-in a provider does its own way (Spark's OpenID and signed API-key sessions) comes in as a
/// `MockSignInExtension`, with the service that needs it.
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
        var extensions: [any MockSignInExtension] = []
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
            state.accessTokens[access] =
                expired ? Date(timeIntervalSinceNow: -60) : Date(timeIntervalSinceNow: lifetime)
            state.refreshTokens.insert("refresh-\(state.issued)")
            return (access, "refresh-\(state.issued)")
        }
        return Token(
            accessToken: access, refreshToken: refresh, expiresAt: Date(timeIntervalSinceNow: expired ? -60 : lifetime),
            account: account)
    }

    /// Ends every session now: each issued token (the static one included) is refused as expired, as when a
    /// service revokes sessions. Refresh tokens and API keys still work.
    public func expireAllTokens() {
        state.withLock { state in
            for token in state.accessTokens.keys { state.accessTokens[token] = Date(timeIntervalSinceNow: -1) }
        }
    }

    /// Takes `code` as issued (for replaying a recorded grant).
    public func acceptCode(_ code: String) { state.withLock { $0.codes[code] = .some(nil) } }

    /// Takes `token` as a live refresh token (for replaying a recorded grant).
    public func acceptRefreshToken(_ token: String) { _ = state.withLock { $0.refreshTokens.insert(token) } }

    /// Adds a provider's own sign-in; one of each type, however many services share this identity.
    public func add(_ signIn: any MockSignInExtension) {
        state.withLock { state in
            guard !state.extensions.contains(where: { type(of: $0) == type(of: signIn) }) else { return }
            state.extensions.append(signIn)
        }
    }

    /// The sign-in extension of that type, if one was added.
    public func signIn<Extension: MockSignInExtension>(_ type: Extension.Type) -> Extension? {
        state.withLock { $0.extensions.lazy.compactMap { $0 as? Extension }.first }
    }

    private var extensions: [any MockSignInExtension] { state.withLock { $0.extensions } }

    /// Issues an access token that lives `lifetime` seconds, named `<prefix>-<n>` (for extensions' sessions).
    public func issueAccessToken(prefix: String) -> String {
        state.withLock { state in
            state.issued += 1
            let token = "\(prefix)-\(state.issued)"
            state.accessTokens[token] = Date(timeIntervalSinceNow: lifetime)
            return token
        }
    }

    // MARK: Checking requests

    func check(_ request: MockRequest) -> Check {
        for signIn in extensions {
            if let check = signIn.check(request, identity: self) { return check }
        }
        guard let header = request.header("Authorization") else { return .missing }
        let parts = header.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return .missing }
        var token = parts[1]
        if parts[0].lowercased() == "basic" {
            // Inbox: the token is the user name, the password empty.
            guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8) else {
                return .missing
            }
            token = String(text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        }
        return validity(of: token)
    }

    /// Whether `token` was issued here and has not expired.
    public func validity(of token: String) -> Check {
        guard let expiry = state.withLock({ $0.accessTokens[token] }) else { return .missing }
        return expiry > Date() ? .valid : .expired
    }

    // MARK: Endpoints

    /// Answers identity-provider requests; nil for everything else.
    func handle(_ request: MockRequest, segments: [String], server: MockServer) async -> MockResponse? {
        for signIn in extensions {
            if let response = await signIn.handle(request, segments: segments, identity: self, server: server) {
                return response
            }
        }
        if segments.count == 4, segments[1] == "oauth2", segments[2] == "v2.0" {
            switch (request.method, segments[3]) {
            case ("GET", "authorize"): return authorize(request, codeName: "code")
            case ("POST", "token"): return await token(grant: request.form)
            case ("POST", "devicecode"): return deviceCode()
            default: return nil
            }
        }
        switch (request.method, segments) {
        case ("GET", ["oauth2"]), ("GET", ["oauth", "authorize"]): return authorize(request, codeName: "code")
        case ("POST", ["oauth", "token"]): return await token(grant: request.form)
        default: return nil
        }
    }

    /// Auto-consent: straight back to the redirect URI with a code (bound to the PKCE challenge) and `state`.
    private func authorize(_ request: MockRequest, codeName: String) -> MockResponse {
        guard let redirectURI = request.queryValue("redirect_uri"), request.queryValue("client_id") != nil else {
            return MockResponse(
                status: 400,
                json: ["error": "invalid_request", "error_description": "client_id and redirect_uri are required"])
        }
        let challenge = request.queryValue("code_challenge")
        if challenge != nil, request.queryValue("code_challenge_method") != "S256" {
            return MockResponse(
                status: 400, json: ["error": "invalid_request", "error_description": "only S256 PKCE is supported"])
        }
        if request.queryValue("response_type") == "token" {
            // The implicit flow (Inbox's hosted page for apps): the token itself, in the fragment.
            var parameters = [("access_token", issueAccessToken(prefix: "access")), ("token_type", "bearer")]
            if let hint = request.queryValue("login_hint") { parameters.append(("email_address", hint)) }
            if let state = request.queryValue("state") { parameters.append(("state", state)) }
            let fragment = parameters.map { PercentEncoding.form($0.0) + "=" + PercentEncoding.form($0.1) }
            return MockResponse(
                status: 302, headers: [("Location", redirectURI + "#" + fragment.joined(separator: "&"))])
        }
        let code = newCode(challenge: challenge)
        var parameters = [(codeName, code)]
        if let state = request.queryValue("state") { parameters.append(("state", state)) }
        return redirect(to: redirectURI, parameters)
    }

    private func deviceCode() -> MockResponse {
        let code = "device-\(UUID().uuidString)"
        state.withLock { $0.devicePolls[code] = 0 }
        return MockResponse(json: [
            "device_code": .string(code), "user_code": "MOCK-CODE",
            "verification_uri": "https://microsoft.com/devicelogin",
            "expires_in": 900, "interval": 1,
            "message":
                "To sign in, use a web browser to open https://microsoft.com/devicelogin and enter the code MOCK-CODE.",
        ])
    }

    /// The token endpoint: authorization code (PKCE checked), refresh token (rotated), device code,
    /// client credentials and password. `grant` is the request's form, or a JSON body's members (Spark).
    public func token(grant: [String: String]) async -> MockResponse {
        func refuse(_ error: String, _ description: String) -> MockResponse {
            MockResponse(status: 400, json: ["error": .string(error), "error_description": .string(description)])
        }
        switch grant["grant_type"] {
        case "authorization_code":
            guard let code = grant["code"], let challenge = state.withLock({ $0.codes.removeValue(forKey: code) })
            else {
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

    private func issue(refresh: Bool = true) -> MockResponse {
        let number = state.withLock { state -> Int in
            state.issued += 1
            state.accessTokens["access-\(state.issued)"] = Date(timeIntervalSinceNow: lifetime)
            if refresh { state.refreshTokens.insert("refresh-\(state.issued)") }
            return state.issued
        }
        var body: JSONObject = [
            "token_type": "Bearer", "access_token": .string("access-\(number)"),
            "expires_in": .number(JSONNumber(Int(lifetime))),
            "scope": "openid offline_access",
        ]
        if refresh { body["refresh_token"] = .string("refresh-\(number)") }
        return MockResponse(json: .object(body))
    }

    /// A fresh authorization code, bound to a PKCE challenge when there is one.
    public func newCode(challenge: String?) -> String {
        let code = "code-\(UUID().uuidString)"
        state.withLock { $0.codes[code] = .some(challenge) }
        return code
    }

    /// 302 to `base` with `parameters` added to its query: how an authorize page answers.
    public func redirect(to base: String, _ parameters: [(String, String)]) -> MockResponse {
        let query = parameters.map { PercentEncoding.form($0.0) + "=" + PercentEncoding.form($0.1) }.joined(
            separator: "&")
        return MockResponse(status: 302, headers: [("Location", base + (base.contains("?") ? "&" : "?") + query)])
    }
}

/// Sign-in a provider does its own way, added to a `MockIdentity` by the service that needs it: Spark's OpenID
/// pages and API-key sessions whose requests are signed rather than carrying a bearer token.
public protocol MockSignInExtension: Sendable {
    /// Answers one of the provider's identity endpoints; nil for any other request.
    func handle(_ request: MockRequest, segments: [String], identity: MockIdentity, server: MockServer) async
        -> MockResponse?
    /// Judges a request the provider authorizes its own way; nil for a request it does not recognise.
    func check(_ request: MockRequest, identity: MockIdentity) -> MockIdentity.Check?
}
