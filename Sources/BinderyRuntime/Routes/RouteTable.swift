/// What one resource (one request builder) answers: its model, where its children lead, its operations.
///
/// Generated builders carry their own `route`; a module's `RouteTable` lists them all. The mock server and
/// `bindery validate` walk it to find the operation behind a method and a URL.
public struct ResourceRoute: Sendable {
    /// The spec's qualified name of the resource.
    public let name: String
    /// What a GET returns, if anything.
    public let model: (any JSONModel.Type)?
    public let children: [Child]
    public let operations: [Operation]

    @_spi(Generated)
    public init(
        _ name: String, model: (any JSONModel.Type)? = nil, children: [Child] = [], operations: [Operation] = []
    ) {
        self.name = name
        self.model = model
        self.children = children
        self.operations = operations
    }

    /// A path segment that leads to another resource; a collection's items follow as `segment/{key}`.
    public struct Child: Sendable {
        public let segment: String
        public let target: String
        public let isCollection: Bool
        /// Methods the service refuses at this step's URL (a collection's POST, a single entity's PATCH).
        public let refusedMethods: Set<HTTPRequest.Method>
        /// Methods the service refuses on each item of this collection.
        public let refusedByItems: Set<HTTPRequest.Method>
        /// Taken from the resource's collection URL (`files/upload_sessions`), not from one item's.
        public let isOnCollection: Bool

        /// `refusing` and `itemsRefusing` are methods separated by spaces (`"POST PATCH"`).
        @_spi(Generated)
        public init(
            _ segment: String, _ target: String, collection: Bool, refusing: String? = nil,
            itemsRefusing: String? = nil, onCollection: Bool = false
        ) {
            self.segment = segment
            self.target = target
            self.isCollection = collection
            self.refusedMethods = ResourceRoute.methods(refusing)
            self.refusedByItems = ResourceRoute.methods(itemsRefusing)
            self.isOnCollection = onCollection
        }
    }

    /// An operation other than the generic reads and writes every resource has.
    public struct Operation: Sendable {
        public let name: String
        public let method: HTTPRequest.Method
        /// Segments after the resource's URL; an OData function matches with or without its `(…)` arguments.
        public let segments: [String]
        /// Bound to the collection of this resource rather than to one item.
        public let onCollection: Bool
        public let request: FieldKind?
        public let response: FieldKind?
        /// False when the operation's bodies travel outside the service's envelope (Spark's OAuth grant).
        public let isEnveloped: Bool
        /// Query parameters that select this operation at its URL (Inbox's `view=count`): a request carrying all
        /// of them is this operation rather than the one it varies.
        public let query: [String: String]
        /// Where the answer's payload sits when not in the envelope's results (Spark's `["D", "Pagination"]`).
        public let payloadPath: [String]?
        /// Other last segments that name this operation (the legacy OneDrive API's `action.copy`).
        public let aliases: [String]
        /// The operation answers `202 Accepted` with a `Location` to poll rather than a result.
        public let isMonitored: Bool

        /// `path` is the segments joined by `/`: nil for the name alone, empty for none. `query` is fixed
        /// parameters as a URL query (`view=count`), `payload` a path joined by `/`, `aliases` names separated by
        /// spaces.
        @_spi(Generated)
        public init(
            _ name: String, _ method: HTTPRequest.Method, path: String? = nil, onCollection: Bool = false,
            request: FieldKind? = nil, response: FieldKind? = nil, enveloped: Bool = true,
            query: String? = nil, payload: String? = nil, aliases: String? = nil, monitor: Bool = false
        ) {
            self.name = name
            self.method = method
            self.segments = path.map { $0.split(separator: "/").map(String.init) } ?? [name]
            self.onCollection = onCollection
            self.request = request
            self.response = response
            self.isEnveloped = enveloped
            self.query = Dictionary(
                PercentEncoding.formValues(query ?? ""), uniquingKeysWith: { first, _ in first })
            self.payloadPath = payload.map { $0.split(separator: "/").map(String.init) }
            self.aliases = (aliases ?? "").split(separator: " ").map(String.init)
            self.isMonitored = monitor
        }
    }

