import Foundation
import HTTPTypes

/// Follows redirects (301, 302, 303, 307, 308), at most `maxRedirects` in a row.
///
/// When a redirect leaves the request's origin (scheme, host and port), credentials stay behind:
/// the request goes on with `sendsCredentials` off, so neither `Authorization` nor cookies follow it.
/// 303, and 301/302 after a POST, continue as a GET without a body, as browsers and RFC 9110 do.
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
                let target = URL(string: location, relativeTo: from)?.absoluteURL,
                target.scheme == "https" || target.scheme == "http"
            else { return response }
            guard redirects < maxRedirects else {
                throw BinderyError(
                    kind: .tooManyRedirects,
                    message: "more than \(maxRedirects) redirects; the last one went to \(target.absoluteString)",
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

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && (a.port ?? defaultPort(a)) == (b.port ?? defaultPort(b))
    }

    private static func defaultPort(_ url: URL) -> Int { url.scheme?.lowercased() == "http" ? 80 : 443 }
}
