import Foundation
import MicrosoftIdentity
import Synchronization

@testable import BinderyRuntime

/// A small OAuth 2.0 identity provider on 127.0.0.1 for the auth tests: it issues codes, checks PKCE
/// and `state`-independent parameters as a real provider does, rotates refresh tokens and counts refreshes.
/// `BinderyMock`'s `MockIdentity` does the same for the services; the runtime's tests keep their own so that they
/// depend on nothing built on top of the runtime, and can script answers the mock has no reason to give
/// (`slow_down` between pending polls).
final class IdentityProvider: Sendable {
    struct State {
        var challenges: [String: String] = [:]  // code → PKCE challenge
        var refreshTokens: Set<String> = []
        var refreshes = 0
        var devicePolls = 0
        var issued = 0
        var validAccessTokens: Set<String> = []
    }

    final class Box: Sendable {
        let mutex = Mutex(State())
        func withLock<T>(_ body: (inout State) -> T) -> T { mutex.withLock { body(&$0) } }
    }

    let state = Box()
    let server: LoopbackServer
    /// What the device endpoint answers to the first polls before it issues a token.
    let devicePollAnswers: [String]
    /// Begins every code, device code, access and refresh token it issues, so that a test can grep for them all.
    let secretPrefix: String
    /// The confidential client's secret: when set, the token endpoint requires it.
    let clientSecret: String?

    var configuration: OAuth2Configuration {
        var configuration = MicrosoftIdentity.configuration(
            clientID: "app-id", tenant: "common", scopes: ["Files.ReadWrite", "offline_access"],
            redirectURI: "http://127.0.0.1/callback", authority: server.baseURL)
        configuration.clientSecret = clientSecret
        return configuration
    }

    init(devicePollAnswers: [String] = [], secretPrefix: String = "", clientSecret: String? = nil) async throws {
        self.devicePollAnswers = devicePollAnswers
        self.secretPrefix = secretPrefix
        self.clientSecret = clientSecret
        let state = self.state
        let answers = devicePollAnswers
        let prefix = secretPrefix
        let secret = clientSecret
        server = try await LoopbackServer([
            // Auto-consent: redirect straight back with a code bound to the PKCE challenge.
            "GET /common/oauth2/v2.0/authorize": { request in
                guard let redirect = request.queryValue("redirect_uri"),
                    let challenge = request.queryValue("code_challenge"),
                    request.queryValue("code_challenge_method") == "S256", request.queryValue("client_id") == "app-id"
                else { return .init(status: 400, json: #"{"error":"invalid_request"}"#) }
                let code = "\(prefix)code-\(UUID().uuidString)"
                state.withLock { $0.challenges[code] = challenge }
                let stateValue = request.queryValue("state") ?? ""
                return .init(status: 302, headers: ["Location": "\(redirect)?code=\(code)&state=\(stateValue)"])
            },
            "POST /common/oauth2/v2.0/devicecode": { _ in
                .init(
                    json:
                        #"{"device_code":"\#(prefix)dev-code-secret","user_code":"ABCD-EFGH","verification_uri":"https://microsoft.com/devicelogin","expires_in":900,"interval":1,"message":"To sign in, enter ABCD-EFGH"}"#
                )
            },
            "POST /common/oauth2/v2.0/token": { request in
                let form = Self.form(request.body)
                guard form["client_id"] == "app-id", form["client_secret"] == secret else {
                    return .init(status: 400, json: #"{"error":"invalid_client"}"#)
                }
                switch form["grant_type"] {
                case "authorization_code":
                    let code = form["code"] ?? ""
                    guard let challenge = state.withLock({ $0.challenges.removeValue(forKey: code) }) else {
                        return .init(
                            status: 400,
                            json: #"{"error":"invalid_grant","error_description":"unknown code \#(code)"}"#)
                    }
                    guard PKCE.challenge(for: form["code_verifier"] ?? "") == challenge else {
                        return .init(
                            status: 400,
                            json:
                                #"{"error":"invalid_grant","error_description":"PKCE verification failed for \#(code) with verifier \#(form["code_verifier"] ?? "")"}"#
                        )
                    }
                    return .init(json: Self.issue(state, prefix: prefix))
                case "refresh_token":
                    let presented = form["refresh_token"] ?? ""
                    let known = state.withLock { state in
                        state.refreshes += 1
                        return state.refreshTokens.remove(presented) != nil
                    }
                    guard known else {
                        return .init(
                            status: 400,
                            json:
                                #"{"error":"invalid_grant","error_description":"refresh token \#(presented) is revoked"}"#
                        )
                    }
                    try await Task.sleep(for: .milliseconds(50))  // long enough for concurrent callers to pile up
                    return .init(json: Self.issue(state, prefix: prefix))
                case "urn:ietf:params:oauth:grant-type:device_code":
                    let poll = state.withLock { state in
                        state.devicePolls += 1
                        return state.devicePolls
                    }
                    if poll <= answers.count { return .init(status: 400, json: #"{"error":"\#(answers[poll - 1])"}"#) }
                    return .init(json: Self.issue(state, prefix: prefix))
                case "client_credentials":
                    return .init(json: Self.issue(state, prefix: prefix, refresh: false))
                default:
                    return .init(status: 400, json: #"{"error":"unsupported_grant_type"}"#)
                }
            },
        ])
    }

    func stop() async { await server.stop() }

    /// A Graph-like API on loopback (`GET /me`) that accepts only tokens this provider issued.
    func api() async throws -> LoopbackServer {
        try await LoopbackServer([
            "GET /me": { [self] request in
                guard accepts(request.header("Authorization")) else {
                    return .init(
                        status: 401,
                        json: #"{"error":{"code":"InvalidAuthenticationToken","message":"Access token has expired."}}"#)
                }
                return .init(json: #"{"id":"me","displayName":"Ada"}"#)
            }
        ])
    }

    /// Makes a token the API accepts, with a rotating refresh token.
    static func issue(_ state: Box, prefix: String, refresh: Bool = true) -> String {
        let number = state.withLock { state in
            state.issued += 1
            state.validAccessTokens.insert("\(prefix)access-\(state.issued)")
            if refresh { state.refreshTokens.insert("\(prefix)refresh-\(state.issued)") }
            return state.issued
        }
        let refreshPart = refresh ? #","refresh_token":"\#(prefix)refresh-\#(number)""# : ""
        return
            #"{"token_type":"Bearer","access_token":"\#(prefix)access-\#(number)","expires_in":3600,"scope":"Files.ReadWrite offline_access"\#(refreshPart)}"#
    }

    /// Adds a token the API accepts and the store can refresh, as if signed in earlier.
    func seed(account: String, expired: Bool) -> Token {
        let number = state.withLock { state in
            state.issued += 1
            state.validAccessTokens.insert("\(secretPrefix)access-\(state.issued)")
            state.refreshTokens.insert("\(secretPrefix)refresh-\(state.issued)")
            return state.issued
        }
        return Token(
            accessToken: "\(secretPrefix)\(expired ? "expired" : "access")-\(number)",
            refreshToken: "\(secretPrefix)refresh-\(number)",
            expiresAt: Date().addingTimeInterval(expired ? -60 : 3600), account: account)
    }

    func accepts(_ authorization: String?) -> Bool {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
        return state.withLock { $0.validAccessTokens.contains(String(authorization.dropFirst(7))) }
    }

    func revokeAccessTokens() { state.withLock { $0.validAccessTokens.removeAll() } }

    static func form(_ body: [UInt8]) -> [String: String] {
        var values: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return values
    }
}
