import Foundation

/// A model: a value whose state is the JSON object it was decoded from.
///
/// Keeping the object, rather than one stored property per field, is what lets a model
/// - keep every field it does not declare (`additionalData`) and re-encode it, so decode → encode loses nothing;
/// - send only the fields a caller set, including explicit `null` (partial PATCH): a fresh model is empty;
/// - be read as any type of its hierarchy without copying (`downcast(to:)`).
///
/// Generated types are all `Model<SomeFields>`; the protocol lets runtime code hold any of them.
public protocol JSONModel: Codable, Hashable, Sendable, JSONConvertible {
    /// The JSON members, in wire order.
    var storage: JSONObject { get set }
    /// Wraps a JSON object without validating it; decoding paths validate with `schema`.
    init(storage: JSONObject)
    /// What the type declares: its name, its fields and their kinds, its base and derived types.
    static var schema: ModelSchema { get }
}

/// Every generated model type: `public typealias DriveItem = Model<DriveItemFields>`.
///
/// All behaviour (decoding, validation, encoding, equality, property access) is compiled once, here; a generated
/// type contributes only its table of fields. That is what lets all of Microsoft Graph compile quickly: thousands
/// of types cost thousands of small tables, not thousands of `Codable` and `Hashable` implementations.
@dynamicMemberLookup
public struct Model<Fields: FieldSet>: JSONModel {
    public var storage: JSONObject

    public init(storage: JSONObject) { self.storage = storage }

    public static var schema: ModelSchema { Fields.schema }

    /// Reads or writes a declared property: `item.name`, `item.name = "x"`; `nil` writes an explicit `null`.
    ///
    /// A read finds the member and converts it, every time: the JSON is the model's only state, so nothing read
    /// can go stale and a model costs no memory beyond its members. Inlinable, so that where a property is read
    /// the key path is a literal and its offset a constant.
    @inlinable @inline(__always)
    public subscript<Value>(dynamicMember path: KeyPath<Fields.Table, Field<Value>>) -> Value? {
        get { storage.value(of: Self.declaredField(path)) }
        set { storage[Self.declaredField(path).name] = newValue?.json ?? .null }
    }

    /// The name and strictness of the field `path` reaches. Inlined, so that for a literal key path the offset
    /// is a constant and no key path object is built.
    @inlinable @inline(__always)
    static func declaredField<Value>(_ path: KeyPath<Fields.Table, Field<Value>>) -> DeclaredField {
        if let offset = MemoryLayout<Fields.Table>.offset(of: path), let field = declaredField(atOffset: offset) {
            return field
        }
        return computedField(path)
    }

    /// The field at `offset` in the table, when the schema was built from this very table.
    @usableFromInline
    static func declaredField(atOffset offset: Int) -> DeclaredField? {
        let schema = Fields.schema
        guard schema.tableType == ObjectIdentifier(Fields.Table.self) else { return nil }
        return schema.fieldsInTableOrder[offset / DeclaredField.stride]
    }

    /// A field reached through a computed property (a protocol requirement, or a field added in an extension:
    /// `var custom: Field<String> { Field("custom") }`), or through a schema built from another table: read from
    /// `Fields.all`.
    @usableFromInline
    static func computedField<Value>(_ path: KeyPath<Fields.Table, Field<Value>>) -> DeclaredField {
        let field = Fields.all[keyPath: path]
        return DeclaredField(name: field.name, isLoose: field.isLoose)
    }
}

extension JSONObject {
    /// The value of `field`'s member as the field reads it (strictly or loosely); nil when absent. Converted where
    /// it lies in the object: copying the member out would cost a retain and a release on every read.
    @inlinable @inline(__always)
    func value<Value: JSONConvertible>(of field: DeclaredField) -> Value? {
        members.withUnsafeBufferPointer { members in
            let length = field.name.utf8.count
            // Lengths first: they are known without reading the text, and differ for most members.
            for index in members.indices
            where members[index].key.utf8.count == length && members[index].key == field.name {
                return field.isLoose ? Value(looseJSON: members[index].value) : Value(json: members[index].value)
            }
            return nil
        }
    }
}

