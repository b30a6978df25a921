import BinderyRuntime
import Foundation
import HTTPTypes

// Handwritten beside the generated code: the required user agent header, single-item reads (Spark answers one
// item as a one-element `Results` array), and SparkiOS's generic escape hatch for endpoints the spec leaves out.

extension SparkClient {
    /// A client that sends the `X-SparkApi-User-Agent` header Spark requires on every request.
    ///
    /// Sign in with `SparkSignIn` (hybrid OpenID + OAuth 2, `Authorization: OAuth <token>`) or
    /// `SparkAPIKeySession` (signed API-key sessions); both renew the session on error 1020.
    public init(
        userAgent: String, baseURL: URL = defaultBaseURL, auth: (any AuthProvider)? = nil,
        transport: any HTTPTransport = DefaultTransport.shared, middleware: [any HTTPMiddleware] = .defaults
    ) {
        var headers = HTTPFields()
        headers[HTTPField.Name("X-SparkApi-User-Agent")!] = userAgent
        self.init(baseURL: baseURL, auth: auth, transport: transport, middleware: middleware, headers: headers)
    }

    /// Any Spark endpoint, as SparkiOS's `get:`/`post:`/`put:`/`delete:` offer it: `path` is relative to the base
    /// URL (`"listings/20060412165917817933000000/openhouses"`, or a `ResourceUri` such as `"/v1/contacts/20…"`;
    /// each segment is percent-encoded on its own and `..` is dropped; a `?query` is read as parameters), the body
    /// is wrapped in `D`, and the answer's `D.Results` come back as JSON with the pagination, if any.
    public func api(
        _ method: HTTPRequest.Method, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil
    ) async throws(BinderyError) -> SparkResults {
        // `ResourceUri` values (`/v1/contacts/20…`) and paths with a query are accepted as they are written.
        var relative = Substring(path)
        var inlineQuery: [(String, String)] = []
        if let mark = relative.firstIndex(of: "?") {
            inlineQuery =
                URLComponents(string: "?" + relative[relative.index(after: mark)...])?.queryItems?
                .map { ($0.name, $0.value ?? "") } ?? []
            relative = relative[..<mark]
        }
        if relative.hasPrefix("/v1/") { relative = relative.dropFirst(3) }
        var segments = self.path
        for segment in relative.split(separator: "/") where segment != "." && segment != ".." {
            segments = segments.appending(String(segment))
        }
        var request = APIRequest(method: method, path: segments)
        for (name, value) in inlineQuery + query { request.setQuery(name, value) }
        if let body { request.setJSONBody(client.conventions.wrapRequestBody(body)) }
        let response = try await client.send(request)
        let root = try client.conventions.checkEnvelope(try response.json(), response: response)
        return SparkResults(
            results: root["D"]?["Results"]?.arrayValue ?? [], pagination: root["D"]?["Pagination"]?.objectValue)
    }

    public func get(_ path: String, query: [(String, String)] = []) async throws(BinderyError) -> SparkResults {
        try await api(.get, path, query: query)
    }

    public func post(_ path: String, body: JSONValue) async throws(BinderyError) -> SparkResults {
        try await api(.post, path, body: body)
    }

    public func put(_ path: String, body: JSONValue) async throws(BinderyError) -> SparkResults {
        try await api(.put, path, body: body)
    }

    public func delete(_ path: String) async throws(BinderyError) -> SparkResults {
        try await api(.delete, path)
    }
}

/// What a generic Spark call answered: `D.Results` and `D.Pagination`.
public struct SparkResults: Sendable {
    public var results: [JSONValue]
    public var pagination: JSONObject?
}

extension ListingRequestBuilder {
    /// The listing itself (Spark answers it as a one-element `Results` array).
    public func fetch(select: String? = nil, expand: String? = nil) async throws(BinderyError) -> Listing {
        try await single(getListing(select: select, expand: expand).request, as: Listing.self)
    }
}

extension MyRequestBuilder {
    /// The signed-in user's account (`my/account`, answered as a one-element `Results` array).
    public func account() async throws(BinderyError) -> Account {
        try await single(getAccount().request, as: Account.self)
    }
}

extension RequestBuilder {
    /// Sends a read as it is (no paging parameters) and decodes its one result.
    fileprivate func single<Element: JSONModel>(_ request: APIRequest, as type: Element.Type) async throws(BinderyError)
        -> Element
    {
        try await OperationRequest(client: client, request: request, decoder: .model(Element.self)).send()
    }
}
