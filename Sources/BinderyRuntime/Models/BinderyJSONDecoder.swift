// Over 500 lines on purpose: the decoder and its keyed, unkeyed and single-value containers share private
// state (the coding-path links, the value decoder) and read best side by side.

import BinderyJSON
import Foundation

/// Decodes an app's own `Decodable` types from JSON, like Foundation's `JSONDecoder`, and hands the models inside
/// them their JSON as it is.
///
/// A model keeps the JSON object it was read from. Through Foundation's decoder that object has to be rebuilt member
/// by member; this decoder parses with the runtime's parser, so a model (or a `JSONValue`) inside a cache record or
/// a state file takes its part of the parsed document and only validates it:
///
/// ```swift
/// struct CacheRecord: Codable { var savedAt: Date; var items: [DriveItem] }
/// let record = try BinderyJSONDecoder().decode(CacheRecord.self, from: data)
/// ```
///
/// Everything else decodes as with `JSONDecoder` and the same strategies for dates and data. Errors are
/// `DecodingError`s with their coding paths; malformed JSON is `dataCorrupted` with the parser's position.
/// Not supported: key decoding strategies (keys are used as written) and non-conforming floats.
public struct BinderyJSONDecoder: Sendable {
    /// How a `Date` is read; Foundation's own choices, `deferredToDate` by default as there.
    public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .deferredToDate
    /// How `Data` is read; base64 text by default, as with `JSONDecoder`.
    public var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy = .base64
    /// Values the decoded types can read from `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, fromBytes: data)
    }

    public func decode<T: Decodable>(_ type: T.Type, fromBytes bytes: some Collection<UInt8>) throws -> T {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [], debugDescription: "The given data was not valid JSON: \(error)",
                    underlyingError: error))
        }
        return try ValueDecoder(value: value, options: ValueDecoder.Options(self)).unwrap(value, as: type, key: nil)
    }
}

/// One value of the parsed document, as a `Decoder`.
final class ValueDecoder: JSONValueDecoder, CodingPathLink {
    /// The decoder's settings, shared by reference: a decoder is made for every nested value.
    final class Options: Sendable {
        let settings: BinderyJSONDecoder
        init(_ settings: BinderyJSONDecoder) { self.settings = settings }
    }

    let jsonValue: JSONValue
    private let options: Options
    let parent: ValueDecoder?
    let key: (any CodingKey)?

    init(value: JSONValue, options: Options, parent: ValueDecoder? = nil, key: (any CodingKey)? = nil) {
        self.jsonValue = value
        self.options = options
        self.parent = parent
        self.key = key
    }

