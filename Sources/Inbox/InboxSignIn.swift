import BinderyRuntime
import Foundation

/// Inbox: the hosted OAuth page, and requests authorized with the token as the Basic user name.
public enum InboxSignIn {
    /// The authorize URL with the user's email as the login hint (`response_type=token` is the
    /// hosted flow for apps; servers use `code` and exchange it with their secret). It carries no `state`:
    /// `InboxHostedSignIn` makes the URLs whose callbacks it can check.
    public static func authorizeURL(
        base: URL = URL(string: "https://api.inboxapp.com/oauth/authorize")!, clientID: String, redirectURI: String,
        email: String, responseType: String = "code"
    ) -> URL {
        OAuth2Client.url(
            base,
            adding: [
                ("client_id", clientID), ("response_type", responseType), ("redirect_uri", redirectURI),
                ("login_hint", email),
                ("scope", "email"),
            ])
    }

    /// The auth provider for an Inbox token: `Authorization: Basic base64(token + ":")`.
    public static func auth(token: String) -> StaticTokenAuth { StaticTokenAuth(token, scheme: .basicUser) }
}

/// Inbox's hosted OAuth, both flows it documents, from the browser to a stored token:
/// - for servers (`response_type=code`): the callback's code is exchanged at `/oauth/token` with the client secret;
/// - for apps without a secret (`response_type=token`): the token arrives in the callback's fragment.
/// Each sign-in has its own `state`, and a callback that does not carry it is refused. The token is saved in the
/// given store under the user's email; `InboxSignIn.auth(token:)` then signs requests with it.
public struct InboxHostedSignIn: Sendable {
    public var clientID: String
    /// Needed for the code flow only.
    public var clientSecret: String?
    public var redirectURI: String
    /// `https://api.inboxapp.com` unless tests point it elsewhere.
    public var base: URL

    public init(
        clientID: String, clientSecret: String? = nil, redirectURI: String,
        base: URL = URL(string: "https://api.inboxapp.com")!
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.base = base
    }

    public var oauth: OAuth2Configuration {
        OAuth2Configuration(
            authorizeURL: base.appendingPathComponent("oauth/authorize"),
            tokenURL: base.appendingPathComponent("oauth/token"), clientID: clientID, clientSecret: clientSecret,
            redirectURI: redirectURI, scopes: ["email"])
    }

    /// A sign-in to open in a browser; `email` fills in the login page.
    public func authorizationRequest(email: String, flow: Flow = .code) -> AuthorizationRequest {
        OAuth2Client(oauth).authorizationRequest(loginHint: email, responseType: flow == .code ? "code" : "token")
    }

    public enum Flow: Sendable { case code, token }

    /// Completes either flow from the callback: `state` checked, the code exchanged or the token read, and the
    /// token saved in `store` as `email`'s.
    public func complete(
        callback: URL, for request: AuthorizationRequest, email: String, store: any TokenStore,
        transport: any HTTPTransport = DefaultTransport.shared,
        middleware: [any HTTPMiddleware] = OAuth2Client.tokenEndpointDefaults
    ) async throws(BinderyError) -> Token {
        let token: Token
        if let fragment = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.percentEncodedFragment,
            fragment.contains("access_token=")
        {
            token = try Self.token(fromFragment: fragment, state: request.state, email: email)
        } else {
            token = try await OAuth2Client(oauth, transport: transport, middleware: middleware)
                .exchange(callback: callback, for: request, account: email)
        }
        try store.save(token)
        return token
    }

    /// `#access_token=…&state=…`: the token flow's answer, when its state is this sign-in's.
    static func token(fromFragment fragment: String, state: String, email: String) throws(BinderyError) -> Token {
        var values: [String: String] = [:]
        for (name, value) in PercentEncoding.formValues(fragment) { values[name] = value }
        guard values["state"] == state else {
            throw BinderyError(
                kind: .authorization,
                message: "the callback's state does not match this sign-in; it was not started here")
        }
        guard let accessToken = values["access_token"], !accessToken.isEmpty else {
            throw BinderyError(kind: .authorization, message: "the callback carries no access token")
        }
        return Token(accessToken: accessToken, account: email)
    }
}
