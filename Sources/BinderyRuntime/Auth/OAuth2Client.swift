import Foundation
import HTTPTypes
import Logging

/// Where an OAuth 2.0 identity provider lives and who the app is.
public struct OAuth2Configuration: Sendable {
    public enum TokenRequestStyle: Sendable {
        /// `application/x-www-form-urlencoded` (RFC 6749 §4.1.3): Microsoft, Nylas.
        case form
        /// A JSON object: Spark's `/v1/oauth2/grant`.
        case json
    }

    public var authorizeURL: URL
    public var tokenURL: URL
    /// RFC 8628's device authorization endpoint, when the provider has one.
    public var deviceCodeURL: URL?
    public var clientID: String
    /// Only for confidential clients (servers); apps and terminals use PKCE instead.
    public var clientSecret: String?
    public var redirectURI: String?
    public var scopes: [String]
    public var tokenRequestStyle: TokenRequestStyle
    /// Sent with every request to the provider (Spark requires its `X-SparkApi-User-Agent` there too).
    public var headers: HTTPFields

    public init(
        authorizeURL: URL, tokenURL: URL, deviceCodeURL: URL? = nil, clientID: String, clientSecret: String? = nil,
        redirectURI: String? = nil, scopes: [String] = [], tokenRequestStyle: TokenRequestStyle = .form,
        headers: HTTPFields = [:]
    ) {
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.deviceCodeURL = deviceCodeURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.tokenRequestStyle = tokenRequestStyle
        self.headers = headers
    }
}

/// A sign-in started in a browser: the URL to open and what the callback must match.
public struct AuthorizationRequest: Sendable {
    public let url: URL
    public let state: String
    /// PKCE's secret half (RFC 7636): sent only with the code exchange, never to the browser.
    public let codeVerifier: String
    public let redirectURI: String

    /// Reads the redirect the browser came back with: the code when `state` matches, otherwise an
    /// `authorization` error (wrong state, `error=access_denied`, no code).
    public func code(fromCallback callback: URL) throws(BinderyError) -> String {
        let items = OAuth2Client.formValues(in: callback)
        func value(_ name: String) -> String? { items.first { $0.0 == name }?.1 }
        guard value("state") == state else {
            throw BinderyError(
                kind: .authorization,
                message: "the callback's state does not match this sign-in; it was not started here")
        }
        if let error = value("error") {
            throw BinderyError(
                kind: .authorization, message: value("error_description") ?? "the sign-in was refused (\(error))",
                serviceCode: error)
        }
        guard let code = value("code"), !code.isEmpty else {
            throw BinderyError(kind: .authorization, message: "the callback carries no authorization code")
        }
        return code
    }
}

/// What the user is asked to do in a device-code sign-in (RFC 8628).
public struct DeviceAuthorization: Sendable {
    public let deviceCode: String
    public let userCode: String
    public let verificationURI: String
    /// The provider's own instruction ("To sign in, use a web browser to open ... and enter the code ...").
    public let message: String?
    public let expiresAt: Date
    public let interval: Duration
}

/// The OAuth 2.0 flows (RFC 6749): authorization code with PKCE and a checked `state`, device code
/// (RFC 8628), client credentials, password (Spark), and refresh.
///
/// Token requests go through the given transport with `tokenEndpointDefaults` (retries; logging, secrets redacted,
/// when given a logger); no credentials but the client's own are sent.
public struct OAuth2Client: Sendable {
    public let configuration: OAuth2Configuration
    private let pipeline: MiddlewareChain

    /// The default middleware: nothing logged.
    public static var tokenEndpointDefaults: [any HTTPMiddleware] { .defaults }

    /// The default middleware, logging to `logger` with 4xx answers at debug: each one is an OAuth error this
    /// client throws, and a device-code sign-in hears `authorization_pending` on every poll until the user
    /// approves. Server errors are logged as everywhere else.
    public static func tokenEndpointDefaults(logger: Logger) -> [any HTTPMiddleware] {
        .defaults + [LoggingMiddleware(logger: logger, clientErrorLevel: .debug)]
    }

    public init(
        _ configuration: OAuth2Configuration, transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = tokenEndpointDefaults
    ) {
        self.configuration = configuration
        self.pipeline = MiddlewareChain(middleware, transport: transport)
    }

    // MARK: Authorization code + PKCE

