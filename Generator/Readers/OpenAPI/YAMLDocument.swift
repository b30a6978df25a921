import BinderyJSON
import Yams

/// An OpenAPI document written in YAML, read into the same `JSONValue` the JSON reader makes, so everything after
/// this step cannot tell the two apart: the same spec as YAML and as JSON generates the same Swift.
///
/// Scalars follow YAML 1.2's core schema, the one JSON is a subset of: a plain `yes`, `on` or `2024-01-01` stays
/// a string (YAML 1.1, which Yams resolves by default, would make them a boolean and a date), quoted scalars are
/// always strings, and a number keeps its text when that text is already JSON (`1.50` stays `1.50`). Mapping keys
/// are their text (`200:` is the key "200", as OpenAPI means it). Anchors and aliases are expanded, `<<` merges
/// the mappings it names, and each value's line and column are kept by JSON Pointer for diagnostics.
enum YAMLDocument {
    /// Why a document could not be read, and where (1-based; columns count Unicode scalars, as libyaml does).
    struct ReadError: Error {
        var message: String
        var line: Int
        var column: Int
    }

    /// Deeper nesting is an error rather than a deep recursion (the JSON reader's limit).
    static let maxDepth = 512

    static func parse(_ bytes: [UInt8]) throws(ReadError) -> (value: JSONValue, positions: [String: Position]) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ReadError(message: "a YAML document must be UTF-8", line: 1, column: 1)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text, .basic)
        } catch let error as YamlError {
            throw readError(error)
        } catch {
            throw ReadError(message: "\(error)", line: 1, column: 1)
        }
        guard let root else { throw ReadError(message: "the document is empty", line: 1, column: 1) }
        // Aliases repeat what they name: a few hundred bytes of aliases of aliases can stand for billions of values.
        var converter = Converter(budget: max(100_000, 10 * bytes.count))
        let value = try converter.convert(root, pointer: "", depth: 0)
        return (value, converter.positions)
    }

    /// A value's start: line and column, 1-based.
    struct Position: Sendable {
        var line: Int
        var column: Int

        init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        init(of node: Node) {
            self.init(line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
        }
    }

    private struct Converter {
        var positions: [String: Position] = [:]
        /// How many more values may be made.
        var budget: Int

        mutating func convert(_ node: Node, pointer: String, depth: Int) throws(ReadError) -> JSONValue {
            let position = Position(of: node)
            positions[pointer] = position
            guard depth < maxDepth else {
                throw ReadError(
                    message: "nesting deeper than \(maxDepth) levels", line: position.line, column: position.column)
            }
            budget -= 1
            guard budget >= 0 else {
                throw ReadError(
                    message: "the document's aliases expand to too many values", line: position.line,
                    column: position.column)
            }
            switch node {
            case .scalar(let scalar):
                return try value(of: scalar, at: position)
            case .sequence(let sequence):
                var elements: [JSONValue] = []
                elements.reserveCapacity(sequence.count)
                for (index, element) in sequence.enumerated() {
                    elements.append(try convert(element, pointer: pointer + "/\(index)", depth: depth + 1))
                }
                return .array(elements)
            case .mapping(let mapping):
                return .object(try object(of: mapping, pointer: pointer, depth: depth))
            case .alias:
                // `compose` expands aliases into the anchored node; a bare alias node never reaches here.
                throw ReadError(message: "an unresolved alias", line: position.line, column: position.column)
            }
        }

        private mutating func object(of mapping: Node.Mapping, pointer: String, depth: Int) throws(ReadError)
            -> JSONObject
        {
            var members: [JSONObject.Member] = []
            var merged: [Node] = []
            for (key, value) in mapping {
                guard let keyScalar = key.scalar else {
                    let at = Position(of: key)
                    throw ReadError(
                        message: "a mapping key must be a scalar to be a JSON member name", line: at.line,
                        column: at.column)
                }
                // (Yams tags every key `str`, so an unquoted `<<` is the merge key.)
                if keyScalar.string == "<<", keyScalar.style == .plain {
                    merged += try mergedMappings(value)
                    continue
                }
                let name = keyScalar.string
                let member = try convert(value, pointer: pointer + "/" + JSONLocations.escape(name), depth: depth + 1)
                members.append(JSONObject.Member(key: name, value: member))
            }
            // `<<: *base` adds the members the mapping does not set itself, after its own; a merged mapping's own
            // `<<` is merged first.
            for source in merged {
                guard case .object(let object) = try convert(source, pointer: pointer, depth: depth + 1) else {
                    continue
                }
                for member in object where !members.contains(where: { $0.key == member.key }) {
                    members.append(member)
                }
            }
            positions[pointer] = Position(of: .mapping(mapping))
            return JSONObject(members)
        }

        private func mergedMappings(_ node: Node) throws(ReadError) -> [Node] {
            if node.mapping != nil { return [node] }
            if let sequence = node.sequence, sequence.allSatisfy({ $0.mapping != nil }) {
                return Array(sequence)
            }
            let at = Position(of: node)
            throw ReadError(message: "`<<` must name a mapping or a list of mappings", line: at.line, column: at.column)
        }

        /// A scalar by the core schema, or by its explicit tag (`!!str 123`, `!!int "7"`).
        private func value(of scalar: Node.Scalar, at position: Position) throws(ReadError) -> JSONValue {
            let text = scalar.string
            let tag = Tag.Name(rawValue: scalar.tag.rawValue)
            if tag == .str || (tag == .implicit && scalar.style != .plain) || tag == .nonSpecific {
                return .string(text)
            }
            if tag == .implicit {
                return CoreSchema.value(ofPlain: text) ?? .string(text)
            }
            let typed: JSONValue? =
                switch tag {
                case .null: CoreSchema.isNull(text) ? .null : nil
                case .bool: CoreSchema.bool(text).map(JSONValue.bool)
                case .int, .float: CoreSchema.number(text).map(JSONValue.number)
                default: .string(text)
                }
            guard let typed else {
                throw ReadError(
                    message: "'\(text)' is not a valid \(tag.rawValue.split(separator: ":").last ?? "value")",
                    line: position.line, column: position.column)
            }
            return typed
        }
    }

    private static func readError(_ error: YamlError) -> ReadError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let message = context.map { "\(problem) (\($0.text) at line \($0.mark.line))" } ?? problem
            return ReadError(message: message, line: mark.line, column: mark.column)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let names = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return ReadError(
                message: "a mapping repeats the key \(names)", line: context.mark.line, column: context.mark.column)
        case .reader(let problem, _, _, _):
            return ReadError(message: problem, line: 1, column: 1)
        default:
            return ReadError(message: "\(error)", line: 1, column: 1)
        }
    }
}

