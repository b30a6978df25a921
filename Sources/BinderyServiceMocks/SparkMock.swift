import BinderyJSON
import BinderyMock
import BinderyRuntime
import Foundation
import Spark
import Synchronization

/// Spark's own sign-in on the mock: the OpenID page (`/openid`, hybrid with `openid.spark.combined_flow`) and
/// API-key sessions, whose requests carry `AuthToken` and an `ApiSig` signature instead of a bearer token.
public final class SparkSignInMock: MockSignInExtension {
    private struct State {
        var secrets: [String: String] = [:]  // ApiKey → secret
        var sessions: [String: String] = [:]  // AuthToken → ApiKey
        var trustedSignatures: [String: String] = [:]  // ApiKey → a session signature taken as valid
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets `key` open API-key sessions signed with `secret`.
    public func registerAPIKey(_ key: String, secret: String) { state.withLock { $0.secrets[key] = secret } }

    /// Takes `signature` as valid for opening a session with `key` (for replaying a recorded session request,
    /// whose secret the mock cannot know).
    public func trustSessionSignature(_ signature: String, forKey key: String) {
        state.withLock { state in
            state.trustedSignatures[key] = signature
            if state.secrets[key] == nil { state.secrets[key] = "" }
        }
    }

    public func handle(
        _ request: MockRequest, segments: [String], identity: MockIdentity, server: MockServer
    ) async -> MockResponse? {
        guard request.method == "GET", segments == ["openid"] else { return nil }
        // `checkid_setup` answers `id_res` with an identity, and in the hybrid flow an OAuth 2 code to exchange
        // at `/v1/oauth2/grant`.
        guard let returnTo = request.queryValue("openid.return_to") else {
            return MockResponse(status: 400, json: ["error": "openid.return_to is required"])
        }
        var parameters = [
            ("openid.mode", "id_res"), ("openid.identity", "https://sparkplatform.com/openid/id/mock-user"),
        ]
        if request.queryValue("openid.spark.combined_flow") == "true" {
            parameters.append(("openid.spark.code", identity.newCode(challenge: nil)))
        }
        parameters += [("openid.sreg.email", "agent@example.com"), ("openid.sreg.fullname", "Mock Agent")]
        return identity.redirect(to: returnTo, parameters)
    }

    /// A request with `AuthToken` is signed: MD5(secret + "ApiKey" + key + "ServicePath" + path + sorted
    /// parameters + body).
    public func check(_ request: MockRequest, identity: MockIdentity) -> MockIdentity.Check? {
        guard let authToken = request.queryValue("AuthToken") else { return nil }
        guard
            let (key, secret) = state.withLock({ state in
                state.sessions[authToken].flatMap { key in state.secrets[key].map { (key, $0) } }
            })
        else {
            return identity.validity(of: authToken) == .expired ? .expired : .missing
        }
        let parameters = request.query.filter { $0.name != "ApiSig" }.map { ($0.name, $0.value) }
        let expected = SparkSignature(apiKey: key, secret: secret)
            .request(
                path: request.path.removingPercentEncoding ?? request.path, parameters: parameters, body: request.body)
        guard request.queryValue("ApiSig") == expected else { return .badSignature }
        return identity.validity(of: authToken)
    }

    /// `POST /v1/session?ApiKey=K&ApiSig=MD5(secret + "ApiKey" + K)`: a session token.
    func openSession(_ request: MockRequest, server: MockServer) -> MockResponse {
        let key = request.queryValue("ApiKey") ?? ""
        let (secret, trusted) = state.withLock { ($0.secrets[key], $0.trustedSignatures[key]) }
        let signature = request.queryValue("ApiSig")
        guard let secret,
            signature == SparkSignature(apiKey: key, secret: secret).session || (trusted != nil && signature == trusted)
        else {
            return server.errorResponse(401, code: "1000", message: "Invalid API key and/or request signed improperly")
        }
        let token = server.identity.issueAccessToken(prefix: "session")
        state.withLock { $0.sessions[token] = key }
        return server.single([
            "AuthToken": .string(token),
            "Expires": .string(MockServer.isoDate(Date(timeIntervalSinceNow: server.identity.lifetime))),
            "Roles": ["idx"],
        ])
    }
}

extension MockIdentity {
    /// Spark's sign-in on this identity, added on first use.
    public var spark: SparkSignInMock {
        if let spark = signIn(SparkSignInMock.self) { return spark }
        add(SparkSignInMock())
        return signIn(SparkSignInMock.self)!
    }

    /// Lets `key` open Spark API-key sessions signed with `secret`.
    public func registerSparkAPIKey(_ key: String, secret: String) { spark.registerAPIKey(key, secret: secret) }
}

extension MockOperation {
    /// Spark `/v1/oauth2/grant`: authorization code (from the OpenID hybrid flow), refresh token, password.
    static let sparkGrant = MockOperation(
        requiresAuthorization: false,
        prepare: { fixture, server in
            if let code = fixture.requestBody?["code"]?.stringValue { server.identity.acceptCode(code) }
            if let refresh = fixture.requestBody?["refresh_token"]?.stringValue {
                server.identity.acceptRefreshToken(refresh)
            }
        },
        handle: { call in
            var grant: [String: String] = [:]
            for member in call.request.json?.objectValue ?? [:] { grant[member.key] = member.value.text }
            return await call.server.identity.token(grant: grant)
        })

    /// Spark `PUT /v1/notifications/{Ids}` with `{"Read": true}`: marks each of the comma-separated notifications the
    /// store holds, and answers success without results (the ids are a list, not one stored item to update).
    static let sparkMarkNotificationsRead = MockOperation { call in
        let read = call.body?["Read"] ?? .bool(true)
        for id in (call.resourcePath.last ?? "").split(separator: ",") {
            _ = call.store.update(at: call.store.locate(["notifications", String(id)]), merging: ["Read": read])
        }
        return MockResponse(status: 200, json: ["D": ["Success": true]])
    }

    /// Spark `/v1/session`: an API-key session (see `MockIdentity.registerSparkAPIKey`).
    static let sparkSession = MockOperation(
        requiresAuthorization: false,
        prepare: { fixture, server in
            let query = Dictionary(fixture.query, uniquingKeysWith: { _, last in last })
            if let key = query["ApiKey"], let signature = query["ApiSig"] {
                server.identity.spark.trustSessionSignature(signature, forKey: key)
            }
        },
        handle: { call in
            call.server.identity.spark.openSession(call.request, server: call.server)
        })
}
