import Foundation

/// Every failure the runtime reports: one struct that can grow without breaking callers.
///
/// An **API error** (`kind == .api`) means the service answered with an error status: it carries the
/// status, the service's own code, message and details, the request id and the raw body. Every other
/// kind is a **system error**: the exchange did not complete (`connection`, `tls`, `timeout`,
/// `cancelled`) or the body is not what the spec promised (`invalidResponse`, `decoding`). The split
/// is the OneNote picker's "API error versus system error".
public struct BinderyError: Error, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: String, Hashable, Sendable {
            case api, connection, tls, timeout, cancelled, invalidResponse, decoding, pagingLoop
            case tooManyRedirects, interactionRequired, authorization, storage, refused
        }

        private let code: Code

        /// The service answered with an error status.
        public static let api = Kind(code: .api)
        /// No connection, or it broke before a whole response arrived (refused, reset, DNS).
        public static let connection = Kind(code: .connection)
        /// The TLS handshake or certificate check failed.
        public static let tls = Kind(code: .tls)
        /// The connect or total timeout passed.
        public static let timeout = Kind(code: .timeout)
        /// The task was cancelled; the transfer was aborted.
        public static let cancelled = Kind(code: .cancelled)
        /// The body is not what any dialect promised: empty, truncated, HTML, not JSON.
        public static let invalidResponse = Kind(code: .invalidResponse)
        /// The body is JSON, but a value does not match the spec.
        public static let decoding = Kind(code: .decoding)
        /// A next link repeated an earlier one; following it would never end.
        public static let pagingLoop = Kind(code: .pagingLoop)
        /// More redirects than the client follows.
        public static let tooManyRedirects = Kind(code: .tooManyRedirects)
        /// No usable token: the user must sign in again.
        public static let interactionRequired = Kind(code: .interactionRequired)
        /// A sign-in step failed: the identity provider answered with an OAuth error, the `state` of a
        /// callback did not match, the user cancelled.
        public static let authorization = Kind(code: .authorization)
        /// A token file could not be read or written, or its contents are not a token.
        public static let storage = Kind(code: .storage)
        /// The spec says the service refuses this method at this URL (OData capability restrictions, such as
        /// `POST /drives`); nothing was sent.
        public static let refused = Kind(code: .refused)

        public var description: String { code.rawValue }
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// The service's own error code (`itemNotFound`, Spark's `1020`, Inbox's `invalid_request_error`).
    public var serviceCode: String?
    /// The rest of the service's error: OData `innerError`, Spark `Details`, Nylas `provider_error`.
    public var details: JSONValue?
    public var requestID: String?
    /// When the service says the error happened (OData `innerError.date`, the `Date` header).
    public var date: String?
    /// How long the service asked callers to wait (`Retry-After`).
    public var retryAfter: Duration?
    /// Where the service documents the error (legacy OneNote `@api.url`).
    public var helpURL: String?
    /// The response body as received, for anything the fields above do not cover.
    public var body: [UInt8]?
    public var underlying: (any Error)?

    public init(
        kind: Kind, message: String, status: Int? = nil, serviceCode: String? = nil, details: JSONValue? = nil,
        requestID: String? = nil, date: String? = nil, retryAfter: Duration? = nil, helpURL: String? = nil,
        body: [UInt8]? = nil, underlying: (any Error)? = nil
    ) {
        self.kind = kind
        self.message = message
        self.status = status
        self.serviceCode = serviceCode
        self.details = details
        self.requestID = requestID
        self.date = date
        self.retryAfter = retryAfter
        self.helpURL = helpURL
        self.body = body
        self.underlying = underlying
    }

    /// The service answered with an error (as opposed to a system error on our side of the wire).
    public var isAPIError: Bool { kind == .api }

    public var description: String {
        var text = "\(kind) error"
        if let status { text += " (HTTP \(status))" }
        if let serviceCode { text += " [\(serviceCode)]" }
        text += ": " + message
        if let requestID { text += " (request-id \(requestID))" }
        return text
    }

    /// A body that is not what the service promised (for handwritten conveniences beside generated code too).
    public static func invalidResponse(_ message: String, response: APIResponse?) -> BinderyError {
        BinderyError(kind: .invalidResponse, message: message, status: response?.status.code, body: response?.body)
    }
}
