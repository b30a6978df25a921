extension JSONValue {
    /// Compact JSON text, members in their stored order, numbers exactly as they were read.
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    public var jsonText: String { String(decoding: serialized(), as: UTF8.self) }

    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .number(let number): output.append(contentsOf: number.text.utf8)
        case .string(let string): JSONValue.writeString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: output.append(contentsOf: [0x5C, 0x72])
            case 0x09: output.append(contentsOf: [0x5C, 0x74])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

// MARK: - Codable bridge, so models can sit inside a caller's own Codable types

extension JSONValue: Codable {
    /// A `Decoder` cannot say what kind of value comes next, so each kind is tried in turn, and every miss costs a
    /// thrown error with its coding path. The order follows what models hold most: strings, then objects, then
    /// booleans and numbers; an array, the rarest, comes last.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? any JSONValueDecoder {
            self = decoder.jsonValue
            return
        }
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let string = try? single.decode(String.self) {
                self = .string(string)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: JSONMemberKey.self) {
            self = .object(try JSONObject(keyed) { try keyed.decode(JSONValue.self, forKey: $0) })
            return
        }
        if let single = try? decoder.singleValueContainer() {
            // Booleans before numbers: a decoder that bridges through NSNumber may read `true` as 1.
            if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
                return
            }
            if let int = try? single.decode(Int64.self) {
                self = .number(JSONNumber(int))
                return
            }
            if let double = try? single.decode(Double.self) {
                self = .number(JSONNumber(double))
                return
            }
        }
        var array = try decoder.unkeyedContainer()
        var elements: [JSONValue] = []
        while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
        self = .array(elements)
    }

    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? any JSONValueEncoder {
            encoder.encodeJSONValue(self)
            return
        }
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .number(let number):
            var single = encoder.singleValueContainer()
            if let int = number.int64Value {
                try single.encode(int)
            } else if let double = number.doubleValue {
                try single.encode(double)
            } else {
                try single.encode(number.text)
            }
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case .object(let object):
            var keyed = encoder.container(keyedBy: AnyCodingKey.self)
            for member in object.members { try keyed.encode(member.value, forKey: AnyCodingKey(member.key)) }
        }
    }
}

extension JSONObject {
    /// The object a `Decoder`'s keyed container holds, each member's value read by `read`.
    ///
    /// Foundation's decoders do not keep member order, so members are sorted by name for a stable result. Sorted,
    /// a repeated key (from some other decoder) is next to its twin, so members are appended without searching.
    public init(
        _ container: KeyedDecodingContainer<JSONMemberKey>, reading read: (JSONMemberKey) throws -> JSONValue
    ) rethrows {
        let keys = container.allKeys.sorted { $0.stringValue < $1.stringValue }
        var members: [Member] = []
        members.reserveCapacity(keys.count)
        for key in keys where members.last?.key != key.stringValue {
            members.append(Member(key: key.stringValue, value: try read(key)))
        }
        self.init(distinct: members)
    }
}

extension JSONObject: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .object(let object) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self, .init(codingPath: decoder.codingPath, debugDescription: "expected a JSON object"))
        }
        self = object
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(self).encode(to: encoder)
    }
}

/// A `Decoder` that holds the JSON value it decodes, parsed already (the runtime's `BinderyJSONDecoder`): a
/// `JSONValue` read from it is that value as it is, with no member read one by one.
public protocol JSONValueDecoder: Decoder {
    var jsonValue: JSONValue { get }
}

/// An `Encoder` that builds a JSON value (the runtime's `BinderyJSONEncoder`): a `JSONValue` encoded into it is
/// kept as it is, member order and number text included.
public protocol JSONValueEncoder: Encoder {
    func encodeJSONValue(_ value: JSONValue)
}

/// A JSON member's name as a coding key, for reading objects through a `Decoder`.
///
/// Only the name, unlike `AnyCodingKey`: a key of at most three words is held inline when the standard library
/// passes keys around as `any CodingKey` (as `allKeys` does), where a larger one costs an allocation per key.
public struct JSONMemberKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { stringValue = String(intValue) }
}

/// A coding key made from any string.
public struct AnyCodingKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int?

    public init(_ string: String) { stringValue = string }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
