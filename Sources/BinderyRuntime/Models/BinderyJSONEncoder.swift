import BinderyJSON
import Foundation

/// Encodes an app's own `Encodable` types to JSON, like Foundation's `JSONEncoder`, and writes the models inside
/// them exactly as they were read.
///
/// Through `JSONEncoder` a model is written back member by member, and a number goes through `Int64` or `Double`:
/// `2.50` comes out as `2.5`, and a decimal with more digits than a `Double` holds loses them. This encoder writes a
/// model's (or a `JSONValue`'s) members as they are, in their order and with their numbers' text, so a cache record
/// read with ``BinderyJSONDecoder`` and written again is the same JSON:
///
/// ```swift
/// let data = try BinderyJSONEncoder().encode(record)
/// ```
///
/// Everything else encodes as with `JSONEncoder` and the same strategies for dates and data; members come out in
/// the order they were encoded. Not supported: output formatting (pretty printing, sorted keys), key encoding
/// strategies and non-conforming floats (an infinity or NaN is an `EncodingError.invalidValue`, as by default).
public struct BinderyJSONEncoder: Sendable {
    /// How a `Date` is written; Foundation's own choices, `deferredToDate` by default as there.
    public var dateEncodingStrategy: JSONEncoder.DateEncodingStrategy = .deferredToDate
    /// How `Data` is written; base64 text by default, as with `JSONEncoder`.
    public var dataEncodingStrategy: JSONEncoder.DataEncodingStrategy = .base64
    /// Values the encoded types can read from `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    /// The JSON text of `value`, compact, in UTF-8.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try encodeJSONValue(value).serialized())
    }

    /// `value` as a `JSONValue`.
    public func encodeJSONValue<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = Slot()
        try ValueEncoder(slot: root, options: ValueEncoder.Options(self)).encodeValue(value)
        return root.finished
    }
}

/// A value being encoded. A reference, because a container handed out earlier must still see what is encoded into
/// it later (`nestedContainer`, `superEncoder`).
final class Slot {
    private enum Kind { case empty, value, object, array }

    private var kind = Kind.empty
    private var value = JSONValue.null
    private var members: [(key: String, slot: Slot)] = []
    /// Each member's position, so that encoding a key again (which replaces it) is found without a search.
    private var positions: [String: Int] = [:]
    private var elements: [Slot] = []

    func set(_ value: JSONValue) {
        kind = .value
        self.value = value
    }

    /// Makes this an object, keeping the members already encoded when it is one.
    func makeObject() {
        guard kind != .object else { return }
        kind = .object
        members = []
        positions = [:]
    }

    func makeArray() {
        guard kind != .array else { return }
        kind = .array
        elements = []
    }

    /// The slot of member `key`: a new one, or the existing one, emptied, since encoding a key again replaces it.
    func member(_ key: String) -> Slot {
        precondition(kind == .object, "not an object")
        if let position = positions[key] {
            members[position].slot.kind = .empty
            return members[position].slot
        }
        let slot = Slot()
        positions[key] = members.count
        members.append((key, slot))
        return slot
    }

    func append() -> Slot {
        precondition(kind == .array, "not an array")
        let slot = Slot()
        elements.append(slot)
        return slot
    }

    var count: Int { kind == .object ? members.count : kind == .array ? elements.count : 0 }

    /// The value as encoded; a value nothing was encoded into is an empty object, as with `JSONEncoder`.
    var finished: JSONValue {
        switch kind {
        case .empty: .object(JSONObject())
        case .value: value
        // A key encoded twice reuses its slot, so the names are distinct.
        case .object:
            .object(JSONObject(distinct: members.map { JSONObject.Member(key: $0.key, value: $0.slot.finished) }))
        case .array: .array(elements.map(\.finished))
        }
    }
}

/// One value being encoded, as an `Encoder`.
final class ValueEncoder: JSONValueEncoder, CodingPathLink {
    /// The encoder's settings, shared by reference: an encoder is made for every nested value.
    final class Options: Sendable {
        let settings: BinderyJSONEncoder
        init(_ settings: BinderyJSONEncoder) { self.settings = settings }
    }

    let slot: Slot
    private let options: Options
    let parent: ValueEncoder?
    let key: (any CodingKey)?

    init(slot: Slot, options: Options, parent: ValueEncoder? = nil, key: (any CodingKey)? = nil) {
        self.slot = slot
        self.options = options
        self.parent = parent
        self.key = key
    }

    func child(_ slot: Slot, at key: any CodingKey) -> ValueEncoder {
        ValueEncoder(slot: slot, options: options, parent: self, key: key)
    }

