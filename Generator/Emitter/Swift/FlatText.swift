/// The one-line form of types, expressions and statements, written once for two destinations: the bytes of a line
/// (`FlatBytes`), or a count of its columns that gives up as soon as it passes a limit (`FlatColumns`), which is
/// how the printer asks whether something fits without rendering it.
protocol FlatSink {
    /// Adds text; false to stop, when it holds a line break or, for a count, the line is past its limit.
    mutating func write(_ text: String) -> Bool
    /// Adds ASCII punctuation (`", "`, `"("`): no line break to look for, and its width is its length.
    mutating func punctuation(_ text: StaticString) -> Bool
}

/// The bytes of a line, appended to an array.
struct FlatBytes: FlatSink {
    var bytes: [UInt8]

    mutating func write(_ text: String) -> Bool {
        if text.hasLineBreak { return false }
        bytes.append(utf8: text)
        return true
    }

    mutating func punctuation(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        return true
    }
}

/// The columns a line takes, while they are at most `limit`. (A table of thousands of entries is given up on after
/// its first 120 columns.)
struct FlatColumns: FlatSink {
    let limit: Int
    private(set) var columns = 0

    init(limit: Int) { self.limit = limit }

    mutating func write(_ text: String) -> Bool {
        guard let width = text.singleLineColumns else { return false }
        columns += width
        return columns <= limit
    }

    mutating func punctuation(_ text: StaticString) -> Bool {
        columns += text.utf8CodeUnitCount
        return columns <= limit
    }
}

extension SwiftType {
    /// `[String: DriveItem]`, `(any AuthProvider)?`.
    var text: String {
        var sink = FlatBytes(bytes: [])
        _ = write(to: &sink)
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    func write<Sink: FlatSink>(to sink: inout Sink) -> Bool {
        switch self {
        case .named(let name):
            return sink.write(name)
        case .generic(let name, let arguments):
            guard sink.write(name), sink.punctuation("<") else { return false }
            for (index, argument) in arguments.enumerated() {
                guard index == 0 || sink.punctuation(", "), argument.write(to: &sink) else { return false }
            }
            return sink.punctuation(">")
        case .optional(let wrapped):
            // `any P?` would be an existential of an optional: the existential goes in parentheses.
            if case .existential = wrapped {
                return sink.punctuation("(") && wrapped.write(to: &sink) && sink.punctuation(")?")
            }
            return wrapped.write(to: &sink) && sink.punctuation("?")
        case .array(let element):
            return sink.punctuation("[") && element.write(to: &sink) && sink.punctuation("]")
        case .dictionary(let key, let value):
            return sink.punctuation("[") && key.write(to: &sink) && sink.punctuation(": ") && value.write(to: &sink)
                && sink.punctuation("]")
        case .existential(let name):
            return sink.punctuation("any ") && sink.write(name)
        case .tuple(let elements):
            guard sink.punctuation("(") else { return false }
            for (index, element) in elements.enumerated() {
                guard index == 0 || sink.punctuation(", "), element.write(to: &sink) else { return false }
            }
            return sink.punctuation(")")
        }
    }
}

extension Expression {
    /// The expression on one line, or nil when it cannot be (a closure, text that holds a line break).
    var flat: String? {
        if case .raw(let text) = self { return text.hasLineBreak ? nil : text }
        var sink = FlatBytes(bytes: [])
        guard write(to: &sink) else { return nil }
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// The columns `flat` would take, when they are at most `limit`; nil when more, or when it cannot be flat.
    func flatColumns(limit: Int) -> Int? {
        guard limit >= 0 else { return nil }
        var sink = FlatColumns(limit: limit)
        return write(to: &sink) ? sink.columns : nil
    }

    /// Writes `flat`; false, with part of it written, when there is no one-line form or the sink stops.
    func write<Sink: FlatSink>(to sink: inout Sink) -> Bool {
        switch self {
        case .raw(let text):
            return sink.write(text)
        case .member(let base, let name):
            if let base, !base.write(to: &sink) { return false }
            return sink.punctuation(".") && sink.write(name)
        case .call(let callee, let arguments):
            return callee.write(to: &sink) && Self.write(arguments, to: &sink)
        case .array(let elements):
            guard sink.punctuation("[") else { return false }
            for (index, element) in elements.enumerated() {
                guard index == 0 || sink.punctuation(", "), element.write(to: &sink) else { return false }
            }
            return sink.punctuation("]")
        case .dictionary(let entries):
            if entries.isEmpty { return sink.punctuation("[:]") }
            guard sink.punctuation("[") else { return false }
            for (index, entry) in entries.enumerated() {
                guard index == 0 || sink.punctuation(", "), entry.key.write(to: &sink), sink.punctuation(": "),
                    entry.value.write(to: &sink)
                else { return false }
            }
            return sink.punctuation("]")
        case .tuple(let elements):
            return Self.write(elements, to: &sink)
        case .closure:
            return false
        case .keyword(let keyword, let value):
            return sink.write(keyword) && sink.punctuation(" ") && value.write(to: &sink)
        case .cast(let value, let type):
            return value.write(to: &sink) && sink.punctuation(" as ") && type.write(to: &sink)
        case .type(let type):
            return type.write(to: &sink)
        }
    }

    /// `(a, label: b)`: arguments or tuple elements, each after its label.
    private static func write<Sink: FlatSink>(_ arguments: [Argument], to sink: inout Sink) -> Bool {
        guard sink.punctuation("(") else { return false }
        for (index, argument) in arguments.enumerated() {
            guard index == 0 || sink.punctuation(", ") else { return false }
            if let label = argument.label, !(sink.write(label) && sink.punctuation(": ")) { return false }
            guard argument.value.write(to: &sink) else { return false }
        }
        return sink.punctuation(")")
    }
}

extension Statement {
    /// Writes the statement on one line; false, with part of it written, when it has no one-line form.
    func write<Sink: FlatSink>(to sink: inout Sink) -> Bool {
        switch self {
        case .expression(let value):
            return value.write(to: &sink)
        case .binding(let binding, let name, let type, let value):
            guard sink.write(binding.rawValue), sink.punctuation(" "), sink.write(name) else { return false }
            if let type, !(sink.punctuation(": ") && type.write(to: &sink)) { return false }
            return sink.punctuation(" = ") && value.write(to: &sink)
        case .assignment(let target, let value):
            return target.write(to: &sink) && sink.punctuation(" = ") && value.write(to: &sink)
        case .return(let value):
            return sink.punctuation("return ") && value.write(to: &sink)
        case .ifLet(let name, let body):
            guard body.count == 1 else { return false }
            return sink.punctuation("if let ") && sink.write(name) && sink.punctuation(" { ")
                && body[0].write(to: &sink) && sink.punctuation(" }")
        case .switch:
            return false
        }
    }

