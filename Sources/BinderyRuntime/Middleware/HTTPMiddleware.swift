import HTTPTypes

/// One step between a client and its transport: it may change the request, send it zero or more
/// times through `next`, and change the response (retry, redirects, auth, logging).
///
/// The client owns an ordered chain; the first middleware sees the request first and the response last.
public protocol HTTPMiddleware: Sendable {
    func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse
}

/// A chain of middleware ending in a transport, itself a transport.
public struct MiddlewareChain: HTTPTransport {
    public let middleware: [any HTTPMiddleware]
    public let transport: any HTTPTransport

    public init(_ middleware: [any HTTPMiddleware], transport: any HTTPTransport) {
        self.middleware = middleware
        self.transport = transport
    }

    public func send(_ request: TransportRequest) async throws -> APIResponse {
        try await send(request, from: 0)
    }

    private func send(_ request: TransportRequest, from index: Int) async throws -> APIResponse {
        guard index < middleware.count else {
            // The last word on credentials, whatever the middleware did.
            var request = request
            if !request.sendsCredentials { request.head.headerFields.removeCredentials() }
            return try await transport.send(request)
        }
        return try await middleware[index].intercept(request) { [self] next in
            try await send(next, from: index + 1)
        }
    }
}

extension HTTPFields {
    /// Removes what identifies the caller: `Authorization`, `Cookie` and `Proxy-Authorization`.
    mutating func removeCredentials() {
        self[.authorization] = nil
        self[.cookie] = nil
        self[.proxyAuthorization] = nil
    }
}
