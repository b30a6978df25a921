import Foundation
import HTTPTypes

/// What every generated client holds: where the service is, how to reach it, and how it speaks.
///
/// Generated builders only describe requests (`APIRequest`); this is the one place they are sent,
/// through the middleware chain (retry, redirects, auth, logging) and then the transport.
public struct ServiceClient: Sendable {
    public var baseURL: URL
    /// The hosts credentials may go to: the base URL's host unless configured otherwise. Next links,
    /// delta links and redirects elsewhere are followed without `Authorization` and cookies.
    public var trustedHosts: Set<String>
    public var conventions: ServiceConventions
    /// Sent with every request.
    public var defaultHeaders: HTTPFields
    /// The transport and the middleware in front of it, in order.
    public var pipeline: MiddlewareChain
    /// An API's older URL forms, by method and current last segment (`"POST copy"` → `action.copy`): when set, a
    /// request whose last segment has one is sent in that form, a function's arguments as query parameters
    /// (`delta(token='t')` → `view.delta?token=t`). From `RouteTable.legacySegments`; empty sends current forms.
    public var legacySegments: [String: String] = [:]

    public init(
        baseURL: URL, transport: any HTTPTransport, middleware: [any HTTPMiddleware] = .defaults,
        conventions: ServiceConventions, defaultHeaders: HTTPFields = [:], trustedHosts: Set<String>? = nil
    ) {
        self.baseURL = baseURL
        self.trustedHosts = trustedHosts ?? Set([baseURL.host].compactMap { $0 })
        self.conventions = conventions
        self.defaultHeaders = defaultHeaders
        self.pipeline = MiddlewareChain(middleware, transport: transport)
    }

    /// Whether credentials may be sent to this URL: a trusted host, and on the base URL's host its port too
    /// (another port of the same machine is another server), on another trusted host the scheme's default.
    public func isTrusted(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased(), trustedHosts.contains(where: { $0.lowercased() == host }) else {
            return false
        }
        let expected = host == baseURL.host?.lowercased() ? Self.port(of: baseURL) : Self.defaultPort(url)
        return Self.port(of: url) == expected
    }

    private static func port(of url: URL) -> Int? { url.port ?? defaultPort(url) }

    private static func defaultPort(_ url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// Sends a request and returns the response when its status is a success; otherwise throws the
    /// service's error, read by the service's error shape.
    public func send(_ request: APIRequest, options: TransferOptions = TransferOptions()) async throws(BinderyError)
        -> APIResponse
    {
        var request = request
        if !legacySegments.isEmpty, request.absoluteURL == nil { request.useLegacySegment(legacySegments) }
        let url = request.url(relativeTo: baseURL)
        let trusted = isTrusted(url)
        // The client's own headers can carry credentials (an API key in `X-API-Key`): a host the client does not
        // trust (a next link or an upload URL elsewhere) gets only the request's.
        var fields = trusted ? defaultHeaders : HTTPFields()
        for field in request.headers { fields[field.name] = field.value }
        var outgoing = TransportRequest(
            HTTPRequest(method: request.method, url: url, headerFields: fields),
            body: request.body, options: options)
        outgoing.sendsCredentials = trusted
        let response: APIResponse
        do {
            response = try await pipeline.send(outgoing)
        } catch {
            throw BinderyError.system(error)
        }
        guard response.status.kind == .successful else {
            throw ErrorParser.parse(response, shape: conventions.errors)
        }
        return response
    }

    /// Decodes a model from a response body, unwrapping the service's envelope; from `path` instead when the
    /// operation puts it elsewhere (Spark's `_pagination=count` answers `D.Pagination`).
    public func decodeModel<Decoded: JSONModel>(
        _ type: Decoded.Type, from response: APIResponse, at path: [String]? = nil
    )
        throws(BinderyError) -> Decoded
    {
        let root = try conventions.checkEnvelope(try response.json(), response: response)
        guard case .object(let object)? = path.map({ root.value(at: $0) }) ?? conventions.unwrapSingle(root) else {
            let place = path.map { " at " + $0.joined(separator: ".") } ?? ""
            throw BinderyError.invalidResponse(
                "expected a \(Decoded.schema.typeName) object\(place) in the response", response: response)
        }
        do {
            return try Decoded(validating: object)
        } catch {
            throw BinderyError.decoding(error, response: response)
        }
    }

    /// The same client for an operation whose bodies the service sends bare, outside its usual envelope
    /// (Spark's OAuth grant answers plain JSON).
    public var withoutEnvelope: ServiceClient {
        var copy = self
        copy.conventions.listShape = .bare
        copy.conventions.requestEnvelope = []
        return copy
    }

    /// Encodes a model as a request body, wrapped in the service's envelope, without the members the service sets
    /// (`requestMembers`).
    public func body(for model: some JSONModel) -> JSONValue {
        conventions.wrapRequestBody(.object(model.requestMembers))
    }
}

extension BinderyError {
    /// Any error from a transport or middleware as a `BinderyError`: kept as it is when it already is one.
    static func system(_ error: any Error) -> BinderyError {
        if let error = error as? BinderyError { return error }
        if error is CancellationError {
            return BinderyError(kind: .cancelled, message: "the task was cancelled", underlying: error)
        }
        return BinderyError(kind: .connection, message: "\(error)", underlying: error)
    }
}
