import Foundation
import HTTPTypes

/// Sends HTTP requests. One protocol for every transport (libcurl, URLSession, a test double).
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> (HTTPResponse, [UInt8])
}

/// What every generated client holds: where the service is, how to reach it, and how it speaks.
///
/// Generated builders only describe requests (`APIRequest`); this is the one place they are sent,
/// so credentials, retries and logging have a single seam.
public struct ServiceClient: Sendable {
    public var baseURL: URL
    public var transport: any HTTPTransport
    public var conventions: ServiceConventions
    /// Sent with every request (`User-Agent`, `Authorization` until auth providers arrive).
    public var defaultHeaders: HTTPFields

    public init(
        baseURL: URL, transport: any HTTPTransport, conventions: ServiceConventions, defaultHeaders: HTTPFields = [:]
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.conventions = conventions
        self.defaultHeaders = defaultHeaders
    }

    /// Sends a request and returns the response when its status is a success; otherwise throws the
    /// service's error, parsed in the service's dialect.
    public func send(_ request: APIRequest) async throws(BinderyError) -> APIResponse {
        let url = request.url(relativeTo: baseURL)
        var fields = defaultHeaders
        for field in request.headers { fields[field.name] = field.value }
        // Credentials belong to the configured host only; a link elsewhere goes without them.
        if url.host != baseURL.host { fields[.authorization] = nil }
        let httpRequest = HTTPRequest(method: request.method, url: url, headerFields: fields)
        let response: APIResponse
        do {
            let (head, body) = try await transport.send(httpRequest, body: request.body)
            response = APIResponse(status: head.status, headers: head.headerFields, body: body)
        } catch let error as BinderyError {
            throw error
        } catch {
            throw BinderyError(kind: .transport, message: "\(error)", underlying: error)
        }
        guard response.status.kind == .successful else {
            throw ErrorParser.parse(response, dialect: conventions.errors)
        }
        return response
    }

    /// Decodes a model from a response body, unwrapping the service's envelope.
    public func decodeModel<Model: JSONModel>(_ type: Model.Type, from response: APIResponse) throws(BinderyError) -> Model {
        let root = try response.json()
        guard case .object(let object)? = conventions.unwrapSingle(root) else {
            throw BinderyError.invalidResponse("expected a \(Model.schema.typeName) object in the response", response: response)
        }
        do {
            return try Model(validating: object)
        } catch {
            throw BinderyError.decoding(error, response: response)
        }
    }

    /// Encodes a model as a request body, wrapped in the service's envelope.
    public func body(for model: some JSONModel) -> JSONValue {
        conventions.wrapRequestBody(.object(model.storage))
    }
}
