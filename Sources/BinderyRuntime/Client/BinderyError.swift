import Foundation

/// Every failure the runtime reports: one struct that can grow without breaking callers.
///
/// `kind` says which layer failed; an API error (the service answered with an error status) carries the
/// status, the service's own code and message and the raw body, while system errors (transport, a body
/// that is not what the spec promised) carry what went wrong underneath.
public struct BinderyError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case api, transport, invalidResponse, decoding, pagingLoop, untrustedURL
        }

        private let code: Code

        /// The service answered with an error status.
        public static let api = Kind(code: .api)
        /// The request did not complete (connection, TLS, timeout, cancellation).
        public static let transport = Kind(code: .transport)
        /// The body is not what any dialect promised: empty, truncated, HTML, not JSON.
        public static let invalidResponse = Kind(code: .invalidResponse)
        /// The body is JSON, but a value does not match the spec.
        public static let decoding = Kind(code: .decoding)
        /// A next link repeated an earlier one; following it would never end.
        public static let pagingLoop = Kind(code: .pagingLoop)
        /// A next or delta link points to a host the client was not configured for.
        public static let untrustedURL = Kind(code: .untrustedURL)

        public var description: String { code.rawValue }
    }

    public let kind: Kind
    public let message: String
    /// The HTTP status, when there was a response.
    public let status: Int?
    /// The service's own error code (`itemNotFound`, Spark's `1020`, Inbox's `invalid_request_error`).
    public let serviceCode: String?
    public let requestID: String?
    /// The response body as received, for anything the fields above do not cover.
    public let body: [UInt8]?
    public let underlying: (any Error)?

    public init(
        kind: Kind, message: String, status: Int? = nil, serviceCode: String? = nil, requestID: String? = nil,
        body: [UInt8]? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.status = status
        self.serviceCode = serviceCode
        self.requestID = requestID
        self.body = body
        self.underlying = underlying
    }

    public var description: String {
        var text = "\(kind) error"
        if let status { text += " (HTTP \(status))" }
        if let serviceCode { text += " [\(serviceCode)]" }
        return text + ": " + message
    }

    static func invalidResponse(_ message: String, response: APIResponse) -> BinderyError {
        BinderyError(kind: .invalidResponse, message: message, status: response.status.code, body: response.body)
    }

    static func decoding(_ error: ModelDecodingError, response: APIResponse) -> BinderyError {
        BinderyError(
            kind: .decoding, message: error.description, status: response.status.code, body: response.body,
            underlying: error)
    }
}
