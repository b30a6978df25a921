/// The one spec model between the readers (CSDL, OpenAPI) and the emitter.
///
/// It describes a service twice over: its data (enums and structured types) and its resources (the graph of
/// request builders: what can be done at a URL and where one can go from it). Readers fill it in; the emitter
/// sees nothing else. Names here are the spec's own (wire) names; Swift naming is the emitter's business.
public struct ServiceSpec: Equatable, Sendable {
    /// The spec file this came from, as given on the command line (used in generated headers).
    public var source: String
    /// The namespace whose types get unprefixed Swift names (OData: the main schema; OpenAPI: the title's slug).
    public var primaryNamespace: String
    public var doc: Documentation
    public var enums: [EnumSpec]
    public var structures: [StructureSpec]
    /// Values that are one of several types (OpenAPI `oneOf`/`anyOf` whose members share no base type).
    public var choices: [ChoiceSpec]
    /// Resources by name. The root resource (`rootResource`) is where a client starts.
    public var resources: [ResourceSpec]
    public var rootResource: QualifiedName
    public var conventions: Conventions
    /// Where the service runs, first the default (OpenAPI `servers`); empty when the spec does not say.
    public var servers: [ServerSpec] = []

    public init(
        source: String, primaryNamespace: String, doc: Documentation = .init(),
        enums: [EnumSpec] = [], structures: [StructureSpec] = [], choices: [ChoiceSpec] = [],
        resources: [ResourceSpec] = [], rootResource: QualifiedName, conventions: Conventions
    ) {
        self.source = source
        self.primaryNamespace = primaryNamespace
        self.doc = doc
        self.enums = enums
        self.structures = structures
        self.choices = choices
        self.resources = resources
        self.rootResource = rootResource
        self.conventions = conventions
    }
}

/// A service root the spec names, perhaps with variables (`https://{region}.api.example.com/v1`).
public struct ServerSpec: Equatable, Sendable {
    public struct Variable: Equatable, Sendable {
        public var name: String
        public var defaultValue: String
        /// The values the spec allows; empty for any.
        public var values: [String]
        public var doc: Documentation

        public init(name: String, defaultValue: String, values: [String] = [], doc: Documentation = .init()) {
            self.name = name
            self.defaultValue = defaultValue
            self.values = values
            self.doc = doc
        }
    }

    /// The URL template, `{name}` for each variable.
    public var url: String
    public var variables: [Variable]
    public var doc: Documentation

    public init(url: String, variables: [Variable] = [], doc: Documentation = .init()) {
        self.url = url
        self.variables = variables
        self.doc = doc
    }

    /// The URL with every variable at its default.
    public var defaultURL: String {
        variables.reduce(url) { text, variable in
            text.replacingOccurrences(of: "{\(variable.name)}", with: variable.defaultValue)
        }
    }
}

/// A namespace-qualified name such as `microsoft.graph.driveItem`.
public struct QualifiedName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var namespace: String
    public var name: String

    public init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// Splits at the last dot: `microsoft.graph.driveItem` → (`microsoft.graph`, `driveItem`).
    public init(_ qualified: String) {
        if let dot = qualified.lastIndex(of: ".") {
            namespace = String(qualified[..<dot])
            name = String(qualified[qualified.index(after: dot)...])
        } else {
            namespace = ""
            name = qualified
        }
    }

    public var description: String { namespace.isEmpty ? name : "\(namespace).\(name)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }
}

/// Doc text from the spec (`Core.Description`/`LongDescription`, OpenAPI `summary`/`description`).
public struct Documentation: Equatable, Sendable {
    public var summary: String?
    public var details: String?

    public init(summary: String? = nil, details: String? = nil) {
        self.summary = summary
        self.details = details
    }

    public var isEmpty: Bool { summary == nil && details == nil }
}

// MARK: - Types

/// A reference to a type, as a property, parameter or response uses it.
public indirect enum TypeRef: Hashable, Sendable, CustomStringConvertible {
    case primitive(Primitive)
    /// An enum or structured type of this spec.
    case named(QualifiedName)
    case collection(TypeRef)
    /// A JSON object used as a map from any member name to values of one type (OpenAPI `additionalProperties`).
    case dictionary(TypeRef)

    /// A date, a time of day, a date and time, or a duration: what `<` and `>` compare as before and after.
    public var isTemporal: Bool {
        switch self {
        case .primitive(.date), .primitive(.dateTimeOffset), .primitive(.timeOfDay), .primitive(.duration): true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .primitive(let p): return "Edm.\(p.rawValue)"
        case .named(let n): return n.description
        case .collection(let t): return "Collection(\(t))"
        case .dictionary(let t): return "Map(\(t))"
        }
    }

    /// The element type of a collection, or the type itself (a map's values are not its elements).
    public var elementType: TypeRef {
        if case .collection(let element) = self { return element.elementType }
        return self
    }

    public var isCollection: Bool {
        if case .collection = self { return true }
        return false
    }
}

