/// The typed Swift that translators produce and the renderer prints.
///
/// Declarations, the expressions that can grow long (calls, arrays, tables) and the statements that hold them are
/// values: tests compare them, and the renderer owns all layout (indentation, wrapping, where a list breaks).
/// Short expressions and statements stay as text (`Expression.raw`, `Statement.raw`), where a full syntax tree
/// would cost more than it gives.
public struct SwiftFile: Equatable, Sendable {
    /// Path relative to the output folder, e.g. `Models/DriveItem.swift`.
    public var path: String
    public var header: [String]
    public var imports: [Import]
    public var declarations: [Declaration]

    public init(path: String, header: [String], imports: [Import], declarations: [Declaration]) {
        self.path = path
        self.header = header
        self.imports = imports
        self.declarations = declarations
    }
}

/// `import Foundation`, or `@_spi(Generated) import BinderyRuntime` for the runtime API only generated code uses.
public struct Import: Equatable, Sendable, ExpressibleByStringLiteral {
    public var module: String
    public var spi: String?

    public init(_ module: String, spi: String? = nil) {
        self.module = module
        self.spi = spi
    }

    public init(stringLiteral module: String) { self.init(module) }

    /// The runtime, with the declarations it keeps for generated code (`@_spi(Generated)`).
    public static let runtime = Import("BinderyRuntime", spi: "Generated")
}

public struct Declaration: Equatable, Sendable {
    public var doc: [String]
    public var attributes: [String]
    public var kind: Kind

    public indirect enum Kind: Equatable, Sendable {
        case type(TypeDeclaration)
        case `extension`(ExtensionDeclaration)
        case variable(VariableDeclaration)
        case function(FunctionDeclaration)
        case typeAlias(name: String, type: String)
        /// `typealias Table = (id: Field<String>, name: Field<String>)`: a labelled tuple type, broken one element
        /// per line when it does not fit.
        case tupleAlias(name: String, elements: [Expression.Argument])
        /// `case file(File)`: an enum case, written as is after `case`.
        case enumCase(String)
    }

    public init(doc: [String] = [], attributes: [String] = [], _ kind: Kind) {
        self.doc = doc
        self.attributes = attributes
        self.kind = kind
    }
}

public struct TypeDeclaration: Equatable, Sendable {
    public enum Keyword: String, Sendable { case `struct`, `enum` }

    public var keyword: Keyword
    public var name: String
    public var conformances: [String]
    public var members: [Declaration]
    /// An enum with a case that holds the enum itself, directly or through other enums.
    public var isIndirect: Bool

    public init(
        _ keyword: Keyword, _ name: String, conformances: [String] = [], members: [Declaration] = [],
        isIndirect: Bool = false
    ) {
        self.keyword = keyword
        self.name = name
        self.conformances = conformances
        self.members = members
        self.isIndirect = isIndirect
    }
}

public struct ExtensionDeclaration: Equatable, Sendable {
    public var type: String
    public var conformances: [String]
    public var whereClause: String?
    public var members: [Declaration]

    public init(_ type: String, conformances: [String] = [], where whereClause: String? = nil, members: [Declaration]) {
        self.type = type
        self.conformances = conformances
        self.whereClause = whereClause
        self.members = members
    }
}

public struct VariableDeclaration: Equatable, Sendable {
    public var isStatic: Bool
    public var isLet: Bool
    public var name: String
    public var type: String?
    /// `= value` for stored properties.
    public var value: Expression?
    /// A computed property's getter; with `setter`, a get/set pair.
    public var getter: [Statement]?
    public var setter: [Statement]?

    public static func stored(
        _ name: String, type: String?, value: Expression? = nil, isStatic: Bool = false, isLet: Bool = true
    ) -> Self {
        Self(isStatic: isStatic, isLet: isLet, name: name, type: type, value: value, getter: nil, setter: nil)
    }

    public static func computed(
        _ name: String, type: String, getter: [Statement], setter: [Statement]? = nil, isStatic: Bool = false
    ) -> Self {
        Self(isStatic: isStatic, isLet: false, name: name, type: type, value: nil, getter: getter, setter: setter)
    }
}

public struct FunctionDeclaration: Equatable, Sendable {
    public struct Parameter: Equatable, Sendable {
        /// The argument label when it differs from the name (`_` for none).
        public var label: String?
        public var name: String
        public var type: String
        public var defaultValue: String?

