/// Prints Swift declarations as text: four-space indentation, blank lines between members, a newline at the end.
///
/// It knows layout and nothing about specs.
public struct SwiftRenderer: Sendable {
    /// `public` or `internal`; written on every declaration that can carry one, so a reader never guesses.
    public var accessLevel: String

    public init(accessLevel: String = "public") {
        self.accessLevel = accessLevel
    }

    public func render(_ file: SwiftFile) -> String {
        var printer = Printer()
        printer.reserve(estimatedSize(of: file))
        for line in file.header { printer.line(line) }
        if !file.header.isEmpty { printer.blank() }
        for module in file.imports { printer.line((module.spi.map { "@_spi(\($0)) " } ?? "") + "import \(module.module)") }
        for declaration in file.declarations {
            printer.blank()
            render(declaration, into: &printer, inExtension: false)
        }
        return printer.text
    }

    /// A rough size, so the output string grows once or twice instead of dozens of times.
    private func estimatedSize(of file: SwiftFile) -> Int { 1024 + file.declarations.count * 2048 }

    func render(_ declaration: Declaration, into printer: inout Printer, inExtension: Bool) {
        for line in declaration.doc { printer.line(line.isEmpty ? "///" : "/// " + line) }
        for attribute in declaration.attributes { printer.line(attribute) }
        let access = accessLevel == "internal" ? "" : accessLevel + " "
        switch declaration.kind {
        case .type(let type):
            let conformances = type.conformances.isEmpty ? "" : ": " + type.conformances.joined(separator: ", ")
            printer.line("\(access)\(type.keyword.rawValue) \(type.name)\(conformances) {")
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
            printer.line("\(access)typealias \(name) = \(type)")
        }
    }

    private func renderMembers(_ members: [Declaration], into printer: inout Printer) {
        printer.indent { printer in
            for (index, member) in members.enumerated() {
                // Stored lets and type aliases group tightly; everything else gets air.
                if index > 0, !(isCompact(member) && isCompact(members[index - 1])) { printer.blank() }
                render(member, into: &printer, inExtension: true)
            }
        }
    }

    private func isCompact(_ declaration: Declaration) -> Bool {
        guard declaration.doc.isEmpty else { return false }
        switch declaration.kind {
        case .typeAlias: return true
        case .variable(let variable): return variable.getter == nil && !(variable.value?.contains("\n") ?? false)
        default: return false
        }
    }

    private func renderVariable(_ variable: VariableDeclaration, access: String, into printer: inout Printer) {
        let prefix = access + (variable.isStatic ? "static " : "") + (variable.isLet ? "let " : "var ")
        let type = variable.type.map { ": " + $0 } ?? ""
        if let getter = variable.getter {
            if let setter = variable.setter {
                printer.line("\(prefix)\(variable.name)\(type) {")
                printer.indent { printer in
                    printer.block("get", getter)
                    printer.block("set", setter)
                }
                printer.line("}")
            } else {
                printer.block("\(prefix)\(variable.name)\(type)", getter)
            }
        } else if let value = variable.value {
            if value.utf8.contains(UInt8(ascii: "\n")) {
                printer.lines(prefix + variable.name + type + " = " + value)
            } else {
                printer.line(prefix, variable.name, type, " = ", value)
            }
        } else {
            printer.line(prefix, variable.name, type)
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
        let head = "\(access)\(function.isStatic ? "static " : "")\(keyword)\(function.name)"
        let oneLine = "\(head)(\(parameters.joined(separator: ", ")))\(effects)\(returns)"
        if oneLine.count + printer.indentation.count <= 120 || parameters.count < 2 {
            printer.block(oneLine, function.body, forceMultiline: true)
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
    private var output: [UInt8] = []
    private(set) var indentation = ""
    /// Whether the last line written was blank (or nothing was written yet), so blanks never double up.
    private var lastLineIsBlank = true

    var text: String { String(decoding: output, as: UTF8.self) }

    mutating func reserve(_ capacity: Int) { output.reserveCapacity(capacity) }

    /// One line made of `parts`, indented.
    mutating func line(_ parts: String...) {
        write(parts)
    }

    private mutating func write(_ parts: [String]) {
        var isEmpty = true
        for part in parts where !part.isEmpty {
            if isEmpty { output.append(contentsOf: indentation.utf8); isEmpty = false }
            output.append(contentsOf: part.utf8)
        }
        output.append(UInt8(ascii: "\n"))
        lastLineIsBlank = isEmpty
    }

    /// Several lines given as one string (multi-line values keep their relative indentation).
    mutating func lines(_ text: String) {
        guard text.utf8.contains(UInt8(ascii: "\n")) else { return line(text) }
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if !line.isEmpty { output.append(contentsOf: indentation.utf8) }
            output.append(contentsOf: line)
            output.append(UInt8(ascii: "\n"))
            lastLineIsBlank = line.isEmpty
        }
    }

    mutating func blank() {
        if !lastLineIsBlank { line("") }
    }

    mutating func indent(_ body: (inout Printer) -> Void) {
        let saved = indentation
        indentation += "    "
        body(&self)
        indentation = saved
    }

    /// `head { body }`, on one line when the body is one short statement.
    mutating func block(_ head: String, _ body: [String], forceMultiline: Bool = false) {
        if !forceMultiline, body.count == 1, let only = body.first,
            indentation.utf8.count + head.utf8.count + only.utf8.count + 6 <= 120, !only.utf8.contains(UInt8(ascii: "\n"))
        {
            line(head, " { ", only, " }")
            return
        }
        line(head, " {")
        indent { printer in for statement in body { printer.lines(statement) } }
        line("}")
    }
}
