import BinderyRuntime
import Foundation

/// Microsoft identity platform (Graph, OneDrive, OneNote): `{authority}/{tenant}/oauth2/v2.0/…`.
public enum MicrosoftIdentity {
    public static let defaultAuthority = URL(string: "https://login.microsoftonline.com")!

    /// - Parameters:
    ///   - clientID: The application (client) id of the app registration.
    ///   - tenant: `common`, `organizations`, `consumers` or a tenant id.
    ///   - scopes: e.g. `["Files.ReadWrite", "Notes.Read", "Mail.Send", "offline_access"]`; without
    ///     `offline_access` no refresh token is issued and every expiry means signing in again.
    ///   - redirectURI: Where the browser returns after an authorization-code sign-in, when the app has one.
    ///   - clientSecret: Only for confidential clients (servers and daemons).
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
