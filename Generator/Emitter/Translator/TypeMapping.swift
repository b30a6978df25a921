import BinderySpec

/// How spec types appear in Swift: as a property type, and as a `FieldKind` in a model's schema table.
struct TypeMapping {
    let symbols: SymbolTable
    let enumNames: Set<QualifiedName>
    let choiceNames: Set<QualifiedName>

    /// `Edm.Int64` → `Int64`, `Collection(graph.driveItem)` → `[DriveItem]`; nil for types with no JSON form (streams).
    func swiftType(_ type: TypeRef) -> SwiftType? {
        switch type {
        case .primitive(let primitive): return Self.swiftType(primitive).map(SwiftType.named)
        case .named(let name): return .named(symbols.typeName(name))
        case .collection(let element): return swiftType(element).map(SwiftType.array)
        case .dictionary(let element): return swiftType(element).map { .dictionary(key: "String", value: $0) }
        }
    }

    /// The name of a primitive's Swift type: `Int64`, `Date`.
    static func swiftType(_ primitive: Primitive) -> String? {
        switch primitive {
        case .string, .guid, .duration: return "String"
        case .boolean: return "Bool"
        case .byte: return "UInt8"
        case .sbyte: return "Int8"
        case .int16: return "Int16"
        case .int32: return "Int32"
        case .int64: return "Int64"
        case .single: return "Float"
        case .double: return "Double"
        case .decimal: return "Decimal"
        case .binary: return "Data"
        case .date: return "CalendarDate"
        case .dateTimeOffset: return "Date"
        case .timeOfDay: return "TimeOfDay"
        case .untyped: return "JSONValue"
        case .stream: return nil
        }
    }

    /// The schema-table kind, e.g. `.integer(bits: 64)`, `.model(DriveItem.self)`, `.collection(.string)`.
    func fieldKind(_ type: TypeRef) -> String? {
        switch type {
        case .primitive(let primitive):
            switch primitive {
            case .string, .guid, .duration: return ".string"
            case .boolean: return ".boolean"
            case .byte: return ".byte"
            case .sbyte: return ".integer(bits: 8)"
            case .int16: return ".integer(bits: 16)"
            case .int32: return ".integer(bits: 32)"
            case .int64: return ".integer(bits: 64)"
            case .single, .double: return ".number"
            case .decimal: return ".decimal"
            case .binary: return ".binary"
            case .date: return ".date"
            case .dateTimeOffset: return ".dateTime"
            case .timeOfDay: return ".timeOfDay"
            case .untyped: return ".any"
            case .stream: return nil
            }
        case .named(let name):
            if enumNames.contains(name) { return ".enumeration" }
            if choiceNames.contains(name) { return ".choice(\(symbols.typeName(name)).self)" }
            return ".model(\(symbols.typeName(name)).self)"
        case .collection(let element):
            return fieldKind(element).map { ".collection(\($0))" }
        case .dictionary(let element):
            return fieldKind(element).map { ".dictionary(\($0))" }
        }
    }

    /// Whether Foundation must be imported for this type (Date, Data, Decimal).
    static func needsFoundation(_ type: TypeRef) -> Bool {
        switch type.elementType {
        case .primitive(.dateTimeOffset), .primitive(.binary), .primitive(.decimal): return true
        case .dictionary(let element): return needsFoundation(element)
        default: return false
        }
    }
}

/// Doc comments from spec documentation, plus where the declaration came from.
enum DocComment {
    static func lines(_ doc: Documentation, remark: String?) -> [String] {
        var lines: [String] = []
        if let summary = doc.summary { lines += paragraph(summary) }
        if let details = doc.details, details != doc.summary {
            if !lines.isEmpty { lines.append("") }
            lines += paragraph(details)
        }
        if let remark {
            if !lines.isEmpty { lines.append("") }
            lines.append("- Remark: Generated from `\(remark)`.")
        }
        return lines
    }

    /// Splits into lines (every kind of line break) and trims blank lines at both ends.
    private static func paragraph(_ text: String) -> [String] {
        Array(text.docCommentLines.drop { $0.isEmpty }.reversed().drop { $0.isEmpty }.reversed())
    }
}

extension String {
    /// The text as lines a `///` comment can hold, the one path every spec string takes into a doc comment:
    /// split at every line break Swift or an editor may honour (`\n`, `\r\n`, `\r`, NEL, U+2028, U+2029), other
    /// control characters turned into spaces, trailing blanks trimmed. Nothing else needs escaping after `///`:
    /// `*/`, quotes, backslashes and `#` are plain text there.
    var docCommentLines: [String] {
        // Printable ASCII and tabs, the common case, need nothing but the trim; the rest goes scalar by scalar.
        let isPlain = !containsByte { !(0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\t") }
        if isPlain { return [trimmingTrailingWhitespace()] }
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A where previous == "\r":
                break  // the second half of \r\n
            case 0x0A, 0x0D, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                lines.append(String(current).trimmingTrailingWhitespace())
                current = String.UnicodeScalarView()
            case 0x09:
                current.append(scalar)
            case 0x00..<0x20, 0x7F, 0x80..<0xA0:
                current.append(" ")
            default:
                current.append(scalar)
            }
            previous = scalar
        }
        lines.append(String(current).trimmingTrailingWhitespace())
        return lines
    }

    func trimmingTrailingWhitespace() -> String {
        // Most text ends in neither: answered from the last byte, without stepping back a character.
        guard let last = utf8.last,
            last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") || last == UInt8(ascii: "\r")
        else { return self }
        var copy = self
        while let last = copy.last, last == " " || last == "\t" || last == "\r" { copy.removeLast() }
        return copy
    }

    /// A Swift string literal with escapes, for names and wire strings in generated code.
    var swiftLiteral: String {
        // Most names need no escaping at all.
        if !containsByte(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + self + "\""
        }
        var text = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                // Control characters and the line separators editors break lines at, as escapes.
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029
                {
                    text += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}
