import Foundation
import HTTPTypes
import Logging

/// Adds the headers every request should carry unless the caller set them: a `User-Agent` and a
/// fresh `client-request-id` (Graph echoes it in responses and errors, which ties a log line to a
/// service-side trace). Retries of one request keep its id.
public struct HeadersMiddleware: HTTPMiddleware {
    public var userAgent: String

    public init(userAgent: String = HeadersMiddleware.defaultUserAgent) { self.userAgent = userAgent }

    public static let defaultUserAgent: String = {
        #if os(Linux)
            "Bindery/0.1 (Swift; Linux)"
        #else
            "Bindery/0.1 (Swift; Apple)"
        #endif
    }()

    public func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        var request = request
        if request.head.headerFields[.userAgent] == nil { request.head.headerFields[.userAgent] = userAgent }
        if request.head.headerFields[Self.clientRequestID] == nil {
            request.head.headerFields[Self.clientRequestID] = UUID().uuidString.lowercased()
        }
        return try await next(request)
    }

    public static let clientRequestID = HTTPField.Name("client-request-id")!
}

extension Array where Element == any HTTPMiddleware {
    /// The chain a client gets unless it says otherwise: headers, retry, redirects. Nothing is logged: a library
    /// writes no output the app did not ask for (`defaults(logger:)` logs to the app's logger).
    /// Auth, when configured, is added after these, next to the transport.
    public static var defaults: [any HTTPMiddleware] {
        [HeadersMiddleware(), RetryMiddleware(), RedirectMiddleware()]
    }

    /// The defaults, and one line per exchange to `logger`, secrets redacted (`LoggingMiddleware`).
    public static func defaults(logger: Logger) -> [any HTTPMiddleware] {
        defaults + [LoggingMiddleware(logger: logger)]
    }
}
