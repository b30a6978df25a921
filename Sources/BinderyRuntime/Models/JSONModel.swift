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
    public var storage: JSONObject {
        // The cached values were read from the old members. A copy of this model may share the cache (and still
        // hold the old members): then this one gets a cache of its own.
        didSet {
            if isKnownUniquelyReferenced(&values) {
                values.clear()
            } else {
                values = ValueCache()
            }
        }
    }

    /// The declared fields read so far, as Swift values (see `ValueCache`).
    @usableFromInline var values: ValueCache

    public init(storage: JSONObject) {
        self.storage = storage
        values = ValueCache()
    }

    public static var schema: ModelSchema { Fields.schema }

    /// Reads or writes a declared property: `item.name`, `item.name = "x"`; `nil` writes an explicit `null`.
    ///
    /// The first read of a field converts its member and keeps the value in the model's cache (`ValueCache`);
    /// later reads find it there, at a fixed place, and read it where it lies. Inlinable, so that a read is
    /// specialized where it is written: the key path is a literal there, which the compiler turns into a constant
    /// offset, and only the offset is used, so no key path object is built. Generated modules declare tables and
    /// read no properties, so this costs their build nothing.
    @inlinable @inline(__always)
    public subscript<Value>(dynamicMember field: KeyPath<Fields.Table, Field<Value>>) -> Value? {
        unsafeAddress {
            // Nil only for a computed key path; a constant where the key path is a literal.
            guard let offset = MemoryLayout<Fields.Table>.offset(of: field) else { return keepComputed(field) }
            return values.filled(offset / MemberHints.fieldStride, as: Value?.self) ?? keep(at: offset, as: Value.self)
        }
        set {
            let name =
                if let offset = MemoryLayout<Fields.Table>.offset(of: field) {
                    Self.withField(at: offset, as: Value.self) { field, _ in field.pointee.name }
                } else {
                    Fields.all[keyPath: field].name
                }
            storage[name] = newValue?.json ?? .null
        }
    }

    @inlinable
    static var slotCount: Int { MemberHints.slotCount(tableSize: MemoryLayout<Fields.Table>.size) }

    /// Reads a field that a key path reaches through a computed property: a protocol requirement (OneNote's
    /// conveniences name fields that way, `\.displayName` of any `OneNoteHierarchyFields`) or an extension of the
    /// table (`var custom: Field<String> { Field("custom") }`). A declared field of the same name, type and
    /// strictness shares its slot; any other is converted the slow way and kept aside, by key path.
    @usableFromInline
    func keepComputed<Value: JSONConvertible>(_ path: KeyPath<Fields.Table, Field<Value>>) -> UnsafePointer<Value?> {
        let field = Fields.all[keyPath: path]
        let schema = Fields.schema
        // A schema's fields are its table's, in order, a `Field` stride apart, when it is built from its own table.
        if schema.fieldTableType == ObjectIdentifier(Fields.Table.self), let index = schema.fieldIndex[field.name],
            let declared = schema.fields[index] as? Field<Value>, declared.isLoose == field.isLoose
        {
            return values.filled(index, as: Value?.self) ?? keep(at: index * MemberHints.fieldStride, as: Value.self)
        }
        return values.keptAside(for: path, slotCount: Self.slotCount) {
            withUnsafePointer(to: field) { storage.value(of: $0, hint: nil) }
        }
    }

    /// The value of the field at `offset`, converted from its member.
    @inlinable @inline(__always)
    func convert<Value: JSONConvertible>(at offset: Int, as type: Value.Type) -> Value? {
        // The field is read where it lies in the table and the value where it lies in the object: a copy of either
        // would cost a retain and a release.
        Self.withField(at: offset, as: Value.self) { storage.value(of: $0, hint: $1) }
    }

    /// Converts the member of the field at `offset` and keeps the value in the field's slot. Out of line: it runs
    /// once per field per model, and a read site stays small.
    @inlinable @inline(never)
    func keep<Value: JSONConvertible>(at offset: Int, as type: Value.Type) -> UnsafePointer<Value?> {
        values.fill(offset / MemberHints.fieldStride, of: Self.slotCount, with: convert(at: offset, as: Value.self))
    }

    /// Calls `body` with the field at `offset` and its remembered member position.
    ///
    /// Usually the field is read in the schema's copy of the table and the schema is not kept: the table and the
    /// hints never move and are never freed, so this neither retains nor releases it. A hand-written `FieldSet`
    /// may build its schema from another table: then the field is read from a copy of `Fields.all`, without a
    /// hint. (Tuple tables of the same labels and types are one type, so this cannot tell two of them apart: a
    /// hand-written tuple table must build its schema from its own `all`, as generated ones do.)
    @inlinable @inline(__always)
    static func withField<Value: JSONConvertible, Result>(
        at offset: Int, as type: Value.Type, _ body: (UnsafePointer<Field<Value>>, MemberHint?) -> Result
    ) -> Result {
        let schema = Fields.schema
        guard schema.fieldTableType == ObjectIdentifier(Fields.Table.self) else {
            return withUnsafeBytes(of: Fields.all) { table in
                body(table.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Field<Value>.self), nil)
            }
        }
        let field = (schema.fieldTable + offset).assumingMemoryBound(to: Field<Value>.self)
        return body(field, MemberHint(schema.memberHints, fieldOffset: offset))
    }
}

/// The properties a model declares, each a `Field` in its `Table`, plus the model's schema.
public protocol FieldSet: Sendable {
    /// The value whose `Field`s property reads go through: `Self` for a struct of stored fields, or a labelled
    /// tuple of them, which compiles to no function per field.
    associatedtype Table = Self
    /// The one table, which property access reads field names from. Generated tables take the default: the
    /// copy their schema was built from.
    static var all: Table { get }
    /// A `static let`: a schema keeps its copy of the table and its remembered member positions for the life of
    /// the process (property reads point into them without holding the schema), so a schema built anew on every
    /// access would leak them each time.
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
        precondition(
            schema.fieldTableType == ObjectIdentifier(Table.self),
            "\(Self.self).schema is built from another table: declare `static let all`")
        return schema.fieldTable.load(as: Table.self)
    }
}

/// One declared property: its JSON name and how strictly it is read. `Value` is its Swift type.
public struct Field<Value: JSONConvertible>: Sendable, AnyField {
    public let name: String
    /// Also accept loose forms (numbers and booleans sent as strings).
    public let isLoose: Bool
    /// Set by the service (OpenAPI `readOnly`): read from answers, left out of the request bodies a client sends.
    public let isReadOnly: Bool

    @_spi(Generated)
    public init(_ name: String, loose: Bool = false, readOnly: Bool = false) {
        self.name = name
        self.isLoose = loose
        self.isReadOnly = readOnly
    }

    public var kind: FieldKind { Value.fieldKind }
}

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
