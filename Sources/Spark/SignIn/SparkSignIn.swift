import BinderyJSON
import BinderyRuntime
import Foundation
import HTTPTypes

/// Spark platform sign-in: OAuth 2 (`/v1/oauth2/grant`), the hybrid OpenID + OAuth 2 flow, plain
/// OpenID with Simple Registration / Attribute Exchange, and API-key sessions with signed requests.
public struct SparkSignIn: Sendable {
    public var clientID: String
    public var clientSecret: String
    public var redirectURI: String
    /// `https://sparkplatform.com` unless tests point it elsewhere.
    public var openIDBase: URL
    /// `https://sparkapi.com` unless tests point it elsewhere.
    public var apiBase: URL
    /// The `X-SparkApi-User-Agent` Spark requires, sent with the grant requests too.
    public var userAgent: String?

    public init(
        clientID: String, clientSecret: String, redirectURI: String,
        openIDBase: URL = URL(string: "https://sparkplatform.com")!,
        apiBase: URL = URL(string: "https://sparkapi.com")!,
        userAgent: String? = nil
    ) {
        self.userAgent = userAgent
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.openIDBase = openIDBase
        self.apiBase = apiBase
    }

    /// The OAuth 2 side: grants go to `/v1/oauth2/grant` as JSON.
    public var oauth: OAuth2Configuration {
        let grant = apiBase.appendingPathComponent("v1/oauth2/grant")
        return OAuth2Configuration(
            authorizeURL: openIDBase.appendingPathComponent("oauth2"), tokenURL: grant, clientID: clientID,
            clientSecret: clientSecret, redirectURI: redirectURI, tokenRequestStyle: .json,
            headers: userAgent.map(Self.headers(userAgent:)) ?? [:])
    }

    /// The headers every Spark request needs besides `Authorization: OAuth <token>`.
    public static func headers(userAgent: String) -> HTTPFields {
        [HTTPField.Name("X-SparkApi-User-Agent")!: userAgent]
    }

    // MARK: Hybrid OpenID + OAuth 2

    /// The URL that starts the hybrid flow in a browser: OpenID authentication that also returns an
    /// OAuth 2 code (`openid.spark.combined_flow=true`).
    public func hybridURL(extraParameters: [(String, String)] = []) -> URL {
        OAuth2Client.url(
            openIDBase.appendingPathComponent("openid"),
            adding: [
                ("openid.mode", "checkid_setup"), ("openid.spark.client_id", clientID),
                ("openid.return_to", redirectURI),
                ("openid.spark.combined_flow", "true"),
            ] + extraParameters)
    }

    /// The outcome of an OpenID callback.
    public enum OpenIDResult: Sendable, Equatable {
        /// Hybrid: the OAuth 2 code to exchange (`openid.spark.code`), and the OpenID identity.
        case code(String, identity: String?)
        /// Plain OpenID: the identity and the attributes asked for (`email`, `fullname`...).
        case identity(String, attributes: [String: String])
        /// The user cancelled (`openid.mode=cancel`).
        case cancelled
    }

    /// Reads an OpenID callback: `openid.mode=id_res` gives a code (hybrid) or an identity with its
    /// Simple Registration / Attribute Exchange attributes; `error` is an `authorization` error.
    /// It only reads: `verify(callback:)` checks the callback with the provider before anything is believed.
    public static func parseCallback(_ url: URL) throws(BinderyError) -> OpenIDResult {
        var values: [String: String] = [:]
        for (name, value) in OAuth2Client.formValues(in: url) { values[name] = value }
        switch values["openid.mode"] {
        case "id_res"?:
            let identity = values["openid.claimed_id"] ?? values["openid.identity"]
            if let code = values["openid.spark.code"], !code.isEmpty { return .code(code, identity: identity) }
            guard let identity else {
                throw BinderyError(
                    kind: .authorization, message: "the OpenID callback has neither a code nor an identity")
            }
            var attributes: [String: String] = [:]
            for (name, value) in values {
                if name.hasPrefix("openid.sreg.") { attributes[String(name.dropFirst("openid.sreg.".count))] = value }
                if name.hasPrefix("openid.ax.value.") {
                    attributes[String(name.dropFirst("openid.ax.value.".count))] = value
                }
            }
            return .identity(identity, attributes: attributes)
        case "cancel"?:
            return .cancelled
        case "error"?:
            throw BinderyError(
                kind: .authorization, message: values["openid.error"] ?? "the OpenID provider reported an error",
                serviceCode: "openid.error")
        default:
            throw BinderyError(
                kind: .authorization,
                message: "not an OpenID callback (openid.mode is \(values["openid.mode"] ?? "missing"))")
        }
    }

