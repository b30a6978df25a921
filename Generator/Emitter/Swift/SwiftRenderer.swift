import BinderySpec

/// Prints Swift declarations as text: four-space indentation, blank lines between members, a newline at the end,
/// and no line wider than 120 columns where a break is possible (doc comments are wrapped at word boundaries, long
/// calls and literals put one argument or element on each line).
///
/// It knows layout and nothing about specs.
public struct SwiftRenderer: Sendable {
    /// Written on every declaration that can carry one, so a reader never guesses (`internal` is left implicit).
    public var accessLevel: GeneratorConfig.AccessLevel

    public init(accessLevel: GeneratorConfig.AccessLevel = .public) {
        self.accessLevel = accessLevel
    }

    /// The modifier that starts a declaration: `"public "`, or nothing for `internal`.
    private var accessModifier: String { accessLevel == .internal ? "" : accessLevel.rawValue + " " }

    public func render(_ file: SwiftFile) -> String {
        render(header: file.header, imports: file.imports, parts: [renderDeclarations(file.declarations)])
    }

    /// Declarations as UTF-8, a blank line between each: one piece of a file, which `render(header:imports:parts:)`
    /// puts together. Pieces can be rendered on any thread, as soon as their declarations are made.
    public func renderDeclarations(_ declarations: [Declaration]) -> [UInt8] {
        var printer = Printer()
        for declaration in declarations {
            printer.blank()
            render(declaration, into: &printer, inExtension: false)
        }
        return printer.bytes
    }

    /// A whole file: the header, a blank line, the imports, then the pieces in order, a blank line before each.
    public func render(header: [String], imports: [Import], parts: [[UInt8]]) -> String {
        var printer = Printer()
        printer.reserve(parts.reduce(1024) { $0 + $1.count })
        for line in header { printer.line(line) }
        if !header.isEmpty { printer.blank() }
        for module in imports {
            printer.line((module.spi.map { "@_spi(\($0)) " } ?? "") + "import \(module.module)")
        }
        for part in parts where !part.isEmpty {
            printer.blank()
            printer.append(rendered: part)
        }
        return printer.text
    }

    func render(_ declaration: Declaration, into printer: inout Printer, inExtension: Bool) {
        printer.documentation(declaration.doc)
        for attribute in declaration.attributes { printer.line(attribute) }
        let access = accessModifier
        switch declaration.kind {
        case .type(let type):
            let conformances = type.conformances.isEmpty ? "" : ": " + type.conformances.joined(separator: ", ")
            let indirect = type.isIndirect ? "indirect " : ""
            printer.line("\(access)\(indirect)\(type.keyword.rawValue) \(type.name)\(conformances) {")
            renderMembers(type.members, into: &printer)
            printer.line("}")
        case .extension(let ext):
            let conformances = ext.conformances.isEmpty ? "" : ": " + ext.conformances.joined(separator: ", ")
            let whereClause = ext.whereClause.map { " where " + $0 } ?? ""
            printer.line("extension \(ext.type)\(conformances)\(whereClause) {")
            renderMembers(ext.members, into: &printer)
            printer.line("}")
        case .variable(let variable):
            renderVariable(variable, access: access, into: &printer)
        case .function(let function):
            renderFunction(function, access: access, into: &printer)
        case .typeAlias(let name, let type):
            if printer.fitsLine("\(access)typealias \(name) = \(type)") {
                printer.line("\(access)typealias \(name) = \(type)")
            } else {
                printer.line("\(access)typealias \(name) =")
                printer.indent { $0.line(type) }
            }
        case .tupleAlias(let name, let elements):
            printer.expression(.tuple(elements), prefix: "\(access)typealias \(name) = ")
        case .enumCase(let text):
            printer.line("case \(text)")
        }
    }

