import HTTPTypes

/// A generated request builder for one resource: a client and a path, and members that lead on.
///
/// Builders only compose paths; nothing is sent until a request's `send()` (or `get()`, `update(_:)`...).
public protocol RequestBuilder: Sendable {
    var client: ServiceClient { get }
    var path: ResourcePath { get }
    init(client: ServiceClient, path: ResourcePath)
    /// What this kind of resource answers: its entry in the module's `RouteTable`.
    static var route: ResourceRoute { get }
}

/// A builder for one entity, whose `request()` reads, updates or deletes it.
public protocol ModelRequestBuilder: RequestBuilder {
    associatedtype Resource: JSONModel
}

extension ModelRequestBuilder {
    /// The request for this entity: `get()`, `update(_:)`, `delete()`, with `select` and `expand`.
    public func request() -> EntityRequest<Resource> {
        EntityRequest(client: client, request: APIRequest(method: .get, path: path))
    }
}

/// A collection step such as `items`: `request()` lists it, `items("id")` addresses one item.
///
/// The parameter is `ItemBuilder` rather than `Item`: generated extensions (`where ItemBuilder == …`) name models,
/// and a model called `Item`, common in public specs, would be shadowed by it. Items that no model describes
/// (`_inference/{task_type}/{id}` with only operations below it) are addressed the same way but not listed.
public struct CollectionRequestBuilder<ItemBuilder: RequestBuilder>: Sendable {
    public let client: ServiceClient
    public let path: ResourcePath
    /// How this collection lists, where it differs from its service (`{"data": [...], "has_more": true}`).
    public let listing: ServiceConventions.Listing?

    public init(client: ServiceClient, path: ResourcePath, listing: ServiceConventions.Listing? = nil) {
        self.client = client
        self.path = path
        self.listing = listing
    }

    /// The builder of the item with this key; the key is percent-encoded as one path segment.
    public func callAsFunction(_ key: String) -> ItemBuilder {
        ItemBuilder(client: client, path: path.appending(key))
    }
}

extension CollectionRequestBuilder where ItemBuilder: ModelRequestBuilder {
    /// The request that lists the collection, page by page: `get()`, `add(_:)`, `pages()`, `all()`.
    public func request() -> CollectionRequest<ItemBuilder.Resource> {
        CollectionRequest(client: client, request: APIRequest(method: .get, path: path), listing: listing)
    }
}

/// A request value that can be adjusted before it is sent: each method returns an adjusted copy.
public protocol AdjustableRequest: Sendable {
    /// The HTTP request as it will be sent.
    var request: APIRequest { get set }
}

/// A request that `send()` sends, whatever it is: an entity's read, a collection's first page, an action. One
/// verb, so a call site does not change when a spec turns an operation into a pageable list.
public protocol SendingRequest: AdjustableRequest {
    associatedtype Answer: Sendable
    /// Sends the request and reads its answer.
    func send() async throws(BinderyError) -> Answer
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

    /// `$expand`: related entities returned inline, e.g. `expand("thumbnails")` or `expand("children($top=5)")`.
    public func expand(_ properties: String...) -> Self { query("$expand", properties.joined(separator: ",")) }
    /// `$expand` with options per property: `expand("sections", Expansion("sectionGroups").allLevels())`.
    public func expand(_ items: Expansion...) -> Self {
        query("$expand", items.map(\.description).joined(separator: ","))
    }
}

/// A request whose answer can be trimmed to fields named as strings. A typed selection
/// (`select(\.subject, \.from)`) is not one: its fields are its type, chosen all at once.
public protocol SelectableRequest: AdjustableRequest {
    var client: ServiceClient { get }
}

extension SelectableRequest {
    /// `$select` (or the service's own parameter, Spark's `_select`): only these properties are returned; the
    /// others read as nil. `select(\.a, \.b)` makes the selection the result's type instead.
    public func select(_ properties: String...) -> Self {
        query(client.conventions.selectParameter, properties.joined(separator: ","))
    }
}

/// One `$expand` item and the options that apply inside it, as OData writes them:
/// `Expansion("sectionGroups").expand("sections").allLevels()` is `sectionGroups($expand=sections;$levels=max)`.
public struct Expansion: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var property: String
    /// Options in the order they were added (`$select`, `$expand`, `$filter`, `$levels`...).
    public private(set) var options: [APIRequest.QueryItem] = []

    public init(_ property: String) { self.property = property }
    public init(stringLiteral property: String) { self.init(property) }

    public func select(_ properties: String...) -> Expansion { with("$select", properties.joined(separator: ",")) }
    public func expand(_ items: Expansion...) -> Expansion {
        with("$expand", items.map(\.description).joined(separator: ","))
    }
    public func filter(_ expression: String) -> Expansion { with("$filter", expression) }
    public func orderBy(_ properties: String...) -> Expansion { with("$orderby", properties.joined(separator: ",")) }
    public func top(_ count: Int) -> Expansion { with("$top", String(count)) }
    /// `$levels=n`: follow a recursive navigation property (section groups in section groups) n levels deep.
    public func levels(_ depth: Int) -> Expansion { with("$levels", String(depth)) }
    /// `$levels=max`: follow a recursive navigation property as deep as it goes.
    public func allLevels() -> Expansion { with("$levels", "max") }

    public var description: String {
        options.isEmpty
            ? property : property + "(" + options.map { "\($0.name)=\($0.value)" }.joined(separator: ";") + ")"
    }

    private func with(_ name: String, _ value: String) -> Expansion {
        var copy = self
        copy.options.removeAll { $0.name == name }
        copy.options.append(.init(name, value))
        return copy
    }
}

/// Reads, updates or deletes one entity.
public struct EntityRequest<Resource: JSONModel>: SendingRequest, SelectableRequest {
    public let client: ServiceClient
    /// The GET request as it will be sent; `update` and `delete` reuse its path and headers.
    public var request: APIRequest

    public init(client: ServiceClient, request: APIRequest) {
        self.client = client
        self.request = request
    }

    /// Reads the entity.
    public func get() async throws(BinderyError) -> Resource {
        let response = try await client.send(request)
        return try client.decodeModel(Resource.self, from: response)
    }

    /// Reads the entity: `get()` under the verb every request has.
    public func send() async throws(BinderyError) -> Resource { try await get() }

    /// Sends `changes` as a PATCH: only the members set on it (start from an empty model, or use
    /// `changes(since:)`), explicit nulls included. Returns the updated entity, or nil when the service
    /// answers 204 No Content.
    @discardableResult
    public func update(_ changes: Resource) async throws(BinderyError) -> Resource? {
        try await write(.patch, changes)
    }

    /// Sends the whole entity as a PUT.
    @discardableResult
    public func replace(_ model: Resource) async throws(BinderyError) -> Resource? {
        try await write(.put, model)
    }

    public func delete() async throws(BinderyError) {
        try request.path.checkAllowed(.delete)
        var delete = request
        delete.method = .delete
        delete.query = []
        _ = try await client.send(delete)
    }

    private func write(_ method: HTTPRequest.Method, _ model: Resource) async throws(BinderyError) -> Resource? {
        try request.path.checkAllowed(method)
        var write = request
        write.method = method
        write.query = []
        write.setJSONBody(client.body(for: model))
        let response = try await client.send(write)
        if response.body.isEmpty { return nil }
        return try client.decodeModel(Resource.self, from: response)
    }
}
