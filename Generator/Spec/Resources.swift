/// A node of the request-builder graph: one kind of URL, what can be done there, and where one can go next.
///
/// CSDL: one resource per entity type (its navigation properties and bound operations, inherited ones included),
/// plus the entity container as the root. OpenAPI: one resource per path node. The graph may be cyclic
/// (`driveItem/children` leads back to `driveItem`), which is why builders are generated per resource, not per path.
public struct ResourceSpec: Equatable, Sendable {
    public var name: QualifiedName
    /// What a GET of this resource returns (nil for the root and for pure action containers).
    public var model: TypeRef?
    public var children: [ChildSpec]
    /// Operations on one item at this resource's URL (get, update, delete, bound actions and functions, ...).
    public var operations: [OperationSpec]
    /// Operations on the collection of this resource (list, add, collection-bound actions and functions such as delta).
    /// Only meaningful when some child reaches this resource as a collection.
    public var collectionOperations: [OperationSpec]
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: QualifiedName, model: TypeRef? = nil, children: [ChildSpec] = [], operations: [OperationSpec] = [],
        collectionOperations: [OperationSpec] = [], doc: Documentation = .init(), location: SourceLocation? = nil
    ) {
        self.name = name
        self.model = model
        self.children = children
        self.operations = operations
        self.collectionOperations = collectionOperations
        self.doc = doc
        self.location = location
    }
}

/// A step from one resource to another: a navigation property, an entity set, a singleton, a path segment.
public struct ChildSpec: Equatable, Sendable {
    /// The spec's name for the step (navigation property name, entity set name, path segment).
    public var name: String
    /// The URL segment appended, unencoded (`children`, `microsoft.graph.user` for a type cast, `n`); empty for
    /// a collection whose keys follow the owner's URL directly (`metadata/{scope}/{template_key}`).
    public var segment: String
    public var target: QualifiedName
    /// A collection is addressed as `segment` and its items as `segment/{key}`.
    public var isCollection: Bool
    /// The name of the key in templates and docs (`driveItem-id`, `namespace_id`).
    public var keyName: String?
    /// What the service allows through this step: a collection's insert, the update and delete of its items
    /// (or of the one entity a single-valued step leads to).
    public var restrictions: Restrictions
    /// Taken from the URL of the owner's collection rather than one item's (`files/upload_sessions` beside
    /// `files/{id}`): a member of the owner's `CollectionRequestBuilder`.
    public var isOnCollection = false
    public var doc: Documentation

    public init(
        name: String, segment: String, target: QualifiedName, isCollection: Bool, keyName: String? = nil,
        restrictions: Restrictions = .init(), doc: Documentation = .init()
    ) {
        self.name = name
        self.segment = segment
        self.target = target
        self.isCollection = isCollection
        self.keyName = keyName
        self.restrictions = restrictions
        self.doc = doc
    }
}

public enum HTTPMethod: String, Hashable, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case head = "HEAD"
    case options = "OPTIONS"
    case trace = "TRACE"
}

public struct OperationSpec: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// GET one item (`get`), list a collection (`list`).
        case get, list
        /// POST a new item to a collection.
        case create
        /// PATCH (partial) or PUT (whole) an item.
        case update, replace
        case delete
        /// OData actions (POST) and functions (GET), or any other OpenAPI operation.
        case action, function
    }

    /// The spec's name (`delta`, `sendMail`, `generate_cursor`, an OpenAPI `operationId`).
    public var name: String
    public var kind: Kind
    public var method: HTTPMethod
    /// Segments appended to the resource URL, unencoded; empty for CRUD on the resource itself.
    /// OData operations use their qualified name (`microsoft.graph.delta`); function parameters follow in
    /// parentheses at emit time.
    public var pathSuffix: [String]
    public var parameters: [ParameterSpec]
    public var requestBody: BodySpec?
    public var response: ResponseSpec?
    /// OData `IsComposable` functions can be followed by further segments; kept for the route table.
    public var isComposable: Bool
    /// False when this operation's bodies travel bare, outside the service's envelope (`x-bindery-envelope: "none"`,
    /// Spark's OAuth grant).
    public var isEnveloped: Bool
    /// Query parameters this operation always sends because they select the shape of its answer
    /// (`x-bindery-variants`: Inbox's `view=count`, Spark's `_pagination=count`). A URL that carries them names
    /// this operation rather than the one it varies.
    public var fixedQuery: [String: String]
    /// Other URL segments the service accepts for this operation (the legacy OneDrive API's `action.copy` for
    /// `copy`): the route table matches them; the client sends `pathSuffix`.
    public var segmentAliases: [String]
    /// OpenAPI `deprecated`: still served, but going away.
    public var isDeprecated = false
    /// Another operation at a URL and method the resource's own get or update already answers (an OpenAPI path
    /// with a `#fragment`): a request without its fixed query is the resource's own, so only a fixed query routes
    /// to it.
    public var isAlternative = false
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: String, kind: Kind, method: HTTPMethod, pathSuffix: [String] = [], parameters: [ParameterSpec] = [],
        requestBody: BodySpec? = nil, response: ResponseSpec? = nil, isComposable: Bool = false,
        isEnveloped: Bool = true, fixedQuery: [String: String] = [:], segmentAliases: [String] = [],
        doc: Documentation = .init(), location: SourceLocation? = nil
    ) {
        self.name = name
        self.kind = kind
        self.method = method
        self.pathSuffix = pathSuffix
        self.parameters = parameters
        self.requestBody = requestBody
        self.response = response
        self.isComposable = isComposable
        self.isEnveloped = isEnveloped
        self.fixedQuery = fixedQuery
        self.segmentAliases = segmentAliases
        self.doc = doc
        self.location = location
    }
}

