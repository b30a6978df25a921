import Foundation

/// What a sign-in yields: an access token, usually a refresh token, when it expires and for whom.
///
/// Its description never shows the secrets, so a token that ends up in a log or a test failure
/// does not leak.
public struct Token: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    public var accessToken: String
    public var refreshToken: String?
    public var expiresAt: Date?
    public var scopes: [String]
    /// Whose token this is: the key in a `TokenStore` (an email, a user id, "default").
    public var account: String
    /// OpenID Connect's ID token, when the flow returned one.
    public var idToken: String?

    public init(
        accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, scopes: [String] = [],
        account: String, idToken: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.account = account
        self.idToken = idToken
    }

    /// Whether the token can still be used at `date`, keeping `margin` for clock skew and for the
    /// request to reach the service. A token without an expiry is taken as valid.
    public func isValid(at date: Date = Date(), margin: Duration = .seconds(300)) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(date) > Double(margin.components.seconds)
    }

    public var description: String {
        let expiry = expiresAt.map { "expires \($0)" } ?? "no expiry"
        return
            "Token(account: \(account), \(expiry), scopes: \(scopes.joined(separator: " ")), refresh token: \(refreshToken == nil ? "no" : "yes"))"
    }

    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