    /// The statement on one line, or nil when it cannot be.
    var flat: String? {
        var sink = FlatBytes(bytes: [])
        return write(to: &sink) ? String(decoding: sink.bytes, as: UTF8.self) : nil
    }
}

extension Statement.SwitchCase {
    /// `case .name(let value):`.
    var pattern: String { "case ." + caseName + (binding.map { "(let \($0))" } ?? "") + ":" }
}

extension [UInt8] {
    /// Appends a string's UTF-8 through `withUTF8`, which reads a native or small string where it lies: about
    /// twice as fast per call as appending its `utf8` view as a sequence, and the printer appends millions of pieces.
    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    mutating func append(utf8 text: Substring) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }
}

extension StringProtocol {
    /// Columns on screen: one per character (generated Swift is left-to-right text without wide characters).
    /// ASCII, nearly all of it, is counted by its bytes: counting characters costs a grapheme break per byte.
    var columns: Int {
        containsByte { $0 >= 0x80 } ? count : utf8.count
    }

    /// `columns`, or nil when the text holds a line break.
    var singleLineColumns: Int? {
        hasLineBreak ? nil : columns
    }

    var hasLineBreak: Bool { containsByte { $0 == UInt8(ascii: "\n") } }

    /// Whether a UTF-8 byte of the text matches. Native strings are scanned as the contiguous bytes they are, a
    /// plain loop over a buffer; stepping through `utf8` costs an index check per byte, and the printer asks this
    /// of every piece of text it writes.
    @inline(__always)
    func containsByte(where predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { bytes in bytes.contains(where: predicate) }
            ?? utf8.contains(where: predicate)
    }
}
