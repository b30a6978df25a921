import Foundation
import HTTPTypes

/// Puts credentials on requests and renews them when the service rejects them.
///
/// `AuthMiddleware` asks the provider to authorize each request that goes to a trusted host, and
/// when a response says the credentials expired (a 401, Spark's code 1020) it asks for one renewal
/// and replays the request once.
public protocol AuthProvider: Sendable {
    /// Adds credentials to the request (a header, or for signed schemes, query parameters).
    func authorize(_ request: inout TransportRequest) async throws
    /// Whether this response means the credentials the request carried are no longer accepted.
    func shouldRenew(after response: APIResponse) -> Bool
    /// Renews the credentials `request` carried. Returns false when renewal is impossible (no refresh
    /// token), in which case the response is returned as it was. Concurrent callers share one renewal.
    func renew(rejected request: TransportRequest) async throws -> Bool
}

/// Authorizes every request to a trusted host and renews at most once per request.
public struct AuthMiddleware: HTTPMiddleware {
    public let provider: any AuthProvider

    public init(_ provider: any AuthProvider) { self.provider = provider }

    public func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        // Next links, delta links and redirects to other hosts never get credentials.
        guard request.sendsCredentials else { return try await next(request) }
        var authorized = request
        try await provider.authorize(&authorized)
        let response = try await next(authorized)
        guard provider.shouldRenew(after: response), try await provider.renew(rejected: authorized) else {
            return Self.marked(response, sentWith: authorized)
        }
        // One replay, with the original body; a second rejection is returned, never renewed again.
        var replay = request
        try await provider.authorize(&replay)
        return Self.marked(try await next(replay), sentWith: replay)
    }

    /// A failed response with the credentials its request carried, for the error parser to leave out.
    static func marked(_ response: APIResponse, sentWith request: TransportRequest) -> APIResponse {
        guard response.status.kind != .successful else { return response }
        var marked = response
        marked.credentialsSent = credentials(in: request)
        return marked
    }

    /// The secrets in a request: the `Authorization` credential (a Basic pair's user and password too) and the
    /// query's secret parameters (Spark's `ApiSig` and `AuthToken`).
    static func credentials(in request: TransportRequest) -> [String] {
        var secrets: [String] = []
        if let header = request.head.headerFields[.authorization],
            let credential = header.split(separator: " ", maxSplits: 1).last.map(String.init)
        {
            secrets.append(credential)
            if header.lowercased().hasPrefix("basic "), let data = Data(base64Encoded: credential) {
                secrets += String(decoding: data, as: UTF8.self).split(separator: ":").map(String.init)
            }
        }
        if let url = request.head.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems {
            secrets += items.filter { Redaction.isSecret($0.name) }.compactMap(\.value)
        }
        return secrets.filter { $0.count >= 4 }
    }
}

/// When a response means "your session expired".
public struct RenewalTrigger: Sendable {
    public let matches: @Sendable (APIResponse) -> Bool

    public init(_ matches: @escaping @Sendable (APIResponse) -> Bool) { self.matches = matches }

    /// Any 401 (Graph says `InvalidAuthenticationToken`; older services say less).
    public static let unauthorized = RenewalTrigger { $0.status.code == 401 }
}

/// How a token is written into the `Authorization` header.
public enum AuthorizationScheme: Sendable, Hashable {
    /// `Bearer <token>` (OAuth 2.0, RFC 6750): Microsoft, Nylas.
    case bearer
    /// `OAuth <token>`: Spark.
    case oauth
    /// HTTP Basic with the token as the user name and an empty password: Inbox.
    case basicUser

    public func header(for accessToken: String) -> String {
        switch self {
        case .bearer: return "Bearer \(accessToken)"
        case .oauth: return "OAuth \(accessToken)"
        case .basicUser: return "Basic " + Data((accessToken + ":").utf8).base64EncodedString()
        }
    }
}

/// A fixed token (an API key, a token obtained elsewhere): authorizes, never renews.
public struct StaticTokenAuth: AuthProvider {
    public let token: String
    public let scheme: AuthorizationScheme

    public init(_ token: String, scheme: AuthorizationScheme = .bearer) {
        self.token = token
        self.scheme = scheme
    }

    public func authorize(_ request: inout TransportRequest) async throws {
        request.head.headerFields[.authorization] = scheme.header(for: token)
    }

    public func shouldRenew(after response: APIResponse) -> Bool { false }
    public func renew(rejected request: TransportRequest) async throws -> Bool { false }
}

extension StaticTokenAuth: CustomStringConvertible, CustomReflectable {
    /// Leaves the token out, as `Token`'s description does.
    public var description: String { "StaticTokenAuth(\(scheme), token: \(Redaction.placeholder))" }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