    /// Plain OpenID asking for attributes with Simple Registration (`openid.sreg.required`) and, for providers
    /// that answer only that, Attribute Exchange (`openid.ax.required`, for the attributes it has types for).
    public func openIDURL(requiredAttributes: [String] = ["email", "fullname"]) -> URL {
        let exchanged = requiredAttributes.filter { Self.attributeTypes[$0] != nil }
        var parameters = [
            ("openid.mode", "checkid_setup"), ("openid.spark.client_id", clientID),
            ("openid.return_to", redirectURI),
            ("openid.ns.sreg", "http://openid.net/extensions/sreg/1.1"),
            ("openid.sreg.required", requiredAttributes.joined(separator: ",")),
        ]
        if !exchanged.isEmpty {
            parameters += [("openid.ns.ax", "http://openid.net/srv/ax/1.0"), ("openid.ax.mode", "fetch_request")]
            parameters += exchanged.map { ("openid.ax.type.\($0)", Self.attributeTypes[$0] ?? "") }
            parameters.append(("openid.ax.required", exchanged.joined(separator: ",")))
        }
        return OAuth2Client.url(openIDBase.appendingPathComponent("openid"), adding: parameters)
    }

    /// Completes plain OpenID: the callback verified with the provider (`verify(callback:)`), then read.
    public func completeOpenID(
        callback: URL, nonces: OpenIDNonces = .shared, transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = .defaults
    ) async throws -> OpenIDResult {
        try await verify(callback: callback, nonces: nonces, transport: transport, middleware: middleware)
    }

    /// Completes the hybrid flow: the callback verified with the provider (`verify(callback:)`), then its code
    /// exchanged for tokens.
    public func completeHybrid(
        callback: URL, account: String, nonces: OpenIDNonces = .shared,
        transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = OAuth2Client.tokenEndpointDefaults
    ) async throws -> Token {
        switch try await verify(callback: callback, nonces: nonces, transport: transport, middleware: middleware) {
        case .code(let code, _):
            return try await OAuth2Client(oauth, transport: transport, middleware: middleware)
                .exchange(code: code, codeVerifier: nil, redirectURI: redirectURI, account: account)
        case .cancelled:
            throw BinderyError(kind: .authorization, message: "the sign-in was cancelled", serviceCode: "cancel")
        case .identity:
            throw BinderyError(
                kind: .authorization, message: "the callback is plain OpenID; the hybrid flow needs openid.spark.code")
        }
    }

    /// The auth provider for an OAuth 2 token: `Authorization: OAuth <token>`, renewed with the
    /// refresh token on a 401 or on code 1020 in the body.
    public func session(
        account: String, store: any TokenStore, transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = OAuth2Client.tokenEndpointDefaults
    ) -> TokenSession {
        OAuth2Client(oauth, transport: transport, middleware: middleware).session(
            account: account, store: store, scheme: .oauth,
            renewOn: RenewalTrigger {
                RenewalTrigger.unauthorized.matches($0) || RenewalTrigger.sparkSessionExpired.matches($0)
            })
    }
}

/// A Spark API-key session: `POST /v1/session` signed with the key's secret gives an `AuthToken`;
/// every request then carries `AuthToken` and its own `ApiSig`. Renewed (a new session) on 1020.
public final class SparkAPIKeySession: AuthProvider {
    public let apiKey: String
    private let secret: String
    private let apiBase: URL
    private let pipeline: MiddlewareChain
    private let state = SessionState()
    private let userAgent: String?

    /// A session for an API key, opened on the first request.
    ///
    /// - Parameters:
    ///   - apiKey: The key Spark issued to the application.
    ///   - secret: The key's secret: it signs requests and never travels itself.
    ///   - apiBase: Where `POST /v1/session` goes: `https://sparkapi.com` unless tests point it elsewhere.
    ///   - userAgent: The `X-SparkApi-User-Agent` Spark requires.
    ///   - transport: How the session requests travel.
    ///   - middleware: What the `POST /v1/session` requests go through (the defaults: retries, logging).
    public init(
        apiKey: String, secret: String, apiBase: URL = URL(string: "https://sparkapi.com")!, userAgent: String? = nil,
        transport: any HTTPTransport = DefaultTransport.shared, middleware: [any HTTPMiddleware] = .defaults
    ) {
        self.userAgent = userAgent
        self.apiKey = apiKey
        self.secret = secret
        self.apiBase = apiBase
        self.pipeline = MiddlewareChain(middleware, transport: transport)
    }

    /// `MD5(secret + "ApiKey" + key)`: the signature that opens a session.
    public func sessionSignature() -> String { SparkSignature(apiKey: apiKey, secret: secret).session }