    // Generated routes are written as strings rather than nested collection literals (`["copy"]`, `[.post]`,
    // `[:]`): in a module's static tables, nested literals make the optimizer's time grow faster than the table
    // (the 366 operations of Graph's `workbookFunctions`, compiled alone: 10.1 s; as strings, 2.9 s).

    static func methods(_ list: String?) -> Set<HTTPRequest.Method> {
        Set((list ?? "").split(separator: " ").compactMap { HTTPRequest.Method(String($0)) })
    }
}

/// A request to a URL that a payload carries, on a host outside the API: an upload session's byte ranges go to
/// its `uploadUrl` (`Bindery.StorageOperation` in the spec).
public struct StorageRoute: Sendable {
    public let name: String
    public let method: HTTPRequest.Method
    /// The type whose payloads carry the URL (`microsoft.graph.uploadSession`), and the member that holds it.
    public let owner: String
    public let urlMember: String
    /// What the storage host answers; nil for nothing or, with `isRawBody`, bytes.
    public let response: FieldKind?
    public let isRawBody: Bool

    @_spi(Generated)
    public init(
        _ name: String, _ method: HTTPRequest.Method, owner: String, url: String, response: FieldKind? = nil,
        rawBody: Bool = false
    ) {
        self.name = name
        self.method = method
        self.owner = owner
        self.urlMember = url
        self.response = response
        self.isRawBody = rawBody
    }
}

/// Every resource of a module, and how a URL path maps onto them.
public struct RouteTable: Sendable {
    public let root: String
    public let resources: [String: ResourceRoute]
    /// Every model type of the module by its spec name, for decoding by name (`microsoft.graph.driveItem`).
    public let models: [String: any JSONModel.Type]
    /// Requests to URLs on storage hosts, which no path of the API reaches.
    public let storage: [StorageRoute]