        public init(label: String? = nil, _ name: String, _ type: String, default defaultValue: String? = nil) {
            self.label = label
            self.name = name
            self.type = type
            self.defaultValue = defaultValue
        }
    }

    public var isStatic: Bool
    /// `init` for initializers.
    public var name: String
    public var parameters: [Parameter]
    public var effects: String?
    public var returnType: String?
    public var body: [Statement]
    /// Written `private` whatever the module's access level.
    public var isPrivate = false

    public init(
        _ name: String, parameters: [Parameter] = [], effects: String? = nil, returns returnType: String? = nil,
        isStatic: Bool = false, body: [Statement]
    ) {
        self.isStatic = isStatic
        self.name = name
        self.parameters = parameters
        self.effects = effects
        self.returnType = returnType
        self.body = body
    }
}

/// A statement of a function or accessor body.
public enum Statement: Equatable, Sendable, ExpressibleByStringInterpolation {
    /// Written as is, on one line: `self.path = path`, `if let name { body.set("name", name) }`.
    case raw(String)
    /// An expression on its own: `self.init(client: …)`.
    case expression(Expression)
    /// `target = value`, where the target is written as is: `let request`, `var arguments: [(String, ODataLiteral)]`, `_`.
    case assignment(String, Expression)
    /// `return value`.
    case `return`(Expression)
    /// `if let name { body }`, on one line when it fits.
    case ifLet(String, [Statement])

    public init(stringLiteral text: String) { self = .raw(text) }
}

/// A Swift expression whose layout the renderer decides: on one line when it fits the width at its indentation,
/// otherwise one argument or element per line.
///
/// Only what generated code needs to break is a case of its own; anything short is `raw` text.
///
/// Only the cases that hold an expression directly are `indirect`: text and lists are stored inline, so the most
/// common node, `raw`, costs no allocation of its own (Graph's models and builders make millions of them).
public enum Expression: Equatable, Sendable {
    /// Written as is: an identifier, a literal, `DriveItem.self`, `.odata`.
    case raw(String)
    /// `base.member`; `.member` (an implicit member, such as `.init`) when there is no base.
    indirect case member(Expression?, String)
    /// `callee(label: value, value)`.
    indirect case call(Expression, [Argument])
    /// `[a, b]`; broken, one element per line with a trailing comma.
    case array([Expression])
    /// `[key: value]`, `[:]` when empty; broken, one entry per line with a trailing comma.
    case dictionary([DictionaryEntry])
    /// `(a, b)`, `(label: a, b)`; broken, one element per line.
    case tuple([Argument])
    /// `{ parameters in statements }`, always over several lines.
    case closure(parameters: [String], body: [Statement])
    /// A keyword before an expression: `try await client.send()`.
    indirect case keyword(String, Expression)
    /// `value as Type`: the type written as is, after the value however it breaks.
    indirect case cast(Expression, to: String)

    /// A labelled or unlabelled argument of a call.
    public struct Argument: Equatable, Sendable {
        public var label: String?
        public var value: Expression

        public init(_ label: String?, _ value: Expression) {
            self.label = label
            self.value = value
        }

        /// An unlabelled argument.
        public init(_ value: Expression) { self.init(nil, value) }
    }

    public struct DictionaryEntry: Equatable, Sendable {
        public var key: Expression
        public var value: Expression

        public init(_ key: Expression, _ value: Expression) {
            self.key = key
            self.value = value
        }
    }

    /// A string literal, escaped: `"microsoft.graph.driveItem"`.
    public static func string(_ text: String) -> Expression { .raw(text.swiftLiteral) }

    /// `name(arguments)`, for a type or function named by text.
    public static func call(_ name: String, _ arguments: [Argument] = []) -> Expression { .call(.raw(name), arguments) }

    /// `.name(arguments)`, an implicit member: `.nextLink(field: "@odata.nextLink")`.
    public static func dot(_ name: String, _ arguments: [Argument]) -> Expression {
        .call(.member(nil, name), arguments)
    }

    /// `.init(arguments)`.
    public static func initializer(_ arguments: [Argument]) -> Expression { .dot("init", arguments) }

    /// `self.member`.
    public func dot(_ member: String) -> Expression { .member(self, member) }

    /// `self.name(arguments)`.
    public func call(_ name: String, _ arguments: [Argument] = []) -> Expression {
        .call(.member(self, name), arguments)
    }
}