    /// `MD5(secret + "ApiKey" + key + "ServicePath" + path + sorted name+value pairs + body)`.
    public func signature(path: String, parameters: [(String, String)], body: [UInt8]) -> String {
        SparkSignature(apiKey: apiKey, secret: secret).request(path: path, parameters: parameters, body: body)
    }

    public func authorize(_ request: inout TransportRequest) async throws {
        let token = try await state.token { try await self.openSession() }
        guard let url = request.head.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return }
        var parameters = (components.queryItems ?? []).filter { $0.name != "ApiSig" && $0.name != "AuthToken" }
            .map { ($0.name, $0.value ?? "") }
        parameters.append(("AuthToken", token))
        var body: [UInt8] = []
        if case .bytes(let bytes)? = request.body { body = bytes }
        let signature = signature(path: components.path, parameters: parameters, body: body)
        components.percentEncodedQuery = OAuth2Client.form(parameters + [("ApiSig", signature)])
        request.head.url = components.url
    }

    public func shouldRenew(after response: APIResponse) -> Bool {
        RenewalTrigger.sparkSessionExpired.matches(response)
    }

    public func renew(rejected request: TransportRequest) async throws -> Bool {
        let used = request.head.url.flatMap {
            URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "AuthToken" }?.value
        }
        try await state.renew(rejected: used) { try await self.openSession() }
        return true
    }

    private func openSession() async throws -> String {
        let url = OAuth2Client.url(
            apiBase.appendingPathComponent("v1/session"), adding: [("ApiKey", apiKey), ("ApiSig", sessionSignature())])
        var head = HTTPRequest(method: .post, url: url)
        if let userAgent { head.headerFields = SparkSignIn.headers(userAgent: userAgent) }
        head.headerFields[.contentType] = "application/json"
        let response = try await pipeline.send(TransportRequest(head, body: .bytes([])))
        guard response.status.kind == .successful else {
            // The session signature opens sessions for as long as the key lives: a server that echoes it in
            // its message ("Invalid ApiSig …") must not put it into the error's description.
            var error = BinderyError.api(response, shape: SparkClient.conventions.errors)
            error.message = Redaction.text(error.message, hiding: [sessionSignature()])
            throw error
        }
        guard let token = try response.json()["D"]?["Results"]?.arrayValue?.first?["AuthToken"]?.stringValue else {
            throw BinderyError.invalidResponse("the session response has no D.Results[0].AuthToken", response: response)
        }
        return token
    }

    /// One session at a time, renewed once however many requests saw it expire.
    private actor SessionState {
        var token: String?
        var opening: Task<String, any Error>?

        func token(open: @escaping @Sendable () async throws -> String) async throws -> String {
            if let token { return token }
            return try await start(open)
        }

        func renew(rejected: String?, open: @escaping @Sendable () async throws -> String) async throws {
            if let token, token != rejected { return }
            token = nil
            _ = try await start(open)
        }

        private func start(_ open: @escaping @Sendable () async throws -> String) async throws -> String {
            if let opening { return try await opening.value }
            let task = Task { try await open() }
            opening = task
            defer { opening = nil }
            let value = try await task.value
            token = value
            return value
        }
    }
}

extension RenewalTrigger {
    /// Spark: `{"D": {"Code": 1020}}` ("session token has expired"), whatever the status.
    public static let sparkSessionExpired = RenewalTrigger { response in
        (try? JSONValue.parse(response.body))?["D"]?["Code"]?.scalarText == "1020"
    }
}

/// The `ApiSig` values of Spark's API-key sessions: what the client sends, and what a server (the mock) checks.
public struct SparkSignature: Sendable {
    public let apiKey: String
    let secret: String

    public init(apiKey: String, secret: String) {
        self.apiKey = apiKey
        self.secret = secret
    }

    /// `MD5(secret + "ApiKey" + key)`: opens a session.
    public var session: String { MD5.hex(Array((secret + "ApiKey" + apiKey).utf8)) }

    /// `MD5(secret + "ApiKey" + key + "ServicePath" + path + sorted name+value pairs + body)`: signs one request.
    public func request(path: String, parameters: [(String, String)], body: [UInt8]) -> String {
        let sorted = parameters.sorted { $0.0 < $1.0 }.map { $0.0 + $0.1 }.joined()
        return MD5.hex(Array((secret + "ApiKey" + apiKey + "ServicePath" + path + sorted).utf8) + body)
    }
}

// Descriptions that leave the client secret and the API key's secret out, as `Token`'s does.

extension SparkSignIn: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "SparkSignIn(client: \(clientID), redirectURI: \(redirectURI), client secret: \(Redaction.placeholder))"
    }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension SparkSignature: CustomStringConvertible, CustomReflectable {
    public var description: String { "SparkSignature(apiKey: \(apiKey), secret: \(Redaction.placeholder))" }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