public struct ParameterSpec: Equatable, Sendable {
    public enum Location: String, Sendable {
        /// OData function parameter, written into the URL as `name=value` inside parentheses.
        case function
        /// OpenAPI path template variable.
        case path
        case query
        case header
        /// A member of the JSON request body object (OData action parameters).
        case body
    }

    public var name: String
    public var type: TypeRef
    public var location: Location
    public var isRequired: Bool
    public var doc: Documentation

    public init(
        name: String, type: TypeRef, location: Location, isRequired: Bool = false, doc: Documentation = .init()
    ) {
        self.name = name
        self.type = type
        self.location = location
        self.isRequired = isRequired
        self.doc = doc
    }
}

/// A request body that is one value of a type (OpenAPI `requestBody`, OData create/update).
/// OData action parameters are `.body` parameters instead, gathered into one object at emit time.
public struct BodySpec: Equatable, Sendable {
    public var type: TypeRef
    public var contentType: String
    public var isRequired: Bool
    /// The parts of a `multipart/form-data` body whose schema lists them, in order: the call takes each as a typed
    /// argument. Empty for other bodies and for a form without a schema of properties.
    public var parts: [FormPart] = []

    public init(type: TypeRef, contentType: String = "application/json", isRequired: Bool = true) {
        self.type = type
        self.contentType = contentType
        self.isRequired = isRequired
    }

    /// `application/json`, `text/json` or a `+json` type.
    public var isJSON: Bool {
        let type = contentType.lowercased()
        return type == "application/json" || type == "text/json" || type.hasSuffix("+json")
    }
}

public struct ResponseSpec: Equatable, Sendable {
    /// The decoded type. For collections, `.collection(element)`: the emitter returns a page of elements.
    public var type: TypeRef?
    /// Overrides the service's paging style for this operation.
    public var paging: PagingStyle?
    /// Where a list's items sit when this operation wraps them in an object of its own (`["data"]` of
    /// `{"data": [...], "has_more": true}`); nil for the service's usual list shape.
    public var itemsPath: [String]?
    /// Set when the operation is a delta query.
    public var delta: DeltaStyle?
    /// Status codes the spec names as success.
    public var successCodes: [Int]
    /// A raw (non-JSON) body such as a file download.
    public var isRawBody: Bool
    /// A whole response body as the service sends it, when the spec gives one (OpenAPI `example`).
    public var example: JSONLiteral?
    /// Where the payload sits in the body when it is not where the service usually puts it (Spark's
    /// `_pagination=count` answers `D.Pagination`, not `D.Results`); nil for the usual place.
    public var payloadPath: [String]?
    /// Set when the operation runs on after it answers: `202 Accepted` with a `Location` whose answers are of this
    /// type (`Bindery.Monitor`: OneDrive's copy polls an `asyncJobStatus`).
    public var monitor: TypeRef?
    /// Set when the success statuses answer differently (`200` an image, `202` nothing yet; `201` a file, `202`
    /// a retry hint): one answer per status, in status order, so the caller gets a typed answer for each instead of
    /// the first one's type. `type` and `isRawBody` above stay the first status's.
    public var answers: [StatusAnswer] = []

    public init(
        type: TypeRef?, paging: PagingStyle? = nil, delta: DeltaStyle? = nil, successCodes: [Int] = [200],
        isRawBody: Bool = false, example: JSONLiteral? = nil, payloadPath: [String]? = nil, monitor: TypeRef? = nil
    ) {
        self.type = type
        self.paging = paging
        self.delta = delta
        self.successCodes = successCodes
        self.isRawBody = isRawBody
        self.example = example
        self.payloadPath = payloadPath
        self.monitor = monitor
    }
}

/// What one success status answers, when an operation's statuses differ (`ResponseSpec.answers`).
public struct StatusAnswer: Equatable, Sendable {
    public var status: Int
    /// Nil for an answer without a body (`202 Accepted`, `204 No Content`).
    public var type: TypeRef?
    /// A raw body: text when `type` is a string, else bytes.
    public var isRawBody: Bool
    public var doc: Documentation

    public init(status: Int, type: TypeRef?, isRawBody: Bool = false, doc: Documentation = .init()) {
        self.status = status
        self.type = type
        self.isRawBody = isRawBody
        self.doc = doc
    }
}

/// One part of a `multipart/form-data` body (`BodySpec.parts`): a property of the form's schema.
public struct FormPart: Equatable, Sendable {
    public var name: String
    /// A file (`format: binary`, or a `contentMediaType` that is not text): the call takes its bytes and file name.
    public var isFile: Bool
    /// The part's `encoding.contentType`, else the schema's `contentMediaType`; else `application/octet-stream` for
    /// a file, `application/json` for an object or an array and `text/plain` for anything else.
    public var contentType: String
    /// The value's type, for a part that is not a file.
    public var type: TypeRef
    public var isRequired: Bool
    public var doc: Documentation

    public init(
        name: String, isFile: Bool, contentType: String, type: TypeRef, isRequired: Bool,
        doc: Documentation = .init()
    ) {
        self.name = name
        self.isFile = isFile
        self.contentType = contentType
        self.type = type
        self.isRequired = isRequired
        self.doc = doc
    }
}