/// Primitive types, named after their OData EDM names.
public enum Primitive: String, Hashable, Sendable, CaseIterable {
    case string = "String"
    case boolean = "Boolean"
    case byte = "Byte"
    case sbyte = "SByte"
    case int16 = "Int16"
    case int32 = "Int32"
    case int64 = "Int64"
    case single = "Single"
    case double = "Double"
    case decimal = "Decimal"
    case guid = "Guid"
    case binary = "Binary"
    case date = "Date"
    case dateTimeOffset = "DateTimeOffset"
    case timeOfDay = "TimeOfDay"
    case duration = "Duration"
    /// A media stream; never part of a JSON body.
    case stream = "Stream"
    /// Any JSON value (`Edm.Untyped`, or an OpenAPI schema with no type).
    case untyped = "Untyped"
}

public struct EnumSpec: Equatable, Sendable {
    public var name: QualifiedName
    public var members: [Member]
    /// OData `IsFlags`: the wire value is a comma-separated list of members.
    public var isFlags: Bool
    public var doc: Documentation
    public var location: SourceLocation?

    public struct Member: Equatable, Sendable {
        public var name: String
        public var value: Int64?
        public var doc: Documentation

        public init(name: String, value: Int64? = nil, doc: Documentation = .init()) {
            self.name = name
            self.value = value
            self.doc = doc
        }
    }

    public init(
        name: QualifiedName, members: [Member], isFlags: Bool = false, doc: Documentation = .init(),
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.members = members
        self.isFlags = isFlags
        self.doc = doc
        self.location = location
    }
}

/// A value that is one of several types: OpenAPI `oneOf` and `anyOf` whose members share no base type.
///
/// Read by the discriminator where there is one (declared, or a member every object member fixes to one value),
/// else by trying the members in order.
public struct ChoiceSpec: Equatable, Sendable {
    public struct Member: Equatable, Sendable {
        public var type: TypeRef
        /// The discriminator values that name this member (empty without a discriminator).
        public var tags: [String]

        public init(type: TypeRef, tags: [String] = []) {
            self.type = type
            self.tags = tags
        }
    }

    public var name: QualifiedName
    public var members: [Member]
    /// The object member whose value names the member type (`type`).
    public var discriminator: String?
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: QualifiedName, members: [Member], discriminator: String? = nil, doc: Documentation = .init(),
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.members = members
        self.discriminator = discriminator
        self.doc = doc
        self.location = location
    }
}

/// An OData entity or complex type, or an OpenAPI object schema.
public struct StructureSpec: Equatable, Sendable {
    public enum Kind: String, Sendable { case entity, complex }

    public var name: QualifiedName
    public var kind: Kind
    public var baseType: QualifiedName?
    public var isAbstract: Bool
    /// Accepts properties the spec does not declare (they are kept either way).
    public var isOpen: Bool
    public var hasStream: Bool
    /// Key property names (entities).
    public var key: [String]
    /// Own properties only; the emitter adds inherited ones.
    public var properties: [PropertySpec]
    /// Own navigation properties only.
    public var navigationProperties: [NavigationPropertySpec]
    /// The member whose value names a payload's concrete type among this type's descendants (OpenAPI
    /// `discriminator.propertyName`); nil for OData's `@odata.type`, or inherited from the base type.
    public var discriminatorProperty: String?
    /// The discriminator value that names this type (a `discriminator.mapping` key); nil for the qualified name.
    public var discriminatorValue: String?
    /// Other qualified names the service gives this type (`oneDrive.item` for `microsoft.graph.driveItem`): a
    /// payload's `@odata.type` and `bindery validate --type` accept them too.
    public var aliases: [String]
    /// What the service allows on entities of this type wherever they are (capability restrictions).
    public var restrictions: Restrictions
    /// Requests to URLs that payloads of this type carry, on hosts outside the API (an upload session's byte
    /// ranges to its `uploadUrl`).
    public var storageOperations: [StorageOperationSpec]
    /// The object read as one of several shapes (OpenAPI `oneOf`/`anyOf` beside `properties`): a choice over the
    /// same JSON, with the structure's own properties shared by every shape.
    public var variants: TypeRef?
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: QualifiedName, kind: Kind, baseType: QualifiedName? = nil, isAbstract: Bool = false,
        isOpen: Bool = false, hasStream: Bool = false, key: [String] = [], properties: [PropertySpec] = [],
        navigationProperties: [NavigationPropertySpec] = [], discriminatorProperty: String? = nil,
        discriminatorValue: String? = nil, aliases: [String] = [], restrictions: Restrictions = .init(),
        storageOperations: [StorageOperationSpec] = [], doc: Documentation = .init(), location: SourceLocation? = nil
    ) {
        self.name = name
        self.kind = kind
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.hasStream = hasStream
        self.key = key
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.discriminatorProperty = discriminatorProperty
        self.discriminatorValue = discriminatorValue
        self.aliases = aliases
        self.restrictions = restrictions
        self.storageOperations = storageOperations
        self.doc = doc
        self.location = location
    }
}

