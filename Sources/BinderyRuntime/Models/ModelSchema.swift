import Foundation
import Synchronization

/// What a generated type declares, as data: a table the runtime validates payloads against.
///
/// One generic validator over small tables compiles far faster than a `Codable` implementation per type,
/// and it reports the JSON path of the first value that is not what the spec promised.
///
/// A class, not a struct: validation reaches a nested type's schema for every nested object of a page, and a
/// reference costs one retain where a copy of the table costs one per array, set and string it holds.
public final class ModelSchema: Sendable {
    /// The spec's qualified name (`microsoft.graph.driveItem`).
    public let typeName: String
    /// Every field, inherited ones included.
    public let fields: [any AnyField]
    /// The base type, if any (for `downcast(to:)` and `@odata.type` resolution).
    public let base: (any JSONModel.Type)?
    /// Types derived directly from this one.
    public let derived: [any JSONModel.Type]
    /// Each field's position in `fields`, by JSON name: validation walks a payload's members and looks each one up.
    let fieldIndex: [String: Int]
    /// Each field's kind, at its position: worked out once, since asking a field for its kind builds the value.
    let fieldKinds: [FieldKind]
    /// The JSON names of the fields.
    public var fieldNames: Set<String> { Set(fieldIndex.keys) }
    /// The table the schema was built from (a generated `Fields.Table` value): `FieldSet.all` for generated tables.
    let table: any Sendable
    /// The type of `table`.
    @usableFromInline let tableType: ObjectIdentifier
    /// Each field's name and strictness, in the table's order: a property read finds its field here by the key
    /// path's offset in the table.
    @usableFromInline let fieldsInTableOrder: [DeclaredField]
    /// The fields the service sets (OpenAPI `readOnly`): `requestMembers` leaves them out.
    public let readOnlyFieldNames: Set<String>
    /// The member that names a payload's concrete type, when this type declares one (OpenAPI's
    /// `discriminator.propertyName`, Inbox's `object`); derived types inherit it. Default: OData's `@odata.type`.
    public let discriminator: String?
    /// The value of the discriminator that names this type (`timespan`); default: the qualified type name.
    public let tag: String?
    /// Other qualified names the service gives this type (the legacy OneDrive API's `oneDrive.item`): an
    /// `@odata.type` naming one of them names this type.
    public let aliases: [String]
    /// The member whose value names a payload's concrete type: this type's discriminator, else its base's,
    /// else `@odata.type`. Worked out once, since validation reads it for every object.
    public let discriminatorMember: String

    /// Builds the table from a generated table value: the `Field`s of a struct's stored properties or of a labelled
    /// tuple's elements, in declaration order.
    @_spi(Generated)
    public init<Table: Sendable>(
        _ typeName: String, base: (any JSONModel.Type)? = nil, derived: [any JSONModel.Type] = [],
        discriminator: String? = nil, tag: String? = nil, aliases: [String] = [], fields: Table
    ) {
        // Reflection runs once per type, when the schema is first used; generated code stays a plain table.
        let mirror = Mirror(reflecting: fields)
        let declared = mirror.children.compactMap { $0.value as? any AnyField }
        // Anything else (a value that is not a table, a member that is not a `Field`: an optional one, another
        // `AnyField`) would leave fields unread or put them at offsets a read would take for another field.
        precondition(
            [.struct, .tuple].contains(mirror.displayStyle)
                && mirror.children.allSatisfy { type(of: $0.value) is any TableField.Type }
                && declared.count == mirror.children.count,
            "the table of \(typeName) must be a struct or tuple of `Field`s")
        self.typeName = typeName
        self.base = base
        self.derived = derived
        self.discriminator = discriminator
        self.tag = tag
        self.aliases = aliases
        // Base chains are acyclic, so reading the base's schema here cannot recurse into this one.
        self.discriminatorMember = discriminator ?? base?.schema.discriminatorMember ?? "@odata.type"
        self.fields = declared
        self.fieldKinds = declared.map(\.kind)
        self.fieldIndex = Dictionary(declared.enumerated().map { ($0.element.name, $0.offset) }) { first, _ in first }
        // A table of `Field`s only, a `Field` stride apart: a field's offset names its position.
        let size = declared.isEmpty ? 0 : (declared.count - 1) * DeclaredField.stride + MemoryLayout<Field<Bool>>.size
        precondition(MemoryLayout<Table>.size == size, "the table of \(typeName) must hold nothing but its `Field`s")
        table = fields
        tableType = ObjectIdentifier(Table.self)
        fieldsInTableOrder = declared.map { DeclaredField(name: $0.name, isLoose: $0.isLoose) }
        self.readOnlyFieldNames = Set(declared.filter(\.isReadOnly).map(\.name))
    }

