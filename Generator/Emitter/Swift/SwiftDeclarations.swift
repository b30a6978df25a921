/// The typed Swift that translators produce and the renderer prints.
///
/// Declarations are values (tests compare them, the renderer owns all layout); expressions and statements
/// stay as text, which is where a full syntax tree would cost more than it gives.
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

    public init(_ keyword: Keyword, _ name: String, conformances: [String] = [], members: [Declaration] = []) {
        self.keyword = keyword
        self.name = name
        self.conformances = conformances
        self.members = members
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
    public var value: String?
    /// A computed property's getter; with `setter`, a get/set pair.
    public var getter: [String]?
    public var setter: [String]?

    public static func stored(_ name: String, type: String?, value: String? = nil, isStatic: Bool = false, isLet: Bool = true) -> Self {
        Self(isStatic: isStatic, isLet: isLet, name: name, type: type, value: value, getter: nil, setter: nil)
    }

    public static func computed(_ name: String, type: String, getter: [String], setter: [String]? = nil, isStatic: Bool = false) -> Self {
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
    public var body: [String]

    public init(
        _ name: String, parameters: [Parameter] = [], effects: String? = nil, returns returnType: String? = nil,
        isStatic: Bool = false, body: [String]
    ) {
        self.isStatic = isStatic
        self.name = name
        self.parameters = parameters
        self.effects = effects
        self.returnType = returnType
        self.body = body
    }
}
