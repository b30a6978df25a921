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
        for attribute in declaration.attributes { printer.line(attribute.text) }
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
            let whereClause =
                ext.requirements.isEmpty
                ? "" : " where " + ext.requirements.map { "\($0.parameter) == \($0.type.text)" }.joined(separator: ", ")
            printer.line("extension \(ext.type)\(conformances)\(whereClause) {")
            renderMembers(ext.members, into: &printer)
            printer.line("}")
        case .variable(let variable):
            renderVariable(variable, access: access, into: &printer)
        case .function(let function):
            renderFunction(function, access: access, into: &printer)
        case .typeAlias(let name, let type):
            let type = type.text
            if printer.fitsLine("\(access)typealias \(name) = \(type)") {
                printer.line("\(access)typealias \(name) = \(type)")
            } else {
                printer.line("\(access)typealias \(name) =")
                printer.indent { $0.line(type) }
            }
        case .tupleAlias(let name, let elements):
            printer.expression(
                .tuple(elements.map { .init($0.label, .type($0.type)) }), prefix: "\(access)typealias \(name) = ")
        case .enumCase(let name, let associatedValues):
            let values =
                associatedValues.isEmpty ? "" : "(" + associatedValues.map(\.text).joined(separator: ", ") + ")"
            printer.line("case \(name)\(values)")
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
        nameOnlyPrefix(variable, access: access) + (variable.type.map { ": " + $0.text } ?? "")
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
            printer.indent { $0.line(type.text) }
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
            let defaultValue = parameter.defaultValue.map { " = " + ($0.flat ?? "") } ?? ""
            return "\(label)\(parameter.name): \(parameter.type.text)\(defaultValue)"
        }
        let effects = function.effects.text
        let returnType = function.returnType?.text
        let returns = returnType.map { " -> " + $0 } ?? ""
        let keyword = function.name == "init" ? "" : "func "
        let access = function.isPrivate ? "private " : access
        let head = "\(access)\(function.isStatic ? "static " : "")\(keyword)\(function.name)"
        let oneLine = "\(head)(\(parameters.joined(separator: ", ")))\(effects)\(returns)"
        if oneLine.count + printer.indentation.count + 2 <= Printer.width {
            printer.block(oneLine, function.body, forceMultiline: true)
        } else if parameters.isEmpty {
            // Nothing to break between the parentheses: the result type goes on the next line.
            printer.line("\(head)()\(effects)")
            if let returnType { printer.indent { $0.line("-> " + returnType) } }
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

extension Attribute {
    var text: String {
        switch self {
        case .deprecated: "@available(*, deprecated)"
        }
    }
}

extension FunctionDeclaration.Effects {
    /// ` async throws`: what follows the parameter list, with its leading space.
    var text: String {
        (contains(.async) ? " async" : "") + (contains(.throws) ? " throws" : "")
    }
}
