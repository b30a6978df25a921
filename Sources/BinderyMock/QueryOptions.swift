import BinderyJSON
import Foundation

/// A `$filter` (OData) or `_filter` (SparkQL) expression: comparisons (`eq ne gt ge lt le`), `and`, `or`,
/// `not`, parentheses and `startswith`/`endswith`/`contains`. Keywords are case-insensitive, so Spark's
/// `City Eq 'Fargo' And ListPrice Gt 100000` reads like OData's. Properties are paths (`a/b` or `a.b`).
indirect enum FilterExpression: Sendable {
    case comparison(Operand, String, Operand)
    case function(String, Operand, Operand)
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case not(FilterExpression)

    enum Operand: Sendable {
        case property([String])
        case literal(JSONValue)
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String) throws(SyntaxError) -> FilterExpression {
        var parser = Parser(tokens: try tokenize(text))
        let expression = try parser.orExpression()
        guard parser.index == parser.tokens.count else {
            throw SyntaxError(description: "unexpected '\(parser.tokens[parser.index].text)' in the filter")
        }
        return expression
    }

    func matches(_ object: JSONObject) -> Bool {
        switch self {
        case .and(let left, let right): return left.matches(object) && right.matches(object)
        case .or(let left, let right): return left.matches(object) || right.matches(object)
        case .not(let inner): return !inner.matches(object)
        case .function(let name, let subject, let argument):
            guard let text = Self.value(subject, in: object)?.text, let part = Self.value(argument, in: object)?.text
            else {
                return false
            }
            switch name {
            case "startswith": return text.lowercased().hasPrefix(part.lowercased())
            case "endswith": return text.lowercased().hasSuffix(part.lowercased())
            default: return text.lowercased().contains(part.lowercased())
            }
        case .comparison(let left, let op, let right):
            let order = Self.compare(Self.value(left, in: object) ?? .null, Self.value(right, in: object) ?? .null)
            switch op {
            case "eq": return order == .orderedSame
            case "ne": return order != .orderedSame
            case "gt": return order == .orderedDescending
            case "ge": return order == .orderedDescending || order == .orderedSame
            case "lt": return order == .orderedAscending
            default: return order == .orderedAscending || order == .orderedSame
            }
        }
    }

    private static func value(_ operand: Operand, in object: JSONObject) -> JSONValue? {
        switch operand {
        case .literal(let value): return value
        case .property(let path): return JSONValue.object(object).value(at: path)
        }
    }

    /// Numbers compare as numbers (loose ones too: Spark sends `" 42"`), everything else as text.
    static func compare(_ left: JSONValue, _ right: JSONValue) -> ComparisonResult? {
        if left == .null || right == .null { return left == right ? .orderedSame : nil }
        if let a = number(left), let b = number(right) {
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        }
        guard let a = left.text, let b = right.text else { return left == right ? .orderedSame : nil }
        return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): return number.doubleValue
        case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    // MARK: Tokens

    private struct Token {
        enum Kind { case word, string, number, open, close, comma }
        let kind: Kind
        let text: String
    }

    private static func tokenize(_ text: String) throws(SyntaxError) -> [Token] {
        var tokens: [Token] = []
        let punctuation: [Character: Token.Kind] = ["(": .open, ")": .close, ",": .comma]
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == " " {
                index += 1
                continue
            }
            if let kind = punctuation[character] {
                tokens.append(Token(kind: kind, text: String(character)))
                index += 1
                continue
            }
            if character == "'" {
                var literal = ""
                index += 1
                while true {
                    guard index < characters.count else {
                        throw SyntaxError(description: "unterminated string in the filter")
                    }
                    if characters[index] == "'" {
                        if index + 1 < characters.count, characters[index + 1] == "'" {
                            literal.append("'")
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    literal.append(characters[index])
                    index += 1
                }
                tokens.append(Token(kind: .string, text: literal))
                continue
            }
            var word = ""
            while index < characters.count, !" (),'".contains(characters[index]) {
                word.append(characters[index])
                index += 1
            }
            let isNumber = Double(word) != nil
            tokens.append(Token(kind: isNumber ? .number : .word, text: word))
        }
        return tokens
    }

    private struct Parser {
        let tokens: [Token]
        var index = 0

        init(tokens: [Token]) { self.tokens = tokens }

        mutating func keyword(_ word: String) -> Bool {
            guard index < tokens.count, tokens[index].kind == .word, tokens[index].text.lowercased() == word else {
                return false
            }
            index += 1
            return true
        }

        mutating func orExpression() throws(SyntaxError) -> FilterExpression {
            var left = try andExpression()
            while keyword("or") { left = .or(left, try andExpression()) }
            return left
        }

        mutating func andExpression() throws(SyntaxError) -> FilterExpression {
            var left = try unary()
            while keyword("and") { left = .and(left, try unary()) }
            return left
        }

        mutating func unary() throws(SyntaxError) -> FilterExpression {
            if keyword("not") { return .not(try unary()) }
            if index < tokens.count, tokens[index].kind == .open {
                index += 1
                let inner = try orExpression()
                try expect(.close)
                return inner
            }
            if index + 1 < tokens.count, tokens[index].kind == .word, tokens[index + 1].kind == .open {
                let name = tokens[index].text.lowercased()
                guard ["startswith", "endswith", "contains"].contains(name) else {
                    throw SyntaxError(description: "unknown function '\(tokens[index].text)' in the filter")
                }
                index += 2
                let subject = try operand()
                try expect(.comma)
                let argument = try operand()
                try expect(.close)
                return .function(name, subject, argument)
            }
            let left = try operand()
            guard index < tokens.count, tokens[index].kind == .word,
                ["eq", "ne", "gt", "ge", "lt", "le"].contains(tokens[index].text.lowercased())
            else {
                throw SyntaxError(description: "expected a comparison (eq, ne, gt, ge, lt, le) in the filter")
            }
            let op = tokens[index].text.lowercased()
            index += 1
            return .comparison(left, op, try operand())
        }

        mutating func operand() throws(SyntaxError) -> Operand {
            guard index < tokens.count else { throw SyntaxError(description: "the filter ends too early") }
            let token = tokens[index]
            index += 1
            switch token.kind {
            case .string: return .literal(.string(token.text))
            case .number: return .literal(.number(JSONNumber(unchecked: token.text)))
            case .word:
                switch token.text.lowercased() {
                case "true": return .literal(.bool(true))
                case "false": return .literal(.bool(false))
                case "null": return .literal(.null)
                default:
                    return .property(token.text.split(whereSeparator: { $0 == "/" || $0 == "." }).map(String.init))
                }
            default: throw SyntaxError(description: "unexpected '\(token.text)' in the filter")
            }
        }

        mutating func expect(_ kind: Token.Kind) throws(SyntaxError) {
            guard index < tokens.count, tokens[index].kind == kind else {
                throw SyntaxError(description: "expected \(kind == .close ? "')'" : "','") in the filter")
            }
            index += 1
        }
    }
}

/// `$orderby=name desc,size` or Spark's `_orderby=-ListPrice`.
struct SortOrder: Sendable {
    var keys: [(path: [String], descending: Bool)]

    init(_ text: String) {
        keys = text.split(separator: ",").compactMap { part in
            let words = part.split(separator: " ")
            guard var name = words.first.map(String.init) else { return nil }
            var descending = words.dropFirst().first?.lowercased() == "desc"
            if name.hasPrefix("-") {
                descending = true
                name.removeFirst()
            }
            return (name.split(whereSeparator: { $0 == "/" || $0 == "." }).map(String.init), descending)
        }
    }

    func sorted<T>(_ items: [T], by object: (T) -> JSONObject) -> [T] {
        items.enumerated().sorted { a, b in
            for key in keys {
                let left = JSONValue.object(object(a.element)).value(at: key.path) ?? .null
                let right = JSONValue.object(object(b.element)).value(at: key.path) ?? .null
                guard let order = FilterExpression.compare(left, right), order != .orderedSame else { continue }
                return (order == .orderedAscending) != key.descending
            }
            return a.offset < b.offset  // stable
        }.map(\.element)
    }
}

/// One item of `$expand` as the server reads it (the runtime's `Expansion` writes it): `thumbnails`, `sections($select=id,name)`, `sectionGroups($levels=max;$expand=sections)`.
struct ExpandOption: Sendable {
    var property: String
    var select: [String]?
    var expand: [ExpandOption]
    /// Levels of the same expansion to repeat below itself (`$levels=max` is capped).
    var levels: Int

    /// Splits a comma list at the top level only: `a,b($expand=c,d)` is two items.
    static func parse(_ text: String) -> [ExpandOption] {
        topLevel(text, separator: ",").compactMap { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else {
                return ExpandOption(property: trimmed, select: nil, expand: [], levels: 1)
            }
            var expansion = ExpandOption(property: String(trimmed[..<open]), select: nil, expand: [], levels: 1)
            let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            for option in topLevel(inner, separator: ";") {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                switch parts[0].lowercased() {
                case "$select": expansion.select = parts[1].split(separator: ",").map(String.init)
                case "$expand": expansion.expand = parse(parts[1])
                case "$levels": expansion.levels = parts[1] == "max" ? 8 : max(1, Int(parts[1]) ?? 1)
                default: break
                }
            }
            return expansion
        }
    }

    private static func topLevel(_ text: String, separator: Character) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        for character in text {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == separator, depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }
}
