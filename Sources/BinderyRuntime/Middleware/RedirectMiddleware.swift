import Foundation
import HTTPTypes

/// Follows redirects (301, 302, 303, 307, 308), at most `maxRedirects` in a row.
///
/// When a redirect leaves the request's origin (scheme, host and port), credentials stay behind:
/// the request goes on with `sendsCredentials` off, so neither `Authorization` nor cookies follow it.
/// 303, and 301/302 after a POST, continue as a GET without a body, as browsers and RFC 9110 do.
/// A redirect to a link-local address (`169.254.0.0/16`, `fe80::/10`: where cloud hosts serve instance
/// metadata and credentials) from anywhere else is not followed: it throws an `invalidResponse` error.
public struct RedirectMiddleware: HTTPMiddleware {
    public var maxRedirects: Int

    public init(maxRedirects: Int = 5) { self.maxRedirects = maxRedirects }

    public func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        var current = request
        var redirects = 0
        while true {
            let response = try await next(current)
            guard [301, 302, 303, 307, 308].contains(response.status.code),
                let location = response.headers[.location],
                let from = current.head.url,
                let target = Self.target(of: location, from: from)
            else { return response }
            guard redirects < maxRedirects else {
                throw BinderyError(
                    kind: .tooManyRedirects,
                    message: "more than \(maxRedirects) redirects; the last one went to \(target.absoluteString)",
                    status: response.status.code)
            }
            if Self.isLinkLocal(target), let origin = current.head.url, !Self.isLinkLocal(origin) {
                throw BinderyError(
                    kind: .invalidResponse,
                    message: "refused a redirect to the link-local address \(target.host ?? "")",
                    status: response.status.code)
            }
            redirects += 1
            let code = response.status.code
            if code == 303 || ((code == 301 || code == 302) && current.head.method == .post) {
                current.head.method = .get
                current.body = nil
                current.head.headerFields[.contentType] = nil
                current.head.headerFields[.contentLength] = nil
            }
            if !Self.sameOrigin(from, target) { current.sendsCredentials = false }
            current.head.url = target
        }
    }

    /// Where a `Location` sends a request made to `from`: resolved against it, and only to http or https.
    static func target(of location: String, from: URL) -> URL? {
        guard let target = URL(string: location, relativeTo: from)?.absoluteURL,
            target.scheme == "https" || target.scheme == "http"
        else { return nil }
        return target
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    /// Whether the URL's host is a link-local IPv4 or IPv6 address.
    static func isLinkLocal(_ url: URL) -> Bool {
        guard var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasPrefix("169.254.") { return true }
        guard host.contains(":"), let first = host.split(separator: ":", omittingEmptySubsequences: false).first,
            let group = UInt16(first, radix: 16)
        else { return false }
        return group & 0xFFC0 == 0xFE80
    }

    private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "http" ? 80 : 443 }
}