    /// The decoder of `value`, found at `key` under this one.
    func child(_ value: JSONValue, at key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, options: options, parent: self, key: key)
    }

    var codingPath: [any CodingKey] { linkedPath }

    var userInfo: [CodingUserInfoKey: Any] { options.settings.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = jsonValue else { throw mismatch([String: JSONValue].self, jsonValue) }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = jsonValue else { throw mismatch([JSONValue].self, jsonValue) }
        return UnkeyedContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `value`, found at `key` under this decoder, as `T`. Dates, data, URLs and decimals are read here, as
    /// Foundation's decoder reads them; other types read themselves from a decoder of their own.
    func unwrap<T: Decodable>(_ value: JSONValue, as type: T.Type, key: (any CodingKey)?) throws -> T {
        let decoder = key.map { child(value, at: $0) } ?? self
        if T.self == Date.self { return try decoder.date() as! T }
        if T.self == Data.self { return try decoder.data() as! T }
        if T.self == URL.self {
            guard case .string(let text) = value, let url = URL(string: text) else {
                throw decoder.corrupted("expected a URL, found \(value.kindName)")
            }
            return url as! T
        }
        if T.self == Decimal.self {
            guard case .number(let number) = value, let decimal = Decimal(string: number.text) else {
                throw decoder.mismatch(Decimal.self, value)
            }
            return decimal as! T
        }
        return try T(from: decoder)
    }

    private func date() throws -> Date {
        switch options.settings.dateDecodingStrategy {
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try decode(Double.self) / 1000)
        case .iso8601:
            let text = try decode(String.self)
            guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                throw corrupted("expected an ISO 8601 date, found \"\(text)\"")
            }
            return date
        #if canImport(Darwin)
            // Only Apple's Foundation has this strategy.
            case .formatted(let formatter):
                let text = try decode(String.self)
                guard let date = formatter.date(from: text) else {
                    throw corrupted("\"\(text)\" does not match the date formatter's format")
                }
                return date
        #endif
        case .custom(let read): return try read(self)
        @unknown default: throw corrupted("a date decoding strategy this decoder does not know")
        }
    }

    private func data() throws -> Data {
        switch options.settings.dataDecodingStrategy {
        case .deferredToData: return try Data(from: self)
        case .base64:
            let text = try decode(String.self)
            guard let data = Data(base64Encoded: text) else { throw corrupted("expected base64 text") }
            return data
        case .custom(let read): return try read(self)
        @unknown default: throw corrupted("a data decoding strategy this decoder does not know")
        }
    }

    /// The path to `key` under this decoder (to this decoder itself without one).
    func path(to key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return codingPath + [key]
    }

    /// `value`, at `key` under this decoder, is not a `type`; a null is a missing value, as Foundation has it.
    func mismatch(_ type: Any.Type, _ value: JSONValue, at key: (any CodingKey)? = nil) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: path(to: key), debugDescription: "expected \(type), found \(value.kindName)")
        return value.isNull ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    func corrupted(_ message: String, at key: (any CodingKey)? = nil) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: path(to: key), debugDescription: message))
    }

    // Primitives are read in place, by the container that holds them; `key` is only for an error's path.

    func bool(_ value: JSONValue, at key: (any CodingKey)? = nil) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, at: key) }
        return bool
    }

    func string(_ value: JSONValue, at key: (any CodingKey)? = nil) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, at: key) }
        return string
    }

    /// A number as `T`: its text read exactly, or an integral value written with a fraction or an exponent.
    func integer<T: FixedWidthInteger>(_ value: JSONValue, as type: T.Type, at key: (any CodingKey)? = nil) throws
        -> T
    {
        guard case .number(let number) = value else { throw mismatch(type, value, at: key) }
        if let integer = T(number.text) { return integer }
        if let double = number.doubleValue, double.rounded() == double, let integer = T(exactly: double) {
            return integer
        }
        throw corrupted("the number \(number.text) does not fit in \(type)", at: key)
    }

    func float<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: JSONValue, as type: T.Type, at key: (any CodingKey)? = nil
    ) throws -> T {
        guard case .number(let number) = value, let float = T(number.text) else {
            throw mismatch(type, value, at: key)
        }
        // JSON has no infinities: an infinite result is a number too large for `T`, as Foundation reports it.
        guard float.isFinite else { throw corrupted("the number \(number.text) does not fit in \(type)", at: key) }
        return float
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { jsonValue.isNull }

    func decode(_ type: Bool.Type) throws -> Bool { try bool(jsonValue) }
    func decode(_ type: String.Type) throws -> String { try string(jsonValue) }
    func decode(_ type: Double.Type) throws -> Double { try float(jsonValue, as: type) }
    func decode(_ type: Float.Type) throws -> Float { try float(jsonValue, as: type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(jsonValue, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(jsonValue, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(jsonValue, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(jsonValue, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(jsonValue, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(jsonValue, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(jsonValue, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(jsonValue, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(jsonValue, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(jsonValue, as: type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(jsonValue, as: type, key: nil) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: JSONObject
    /// Member positions by name, for a large object: a `[String: T]` of thousands of entries reads every key, and
    /// searching the members for each would be quadratic. Small objects are searched; the first of twins wins.
    private let positions: [String: Int]?

    init(decoder: ValueDecoder, object: JSONObject) {
        self.decoder = decoder
        self.object = object
        positions =
            object.count > 16
            ? Dictionary(object.members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
            : nil
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    private func member(_ key: Key) -> JSONValue? {
        guard let positions else { return object[key.stringValue] }
        return positions[key.stringValue].map { object.members[$0].value }
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = member(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return value
    }

    /// The member, or nil when it is absent or null: one lookup, where the default `decodeIfPresent` makes three.
    private func present(_ key: Key) -> JSONValue? {
        guard let value = member(key), !value.isNull else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(value(key), at: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(value(key), at: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.float(value(key), as: type, at: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.float(value(key), as: type, at: key)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.integer(value(key), as: type, at: key)
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(value(key), as: type, key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try decoder.bool($0, at: key) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try decoder.string($0, at: key) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.float($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try decoder.float($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try decoder.integer($0, as: type, at: key) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.unwrap($0, as: type, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(value(key), at: key)
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(value(key), at: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = JSONMemberKey("super")
        return decoder.child(object["super"] ?? .null, at: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(member(key) ?? .null, at: key)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element; the index moves past it only once it was read.
    private func next() throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self,
                .init(codingPath: codingPath + [IndexKey(intValue: currentIndex)], debugDescription: "no more elements")
            )
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try next().isNull else { return false }
        currentIndex += 1
        return true
    }

    /// Reads the next element with `read`, and moves past it only when that succeeded.
    private mutating func next<T>(_ read: (ValueDecoder, JSONValue, IndexKey) throws -> T) throws -> T {
        let value = try read(decoder, next(), IndexKey(intValue: currentIndex))
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.bool($1, at: $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.string($1, at: $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double {
        try next { try $0.float($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        try next { try $0.float($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try next { try $0.integer($1, as: type, at: $2) }
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next { try $0.unwrap($1, as: type, key: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let nested = try nestedDecoder().container(keyedBy: type)
        currentIndex += 1
        return nested
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let nested = try nestedDecoder().unkeyedContainer()
        currentIndex += 1
        return nested
    }

    mutating func superDecoder() throws -> any Decoder {
        let nested = try nestedDecoder()
        currentIndex += 1
        return nested
    }

    private func nestedDecoder() throws -> ValueDecoder {
        decoder.child(try next(), at: IndexKey(intValue: currentIndex))
    }
}

/// A coder that knows only its parent and its key: its coding path is built as an array only when asked for
/// (errors, mostly), since a decoder or encoder is made for every nested value.
protocol CodingPathLink: AnyObject {
    var parent: Self? { get }
    var key: (any CodingKey)? { get }
}

extension CodingPathLink {
    var linkedPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var link: Self? = self
        while let current = link, let key = current.key {
            path.append(key)
            link = current.parent
        }
        return path.reversed()
    }
}

/// The coding key of an array element, for the coding paths of both coders.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
