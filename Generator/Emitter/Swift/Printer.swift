/// Accumulates indented lines as UTF-8 bytes (appending to a `String` checks grapheme boundaries on every append,
/// which made up most of the rendering time for the full Graph).
struct Printer {
    /// The widest line the printer writes when it has a choice.
    static let width = 120

    private var output: [UInt8] = []
    private(set) var indentation = ""
    /// Whether the last line written was blank (or nothing was written yet), so blanks never double up.
    private var lastLineIsBlank = true

    var bytes: [UInt8] { output }
    var text: String { String(decoding: output, as: UTF8.self) }

    mutating func reserve(_ capacity: Int) { output.reserveCapacity(capacity) }

    /// One line made of `parts`, indented.
    mutating func line(_ parts: String...) {
        write(parts)
    }

    private mutating func write(_ parts: [String]) {
        var isEmpty = true
        for part in parts where !part.isEmpty {
            if isEmpty {
                output.append(utf8: indentation)
                isEmpty = false
            }
            output.append(utf8: part)
        }
        output.append(UInt8(ascii: "\n"))
        lastLineIsBlank = isEmpty
    }

    /// `line(prefix, expression.flat, suffix)` for an expression known to have a one-line form, written
    /// straight into the output.
    private mutating func flatLine(_ prefix: String, _ expression: Expression, _ suffix: String) {
        let start = output.count
        output.append(utf8: indentation)
        let indented = output.count
        output.append(utf8: prefix)
        let isFlat = writeFlat { expression.write(to: &$0) }
        assert(isFlat, "flatLine of an expression without a one-line form: \(expression)")
        output.append(utf8: suffix)
        // Like `line`: a line of nothing but indentation is blank.
        lastLineIsBlank = output.count == indented
        if lastLineIsBlank { output.removeSubrange(start...) }
        output.append(UInt8(ascii: "\n"))
    }

    /// Runs `write` with the output as its sink (moved in and out, not copied).
    private mutating func writeFlat(_ write: (inout FlatBytes) -> Bool) -> Bool {
        var sink = FlatBytes(bytes: [])
        swap(&sink.bytes, &output)
        defer { swap(&sink.bytes, &output) }
        return write(&sink)
    }

    /// `head { statement }` on one line, written when the statement has a one-line form and the line fits the
    /// width; otherwise nothing is written (false). Written first and measured after, as nearly every getter fits:
    /// no string of the statement is made to measure it.
    private mutating func oneLineBlock(_ head: String, _ statement: Statement) -> Bool {
        let start = output.count
        output.append(utf8: indentation)
        output.append(utf8: head)
        output.append(utf8: " { ")
        if writeFlat({ statement.write(to: &$0) }) {
            output.append(utf8: " }")
            // Columns are bytes for ASCII, characters otherwise.
            let written = output[start...]
            let columns =
                written.contains { $0 >= 0x80 } ? String(decoding: written, as: UTF8.self).count : written.count
            if columns <= Self.width {
                output.append(UInt8(ascii: "\n"))
                lastLineIsBlank = false
                return true
            }
        }
        output.removeSubrange(start...)
        return false
    }

