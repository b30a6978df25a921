import BinderyRuntime
import Foundation

/// Inbox: the hosted OAuth page, and requests authorized with the token as the Basic user name.
public enum InboxSignIn {
    /// The authorize URL with the user's email as the login hint (`response_type=token` is the
    /// hosted flow for apps; servers use `code` and exchange it with their secret).
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