    @_spi(Generated)
    public init(
        root: ResourceRoute, resources: [ResourceRoute], models: [any JSONModel.Type], storage: [StorageRoute] = []
    ) {
        self.storage = storage
        self.root = root.name
        var byName = Dictionary(resources.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        byName[root.name] = root
        self.resources = byName
        // A type is found by its name and by the other names the service gives it (`oneDrive.item`).
        self.models = Dictionary(
            models.flatMap { model in ([model.schema.typeName] + model.schema.aliases).map { ($0, model) } },
            uniquingKeysWith: { first, _ in first })
    }

    /// What a request addresses.
    public enum Match: Sendable {
        /// One item of `resource` (GET, PATCH, PUT, DELETE), or the resource itself for singletons.
        case item(resource: ResourceRoute, keys: [String])
        /// The collection of `resource` items (GET lists, POST adds).
        case collection(resource: ResourceRoute, keys: [String])
        case operation(ResourceRoute.Operation, on: ResourceRoute, keys: [String])
    }

    /// Walks `segments` (already percent-decoded) from the root. Keys met on the way are collected in order.
    /// `query` picks among operations at the same URL that differ by their fixed parameters (`view=count`).
    public func match(method: HTTPRequest.Method, segments: [String], query: [(String, String)] = []) -> Match? {
        lookUp(method: method, segments: segments, query: query).match
    }

    /// Whether the spec says the service refuses `method` on the item or collection at `segments` (OData
    /// capability restrictions: `POST /drives`, `DELETE` of a notebook).
    public func refuses(method: HTTPRequest.Method, segments: [String]) -> Bool {
        lookUp(method: method, segments: segments).isRefused
    }

    /// `match` and `refuses` in one walk, for a server that needs both for every request.
    public func lookUp(method: HTTPRequest.Method, segments: [String], query: [(String, String)] = []) -> (
        match: Match?, isRefused: Bool
    ) {
        guard var current = resources[root] else { return (nil, false) }
        var keys: [String] = []
        var atCollection = false
        // What the step just taken refuses at its URL, and what a collection's items will refuse.
        var refused: Set<HTTPRequest.Method> = []
        var refusedByItems: Set<HTTPRequest.Method> = []
        var index = 0
        while index < segments.count {
            let segment = segments[index]
            if let operation = operation(
                at: segments[index...], method: method, on: current, collection: atCollection, query: query)
            {
                return (.operation(operation, on: current, keys: keys), false)
            }
            // A step from the collection's URL (`files/upload_sessions`) wins over reading the segment as a key.
            let collectionStep =
                atCollection ? current.children.first { $0.isOnCollection && $0.segment == segment } : nil
            if atCollection, collectionStep == nil {
                keys.append(segment)
                atCollection = false
                refused = refusedByItems
            } else if let child = collectionStep
                ?? current.children.first(where: { !$0.isOnCollection && $0.segment == segment }),
                let target = resources[child.target]
            {
                current = target
                atCollection = child.isCollection
                refused = child.refusedMethods
                refusedByItems = child.refusedByItems
            } else if let child = current.children.first(where: { $0.segment.isEmpty && $0.isCollection }),
                let target = resources[child.target]
            {
                // Keys right after keys (`metadata/{scope}/{template_key}`): the collection takes no segment, so
                // this one is read again, as its key.
                current = target
                atCollection = true
                refused = child.refusedMethods
                refusedByItems = child.refusedByItems
                continue
            } else {
                return (nil, false)
            }
            index += 1
        }
        // An operation on the resource's own URL (Inbox's `PUT threads/{id}` with tag changes, `POST files` with an
        // upload) answers what it declares, not the generic item or collection.
        let own = current.operations.filter { operation in
            operation.segments.isEmpty && operation.method == method && operation.onCollection == atCollection
        }
        if let chosen = Self.mostSpecific(own, for: query) {
            return (.operation(chosen, on: current, keys: keys), false)
        }
        let match: Match =
            atCollection ? .collection(resource: current, keys: keys) : .item(resource: current, keys: keys)
        return (match, refused.contains(method))
    }

    /// The operation of `resource` whose path is exactly `rest`, the request's remaining segments: one segment
    /// (`delta()`, `search(q='x')` and plain `delta` all name the function `delta`; an alias names it too) or
    /// several (`by/office/{OfficeId}`).
    private func operation(
        at rest: ArraySlice<String>, method: HTTPRequest.Method, on resource: ResourceRoute, collection: Bool,
        query: [(String, String)]
    ) -> ResourceRoute.Operation? {
        guard let first = rest.first else { return nil }
        let name = rest.count == 1 ? first.split(separator: "(", maxSplits: 1).first.map(String.init) ?? first : first
        let named = resource.operations.filter { operation in
            guard operation.onCollection == collection, operation.method == method,
                operation.segments.count == rest.count
            else { return false }
            if rest.count == 1, operation.aliases.contains(name) { return true }
            return zip(operation.segments, [name] + rest.dropFirst()).allSatisfy { Self.segment($1, matches: $0) }
        }
        return Self.mostSpecific(named, for: query)
    }

    /// Whether a URL segment is what a route segment names: the same text, or, for a template such as
    /// `thumbnail.{extension}`, its text around the parameters with at least one character for each.
    static func segment(_ segment: String, matches route: String) -> Bool {
        guard route.contains("{") else { return segment == route }
        var rest = Substring(segment)
        var pattern = Substring(route)
        while let open = pattern.firstIndex(of: "{"), let close = pattern[open...].firstIndex(of: "}") {
            let text = pattern[..<open]
            guard rest.hasPrefix(text) else { return false }
            rest = rest.dropFirst(text.count)
            pattern = pattern[pattern.index(after: close)...]
            // The parameter runs to the next text of the template (or to the end).
            let next = pattern.prefix { $0 != "{" }
            if next.isEmpty {
                if pattern.isEmpty { return !rest.isEmpty }
                return false  // two parameters side by side cannot be told apart
            }
            guard let end = rest.range(of: next), end.lowerBound > rest.startIndex else { return false }
            rest = rest[end.lowerBound...]
        }
        return rest == pattern
    }

    /// Of operations at one URL, the one whose fixed query the request carries in full, the most specific first
    /// (`view=count` over the plain listing); the first declared among equals.
    private static func mostSpecific(_ operations: [ResourceRoute.Operation], for query: [(String, String)])
        -> ResourceRoute.Operation?
    {
        operations.filter { operation in
            operation.query.allSatisfy { fixed in query.contains { $0 == (fixed.key, fixed.value) } }
        }.max { $0.query.count < $1.query.count }
    }
}