    /// Several lines given as one string (multi-line values keep their relative indentation).
    mutating func lines(_ text: String) {
        guard text.hasLineBreak else { return line(text) }
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if !line.isEmpty { output.append(utf8: indentation) }
            output.append(contentsOf: line)
            output.append(UInt8(ascii: "\n"))
            lastLineIsBlank = line.isEmpty
        }
    }

    /// Whole lines another printer wrote (`bytes`, ending with a line break), taken as they are.
    mutating func append(rendered lines: [UInt8]) {
        guard !lines.isEmpty else { return }
        output.append(contentsOf: lines)
        // Blank when its last line is: a line break alone, or one right after another.
        lastLineIsBlank = lines.count == 1 || lines[lines.count - 2] == UInt8(ascii: "\n")
    }

    mutating func blank() {
        if !lastLineIsBlank { line("") }
    }

    mutating func indent<Result>(_ body: (inout Printer) -> Result) -> Result {
        let saved = indentation
        indentation += "    "
        defer { indentation = saved }
        return body(&self)
    }

    /// Whether `prefix`, then `expression` on one line, then `suffix` fit the width at the current indentation.
    func fits(_ expression: Expression, prefix: String = "", suffix: String = "") -> Bool {
        let available = Self.width - indentation.utf8.count - prefix.columns - suffix.columns
        // Measured, not rendered: a table of thousands of entries is given up on after its first 120 columns.
        return expression.flatColumns(limit: available) != nil
    }

    private func fits(_ parts: String...) -> Bool {
        var columns = indentation.utf8.count
        for part in parts { columns += part.columns }
        return columns <= Self.width
    }

    /// Whether `text` fits the width at the current indentation.
    func fitsLine(_ text: String) -> Bool { fits(text) }

    /// `head { body }`, on one line when the body is one short statement; an empty head puts the brace on a line
    /// of its own (after a head that had to break).
    mutating func block(_ head: String, _ body: [Statement], forceMultiline: Bool = false) {
        if !forceMultiline, body.count == 1, oneLineBlock(head, body[0]) { return }
        line(head, head.isEmpty ? "{" : " {")
        indent { printer in for statement in body { printer.statement(statement) } }
        line("}")
    }

    mutating func statement(_ statement: Statement) {
        switch statement {
        case .expression(let value):
            expression(value)
        case .binding(let binding, let name, let type, let value):
            expression(value, prefix: binding.rawValue + " " + name + (type.map { ": " + $0.text } ?? "") + " = ")
        case .assignment(let target, let value):
            guard let target = target.flat else {
                return assertionFailure("an assignment to a target with no one-line form: \(target)")
            }
            expression(value, prefix: target + " = ")
        case .return(let value):
            expression(value, prefix: "return ")
        case .ifLet(let name, let body):
            block("if let " + name, body)
        case .switch(let subject, let cases):
            expression(subject, prefix: "switch ", suffix: " {")
            for switchCase in cases {
                let pattern = switchCase.pattern
                // `case .file(let value): return value.json` when it fits, else the body under its pattern.
                if switchCase.body.count == 1, let body = switchCase.body[0].flat, fits(pattern, " ", body) {
                    line(pattern, " ", body)
                } else {
                    line(pattern)
                    indent { printer in for statement in switchCase.body { printer.statement(statement) } }
                }
            }
            line("}")
        }
    }

    // MARK: Expressions

    /// Writes `prefix`, the expression and `suffix`, from a new line: on that one line when they fit, otherwise
    /// broken at the outermost call, literal or chain (inner ones break only if they still do not fit).
    mutating func expression(_ expression: Expression, prefix: String = "", suffix: String = "") {
        if fits(expression, prefix: prefix, suffix: suffix) { return flatLine(prefix, expression, suffix) }
        switch expression {
        case .call(let callee, let arguments):
            if let chain = Chain(expression), chain.calls >= 2 {
                return self.chain(chain, prefix: prefix, suffix: suffix)
            }
            guard let head = callee.flat, !arguments.isEmpty else { break }
            // One argument that is itself a call or literal hugs the parentheses: `self.init(client: ServiceClient(`.
            if arguments.count == 1, let only = arguments.first, let opening = only.value.opening,
                fits(prefix, head, "(", only.label.map { $0 + ": " } ?? "", opening)
            {
                return self.expression(
                    only.value, prefix: prefix + head + "(" + (only.label.map { $0 + ": " } ?? ""), suffix: ")" + suffix
                )
            }
            return list(
                open: prefix + head + "(", arguments.map { ($0.label.map { $0 + ": " } ?? "", $0.value) },
                trailingComma: false, close: ")" + suffix)
        case .member:
            if let chain = Chain(expression), chain.calls >= 2 {
                return self.chain(chain, prefix: prefix, suffix: suffix)
            }
        case .array(let elements) where !elements.isEmpty:
            return list(open: prefix + "[", elements.map { ("", $0) }, trailingComma: true, close: "]" + suffix)
        case .dictionary(let entries) where !entries.isEmpty:
            return list(
                open: prefix + "[", entries.map { (($0.key.flat ?? "") + ": ", $0.value) }, trailingComma: true,
                close: "]" + suffix)
        case .tuple(let elements) where !elements.isEmpty:
            return list(
                open: prefix + "(", elements.map { ($0.label.map { $0 + ": " } ?? "", $0.value) },
                trailingComma: false, close: ")" + suffix)
        case .closure(let parameters, let body):
            let opening = "{" + (parameters.isEmpty ? "" : " " + parameters.joined(separator: ", ") + " in")
            if !fits(prefix, opening), let label = Self.label(prefix) {
                // `"a long key":` on its own line, the closure a level deeper.
                line(label)
                return indent { $0.expression(expression, suffix: suffix) }
            }
            line(prefix, opening)
            indent { printer in for statement in body { printer.statement(statement) } }
            return line("}", suffix)
        case .keyword(let keyword, let value):
            return self.expression(value, prefix: prefix + keyword + " ", suffix: suffix)
        case .cast(let value, let type):
            return self.expression(value, prefix: prefix, suffix: " as " + type.text + suffix)
        case .raw(let text):
            if let label = Self.label(prefix), !text.hasLineBreak {
                // Nothing to break inside: the value goes on the line after its label.
                line(label)
                return indent { $0.line(text, suffix) }
            }
            // Nothing to break at (a long literal, say): it stays whole.
            return lines(prefix + text + suffix)
        default:
            break
        }
        // Nothing to break at (a long literal, say): it stays whole, on the line after its label if it has one.
        assert(expression.flat != nil, "an expression that must break but has nowhere to: \(expression)")
        if let label = Self.label(prefix) {
            line(label)
            return indent { $0.line(expression.flat ?? "", suffix) }
        }
        line(prefix, expression.flat ?? "", suffix)
    }

    /// `label:` when `prefix` is an argument label or a dictionary key (`name: `), else nil.
    private static func label(_ prefix: String) -> String? {
        guard prefix.hasSuffix(": "), prefix.count > 2 else { return nil }
        return String(prefix.dropLast())
    }

    /// `open`, one item per line a level deeper (each after its label), `close`.
    private mutating func list(
        open: String, _ items: [(label: String, value: Expression)], trailingComma: Bool, close: String
    ) {
        line(open)
        indent { printer in
            for (index, item) in items.enumerated() {
                let isLast = index == items.count - 1
                printer.expression(item.value, prefix: item.label, suffix: isLast && !trailingComma ? "" : ",")
            }
        }
        line(close)
    }

    /// Breaks a chain into pieces that each start with a call, and puts as many pieces as fit on each line (lines
    /// after the first a level deeper). A property stays with the call before it (`.drives("id").root`), and so does
    /// a call after an argument-less one (`.request().get()`) and an argument-less call that ends the chain
    /// (`.copy(…).send()`). A piece too long for a line of its own breaks before each of its links, and a call
    /// still too long breaks its arguments.
    private mutating func chain(_ chain: Chain, prefix: String, suffix: String) {
        guard let base = chain.base.flat else {
            assertionFailure("a chain whose base has no one-line form: \(chain.base)")
            return
        }
        var pieces: [[Expression]] = [[]]
        for (index, link) in chain.links.enumerated() {
            let isLast = index == chain.links.count - 1
            if index > 0, let arguments = link.arguments, chain.links[index - 1].arguments?.isEmpty != true,
                !(arguments.isEmpty && isLast)
            {
                pieces.append([])
            }
            pieces[pieces.count - 1].append(link.arguments.map { .call(.raw(link.name), $0) } ?? .raw(link.name))
        }
        var current = prefix + base
        var isContinuation = false
        let width = Self.width - indentation.columns
        func fits(_ parts: String...) -> Bool {
            (isContinuation ? 4 : 0) + parts.reduce(0) { $0 + $1.columns } <= width
        }
        for (index, piece) in pieces.enumerated() {
            let tail = index == pieces.count - 1 ? suffix : ""
            let texts = piece.map { $0.flat.map { "." + $0 } }
            let text = texts.allSatisfy { $0 != nil } ? texts.map { $0 ?? "" }.joined() : nil
            if let text, fits(current, text, tail) {
                current += text
                continue
            }
            chainLine(&current, isContinuation: &isContinuation)
            if let text, fits(text, tail) {
                current = text
                continue
            }
            for (linkIndex, link) in piece.enumerated() {
                let linkTail = linkIndex == piece.count - 1 ? tail : ""
                if let text = texts[linkIndex], fits(current, text, linkTail) {
                    current += text
                } else {
                    chainLine(&current, isContinuation: &isContinuation)
                    if let text = texts[linkIndex], fits(text, linkTail) {
                        current = text
                    } else {
                        // Too long even on a line of its own: its arguments break.
                        indent { $0.expression(link, prefix: ".", suffix: linkTail) }
                    }
                }
            }
        }
        // Empty when the last link broke its arguments, and wrote the suffix after them.
        if !current.isEmpty { current += suffix }
        chainLine(&current, isContinuation: &isContinuation)
    }

    /// Writes the chain's line so far, if any; the lines after it are continuations.
    private mutating func chainLine(_ text: inout String, isContinuation: inout Bool) {
        if !text.isEmpty { isContinuation ? indent { $0.line(text) } : line(text) }
        isContinuation = true
        text = ""
    }

    // MARK: Doc comments

    /// `///` lines, each wrapped to the width at the current indentation. An entry with line breaks in it (a
    /// spec's multi-line description) becomes several lines, each behind its own `///`.
    mutating func documentation(_ doc: [String]) {
        var inCodeBlock = false
        for text in doc.flatMap(\.docCommentLines) {
            if text.isEmpty {
                line("///")
                continue
            }
            if text.utf8.drop(while: { $0 == UInt8(ascii: " ") }).starts(with: "```".utf8) { inCodeBlock.toggle() }
            if inCodeBlock || fits("/// ", text) {
                line("/// ", text)
                continue
            }
            // Written straight into the output: no string per word or per line.
            DocWrapper.wrap(text, width: Self.width - indentation.utf8.count - 4) { prefix, words in
                output.append(utf8: indentation)
                output.append(utf8: "/// ")
                output.append(utf8: prefix)
                for (position, word) in words.enumerated() {
                    if position > 0 { output.append(UInt8(ascii: " ")) }
                    output.append(utf8: word)
                }
                output.append(UInt8(ascii: "\n"))
            }
            lastLineIsBlank = false
        }
    }
}

