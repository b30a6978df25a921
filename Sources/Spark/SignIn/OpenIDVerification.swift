import BinderyRuntime
import Foundation
import HTTPTypes
import Synchronization

/// A relying party's checks of an OpenID 2.0 positive assertion (OpenID Authentication 2.0, section 11): a callback
/// is a URL anyone can type, so nothing in it is believed until the provider confirms it.
extension SparkSignIn {
    /// How far a `openid.response_nonce` timestamp may be from now: older assertions are refused, and nonces are
    /// remembered for as long.
    public static let nonceLifetime: TimeInterval = 300

    /// Verifies an OpenID callback and reads it. For a positive assertion (`openid.mode=id_res`):
    /// - `openid.return_to` is this app's `redirectURI`, and the callback arrived there;
    /// - `openid.response_nonce` is recent and seen for the first time (`nonces`);
    /// - the provider at `openIDBase/openid` — never an endpoint the callback names — confirms the assertion with
    ///   `check_authentication` (direct verification), so a forged or tampered callback is refused.
    /// A failed check is an `authorization` error whose `serviceCode` says which (`openid.return_to`,
    /// `openid.response_nonce`, `openid.check_authentication`); nothing is exchanged and no session begins.
    public func verify(
        callback: URL, nonces: OpenIDNonces = .shared, transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = .defaults
    ) async throws(BinderyError) -> OpenIDResult {
        let result = try Self.parseCallback(callback)
        switch result {
        case .cancelled: return result
        case .code, .identity:
            return try await verified(callback, result, nonces: nonces, transport: transport, middleware: middleware)
        }
    }

    private func verified(
        _ callback: URL, _ result: OpenIDResult, nonces: OpenIDNonces, transport: any HTTPTransport,
        middleware: [any HTTPMiddleware]
    ) async throws(BinderyError) -> OpenIDResult {
        let fields = OAuth2Client.formValues(in: callback)
        var values: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix("openid.") {
            // A field given twice could be read one way here and another way by the provider.
            guard values.updateValue(value, forKey: name) == nil else {
                throw Self.refused("openid.signed", "repeats \(name)")
            }
        }
        try checkReturnTo(values["openid.return_to"], callback: callback)
        let nonce = try Self.checkedNonce(values["openid.response_nonce"], nonces: nonces)
        // The provider's signature covers only the fields it lists: whatever this sign-in believes must be among
        // them, and the assertion must come from the configured provider.
        let signed = Set((values["openid.signed"] ?? "").split(separator: ",").map { "openid." + $0 })
        for name in ["openid.return_to", "openid.response_nonce", "openid.op_endpoint", "openid.assoc_handle"]
            + ["openid.claimed_id", "openid.identity", "openid.spark.code"].filter({ values[$0] != nil })
        where !signed.contains(name) {
            throw Self.refused("openid.signed", "does not sign \(name)")
        }
        guard values["openid.op_endpoint"] == openIDBase.appendingPathComponent("openid").absoluteString else {
            throw Self.refused("openid.op_endpoint", "comes from another provider")
        }

        // Direct verification: the fields exactly as received, the mode changed.
        var parameters = fields.filter { $0.0.hasPrefix("openid.") && $0.0 != "openid.mode" }
        parameters.append(("openid.mode", "check_authentication"))
        var request = TransportRequest(
            HTTPRequest(method: .post, url: openIDBase.appendingPathComponent("openid")),
            body: .bytes(Array(OAuth2Client.form(parameters).utf8)))
        request.head.headerFields[.contentType] = "application/x-www-form-urlencoded"
        if let userAgent { request.head.headerFields.append(contentsOf: Self.headers(userAgent: userAgent)) }
        let answer: APIResponse
        do {
            // Asked of the configured provider itself: a redirect elsewhere is not followed.
            let chain = MiddlewareChain(middleware.filter { !($0 is RedirectMiddleware) }, transport: transport)
            answer = try await chain.send(request)
        } catch let error as BinderyError {
            throw error
        } catch {
            throw BinderyError(kind: .connection, message: "the OpenID provider could not be asked: \(error)")
        }
        // Key-value form: `is_valid:true` on a line of its own.
        let lines = String(decoding: answer.body, as: UTF8.self).split(whereSeparator: \.isNewline)
        guard answer.status.kind == .successful, lines.contains("is_valid:true") else {
            throw BinderyError(
                kind: .authorization, message: "the OpenID provider did not confirm this sign-in",
                serviceCode: "openid.check_authentication")
        }
        // Remembered only once confirmed: a refused callback does not use up a real one's nonce.
        guard nonces.insert(nonce) else { throw Self.replayed }
        // Attributes the provider did not sign are dropped: anyone could have added them to the URL.
        if case .identity(let identity, let attributes) = result {
            return .identity(
                identity,
                attributes: attributes.filter { name, _ in
                    signed.contains("openid.sreg.\(name)") || signed.contains("openid.ax.value.\(name)")
                })
        }
        return result
    }