    /// The URL to open in a browser, and what to check the callback against. `responseType` is `code` (with
    /// PKCE), or `token` for a provider's implicit flow (nothing is exchanged, so no PKCE).
    public func authorizationRequest(
        redirectURI: String? = nil, loginHint: String? = nil, responseType: String = "code",
        extraParameters: [(String, String)] = []
    ) -> AuthorizationRequest {
        let verifier = PKCE.makeVerifier()
        let state = PKCE.randomToken(bytes: 16)
        let redirect = redirectURI ?? configuration.redirectURI ?? ""
        var parameters = [
            ("client_id", configuration.clientID), ("response_type", responseType), ("redirect_uri", redirect),
            ("state", state),
        ]
        if responseType == "code" {
            parameters += [("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]
        }
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        parameters += extraParameters
        return AuthorizationRequest(
            url: Self.url(configuration.authorizeURL, adding: parameters), state: state, codeVerifier: verifier,
            redirectURI: redirect)
    }

    /// Exchanges the callback of `request` for a token, after checking its `state`.
    public func exchange(callback: URL, for request: AuthorizationRequest, account: String) async throws(BinderyError)
        -> Token
    {
        let code = try request.code(fromCallback: callback)
        return try await exchange(
            code: code, codeVerifier: request.codeVerifier, redirectURI: request.redirectURI, account: account)
    }

    public func exchange(code: String, codeVerifier: String?, redirectURI: String, account: String)
        async throws(BinderyError) -> Token
    {
        var parameters = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)]
        if let codeVerifier { parameters.append(("code_verifier", codeVerifier)) }
        return try await tokenRequest(parameters, account: account)
    }

