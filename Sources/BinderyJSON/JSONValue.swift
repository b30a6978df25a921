/// A JSON value that keeps everything the wire said: member order, and numbers as their exact text
/// (so an Int64 such as 1099511627776, or a decimal, survives a decode/encode round trip untouched).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The member at `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON number, kept as its literal text.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    /// Trusts `text` to be a valid JSON number literal; use `init?(validating:)` for untrusted text.
    public init(unchecked text: String) { self.text = text }

    public init?(validating text: String) {
        guard JSONNumber.isValidLiteral(Array(text.utf8)) else { return nil }
        self.text = text
    }

    public init(_ value: Int64) { text = String(value) }
    public init(_ value: Int) { text = String(value) }
    public init(_ value: Double) { self.init(printing: value) }
    /// The shortest text that reads back as the same `Float` (`0.1`, not `0.10000000149011612`).
    public init(_ value: Float) { self.init(printing: value) }

    private init<Value: BinaryFloatingPoint & CustomStringConvertible>(printing value: Value) {
        // Integral values print without a fraction, as JSON writers usually do.
        if value.rounded() == value, abs(value) < 1e15 {
            text = String(Int64(value))
        } else {
            text = value.description
        }
    }

    /// Equal when they denote the same number: `2.50 == 2.5`, `1e2 == 100`. The text is still kept as written.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        if lhs.text == rhs.text { return true }
        if let left = lhs.int64Value, let right = rhs.int64Value { return left == right }
        guard let left = lhs.doubleValue, let right = rhs.doubleValue else { return false }
        return left == right
    }

    public func hash(into hasher: inout Hasher) {
        // Agrees with ==: equal numbers have equal doubles.
        hasher.combine(doubleValue ?? 0)
    }

    public var int64Value: Int64? { Int64(text) }
    public var intValue: Int? { Int(text) }
    public var doubleValue: Double? { Double(text) }
    public var description: String { text }

    static func isValidLiteral(_ bytes: [UInt8]) -> Bool {
        var parser = JSONParser(bytes: bytes, recordLocations: false)
        guard let value = try? parser.parseDocument(), case .number = value else { return false }
        return true
    }
}

/// A JSON object whose members keep their order. Equality ignores order, as JSON's does.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    public init() { members = [] }

    /// An object of these members. A name given twice keeps its first position and its last value, as the parser
    /// reads such JSON: member names are distinct in every `JSONObject`, which property reads rely on.
    public init(_ members: [Member]) {
        self.members = members
        guard members.count > 1, Self.repeatsAName(members) else { return }
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    /// Members whose names are known to be distinct (the parser's, an encoder's), taken as they are.
    package init(distinct members: [Member]) { self.members = members }

    /// The members that `isIncluded` keeps, in order: the names stay distinct, so nothing is checked again.
    public func filtered(_ isIncluded: (Member) throws -> Bool) rethrows -> JSONObject {
        JSONObject(distinct: try members.filter(isIncluded))
    }

    private static func repeatsAName(_ members: [Member]) -> Bool {
        var seen = Set<String>(minimumCapacity: members.count)
        return members.contains { !seen.insert($0.key).inserted }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        for (key, value) in elements { self[key] = value }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// Reads a member; assigning `nil` removes it, assigning `.null` keeps an explicit null.
    public subscript(key: String) -> JSONValue? {
        get {
            // Through the buffer, so that comparing a key does not copy (and retain) each member on the way, and
            // lengths first: they are known without reading the text, and differ for most members.
            let length = key.utf8.count
            return members.withUnsafeBufferPointer { buffer in
                for index in buffer.indices where buffer[index].key.utf8.count == length && buffer[index].key == key {
                    return buffer[index].value
                }
                return nil
            }
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public func contains(_ key: String) -> Bool { members.contains { $0.key == key } }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        if lhs.members == rhs.members { return true }
        for member in lhs.members where rhs[member.key] != member.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var combined = 0
        for member in members { combined &+= member.hashValue }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