    /// Whether a discriminator value (`#microsoft.graph.user`, `microsoft.graph.user`, `timespan`) names this type.
    func isNamed(by value: String) -> Bool {
        if let tag { return value == tag }
        let name = value.trimmingPrefix("#")
        return name == typeName || aliases.contains { $0 == name }
    }

    /// Whether this type is `other` or derives from it.
    public func isKind(of other: ModelSchema) -> Bool {
        if typeName == other.typeName { return true }
        return base?.schema.isKind(of: other) ?? false
    }

    /// The most-derived known type a payload names (by `@odata.type`, or the discriminator its type declares),
    /// searched among `declared` and its descendants. Nil when the payload names no type or no known descendant
    /// (it is then read as `declared`).
    public static func resolve(declared: any JSONModel.Type, object: JSONObject) -> (any JSONModel.Type)? {
        guard let value = object[declared.schema.discriminatorMember]?.stringValue else { return nil }
        if declared.schema.isNamed(by: value) { return declared }
        return declared.schema.descendant(named: value)
    }

    /// The descendant of this type that a discriminator value names, if any; cached, since validation asks for
    /// every element of a page and a base type may have hundreds of descendants.
    ///
    /// The values come from servers, so the cache is bounded: a name that finds a type is one of the finitely many
    /// the generated types declare, and names that find none (a hostile server can send endless new ones) are
    /// remembered only while there are fewer than `maximumUnknownNames` of them.
    func descendant(named value: String) -> (any JSONModel.Type)? {
        guard !derived.isEmpty else { return nil }
        let key = CacheKey(declared: typeName, value: value)
        if let hit = ModelSchema.resolutionCache.withLock({ $0.types[key] }) { return hit.type }
        var found: (any JSONModel.Type)?
        for child in derived {
            found = ModelSchema.search(child, for: value)
            if found != nil { break }
        }
        ModelSchema.resolutionCache.withLock { cache in
            if found == nil {
                guard cache.unknownNames < Self.maximumUnknownNames else { return }
                cache.unknownNames += 1
            }
            cache.types[key] = CachedType(type: found)
        }
        return found
    }

    static let maximumUnknownNames = 1_024

    /// How many discriminator values that name no type the cache holds, for tests that it stays bounded.
    static var cachedUnknownNames: Int { resolutionCache.withLock { $0.unknownNames } }

    private static func search(_ type: any JSONModel.Type, for value: String) -> (any JSONModel.Type)? {
        if type.schema.isNamed(by: value) { return type }
        for child in type.schema.derived {
            if let found = search(child, for: value) { return found }
        }
        return nil
    }

    private struct CacheKey: Hashable {
        let declared: String
        let value: String
    }

    private struct CachedType {
        let type: (any JSONModel.Type)?
    }

    private struct ResolutionCache {
        var types: [CacheKey: CachedType] = [:]
        var unknownNames = 0
    }

    private static let resolutionCache = Mutex(ResolutionCache())
}

/// The kind of value a field holds.
public indirect enum FieldKind: Sendable {
    case string
    case boolean
    /// An integer that must fit in `bits` bits (signed).
    case integer(bits: Int)
    case byte
    case number
    case decimal
    case dateTime
    case date
    case timeOfDay
    /// Base64 or base64url text.
    case binary
    /// An open enumeration: any string.
    case enumeration
    case model(any JSONModel.Type)
    /// One of several types (OpenAPI `oneOf`/`anyOf`).
    case choice(any AnyJSONChoice.Type)
    case collection(FieldKind)
    /// An object used as a map from member names to values of one kind.
    case dictionary(FieldKind)
    /// Any JSON value.
    case any
}

/// A payload that is not what the spec promised: where, and what was wrong.
public struct ModelDecodingError: Error, Sendable, CustomStringConvertible {
    /// Keys and indexes from the root of the decoded value to the bad one.
    public let path: [JSONPathComponent]
    public let message: String

    public init(path: [JSONPathComponent], message: String) {
        self.path = path
        self.message = message
    }

    init(malformed error: JSONParseError) {
        self.init(path: [], message: "malformed JSON at \(error.position): \(error.message)")
    }

    /// The same error seen from one level up: `component` leads to where it was found. Paths are built this way,
    /// while a failure unwinds, so that validating a payload that is fine allocates no paths at all.
    func under(_ component: JSONPathComponent) -> ModelDecodingError {
        ModelDecodingError(path: [component] + path, message: message)
    }

    func under(_ components: [JSONPathComponent]) -> ModelDecodingError {
        components.isEmpty ? self : ModelDecodingError(path: components + path, message: message)
    }