    private func renderMembers(_ members: [Declaration], into printer: inout Printer) {
        printer.indent { printer in
            var previousIsCompact = false
            for (index, member) in members.enumerated() {
                // Stored lets and type aliases that fit on one line group tightly; everything else gets air.
                let isCompact = isCompact(member, in: printer)
                if index > 0, !(isCompact && previousIsCompact) { printer.blank() }
                render(member, into: &printer, inExtension: true)
                previousIsCompact = isCompact
            }
        }
    }

    private func isCompact(_ declaration: Declaration, in printer: Printer) -> Bool {
        guard declaration.doc.isEmpty else { return false }
        switch declaration.kind {
        case .typeAlias, .enumCase: return true
        case .variable(let variable):
            guard variable.getter == nil else { return false }
            guard let value = variable.value else { return true }
            return printer.fits(value, prefix: variablePrefix(variable, access: accessModifier))
        default: return false
        }
    }

    /// `public static let name: Type` (a stored value follows as ` = value`).
    private func variablePrefix(_ variable: VariableDeclaration, access: String) -> String {
        nameOnlyPrefix(variable, access: access) + (variable.type.map { ": " + $0 } ?? "")
    }

    private func nameOnlyPrefix(_ variable: VariableDeclaration, access: String) -> String {
        access + (variable.isStatic ? "static " : "") + (variable.isLet ? "let " : "var ") + variable.name
    }

    private func renderVariable(_ variable: VariableDeclaration, access: String, into printer: inout Printer) {
        let head = variablePrefix(variable, access: access)
        // A name and type too long for one line: the type goes on the next line, and a body's brace on its own.
        let breaksType = variable.type != nil && !printer.fitsLine(head + (variable.getter == nil ? "" : " {"))
        func writeHead(_ printer: inout Printer) {
            guard breaksType, let type = variable.type else { return }
            printer.line(nameOnlyPrefix(variable, access: access) + ":")
            printer.indent { $0.line(type) }
        }
        if let getter = variable.getter {
            writeHead(&printer)
            let blockHead = breaksType ? "" : head
            if let setter = variable.setter {
                printer.line(blockHead, breaksType ? "{" : " {")
                printer.indent { printer in
                    printer.block("get", getter)
                    printer.block("set", setter)
                }
                printer.line("}")
            } else if breaksType {
                printer.block("", getter, forceMultiline: true)
            } else {
                printer.block(head, getter)
            }
        } else if let value = variable.value {
            printer.expression(value, prefix: head + " = ")
        } else if breaksType {
            writeHead(&printer)
        } else {
            printer.line(head)
        }
    }