    /// For terminals: listens on 127.0.0.1 (RFC 8252), hands `open` the URL to show or open, and
    /// waits for the browser to come back. (No browser to open on tvOS or watchOS; watchOS apps have no sockets.)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public func signInWithBrowser(
        account: String, loginHint: String? = nil, timeout: Duration = .seconds(300), open: @Sendable (URL) -> Void
    ) async throws -> Token {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        let request = authorizationRequest(redirectURI: listener.redirectURI, loginHint: loginHint)
        open(request.url)
        let callback = try await listener.waitForCallback(timeout: timeout, state: request.state)
        return try await exchange(callback: callback, for: request, account: account)
    }

    // MARK: Device code (RFC 8628)

    public func startDeviceAuthorization() async throws(BinderyError) -> DeviceAuthorization {
        guard let url = configuration.deviceCodeURL else {
            throw BinderyError(kind: .authorization, message: "this identity provider has no device code endpoint")
        }
        var parameters = [("client_id", configuration.clientID)]
        if !configuration.scopes.isEmpty { parameters.append(("scope", configuration.scopes.joined(separator: " "))) }
        let root = try await post(url, parameters)
        guard let deviceCode = root["device_code"]?.stringValue, let userCode = root["user_code"]?.stringValue,
            let verification = root["verification_uri"]?.stringValue ?? root["verification_url"]?.stringValue
        else {
            throw BinderyError(
                kind: .invalidResponse,
                message: "the device authorization response lacks device_code, user_code or verification_uri")
        }
        let expiresIn = root["expires_in"].flatMap { Int(looseJSON: $0) } ?? 900
        let interval = root["interval"].flatMap { Int(looseJSON: $0) } ?? 5
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
            message: root["message"]?.stringValue,
            expiresAt: Date().addingTimeInterval(Double(expiresIn)), interval: .seconds(interval))
    }

    /// Polls until the user has approved (or refused) on another device; honours `slow_down`.
    public func completeDeviceAuthorization(
        _ authorization: DeviceAuthorization, account: String,
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> Token {
        var interval = authorization.interval
        while Date() < authorization.expiresAt {
            try await sleep(interval)
            let answer: Result<Token, BinderyError>
            do {
                answer = .success(
                    try await tokenRequest(
                        [
                            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                            ("device_code", authorization.deviceCode),
                        ],
                        account: account))
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success(let token): return token
            case .failure(let error) where error.serviceCode == "authorization_pending": continue
            case .failure(let error) where error.serviceCode == "slow_down": interval += .seconds(5)
            case .failure(let error): throw error
            }
        }
        throw BinderyError(
            kind: .authorization, message: "the device code expired before the user signed in",
            serviceCode: "expired_token")
    }

    // MARK: Other grants

    public func clientCredentials(account: String = "app") async throws(BinderyError) -> Token {
        try await tokenRequest([("grant_type", "client_credentials")], account: account)
    }

    /// The resource owner password grant (Spark's `grant_type=password`); avoid it where another flow exists.
    public func password(username: String, password: String, account: String? = nil) async throws(BinderyError) -> Token
    {
        try await tokenRequest(
            [("grant_type", "password"), ("username", username), ("password", password)], account: account ?? username)
    }

    /// A new token for `token`'s refresh token; the refresh token rotates when the provider sends a new one.
    public func refresh(_ token: Token) async throws(BinderyError) -> Token {
        guard let refreshToken = token.refreshToken else {
            throw BinderyError(
                kind: .interactionRequired, message: "no refresh token for \(token.account); sign in again")
        }
        var renewed = try await tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], account: token.account)
        if renewed.refreshToken == nil { renewed.refreshToken = refreshToken }
        return renewed
    }

    /// A `TokenSession` that renews with this client.
    public func session(
        account: String, store: any TokenStore, scheme: AuthorizationScheme = .bearer,
        renewOn trigger: RenewalTrigger = .unauthorized
    ) -> TokenSession {
        TokenSession(account: account, store: store, scheme: scheme, renewOn: trigger) { token in
            try await self.refresh(token)
        }
    }

    // MARK: The token endpoint

    private func tokenRequest(_ grant: [(String, String)], account: String) async throws(BinderyError) -> Token {
        var parameters = grant + [("client_id", configuration.clientID)]
        if let secret = configuration.clientSecret { parameters.append(("client_secret", secret)) }
        if !configuration.scopes.isEmpty, grant.first?.1 != "authorization_code" {
            parameters.append(("scope", configuration.scopes.joined(separator: " ")))
        }
        let root = try await post(configuration.tokenURL, parameters)
        guard let accessToken = root["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw BinderyError(kind: .invalidResponse, message: "the token response has no access_token")
        }
        let expiresIn = root["expires_in"].flatMap { Int(looseJSON: $0) }
        return Token(
            accessToken: accessToken, refreshToken: root["refresh_token"]?.stringValue,
            expiresAt: expiresIn.map { Date().addingTimeInterval(Double($0)) },
            scopes: root["scope"]?.stringValue?.split(separator: " ").map(String.init) ?? configuration.scopes,
            account: account, idToken: root["id_token"]?.stringValue)
    }

    /// POSTs parameters to an endpoint of the identity provider and returns its JSON answer, or the
    /// OAuth error (`{"error": "invalid_grant", "error_description": ...}`) as an `authorization` error.
    private func post(_ url: URL, _ parameters: [(String, String)]) async throws(BinderyError) -> JSONValue {
        var head = HTTPRequest(method: .post, url: url)
        head.headerFields = configuration.headers
        head.headerFields[.accept] = "application/json"
        let body: [UInt8]
        switch configuration.tokenRequestStyle {
        case .form:
            head.headerFields[.contentType] = "application/x-www-form-urlencoded"
            body = Array(Self.form(parameters).utf8)
        case .json:
            head.headerFields[.contentType] = "application/json"
            body = JSONValue.object(JSONObject(parameters.map { .init(key: $0.0, value: .string($0.1)) })).serialized()
        }
        let response: APIResponse
        do {
            response = try await pipeline.send(TransportRequest(head, body: .bytes(body)))
        } catch {
            throw BinderyError.system(error)
        }
        let answer = try? JSONValue.parse(response.body)
        if let code = answer?["error"]?.stringValue
            ?? (response.status.kind == .successful ? nil : "HTTP \(response.status.code)")
        {
            // Providers echo what they refuse ("refresh token … is revoked"): the error's description goes to
            // logs and crash reports, so the secrets this request sent are cut from it. The body keeps them.
            let sent = parameters.filter { Redaction.isSecret($0.0) }.map(\.1)
            throw BinderyError(
                kind: .authorization,
                message: Redaction.text(
                    answer?["error_description"]?.stringValue ?? "the identity provider refused the request (\(code))",
                    hiding: sent),
                status: response.status.code, serviceCode: code, body: response.body)
        }
        guard let answer else {
            throw BinderyError.invalidResponse("the identity provider's answer is not JSON", response: response)
        }
        return answer
    }

    /// `a=1&b=two+words`: parameters form-encoded (`application/x-www-form-urlencoded`).
    public static func form(_ parameters: [(String, String)]) -> String {
        parameters.map { PercentEncoding.form($0.0) + "=" + PercentEncoding.form($0.1) }.joined(separator: "&")
    }

    /// The query of a callback URL, read as a form: `+` is a space (browsers and OpenID providers send it).
    public static func formValues(in url: URL) -> [(String, String)] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else {
            return []
        }
        return PercentEncoding.formValues(query)
    }

    /// `base` with `parameters` form-encoded into its query (the authorize URLs of every provider).
    public static func url(_ base: URL, adding parameters: [(String, String)]) -> URL {
        let separator = base.query == nil ? "?" : "&"
        return URL(string: base.absoluteString + separator + form(parameters)) ?? base
    }
}

/// PKCE (RFC 7636): a random verifier and its S256 challenge.
public enum PKCE {
    public static func makeVerifier() -> String { randomToken(bytes: 32) }

    public static func challenge(for verifier: String) -> String { base64URL(Digest.sha256(Array(verifier.utf8))) }

    /// Random bytes from the system's generator, base64url without padding.
    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        return base64URL(bytes)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
}

// Descriptions that leave the secrets out, as `Token`'s does: a value printed into a log, a test failure or a
// crash report must not carry the verifier, the device code or the client secret.

extension AuthorizationRequest: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "AuthorizationRequest(url: \(url.absoluteString), redirectURI: \(redirectURI), code verifier: \(Redaction.placeholder))"
    }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension DeviceAuthorization: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "DeviceAuthorization(user code: \(userCode), verification URI: \(verificationURI), expires \(expiresAt), device code: \(Redaction.placeholder))"
    }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension OAuth2Configuration: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "OAuth2Configuration(client: \(clientID), token URL: \(tokenURL.absoluteString), client secret: \(clientSecret == nil ? "no" : Redaction.placeholder))"
    }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
