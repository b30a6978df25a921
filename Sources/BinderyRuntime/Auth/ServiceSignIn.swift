import Foundation

/// Microsoft identity platform (Graph, OneDrive, OneNote): `{authority}/{tenant}/oauth2/v2.0/…`.
public enum MicrosoftIdentity {
    public static let defaultAuthority = URL(string: "https://login.microsoftonline.com")!

    /// - Parameters:
    ///   - tenant: `common`, `organizations`, `consumers` or a tenant id.
    ///   - scopes: e.g. `["Files.ReadWrite", "Notes.Read", "Mail.Send", "offline_access"]`; without
    ///     `offline_access` no refresh token is issued and every expiry means signing in again.
    ///   - authority: Where the endpoints live; tests point it at the mock server.
    public static func configuration(
        clientID: String, tenant: String = "common", scopes: [String], redirectURI: String? = nil,
        clientSecret: String? = nil, authority: URL = defaultAuthority
    ) -> OAuth2Configuration {
        let base = authority.appendingPathComponent(tenant).appendingPathComponent("oauth2/v2.0")
        return OAuth2Configuration(
            authorizeURL: base.appendingPathComponent("authorize"), tokenURL: base.appendingPathComponent("token"),
            deviceCodeURL: base.appendingPathComponent("devicecode"), clientID: clientID, clientSecret: clientSecret,
            redirectURI: redirectURI, scopes: scopes)
    }
}

/// Inbox: the hosted OAuth page, and requests authorized with the token as the Basic user name.
public enum InboxSignIn {
    /// The authorize URL with the user's email as the login hint (`response_type=token` is the
    /// hosted flow for apps; servers use `code` and exchange it with their secret).
    public static func authorizeURL(
        base: URL = URL(string: "https://api.inboxapp.com/oauth/authorize")!, clientID: String, redirectURI: String,
        email: String, responseType: String = "code"
    ) -> URL {
        OAuth2Client.url(base, adding: [
            ("client_id", clientID), ("response_type", responseType), ("redirect_uri", redirectURI), ("login_hint", email),
            ("scope", "email"),
        ])
    }

    /// The auth provider for an Inbox token: `Authorization: Basic base64(token + ":")`.
    public static func auth(token: String) -> StaticTokenAuth { StaticTokenAuth(token, scheme: .basicUser) }
}