    private func renderFunction(_ function: FunctionDeclaration, access: String, into printer: inout Printer) {
        let parameters = function.parameters.map { parameter -> String in
            let label = parameter.label.map { $0 + " " } ?? ""
            let defaultValue = parameter.defaultValue.map { " = " + $0 } ?? ""
            return "\(label)\(parameter.name): \(parameter.type)\(defaultValue)"
        }
        let effects = function.effects.map { " " + $0 } ?? ""
        let returns = function.returnType.map { " -> " + $0 } ?? ""
        let keyword = function.name == "init" ? "" : "func "
        let access = function.isPrivate ? "private " : access
        let head = "\(access)\(function.isStatic ? "static " : "")\(keyword)\(function.name)"
        let oneLine = "\(head)(\(parameters.joined(separator: ", ")))\(effects)\(returns)"
        if oneLine.count + printer.indentation.count + 2 <= Printer.width {
            printer.block(oneLine, function.body, forceMultiline: true)
        } else if parameters.isEmpty {
            // Nothing to break between the parentheses: the result type goes on the next line.
            printer.line("\(head)()\(effects)")
            if let returnType = function.returnType { printer.indent { $0.line("-> " + returnType) } }
            printer.block("", function.body, forceMultiline: true)
        } else {
            printer.line("\(head)(")
            printer.indent { printer in
                for (index, parameter) in parameters.enumerated() {
                    printer.line(parameter + (index < parameters.count - 1 ? "," : ""))
                }
            }
            printer.block(")\(effects)\(returns)", function.body, forceMultiline: true)
        }
    }
}

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
        let isFlat = expression.appendFlat(to: &output)
        assert(isFlat, "flatLine of an expression without a one-line form: \(expression)")
        output.append(utf8: suffix)
        // Like `line`: a line of nothing but indentation is blank.
        lastLineIsBlank = output.count == indented
        if lastLineIsBlank { output.removeSubrange(start...) }
        output.append(UInt8(ascii: "\n"))
    }

    /// `head { statement }` on one line, written when the statement has a one-line form and the line fits the
    /// width; otherwise nothing is written (false). Written first and measured after, as nearly every getter fits:
    /// no string of the statement is made to measure it.
    private mutating func oneLineBlock(_ head: String, _ statement: Statement) -> Bool {
        let start = output.count
        output.append(utf8: indentation)
        output.append(utf8: head)
        output.append(utf8: " { ")
        if statement.appendFlat(to: &output) {
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
        return available >= 0 && expression.flatColumns(limit: available) != nil
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
        case .raw(let text): lines(text)
        case .expression(let value): expression(value)
        case .assignment(let target, let value): expression(value, prefix: target + " = ")
        case .return(let value): expression(value, prefix: "return ")
        case .ifLet(let name, let body): block("if let " + name, body)
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
            return self.expression(value, prefix: prefix, suffix: " as " + type + suffix)
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
    /// (`.copy(…).execute()`). A piece too long for a line of its own breaks before each of its links, and a call
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
            } else if !wrapASCII(text, width: Self.width - indentation.utf8.count - 4) {
                for wrapped in DocWrapper.wrap(text, width: Self.width - indentation.utf8.count - 4) {
                    line("/// ", wrapped)
                }
            }
        }
    }

    /// `DocWrapper.wrap` for ASCII text, nearly all of it, written straight into the output as `///` lines: the
    /// same words, markers and breaks, without a string per word or per line. False, having written nothing, for
    /// other text.
    private mutating func wrapASCII(_ text: String, width: Int) -> Bool {
        var native = text
        return native.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
            let space = UInt8(ascii: " ")
            let leading = bytes.prefix { $0 == space }.count
            var start = leading
            // A list item's marker: `- `, `* `, `+ `, `1. `.
            var marker = 0
            if start + 1 < bytes.count,
                [UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "+")].contains(bytes[start]),
                bytes[start + 1] == space
            {
                marker = 2
            } else {
                let digits = bytes[start...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
                let after = start + digits
                if digits > 0, after + 1 < bytes.count,
                    bytes[after] == UInt8(ascii: ".") || bytes[after] == UInt8(ascii: ")"), bytes[after + 1] == space
                {
                    marker = digits + 2
                }
            }
            start += marker
            // Indented code and tables keep their lines.
            if marker == 0, leading >= 4 || (start < bytes.count && bytes[start] == UInt8(ascii: "|")) {
                line("/// ", text)
                return true
            }
            let prefixLength = leading + marker
            // Words: runs of non-spaces, where a code span with spaces in it is one word.
            var words: [Range<Int>] = []
            var wordStart: Int?
            var inCode = false
            for index in start..<bytes.count {
                if bytes[index] == UInt8(ascii: "`") { inCode.toggle() }
                if bytes[index] == space, !inCode {
                    if let begin = wordStart { words.append(begin..<index) }
                    wordStart = nil
                } else if wordStart == nil {
                    wordStart = index
                }
            }
            if let begin = wordStart { words.append(begin..<bytes.count) }

            var lineWords = 0..<0  // a range of `words`
            var columns = prefixLength
            var isFirstLine = true
            func write(_ line: Range<Int>) {
                output.append(utf8: indentation)
                output.append(contentsOf: "/// ".utf8)
                if isFirstLine {
                    output.append(contentsOf: bytes[0..<prefixLength])
                } else {
                    output.append(contentsOf: repeatElement(space, count: prefixLength))
                }
                for (position, word) in words[line].enumerated() {
                    if position > 0 { output.append(space) }
                    output.append(contentsOf: bytes[word])
                }
                output.append(UInt8(ascii: "\n"))
                isFirstLine = false
            }
            for index in words.indices {
                let wordColumns = words[index].count
                if lineWords.isEmpty || columns + 1 + wordColumns <= width {
                    columns += (lineWords.isEmpty ? 0 : 1) + wordColumns
                    lineWords = lineWords.isEmpty ? index..<index + 1 : lineWords.lowerBound..<index + 1
                    continue
                }
                // A line must not start with what Markdown reads as a list item or a heading: the word before
                // comes along.
                let carries =
                    lineWords.count > 1
                    && DocWrapper.startsABlock(Substring(String(decoding: bytes[words[index]], as: UTF8.self)))
                let next = carries ? lineWords.upperBound - 1 : index
                write(lineWords.lowerBound..<next)
                lineWords = next..<index + 1
                columns = prefixLength + words[lineWords].reduce(lineWords.count - 1) { $0 + $1.count }
            }
            if !lineWords.isEmpty { write(lineWords) }
            lastLineIsBlank = false
            return true
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
    /// The expression on one line, or nil when it cannot be (a closure, text that holds a line break).
    var flat: String? {
        if case .raw(let text) = self { return text.hasLineBreak ? nil : text }
        var bytes: [UInt8] = []
        guard appendFlat(to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `flat` as UTF-8 (no intermediate strings); false, with part of it written, when there is no
    /// one-line form.
    func appendFlat(to bytes: inout [UInt8]) -> Bool {
        switch self {
        case .raw(let text):
            if text.hasLineBreak { return false }
            bytes.append(utf8: text)
            return true
        case .member(let base, let name):
            if let base, !base.appendFlat(to: &bytes) { return false }
            bytes.append(UInt8(ascii: "."))
            bytes.append(utf8: name)
            return true
        case .call(let callee, let arguments):
            guard callee.appendFlat(to: &bytes) else { return false }
            return Self.appendFlat(arguments, to: &bytes)
        case .array(let elements):
            return Self.appendFlat(elements, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), to: &bytes)
        case .dictionary(let entries):
            if entries.isEmpty {
                bytes.append(utf8: "[:]")
                return true
            }
            bytes.append(UInt8(ascii: "["))
            for (index, entry) in entries.enumerated() {
                if index > 0 { bytes.append(utf8: ", ") }
                guard entry.key.appendFlat(to: &bytes) else { return false }
                bytes.append(utf8: ": ")
                guard entry.value.appendFlat(to: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
            return true
        case .tuple(let elements):
            return Self.appendFlat(elements, to: &bytes)
        case .closure:
            return false
        case .keyword(let keyword, let value):
            bytes.append(utf8: keyword)
            bytes.append(UInt8(ascii: " "))
            return value.appendFlat(to: &bytes)
        case .cast(let value, let type):
            guard value.appendFlat(to: &bytes) else { return false }
            bytes.append(utf8: " as ")
            bytes.append(utf8: type)
            return true
        }
    }

    /// `(a, label: b)`: arguments or tuple elements, each after its label.
    private static func appendFlat(_ arguments: [Argument], to bytes: inout [UInt8]) -> Bool {
        bytes.append(UInt8(ascii: "("))
        for (index, argument) in arguments.enumerated() {
            if index > 0 { bytes.append(utf8: ", ") }
            if let label = argument.label {
                bytes.append(utf8: label)
                bytes.append(utf8: ": ")
            }
            guard argument.value.appendFlat(to: &bytes) else { return false }
        }
        bytes.append(UInt8(ascii: ")"))
        return true
    }

    /// `open`, the elements joined by commas, `close`.
    private static func appendFlat(_ elements: [Expression], open: UInt8, close: UInt8, to bytes: inout [UInt8])
        -> Bool
    {
        bytes.append(open)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(utf8: ", ") }
            guard element.appendFlat(to: &bytes) else { return false }
        }
        bytes.append(close)
        return true
    }

    /// The columns `flat` would take, when they are at most `limit`; nil when more, or when it cannot be flat.
    /// Stops as soon as the limit is passed, so asking whether a long table fits costs what its first line does.
    func flatColumns(limit: Int) -> Int? {
        switch self {
        case .raw(let text):
            guard let columns = text.singleLineColumns, columns <= limit else { return nil }
            return columns
        case .member(let base, let name):
            let own = 1 + name.columns
            guard let base else { return own <= limit ? own : nil }
            return base.flatColumns(limit: limit - own).map { $0 + own }
        case .call(let callee, let arguments):
            guard let head = callee.flatColumns(limit: limit - 2) else { return nil }
            return Self.flatColumns(arguments, limit: limit - 2 - head).map { head + 2 + $0 }
        case .array(let elements):
            return Self.flatColumns(elements, limit: limit - 2).map { $0 + 2 }
        case .dictionary(let entries):
            if entries.isEmpty { return 3 <= limit ? 3 : nil }
            var total = 2
            for (index, entry) in entries.enumerated() {
                total += index == 0 ? 0 : 2
                guard let key = entry.key.flatColumns(limit: limit - total - 2) else { return nil }
                total += key + 2
                guard let value = entry.value.flatColumns(limit: limit - total) else { return nil }
                total += value
            }
            return total <= limit ? total : nil
        case .tuple(let elements):
            return Self.flatColumns(elements, limit: limit - 2).map { $0 + 2 }
        case .closure:
            return nil
        case .keyword(let keyword, let value):
            let own = keyword.columns + 1
            return value.flatColumns(limit: limit - own).map { $0 + own }
        case .cast(let value, let type):
            let own = 4 + type.columns
            return value.flatColumns(limit: limit - own).map { $0 + own }
        }
    }

    /// `a, label: b`: arguments or tuple elements, each after its label, joined by commas. (Read where they lie:
    /// pairing labels and values into a new array cost an allocation for every call the printer measured.)
    private static func flatColumns(_ arguments: [Argument], limit: Int) -> Int? {
        var total = 0
        for index in arguments.indices {
            total += index == 0 ? 0 : 2
            if let label = arguments[index].label { total += label.columns + 2 }
            guard total <= limit, let value = arguments[index].value.flatColumns(limit: limit - total) else {
                return nil
            }
            total += value
        }
        return total <= limit ? total : nil
    }

    /// `a, b`: elements joined by commas.
    private static func flatColumns(_ elements: [Expression], limit: Int) -> Int? {
        var total = 0
        for index in elements.indices {
            total += index == 0 ? 0 : 2
            guard total <= limit, let value = elements[index].flatColumns(limit: limit - total) else { return nil }
            total += value
        }
        return total <= limit ? total : nil
    }

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

extension Statement {
    /// Appends `flat` as UTF-8; false, with part of it written, when there is no one-line form.
    func appendFlat(to bytes: inout [UInt8]) -> Bool {
        switch self {
        case .raw(let text):
            if text.hasLineBreak { return false }
            bytes.append(utf8: text)
            return true
        case .expression(let value):
            return value.appendFlat(to: &bytes)
        case .assignment(let target, let value):
            bytes.append(utf8: target)
            bytes.append(utf8: " = ")
            return value.appendFlat(to: &bytes)
        case .return(let value):
            bytes.append(utf8: "return ")
            return value.appendFlat(to: &bytes)
        case .ifLet(let name, let body):
            guard body.count == 1 else { return false }
            bytes.append(utf8: "if let ")
            bytes.append(utf8: name)
            bytes.append(utf8: " { ")
            guard body[0].appendFlat(to: &bytes) else { return false }
            bytes.append(utf8: " }")
            return true
        }
    }
}

/// Re-flows one line of a doc comment at word boundaries: a list item (`- `, `  - name:`) continues under its text,
/// a code span (`` `a b` ``) is never split, and a word longer than the width stays whole on its own line.
enum DocWrapper {
    static func wrap(_ text: String, width: Int) -> [String] {
        let leading = text.prefix { $0 == " " }
        var rest = text.dropFirst(leading.count)
        // A list item's marker: `- `, `* `, `+ `, `1. `.
        var marker = ""
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            marker = String(rest.prefix(2))
        } else {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let after = rest.dropFirst(digits.count)
            if !digits.isEmpty, after.hasPrefix(". ") || after.hasPrefix(") ") {
                marker = String(rest.prefix(digits.count + 2))
            }
        }
        rest = rest.dropFirst(marker.count)
        // Indented code and tables keep their lines.
        if marker.isEmpty, leading.count >= 4 || rest.hasPrefix("|") { return [text] }
        let firstPrefix = String(leading) + marker
        let continuation = String(repeating: " ", count: firstPrefix.count)

        var lines: [String] = []
        var current: [Substring] = []
        var columns = firstPrefix.columns
        for word in words(rest) {
            let wordColumns = word.columns
            if current.isEmpty || columns + 1 + wordColumns <= width {
                columns += (current.isEmpty ? 0 : 1) + wordColumns
                current.append(word)
                continue
            }
            // A line must not start with what Markdown reads as a list item or a heading: the word before comes along.
            var carried: [Substring] = []
            if startsABlock(word), current.count > 1 { carried.append(current.removeLast()) }
            lines.append((lines.isEmpty ? firstPrefix : continuation) + current.joined(separator: " "))
            current = carried + [word]
            columns = continuation.columns + current.reduce(current.count - 1) { $0 + $1.columns }
        }
        if !current.isEmpty {
            lines.append((lines.isEmpty ? firstPrefix : continuation) + current.joined(separator: " "))
        }
        return lines
    }

    /// The words of a line; a code span with spaces in it is one word.
    private static func words(_ text: Substring) -> [Substring] {
        // ASCII, nearly every line, is split by its bytes: stepping by characters costs a grapheme break each.
        if !text.containsByte(where: { $0 >= 0x80 }) {
            return words(of: text, in: text.utf8, backtick: UInt8(ascii: "`"), space: UInt8(ascii: " "))
        }
        return words(of: text, in: text, backtick: "`", space: " ")
    }

    /// `words`, stepping through `view` (the text's bytes or its characters).
    private static func words<View: Collection>(
        of text: Substring, in view: View, backtick: View.Element, space: View.Element
    ) -> [Substring] where View.Index == Substring.Index, View.Element: Equatable {
        var words: [Substring] = []
        var start: Substring.Index?
        var inCode = false
        var index = view.startIndex
        while index < view.endIndex {
            let element = view[index]
            if element == backtick { inCode.toggle() }
            if element == space, !inCode {
                if let wordStart = start {
                    words.append(text[wordStart..<index])
                    start = nil
                }
            } else if start == nil {
                start = index
            }
            index = view.index(after: index)
        }
        if let wordStart = start { words.append(text[wordStart..<text.endIndex]) }
        return words
    }

    static func startsABlock(_ word: Substring) -> Bool {
        if ["-", "*", "+", ">", "|"].contains(word) || word.hasPrefix("#") || word.hasPrefix("```") { return true }
        let digits = word.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && (word.dropFirst(digits.count) == "." || word.dropFirst(digits.count) == ")")
    }
}

extension [UInt8] {
    /// Appends a string's UTF-8 through `withUTF8`, which reads a native or small string where it lies: about
    /// twice as fast per call as appending its `utf8` view as a sequence, and the printer appends millions of pieces.
    mutating func append(utf8 text: String) {
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