    /// `$.value[3].parentReference.driveId`
    public var jsonPath: String {
        var text = "$"
        for component in path {
            switch component {
            case .key(let key): text += "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    public var description: String { "\(jsonPath): \(message)" }
}

public enum JSONPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)
}

extension ModelSchema {
    /// Checks every declared field present in `object`; undeclared members are kept, not checked.
    /// A payload that names a known derived type (`@odata.type`, or the declared discriminator) validates
    /// against that type's fields instead. Errors give their path from the root, of which `path` leads to `object`.
    public func validate(_ object: JSONObject, path: [JSONPathComponent]) throws(ModelDecodingError) {
        do { try validate(object) } catch { throw error.under(path) }
    }

    /// `validate(_:path:)` with paths relative to `object`.
    func validate(_ object: JSONObject) throws(ModelDecodingError) {
        let schema = object[discriminatorMember]?.stringValue.flatMap(descendant(named:))?.schema ?? self
        // Member by member, each looked up by hash: a payload has fewer members than its type has fields, and
        // searching the object for every declared field was most of the time a page took to decode.
        for member in object {
            guard let position = schema.fieldIndex[member.key], !member.value.isNull else { continue }
            do {
                try ModelSchema.check(member.value, schema.fieldKinds[position], loose: schema.fields[position].isLoose)
            } catch {
                throw error.under(.key(member.key))
            }
        }
    }

    static func check(
        _ value: JSONValue, _ kind: FieldKind, loose: Bool, path: [JSONPathComponent]
    ) throws(ModelDecodingError) {
        do { try check(value, kind, loose: loose) } catch { throw error.under(path) }
    }

    /// Checks one value against its kind; the error's path is relative to `value`.
    static func check(_ value: JSONValue, _ kind: FieldKind, loose: Bool) throws(ModelDecodingError) {
        func fail(_ expected: String) -> ModelDecodingError {
            ModelDecodingError(path: [], message: "expected \(expected), found \(value.kindName)")
        }
        switch kind {
        case .any:
            return
        case .string, .enumeration:
            guard (loose ? String(looseJSON: value) : String(json: value)) != nil else { throw fail("a string") }
        case .boolean:
            let ok = loose ? Bool(looseJSON: value) != nil : Bool(json: value) != nil
            guard ok else { throw fail("a boolean") }
        case .integer(let bits):
            let parsed = loose ? Int64(looseJSON: value) : Int64(json: value)
            guard let number = parsed else { throw fail("an integer") }
            if bits < 64 {
                let limit = Int64(1) << (bits - 1)
                guard number >= -limit, number < limit else {
                    throw ModelDecodingError(path: [], message: "integer \(number) does not fit in \(bits) bits")
                }
            }
        case .byte:
            guard (loose ? UInt8(looseJSON: value) : UInt8(json: value)) != nil else { throw fail("a byte (0-255)") }
        case .number:
            guard (loose ? Double(looseJSON: value) : Double(json: value)) != nil else { throw fail("a number") }
        case .decimal:
            guard (loose ? Decimal(looseJSON: value) : Decimal(json: value)) != nil else { throw fail("a decimal") }
        case .dateTime:
            if loose, case .number = value { return }
            guard case .string(let text) = value else { throw fail("a date-time string") }
            guard ISO8601.parseDateTime(text) != nil else {
                throw ModelDecodingError(path: [], message: "\"\(text)\" is not an ISO 8601 date-time")
            }
        case .date:
            guard case .string(let text) = value else { throw fail("a date string") }
            guard CalendarDate(text) != nil else {
                throw ModelDecodingError(path: [], message: "\"\(text)\" is not a date (YYYY-MM-DD)")
            }
        case .timeOfDay:
            guard case .string(let text) = value else { throw fail("a time-of-day string") }
            guard TimeOfDay(text) != nil else {
                throw ModelDecodingError(path: [], message: "\"\(text)\" is not a time of day (hh:mm:ss)")
            }
        case .binary:
            guard Data(json: value) != nil else { throw fail("base64 text") }
        case .model(let type):
            guard case .object(let object) = value else { throw fail("an object") }
            try type.schema.validate(object)
        case .choice(let type):
            try type.validateChoice(value, path: [])
        case .collection(let elementKind):
            guard case .array(let elements) = value else { throw fail("an array") }
            for (index, element) in elements.enumerated() where !element.isNull {
                do { try check(element, elementKind, loose: loose) } catch { throw error.under(.index(index)) }
            }
        case .dictionary(let valueKind):
            guard case .object(let object) = value else { throw fail("an object") }
            for member in object where !member.value.isNull {
                do { try check(member.value, valueKind, loose: loose) } catch { throw error.under(.key(member.key)) }
            }
        }
    }
}

extension BinderyError {
    /// A JSON body whose value at `error.jsonPath` does not match the spec.
    public static func decoding(_ error: ModelDecodingError, response: APIResponse) -> BinderyError {
        BinderyError(
            kind: .decoding, message: error.description, status: response.status.code, body: response.body,
            underlying: error)
    }
}