    private static func refused(_ code: String, _ what: String) -> BinderyError {
        BinderyError(kind: .authorization, message: "the OpenID callback \(what)", serviceCode: code)
    }

    /// `openid.return_to` must be this app's redirect URI, and the callback must have arrived at it with the
    /// query it carries (section 11.1).
    private func checkReturnTo(_ returnTo: String?, callback: URL) throws(BinderyError) {
        func base(_ url: URL?) -> String? {
            guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
            return "\(components.scheme ?? "")://\(components.host ?? ""):\(components.port ?? 0)\(components.path)"
        }
        let returnURL = returnTo.flatMap(URL.init(string:))
        let expected = base(URL(string: redirectURI))
        let arrived = Dictionary(OAuth2Client.formValues(in: callback), uniquingKeysWith: { first, _ in first })
        guard let returnURL, base(returnURL) == expected, base(callback) == expected,
            OAuth2Client.formValues(in: returnURL).allSatisfy({ arrived[$0.0] == $0.1 })
        else {
            throw BinderyError(
                kind: .authorization, message: "the OpenID callback was not made for this app's redirect URI",
                serviceCode: "openid.return_to")
        }
    }

    /// `2026-11-27T10:00:00Zunique`: a timestamp within `nonceLifetime` of now, not seen before.
    private static func checkedNonce(_ nonce: String?, nonces: OpenIDNonces) throws(BinderyError) -> String {
        // Issued at most `nonceLifetime` ago and at most a minute ahead (clock skew): `OpenIDNonces` keeps each
        // accepted nonce longer than that, so it cannot be accepted twice.
        guard let nonce, nonce.count > 20,
            let issued = ISO8601DateFormatter().date(from: String(nonce.prefix(20))),
            issued.timeIntervalSinceNow >= -nonceLifetime, issued.timeIntervalSinceNow <= 60
        else {
            throw BinderyError(
                kind: .authorization, message: "the OpenID callback has no recent openid.response_nonce",
                serviceCode: "openid.response_nonce")
        }
        guard !nonces.contains(nonce) else { throw replayed }
        return nonce
    }

    private static var replayed: BinderyError {
        BinderyError(
            kind: .authorization, message: "this OpenID callback was already used", serviceCode: "openid.response_nonce"
        )
    }

    /// Attribute Exchange type URIs for the attributes Simple Registration also names.
    static let attributeTypes = [
        "email": "http://axschema.org/contact/email", "fullname": "http://axschema.org/namePerson",
        "nickname": "http://axschema.org/namePerson/friendly", "firstname": "http://axschema.org/namePerson/first",
        "lastname": "http://axschema.org/namePerson/last",
    ]
}

/// The response nonces of OpenID callbacks already accepted, each kept for `SparkSignIn.nonceLifetime` (an older
/// callback is refused for its age), so the set stays as small as the sign-ins of the last few minutes.
public final class OpenIDNonces: Sendable {
    public static let shared = OpenIDNonces()

    private let seen = Mutex<[String: Date]>([:])

    public init() {}

    func contains(_ nonce: String) -> Bool { seen.withLock { $0[nonce] != nil } }

    /// Records `nonce`; false when it was already there.
    func insert(_ nonce: String) -> Bool {
        let now = Date()
        return seen.withLock { seen in
            // Kept past the oldest issue time still accepted, with a minute for a provider clock that runs ahead.
            seen = seen.filter { now.timeIntervalSince($0.value) <= SparkSignIn.nonceLifetime + 60 }
            return seen.updateValue(now, forKey: nonce) == nil
        }
    }
}
