/// Where a JSON parse failed, or where a value started: 1-based line and column (in bytes), and the byte offset.
public struct JSONPosition: Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var line: Int
    public var column: Int

    public var description: String { "\(line):\(column)" }
}

/// Malformed JSON: what was wrong and where.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var position: JSONPosition

    public var description: String { "\(position): \(message)" }
}

/// The start position of every value in a document, by JSON Pointer (RFC 6901): `""` is the root,
/// `/paths/~1me/get` an operation. Recorded only on request, for spec diagnostics.
public struct JSONLocations: Sendable {
    fileprivate var offsets: [String: Int] = [:]
    fileprivate var lineStarts: [Int] = [0]

    public func position(of pointer: String) -> JSONPosition? {
        offsets[pointer].map(position(atOffset:))
    }

    public func position(atOffset offset: Int) -> JSONPosition {
        // Binary search for the last line start at or before offset.
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return JSONPosition(offset: offset, line: low + 1, column: offset - lineStarts[low] + 1)
    }

    /// Escapes one reference token of a JSON Pointer.
    public static func escape(_ token: String) -> String {
        var escaped = ""
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension JSONValue {
    /// Parses a complete JSON document (RFC 8259). Nesting deeper than `maxDepth` is an error, not a stack overflow.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes), recordLocations: false, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses a document and records where each value starts, for diagnostics that point into the file.
    public static func parseWithLocations(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> (
        JSONValue, JSONLocations
    ) {
        var parser = JSONParser(bytes: Array(bytes), recordLocations: true)
        let value = try parser.parseDocument()
        return (value, parser.locations)
    }
}

struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let recordLocations: Bool
    private let maxDepth: Int
    private var depth = 0
    private var pointer = ""
    fileprivate(set) var locations = JSONLocations()
    // Members and elements of the objects and arrays being parsed, innermost last. Each container is copied out
    // at its end into an array of exactly its size: appending to its own array would leave up to half of the
    // capacity unused, in every object of a large page.
    private var openMembers: [JSONObject.Member] = []
    private var openElements: [JSONValue] = []
    /// Member names too long to be stored inline in a `String`, kept once: a page repeats the same names in every
    /// item, and each copy would be a heap allocation of its own.
    private var longNames: Set<String> = []

    init(bytes: [UInt8], recordLocations: Bool, maxDepth: Int = 512) {
        self.bytes = bytes
        self.recordLocations = recordLocations
        self.maxDepth = maxDepth
        if recordLocations {
            for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
                locations.lineStarts.append(offset + 1)
            }
        }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        // A UTF-8 byte order mark is tolerated, as many writers emit one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected '\(describe(bytes[index]))' after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        if recordLocations { locations.offsets[pointer] = index }
        switch bytes[index] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let byte: throw error("unexpected '\(describe(byte))', expected a value")
        }
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONObject {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return JSONObject()
        }
        let first = openMembers.endIndex
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name in quotes") }
            var key = try parseString()
            // 15 bytes is the most a String holds without allocating.
            if key.utf8.count > 15 { key = longNames.insert(key).memberAfterInsert }
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            let saved = pointer
            if recordLocations { pointer += "/" + JSONLocations.escape(key) }
            let value = try parseValue()
            pointer = saved
            // Duplicate names: the last one wins, as in most parsers; the order of the first is kept.
            if let existing = openMembers[first...].firstIndex(where: { $0.key == key }) {
                openMembers[existing].value = value
            } else {
                openMembers.append(JSONObject.Member(key: key, value: value))
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                let members = Array(openMembers[first...])
                openMembers.removeSubrange(first...)
                return JSONObject(distinct: members)
            }
            throw error("expected ',' or '}' in an object, found '\(describe(bytes[index]))'")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> [JSONValue] {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return []
        }
        let first = openElements.endIndex
        while true {
            skipWhitespace()
            let saved = pointer
            if recordLocations { pointer += "/\(openElements.count - first)" }
            openElements.append(try parseValue())
            pointer = saved
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                let elements = Array(openElements[first...])
                openElements.removeSubrange(first...)
                return elements
            }
            throw error("expected ',' or ']' in an array, found '\(describe(bytes[index]))'")
        }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        var highBits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // ASCII (most keys and values) cannot be invalid UTF-8, and skips the generic validating decoder.
                let text =
                    highBits < 0x80
                    ? bytes.withUnsafeBufferPointer { String(decoding: $0[start..<index], as: UTF8.self) }
                    : try decodeUTF8(bytes[start..<index])
                index += 1
                return text
            }
            highBits |= byte
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string; it must be escaped") }
            index += 1
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try decodeUTF8(buffer[...])
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    buffer.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    index -= 1
                    throw error("invalid escape '\\\(describe(escaped))' in a string")
                }
            default:
                if byte < 0x20 { throw error("control character in a string; it must be escaped") }
                buffer.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired UTF-16 surrogate \\u\(String(first, radix: 16)) in a string") }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw error("invalid UTF-16 surrogate pair in a string")
            }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw error("invalid Unicode escape in a string") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw error("unpaired UTF-16 surrogate \\u\(String(first, radix: 16)) in a string")
        }
        return scalar
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape in a string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit '\(describe(byte))' in a \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private func decodeUTF8(_ slice: ArraySlice<UInt8>) throws(JSONParseError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
        return text
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in a number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number must not have leading zeros") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in an exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // Only ASCII was consumed, so this cannot fail.
        return JSONNumber(unchecked: String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard index + expected.count <= bytes.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else {
            throw error("invalid literal, expected '\(literal)'")
        }
        index += expected.count
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func describe(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    private func error(_ message: String) -> JSONParseError {
        // Count lines up to the failure only now, so successful parses pay nothing for it.
        var line = 1
        var lineStart = 0
        for offset in 0..<min(index, bytes.count) where bytes[offset] == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
        return JSONParseError(
            message: message, position: JSONPosition(offset: index, line: line, column: index - lineStart + 1))
    }
}