/// YAML 1.2's core schema for plain scalars: what is null, a boolean or a number; everything else is a string.
enum CoreSchema {
    static func value(ofPlain text: String) -> JSONValue? {
        if isNull(text) { return .null }
        if let bool = bool(text) { return .bool(bool) }
        return number(text).map(JSONValue.number)
    }

    static func isNull(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// A number as JSON text: kept as written when it is JSON already, else converted (`0x1F` → `31`, `+1` → `1`,
    /// `.5` → `0.5`). `.inf` and `.nan` have no JSON form and stay strings.
    static func number(_ text: String) -> JSONNumber? {
        // The core schema's hexadecimal and octal integers have no sign.
        for (prefix, radix) in [("0x", 16), ("0o", 8)] where text.hasPrefix(prefix) {
            guard text.dropFirst(2).first?.isHexDigit == true else { return nil }
            return Int64(text.dropFirst(2), radix: radix).map { JSONNumber($0) }
        }
        let unsigned = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard !unsigned.hasPrefix("+"), !(text.hasPrefix("+") && unsigned.hasPrefix("-")) else { return nil }
        if let number = JSONNumber(validating: unsigned) { return number }
        let negative = unsigned.hasPrefix("-")
        let digits = negative ? String(unsigned.dropFirst()) : unsigned
        let sign: Int64 = negative ? -1 : 1
        // `007`, `.5`, `5.`: decimal forms YAML allows and JSON does not.
        guard let first = digits.first, first == "." || first.isASCII && first.isNumber,
            digits.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) })
        else { return nil }
        if let integer = Int64(digits) { return JSONNumber(sign * integer) }
        guard let double = Double(digits), double.isFinite else { return nil }
        return JSONNumber(negative ? -double : double)
    }
}