/// A member chain flattened: `OneDriveClient(client: client)` then `.drives("drive-id-1")`, `.root`, `.copy(…)`.
private struct Chain {
    struct Link {
        var name: String
        /// Nil for a property, the arguments for a call.
        var arguments: [Expression.Argument]?
    }

    var base: Expression
    var links: [Link]
    /// How many links are calls: a chain with two or more breaks before each link.
    var calls: Int { links.count { $0.arguments != nil } }

    init?(_ expression: Expression) {
        var links: [Link] = []
        var current = expression
        while true {
            if case .call(.member(let base?, let name), let arguments) = current {
                links.append(Link(name: name, arguments: arguments))
                current = base
            } else if case .member(let base?, let name) = current {
                links.append(Link(name: name, arguments: nil))
                current = base
            } else {
                break
            }
        }
        guard !links.isEmpty else { return nil }
        self.base = current
        self.links = links.reversed()
    }
}

extension Expression {
    /// What the first line of the broken expression starts with, when it breaks into a list (`ModelSchema(`, `[`).
    var opening: String? {
        switch self {
        case .call(let callee, let arguments) where !arguments.isEmpty:
            if let chain = Chain(self), chain.calls >= 2 { return nil }
            return callee.flat.map { $0 + "(" }
        case .array(let elements) where !elements.isEmpty: return "["
        case .dictionary(let entries) where !entries.isEmpty: return "["
        default: return nil
        }
    }
}