/// What a property read needs of a `Field`, without its value type: one array of them serves every type.
@usableFromInline
struct DeclaredField: Sendable {
    @usableFromInline let name: String
    @usableFromInline let isLoose: Bool

    @usableFromInline
    init(name: String, isLoose: Bool) {
        self.name = name
        self.isLoose = isLoose
    }

    /// The distance between two `Field`s of a table: a field's position is its offset divided by it. The value
    /// type is only a type parameter of `Field`, so every `Field` has the same layout.
    @usableFromInline static let stride = MemoryLayout<Field<String>>.stride
}

/// The properties a model declares, each a `Field` in its `Table`, plus the model's schema.
public protocol FieldSet: Sendable {
    /// The value whose `Field`s property reads go through: `Self` for a struct of stored fields, or a labelled
    /// tuple of them, which compiles to no function per field.
    associatedtype Table = Self
    /// The one table, which property access reads field names from. Generated tables take the default: the
    /// copy their schema was built from. Reads of stored fields use the schema's names, found by the table's type:
    /// a hand-written table must build its schema from its own `all`, since two values of one table type (two
    /// tuple tables of the same labels and types are one type) cannot be told apart.
    static var all: Table { get }
    /// A `static let`: a schema is built by reflecting on the table, once; built anew on every access, every
    /// property read would pay for that (a test checks every generated type).
    static var schema: ModelSchema { get }
}

extension FieldSet {
    /// The copy of the table the schema was built from (`ModelSchema(..., fields: SomeFields())`).
    ///
    /// Generated tables declare no `all` of their own: that is three functions fewer per model (a global, its
    /// addressor and its initializer), and the full Graph module has thousands of models. A table whose schema
    /// is built from another table must declare `all`.
    public static var all: Table {
        let schema = Self.schema
        guard let table = schema.table as? Table else {
            preconditionFailure("\(Self.self).schema is built from another table: declare `static let all`")
        }
        return table
    }
}

/// One declared property: its JSON name and how strictly it is read. `Value` is its Swift type.
public struct Field<Value: JSONConvertible>: Sendable, AnyField {
    public let name: String
    /// Also accept loose forms (numbers and booleans sent as strings).
    public let isLoose: Bool
    /// Set by the service (OpenAPI `readOnly`): read from answers, left out of the request bodies a client sends.
    public let isReadOnly: Bool

    /// A field named `name` on the wire. Generated tables declare theirs; an app may add one for a member the spec
    /// does not declare, as a computed property of the table: `var custom: Field<String> { Field("custom") }`, then
    /// `item.custom`.
    public init(_ name: String, loose: Bool = false, readOnly: Bool = false) {
        self.name = name
        self.isLoose = loose
        self.isReadOnly = readOnly
    }

    public var kind: FieldKind { Value.fieldKind }
}

/// Only `Field`: what a table may hold, so that every member is a `Field` stride from the next.
protocol TableField {}

extension Field: TableField {}

/// A field with its value type erased, for schema tables.
public protocol AnyField: Sendable {
    var name: String { get }
    var isLoose: Bool { get }
    var isReadOnly: Bool { get }
    var kind: FieldKind { get }
}

extension JSONModel {
    public static var fieldKind: FieldKind { .model(Self.self) }

    /// An empty model: only the fields you set are encoded.
    public init() { self.init(storage: JSONObject()) }

    /// Decodes and validates a JSON object as this type (or the most-derived type it names).
    public init(validating object: JSONObject) throws(ModelDecodingError) {
        try Self.schema.validate(object, path: [])
        self.init(storage: object)
    }

    /// Decodes and validates JSON bytes.
    public init(jsonBytes: some Collection<UInt8>) throws(ModelDecodingError) {
        let value: JSONValue
        do { value = try JSONValue.parse(jsonBytes) } catch { throw ModelDecodingError(malformed: error) }
        guard case .object(let object) = value else {
            throw ModelDecodingError(path: [], message: "expected an object, found \(value.kindName)")
        }
        try self.init(validating: object)
    }

    /// Members the type does not declare, kept so that they are re-encoded.
    public var additionalData: JSONObject {
        let declared = Self.schema.fieldIndex
        return storage.filtered { declared[$0.key] == nil }
    }

