import Foundation
import HTTPTypes

/// Sends HTTP requests: one protocol for every transport (libcurl, URLSession, a test double).
///
/// A transport sends exactly what it is given: it follows no redirects, retries nothing and adds no
/// credentials. Those belong to the client's middleware, so they behave the same over every transport.
/// Failures to exchange a response are thrown as `BinderyError`s of a system kind (`connection`,
/// `tls`, `timeout`, `cancelled`).
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> APIResponse
}

extension HTTPTransport {
    /// Sends a request with an in-memory body and returns the status, headers and body.
    public func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8]) {
        let response = try await send(TransportRequest(request, body: body.map(RequestBody.bytes)))
        return (HTTPResponse(status: response.status, headerFields: response.headers), response.body)
    }
}

/// A request as a transport sends it: the head, a body that can be sent again, and how to transfer it.
public struct TransportRequest: Sendable {
    public var head: HTTPRequest
    public var body: RequestBody?
    public var options: TransferOptions
    /// False when the URL's host is not one the credentials were issued for: the chain then removes
    /// `Authorization` and `Cookie` before the transport sees the request, and auth adds none.
    public var sendsCredentials = true

    public init(_ head: HTTPRequest, body: RequestBody? = nil, options: TransferOptions = TransferOptions()) {
        self.head = head
        self.body = body
        self.options = options
    }

    /// Whether sending the request twice has the effect of sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        [.get, .head, .options, .trace, .put, .delete].contains(head.method)
    }
}

/// A request body. Both forms can be read again from the start, so retries and redirects can resend it.
public enum RequestBody: Sendable, Hashable {
    case bytes([UInt8])
    /// Streamed from a file as it is sent; the file is never read into memory whole.
    case file(path: String)

    /// The body's length in bytes, or nil when the file cannot be read.
    public var count: Int64? {
        switch self {
        case .bytes(let bytes): return Int64(bytes.count)
        case .file(let path):
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
            return size?.int64Value
        }
    }
}

/// How one transfer runs, beyond its bytes.
public struct TransferOptions: Sendable {
    /// Write a successful (2xx) response body to this file instead of memory; the response's `body` is
    /// then empty. Error bodies are kept in memory so they can be parsed.
    public var downloadPath: String?
    /// Called as bytes move, from the transport's own thread; keep it short.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// The most the whole exchange may take, or nil for the transport's default.
    public var timeout: Duration?

    public init(
        downloadPath: String? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil, timeout: Duration? = nil
    ) {
        self.downloadPath = downloadPath
        self.progress = progress
        self.timeout = timeout
    }
}

/// Bytes moved so far; the totals are nil while unknown (no `Content-Length` yet).
public struct TransferProgress: Sendable, Hashable {
    public var sent: Int64
    public var totalToSend: Int64?
    public var received: Int64
    public var totalToReceive: Int64?

    public init(sent: Int64, totalToSend: Int64?, received: Int64, totalToReceive: Int64?) {
        self.sent = sent
        self.totalToSend = totalToSend
        self.received = received
        self.totalToReceive = totalToReceive
    }
}
