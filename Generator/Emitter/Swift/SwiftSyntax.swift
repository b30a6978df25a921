/// The typed Swift that translators produce and the renderer prints.
///
/// Declarations, types, attributes, effects, statements and the expressions that can grow long (calls, arrays,
/// tables) are values: tests compare them, and the renderer owns all spelling and layout (indentation, wrapping,
/// where a list breaks, when a type needs parentheses). Only short expressions stay as text (`Expression.raw`: an
/// identifier, a literal, `body.json`), where a full expression tree would cost more than it gives.
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
    public var attributes: [Attribute]
    public var kind: Kind

    public indirect enum Kind: Equatable, Sendable {
        case type(TypeDeclaration)
        case `extension`(ExtensionDeclaration)
        case variable(VariableDeclaration)
        case function(FunctionDeclaration)
        case typeAlias(name: String, type: SwiftType)
        /// `typealias Table = (id: Field<String>, name: Field<String>)`: a labelled tuple type, broken one element
        /// per line when it does not fit.
        case tupleAlias(name: String, elements: [TupleElement])
        /// `case file(File)`, or `case accepted` with no associated values.
        case enumCase(name: String, associatedValues: [SwiftType])
    }

    public init(doc: [String] = [], attributes: [Attribute] = [], _ kind: Kind) {
        self.doc = doc
        self.attributes = attributes
        self.kind = kind
    }
}

/// An attribute written on the line before a declaration.
public enum Attribute: Equatable, Sendable {
    /// `@available(*, deprecated)`.
    case deprecated
}

/// A type as generated code spells it: `DriveItem`, `[String: Int64]`, `(any AuthProvider)?`.
public indirect enum SwiftType: Equatable, Sendable, ExpressibleByStringLiteral {
    /// A type by its name: `DriveItem`, `Self`, `Void`.
    case named(String)
    /// `Model<DriveItemFields>`, `OperationRequest<Void>`.
    case generic(String, [SwiftType])
    case optional(SwiftType)
    case array(SwiftType)
    case dictionary(key: SwiftType, value: SwiftType)
    /// A protocol as a type: `any HTTPTransport`.
    case existential(String)
    /// `(String, ODataLiteral)`.
    case tuple([SwiftType])

    /// A type named by a literal: `"ServiceClient"`. Only a name; anything with structure is spelled with the cases.
    public init(stringLiteral name: String) {
        assert(!name.contains { "<>[]?:() ".contains($0) }, "a type literal that is not a name: \(name)")
        self = .named(name)
    }
}

/// `name: Type`: an element of a labelled tuple type.
public struct TupleElement: Equatable, Sendable {
    public var label: String
    public var type: SwiftType

    public init(_ label: String, _ type: SwiftType) {
        self.label = label
        self.type = type
    }
}

public struct TypeDeclaration: Equatable, Sendable {
    public enum Keyword: String, Sendable { case `struct`, `enum` }

    public var keyword: Keyword
    public var name: String
    /// The protocols it conforms to, by name.
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
    /// `Item == DriveItemRequestBuilder`: a generic parameter fixed to a type.
    public struct SameType: Equatable, Sendable {
        public var parameter: String
        public var type: SwiftType

        public init(_ parameter: String, _ type: SwiftType) {
            self.parameter = parameter
            self.type = type
        }
    }

    public var type: String
    public var conformances: [String]
    public var requirements: [SameType]
    public var members: [Declaration]

    public init(
        _ type: String, conformances: [String] = [], where requirements: [SameType] = [], members: [Declaration]
    ) {
        self.type = type
        self.conformances = conformances
        self.requirements = requirements
        self.members = members
    }
}

public struct VariableDeclaration: Equatable, Sendable {
    public var isStatic: Bool
    public var isLet: Bool
    public var name: String
    public var type: SwiftType?
    /// `= value` for stored properties.
    public var value: Expression?
    /// A computed property's getter; with `setter`, a get/set pair.
    public var getter: [Statement]?
    public var setter: [Statement]?