    /// The members a request body carries: all of them but those the type marks read-only (`id`, `created_at`),
    /// which a model read from the service holds and sending it back would otherwise echo.
    ///
    /// Only this object's own members: a nested object is often a reference that names its target by a read-only
    /// `id` (`"parent": {"id": "0"}`), so dropping deeper members would break the request.
    public var requestMembers: JSONObject {
        let readOnly = Self.schema.readOnlyFieldNames
        guard !readOnly.isEmpty else { return storage }
        return storage.filtered { !readOnly.contains($0.key) }
    }

    /// The `@odata.type` the payload names, if any (`#microsoft.graph.user`).
    public var odataType: String? { storage["@odata.type"]?.stringValue }

    /// The value of the member that names this payload's concrete type (`@odata.type`, or the discriminator
    /// the type declares, such as Inbox's `object`).
    public var typeTag: String? { storage[Self.schema.discriminatorMember]?.stringValue }

    /// This value read as `type`, when the payload is of that type or one derived from it.
    ///
    /// The data is shared, not converted: downcasting and re-encoding loses nothing.
    public func downcast<Target: JSONModel>(to type: Target.Type) -> Target? {
        if Target.schema.typeName == Self.schema.typeName { return Target(storage: storage) }
        guard let actual = ModelSchema.resolve(declared: Self.self, object: storage),
            actual.schema.isKind(of: Target.schema)
        else { return nil }
        return Target(storage: storage)
    }

    /// This value as its most-derived known type (from `@odata.type` or the discriminator), or as itself.
    public var resolved: any JSONModel {
        guard let actual = ModelSchema.resolve(declared: Self.self, object: storage) else { return self }
        return actual.init(storage: storage)
    }

    /// The members that differ from `original`: what a PATCH must send to turn `original` into `self`.
    /// A member removed since `original` is sent as an explicit `null`.
    public func changes(since original: Self) -> Self {
        var changed = JSONObject()
        for member in storage where original.storage[member.key] != member.value {
            changed[member.key] = member.value
        }
        for member in original.storage where storage[member.key] == nil {
            changed[member.key] = .null
        }
        return Self(storage: changed)
    }

    // MARK: JSONConvertible

    public init?(json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        self.init(storage: object)
    }

    public var json: JSONValue { .object(storage) }

    // MARK: Codable

    public init(from decoder: any Decoder) throws {
        let object: JSONObject
        if let decoder = decoder as? ValueDecoder {
            // Bindery's own decoder parsed the document already: take this model's part of it as it is.
            guard case .object(let parsed) = decoder.jsonValue else {
                throw decoder.mismatch(Self.self, decoder.jsonValue)
            }
            object = parsed
        } else {
            object = try CodableBridge.object(from: decoder, schema: Self.schema)
        }
        do {
            try Self.schema.validate(object, path: [])
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
        self.init(storage: object)
    }

    public func encode(to encoder: any Encoder) throws {
        try storage.encode(to: encoder)
    }

    // MARK: Equatable, Hashable

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage == rhs.storage }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}

extension JSONObject {
    /// The value at `key` as `T`; nil when absent, null, or not a `T`.
    ///
    /// Not inlinable on purpose: generated modules call one unspecialized copy instead of compiling thousands.
    public func value<T: JSONConvertible>(_ key: String) -> T? {
        guard let value = self[key] else { return nil }
        return T(json: value)
    }

    /// Like `value(_:)`, but also accepts the loose forms some services send (`"true"`, `" -116.3"`).
    public func looseValue<T: JSONConvertible>(_ key: String) -> T? {
        guard let value = self[key] else { return nil }
        return T(looseJSON: value)
    }

    /// Sets `key` to `value`; `nil` writes an explicit JSON `null` (use `removeValue(forKey:)` to unset).
    @_spi(Generated)
    public mutating func set<T: JSONConvertible>(_ key: String, _ value: T?) {
        self[key] = value?.json ?? .null
    }

    /// Removes a member, so that it is not sent at all.
    public mutating func removeValue(forKey key: String) {
        self[key] = nil
    }
}
