import HTTPTypes

/// A generated request builder for one resource: a client and a path, and members that lead on.
///
/// Builders only compose paths; nothing is sent until a request's `get()`, `update(_:)`, `execute()`...
public protocol RequestBuilder: Sendable {
    var client: ServiceClient { get }
    var path: ResourcePath { get }
    init(client: ServiceClient, path: ResourcePath)
    /// What this kind of resource answers: its entry in the module's `RouteTable`.
    static var route: ResourceRoute { get }
}

/// A builder for one entity, whose `request()` reads, updates or deletes it.
public protocol ModelRequestBuilder: RequestBuilder {
    associatedtype Model: JSONModel
}

extension ModelRequestBuilder {
    /// The request for this entity: `get()`, `update(_:)`, `delete()`, with `select` and `expand`.
    public func request() -> EntityRequest<Model> {
        EntityRequest(client: client, request: APIRequest(method: .get, path: path))
    }
}

/// A collection step such as `items`: `request()` lists it, `items("id")` addresses one item.
public struct CollectionRequestBuilder<Item: ModelRequestBuilder>: Sendable {
    public let client: ServiceClient
    public let path: ResourcePath

    public init(client: ServiceClient, path: ResourcePath) {
        self.client = client
        self.path = path
    }

    /// The builder of the item with this key; the key is percent-encoded as one path segment.
    public func callAsFunction(_ key: String) -> Item {
        Item(client: client, path: path.appending(key))
    }

    /// The request that lists the collection, page by page: `get()`, `add(_:)`, `pages()`, `all()`.
    public func request() -> CollectionRequest<Item.Model> {
        CollectionRequest(client: client, request: APIRequest(method: .get, path: path))
    }
}

/// A request value that can be adjusted before it is sent: each method returns an adjusted copy.
public protocol AdjustableRequest: Sendable {
    /// The HTTP request as it will be sent.
    var request: APIRequest { get set }
}

extension AdjustableRequest {
    /// Returns a copy that sets a query parameter (nil removes it).
    public func query(_ name: String, _ value: String?) -> Self {
        var copy = self
        copy.request.setQuery(name, value)
        return copy
    }

    /// Returns a copy that sends a header.
    public func header(_ name: HTTPField.Name, _ value: String) -> Self {
        var copy = self
        copy.request.headers[name] = value
        return copy
    }

    /// `$select`: only these properties are returned.
    public func select(_ properties: String...) -> Self { query("$select", properties.joined(separator: ",")) }
    /// `$expand`: related entities returned inline, e.g. `expand("thumbnails")` or `expand("children($top=5)")`.
    public func expand(_ properties: String...) -> Self { query("$expand", properties.joined(separator: ",")) }
}

/// Reads, updates or deletes one entity.
public struct EntityRequest<Model: JSONModel>: AdjustableRequest {
    public let client: ServiceClient
    /// The GET request as it will be sent; `update` and `delete` reuse its path and headers.
    public var request: APIRequest

    public init(client: ServiceClient, request: APIRequest) {
        self.client = client
        self.request = request
    }

    public func get() async throws(BinderyError) -> Model {
        let response = try await client.send(request)
        return try client.decodeModel(Model.self, from: response)
    }

    /// Sends `changes` as a PATCH: only the members set on it (start from an empty model, or use
    /// `changes(since:)`), explicit nulls included. Returns the updated entity, or nil when the service
    /// answers 204 No Content.
    @discardableResult
    public func update(_ changes: Model) async throws(BinderyError) -> Model? {
        try await write(.patch, changes)
    }

    /// Sends the whole entity as a PUT.
    @discardableResult
    public func replace(_ model: Model) async throws(BinderyError) -> Model? {
        try await write(.put, model)
    }

    public func delete() async throws(BinderyError) {
        var delete = request
        delete.method = .delete
        delete.query = []
        _ = try await client.send(delete)
    }

    private func write(_ method: HTTPRequest.Method, _ model: Model) async throws(BinderyError) -> Model? {
        var write = request
        write.method = method
        write.query = []
        write.setJSONBody(client.body(for: model))
        let response = try await client.send(write)
        if response.body.isEmpty { return nil }
        return try client.decodeModel(Model.self, from: response)
    }
}