    var codingPath: [any CodingKey] { linkedPath }

    var userInfo: [CodingUserInfoKey: Any] { options.settings.userInfo }

    func encodeJSONValue(_ value: JSONValue) { slot.set(value) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Encodes `value` into this encoder's slot. Dates, data, URLs and decimals are written here, as Foundation's
    /// encoder writes them; other types write themselves.
    func encodeValue<T: Encodable>(_ value: T) throws {
        // The type is compared first: a cast of every value encoded would cost a conformance lookup each.
        if T.self == Date.self {
            try encode(value as! Date)
        } else if T.self == Data.self {
            try encode(value as! Data)
        } else if T.self == URL.self {
            slot.set(.string((value as! URL).absoluteString))
        } else if T.self == Decimal.self {
            let decimal = value as! Decimal
            guard decimal.isFinite else { throw invalid(decimal, "a decimal that is not a number") }
            slot.set(.number(JSONNumber(unchecked: decimal.description)))
        } else {
            try value.encode(to: self)
        }
    }

    private func encode(_ date: Date) throws {
        switch options.settings.dateEncodingStrategy {
        case .deferredToDate: try date.encode(to: self)
        case .secondsSince1970: try encode(date.timeIntervalSince1970)
        case .millisecondsSince1970: try encode(date.timeIntervalSince1970 * 1000)
        case .iso8601: slot.set(.string(date.formatted(Date.ISO8601FormatStyle())))
        #if canImport(Darwin)
            // Only Apple's Foundation has this strategy.
            case .formatted(let formatter): slot.set(.string(formatter.string(from: date)))
        #endif
        case .custom(let write): try write(date, self)
        @unknown default: throw invalid(date, "a date encoding strategy this encoder does not know")
        }
    }

    private func encode(_ data: Data) throws {
        switch options.settings.dataEncodingStrategy {
        case .deferredToData: try data.encode(to: self)
        case .base64: slot.set(.string(data.base64EncodedString()))
        case .custom(let write): try write(data, self)
        @unknown default: throw invalid(data, "a data encoding strategy this encoder does not know")
        }
    }

    func invalid(_ value: Any, _ message: String, at key: (any CodingKey)? = nil) -> EncodingError {
        let path = key.map { codingPath + [$0] } ?? codingPath
        return EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: message))
    }

    /// A floating-point number as JSON; JSON has no infinities or NaN.
    func number(_ value: Double, at key: (any CodingKey)? = nil) throws -> JSONValue {
        guard value.isFinite else { throw invalid(value, "\(value) is not a JSON number", at: key) }
        return .number(JSONNumber(value))
    }

    func number(_ value: Float, at key: (any CodingKey)? = nil) throws -> JSONValue {
        guard value.isFinite else { throw invalid(value, "\(value) is not a JSON number", at: key) }
        return .number(JSONNumber(value))
    }

    static func number(_ value: some BinaryInteger) -> JSONValue { .number(JSONNumber(unchecked: String(value))) }
}

extension ValueEncoder: SingleValueEncodingContainer {
    func encodeNil() { slot.set(.null) }
    func encode(_ value: Bool) { slot.set(.bool(value)) }
    func encode(_ value: String) { slot.set(.string(value)) }
    func encode(_ value: Double) throws { slot.set(try number(value)) }
    func encode(_ value: Float) throws { slot.set(try number(value)) }
    func encode<T: Encodable & FixedWidthInteger>(_ value: T) { slot.set(Self.number(value)) }
    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue, _ key: Key) { encoder.slot.member(key.stringValue).set(value) }

    mutating func encodeNil(forKey key: Key) { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(try encoder.number(value, at: key), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try encoder.number(value, at: key), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(ValueEncoder.number(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(ValueEncoder.number(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.child(encoder.slot.member(key.stringValue), at: key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.child(encoder.slot.member(key.stringValue), at: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.child(encoder.slot.member(key.stringValue), at: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.child(encoder.slot.member("super"), at: JSONMemberKey("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.child(encoder.slot.member(key.stringValue), at: key)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.slot.count }

    /// The next element's encoder.
    private func next() -> ValueEncoder {
        let key = IndexKey(intValue: count)
        return encoder.child(encoder.slot.append(), at: key)
    }

    mutating func encodeNil() { next().encodeNil() }
    mutating func encode(_ value: Bool) { next().encode(value) }
    mutating func encode(_ value: String) { next().encode(value) }
    mutating func encode(_ value: Double) throws { try next().encode(value) }
    mutating func encode(_ value: Float) throws { try next().encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}
