import Foundation

/// A Swift value that reads from and writes to one JSON value.
public protocol JSONConvertible: Sendable {
    /// Reads the value, or nil when the JSON is not of this type.
    init?(json: JSONValue)
    /// Reads the value, also accepting loose forms (numbers and booleans sent as strings).
    init?(looseJSON: JSONValue)
    var json: JSONValue { get }
    /// How a model's schema table checks a field of this type.
    static var fieldKind: FieldKind { get }
}

extension JSONConvertible {
    public init?(looseJSON: JSONValue) { self.init(json: looseJSON) }
}

extension String: JSONConvertible {
    public static var fieldKind: FieldKind { .string }

    public init?(json: JSONValue) {
        guard case .string(let string) = json else { return nil }
        self = string
    }

    /// Also reads numbers and booleans as their JSON text: Spark sends some ids as numbers, others as strings.
    public init?(looseJSON: JSONValue) {
        switch looseJSON {
        case .string(let string): self = string
        case .number(let number): self = number.text
        case .bool(let bool): self = bool ? "true" : "false"
        default: return nil
        }
    }

    public var json: JSONValue { .string(self) }
}

extension Bool: JSONConvertible {
    public static var fieldKind: FieldKind { .boolean }

    public init?(json: JSONValue) {
        guard case .bool(let bool) = json else { return nil }
        self = bool
    }

    public init?(looseJSON: JSONValue) {
        switch looseJSON {
        case .bool(let bool): self = bool
        case .string(let text):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true": self = true
            case "false": self = false
            default: return nil
            }
        default: return nil
        }
    }

    public var json: JSONValue { .bool(self) }
}

/// Integers read only from integral JSON numbers in range; loose reading also takes numeric strings.
public protocol JSONInteger: FixedWidthInteger, JSONConvertible {}

extension JSONInteger {
    public init?(json: JSONValue) {
        guard case .number(let number) = json, let value = Self(number.text) else { return nil }
        self = value
    }

    public init?(looseJSON: JSONValue) {
        switch looseJSON {
        case .number(let number):
            guard let value = Self(number.text) else { return nil }
            self = value
        case .string(let text):
            guard let value = Self(text.trimmingCharacters(in: .whitespaces)) else { return nil }
            self = value
        default: return nil
        }
    }

    public var json: JSONValue { .number(JSONNumber(unchecked: String(self))) }

    public static var fieldKind: FieldKind { Self.self == UInt8.self ? .byte : .integer(bits: bitWidth) }
}

extension Int: JSONInteger {}
extension Int8: JSONInteger {}
extension Int16: JSONInteger {}
extension Int32: JSONInteger {}
extension Int64: JSONInteger {}
extension UInt8: JSONInteger {}

extension Double: JSONConvertible {
    public static var fieldKind: FieldKind { .number }

    public init?(json: JSONValue) {
        switch json {
        case .number(let number):
            guard let value = number.doubleValue else { return nil }
            self = value
        // OData writes IEEE 754 specials as strings.
        case .string("NaN"): self = .nan
        case .string("INF"): self = .infinity
        case .string("-INF"): self = -.infinity
        default: return nil
        }
    }

    public init?(looseJSON: JSONValue) {
        if let value = Double(json: looseJSON) {
            self = value
            return
        }
        guard case .string(let text) = looseJSON, let value = Double(text.trimmingCharacters(in: .whitespaces))
        else { return nil }
        self = value
    }

    public var json: JSONValue {
        if isNaN { return .string("NaN") }
        if isInfinite { return .string(self < 0 ? "-INF" : "INF") }
        return .number(JSONNumber(self))
    }
}

extension Float: JSONConvertible {
    public static var fieldKind: FieldKind { .number }

    public init?(json: JSONValue) {
        guard let double = Double(json: json) else { return nil }
        self = Float(double)
    }

    public init?(looseJSON: JSONValue) {
        guard let double = Double(looseJSON: looseJSON) else { return nil }
        self = Float(double)
    }

    public var json: JSONValue { Double(self).json }
}

extension Decimal: JSONConvertible {
    public static var fieldKind: FieldKind { .decimal }

    public init?(json: JSONValue) {
        // Read from the exact text, so no binary floating point rounding happens on the way.
        guard case .number(let number) = json, let value = Decimal(string: number.text, locale: nil) else { return nil }
        self = value
    }

    public init?(looseJSON: JSONValue) {
        if let value = Decimal(json: looseJSON) {
            self = value
            return
        }
        guard case .string(let text) = looseJSON,
            let value = Decimal(string: text.trimmingCharacters(in: .whitespaces), locale: nil)
        else { return nil }
        self = value
    }

    public var json: JSONValue { .number(JSONNumber(unchecked: "\(self)")) }
}

extension Data: JSONConvertible {
    public static var fieldKind: FieldKind { .binary }

    /// Reads base64 and base64url (OData's `Edm.Binary`), with or without padding.
    public init?(json: JSONValue) {
        guard case .string(var text) = json else { return nil }
        text = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { return nil }
        self = data
    }

    public var json: JSONValue { .string(base64EncodedString()) }
}

extension UUID: JSONConvertible {
    public static var fieldKind: FieldKind { .string }

    public init?(json: JSONValue) {
        guard case .string(let text) = json, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }

    public var json: JSONValue { .string(uuidString.lowercased()) }
}

extension JSONValue: JSONConvertible {
    public static var fieldKind: FieldKind { .any }

    public init?(json: JSONValue) { self = json }
    public var json: JSONValue { self }
}

extension JSONObject: JSONConvertible {
    public static var fieldKind: FieldKind { .any }

    public init?(json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        self = object
    }

    public var json: JSONValue { .object(self) }
}

extension Array: JSONConvertible where Element: JSONConvertible {
    public static var fieldKind: FieldKind { .collection(Element.fieldKind) }

    /// Reads an array whose every element is an `Element`; one bad element makes the whole read fail.
    public init?(json: JSONValue) {
        guard case .array(let elements) = json else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = Element(json: element) else { return nil }
            result.append(value)
        }
        self = result
    }

    public init?(looseJSON: JSONValue) {
        guard case .array(let elements) = looseJSON else { return nil }
        var result: [Element] = []
        for element in elements {
            guard let value = Element(looseJSON: element) else { return nil }
            result.append(value)
        }
        self = result
    }

    public var json: JSONValue { .array(map(\.json)) }
}