    public static func stored(
        _ name: String, type: SwiftType?, value: Expression? = nil, isStatic: Bool = false, isLet: Bool = true
    ) -> Self {
        Self(isStatic: isStatic, isLet: isLet, name: name, type: type, value: value, getter: nil, setter: nil)
    }

    public static func computed(
        _ name: String, type: SwiftType, getter: [Statement], setter: [Statement]? = nil, isStatic: Bool = false
    ) -> Self {
        Self(isStatic: isStatic, isLet: false, name: name, type: type, value: nil, getter: getter, setter: setter)
    }
}

public struct FunctionDeclaration: Equatable, Sendable {
    public struct Parameter: Equatable, Sendable {
        /// The argument label when it differs from the name (`_` for none).
        public var label: String?
        public var name: String
        public var type: SwiftType
        public var defaultValue: Expression?

        public init(label: String? = nil, _ name: String, _ type: SwiftType, default defaultValue: Expression? = nil) {
            self.label = label
            self.name = name
            self.type = type
            self.defaultValue = defaultValue
        }

        /// `name: Type? = nil`: a parameter a caller may leave out.
        public static func optional(_ name: String, _ type: SwiftType) -> Self {
            Self(name, .optional(type), default: .raw("nil"))
        }
    }

    /// `async`, `throws`, or both.
    public struct Effects: OptionSet, Equatable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let async = Effects(rawValue: 1)
        public static let `throws` = Effects(rawValue: 2)
    }

    public var isStatic: Bool
    /// `init` for initializers.
    public var name: String
    public var parameters: [Parameter]
    public var effects: Effects
    public var returnType: SwiftType?
    public var body: [Statement]
    /// Written `private` whatever the module's access level.
    public var isPrivate = false

    public init(
        _ name: String, parameters: [Parameter] = [], effects: Effects = [], returns returnType: SwiftType? = nil,
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
public enum Statement: Equatable, Sendable {
    /// An expression on its own: `self.init(client: …)`, `request.setFormBody(body.json)`.
    case expression(Expression)
    /// `let name = value`, `var name: Type = value`.
    case binding(Binding, String, type: SwiftType? = nil, Expression)
    /// `target = value`: `self.path = path`, `_ = try await call`.
    case assignment(Expression, Expression)
    /// `return value`.
    case `return`(Expression)
    /// `if let name { body }`, on one line when it fits.
    case ifLet(String, [Statement])
    /// `switch subject { case .name(let value): body … }`, a case per line when its body fits.
    case `switch`(Expression, [SwitchCase])

    public enum Binding: String, Equatable, Sendable { case `let`, `var` }

    /// `case .name(let value): body`: an enum case, binding its one associated value when `binding` is set.
    public struct SwitchCase: Equatable, Sendable {
        public var caseName: String
        public var binding: String?
        public var body: [Statement]

        public init(_ caseName: String, binding: String? = nil, _ body: [Statement]) {
            self.caseName = caseName
            self.binding = binding
            self.body = body
        }
    }
}

/// A Swift expression whose layout the renderer decides: on one line when it fits the width at its indentation,
/// otherwise one argument or element per line.
///
/// Only what generated code needs to break is a case of its own; anything short is `raw` text.
///
/// Only the cases that hold an expression directly are `indirect`: text and lists are stored inline, so the most
/// common node, `raw`, costs no allocation of its own (Graph's models and builders make millions of them).
public enum Expression: Equatable, Sendable {
    /// Written as is: an identifier, a literal, `body.json`, `.odata`.
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
    /// `value as Type`: the type after the value, however it breaks.
    indirect case cast(Expression, to: SwiftType)
    /// A type in an expression: `ResponseDecoder<String>` in `ResponseDecoder<String>.text`, `DriveItem` in
    /// `DriveItem.self`.
    case type(SwiftType)

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

    /// `Type.self`.
    public static func metatype(_ type: SwiftType) -> Expression { .member(.type(type), "self") }

    /// `self.member`.
    public func dot(_ member: String) -> Expression { .member(self, member) }

    /// `self.name(arguments)`.
    public func call(_ name: String, _ arguments: [Argument] = []) -> Expression {
        .call(.member(self, name), arguments)
    }
}