public struct PropertySpec: Equatable, Sendable {
    /// The wire (JSON) name.
    public var name: String
    public var type: TypeRef
    public var isNullable: Bool
    /// `Core.Computed`, `Core.Immutable`, OpenAPI `readOnly`: the server sets it.
    public var isReadOnly: Bool
    /// The payload is looser than the type (`x-bindery-loose`): numbers or booleans may arrive as strings.
    public var acceptsLooseValues: Bool
    /// OpenAPI `writeOnly`: sent by clients, never returned.
    public var isWriteOnly = false
    /// OpenAPI `readOnly`: the generated field says so (`Field(readOnly: true)`) and the runtime leaves it out of
    /// the request bodies it sends, so a model read from the service can be sent back as it is. CSDL's
    /// `Core.Computed` stays documentation only: OData services ignore computed members themselves, and marking
    /// Graph's thousands of them would grow every model table for nothing.
    public var isLeftOutOfRequests = false
    /// OpenAPI `deprecated`, OData `Core.Revisions` kind Deprecated.
    public var isDeprecated = false
    /// The one value the property may have (OpenAPI `const`, or an `enum` of one value).
    public var constant: String?
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: String, type: TypeRef, isNullable: Bool = true, isReadOnly: Bool = false,
        acceptsLooseValues: Bool = false, doc: Documentation = .init(), location: SourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.isReadOnly = isReadOnly
        self.acceptsLooseValues = acceptsLooseValues
        self.doc = doc
        self.location = location
    }
}

public struct NavigationPropertySpec: Equatable, Sendable {
    public var name: String
    /// `.named(entity)` or `.collection(.named(entity))`.
    public var type: TypeRef
    public var containsTarget: Bool
    /// What the service allows through this navigation (capability restrictions).
    public var restrictions: Restrictions
    public var doc: Documentation
    public var location: SourceLocation?

    public init(
        name: String, type: TypeRef, containsTarget: Bool = false, restrictions: Restrictions = .init(),
        doc: Documentation = .init(), location: SourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.containsTarget = containsTarget
        self.restrictions = restrictions
        self.doc = doc
        self.location = location
    }
}

/// What a service allows on a collection or its entities (OData's `Capabilities.InsertRestrictions`,
/// `UpdateRestrictions`, `DeleteRestrictions`): the generic writes it refuses are refused by the client too.
public struct Restrictions: Hashable, Sendable {
    public var insertable: Bool
    public var updatable: Bool
    public var deletable: Bool

    public init(insertable: Bool = true, updatable: Bool = true, deletable: Bool = true) {
        self.insertable = insertable
        self.updatable = updatable
        self.deletable = deletable
    }

    /// Both sets of restrictions at once: allowed only where both allow.
    public func intersection(_ other: Restrictions) -> Restrictions {
        Restrictions(
            insertable: insertable && other.insertable, updatable: updatable && other.updatable,
            deletable: deletable && other.deletable)
    }
}

/// A request to a URL that a payload carries rather than to a path of the API: OneDrive's upload session takes
/// byte ranges at its `uploadUrl`, on a storage host, without credentials (`Bindery.StorageOperation`).
public struct StorageOperationSpec: Equatable, Sendable {
    public var name: String
    public var method: HTTPMethod
    /// The member of the owning type's payloads that holds the URL (`uploadUrl`, `@microsoft.graph.downloadUrl`).
    public var urlMember: String
    /// What the storage host answers: a type, `.primitive(.stream)` for bytes, nil for nothing.
    public var response: TypeRef?
    public var location: SourceLocation?

    public init(
        name: String, method: HTTPMethod, urlMember: String, response: TypeRef?, location: SourceLocation? = nil
    ) {
        self.name = name
        self.method = method
        self.urlMember = urlMember
        self.response = response
        self.location = location
    }
}
