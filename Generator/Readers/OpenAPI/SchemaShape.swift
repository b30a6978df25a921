import BinderySpec

/// What a JSON Schema is, read from its keywords alone: the rules every part of the OpenAPI reader shares.
///
/// Asking reports nothing, since a node is asked more than once; `OpenAPISchemaReader` reports bad keywords.
enum OpenAPISchemaShape {
    case reference(OpenAPINode)
    case object
    case enumeration
    case union(keyword: String, members: [OpenAPINode])
    case array(items: OpenAPINode?)
    case primitive(Primitive)
    case untyped

    init(of schema: OpenAPINode) {
        self = Self.shape(of: schema)
    }

    private static func shape(of schema: OpenAPINode) -> Self {
        if let reference = schema["$ref"] { return .reference(reference) }
        let types = schema["type"].flatMap(typeNames(of:)) ?? []
        let nonNullTypes = types.filter { $0 != "null" }
        if let allOf = schema["allOf"]?.elements {
            // `allOf: [{$ref}]`, perhaps with fragments that only annotate, is the 3.0 way to add a description or
            // `nullable` to a reference.
            if schema["properties"] == nil, let reference = soleReference(in: allOf) { return .reference(reference) }
            return .object
        }
        if schema["properties"] != nil { return .object }
        for keyword in ["oneOf", "anyOf"] {
            if let members = schema[keyword]?.elements { return .union(keyword: keyword, members: members) }
        }
        if let values = schema["enum"]?.elements {
            let stringsOnly = values.allSatisfy { $0.string != nil || $0.value.isNull }
            if nonNullTypes == ["string"]
                || (nonNullTypes.isEmpty && stringsOnly && values.contains { $0.string != nil })
            {
                return .enumeration
            }
        }
        guard nonNullTypes.count <= 1 else { return .untyped }
        switch nonNullTypes.first {
        case "object"?: return .object
        case "array"?: return .array(items: schema["items"])
        case let name?:
            return primitive(type: name, format: schema["format"]?.string, encoding: schema["contentEncoding"]?.string)
                .map(Self.primitive) ?? .untyped
        case nil:
            if schema["additionalProperties"] != nil { return .object }
            if let items = schema["items"] { return .array(items: items) }
            return .untyped
        }
    }

    /// The one `$ref` of an allOf whose other members only annotate (`{"description": ...}`), if so.
    private static func soleReference(in allOf: [OpenAPINode]) -> OpenAPINode? {
        let references = allOf.compactMap { $0["$ref"] }
        guard references.count == 1 else { return nil }
        let annotations: Set<String> = [
            "description", "title", "nullable", "readOnly", "writeOnly", "deprecated", "example", "examples",
            "default", "externalDocs",
        ]
        let othersAnnotate = allOf.allSatisfy { member in
            member["$ref"] != nil
                || member.members.allSatisfy { annotations.contains($0.key) || $0.key.hasPrefix("x-") }
        }
        return othersAnnotate ? references[0] : nil
    }

    /// The map's value schema of an object that declares no properties but types its other members
    /// (`additionalProperties: {schema}`); nil for a free-form object.
    static func mapValues(of schema: OpenAPINode) -> OpenAPINode? {
        guard schema["allOf"] == nil, schema["properties"]?.members.isEmpty ?? true,
            let values = schema["additionalProperties"], values.isObject, !values.members.isEmpty
        else { return nil }
        return values
    }

    var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    var isUnion: Bool {
        if case .union = self { return true }
        return false
    }

    var isArray: Bool {
        if case .array = self { return true }
        return false
    }

    /// The `type` keyword as a list (3.1 allows `["string", "null"]`); nil when malformed.
    static func typeNames(of node: OpenAPINode) -> [String]? {
        if let name = node.string { return [name] }
        guard let elements = node.elements else { return nil }
        let names = elements.compactMap(\.string)
        return names.count == elements.count ? names : nil
    }

    /// Each primitive as a spec writes it, `type` and `format`; a format not listed reads as the type's first row
    /// (`integer` is `Int64`). One table both ways, so reading and diagnostics cannot drift apart.
    private static let spellings: [(primitive: Primitive, type: String, format: String?)] = [
        (.string, "string", nil), (.dateTimeOffset, "string", "date-time"), (.date, "string", "date"),
        (.timeOfDay, "string", "time"), (.duration, "string", "duration"), (.binary, "string", "byte"),
        (.stream, "string", "binary"), (.guid, "string", "uuid"),
        (.int64, "integer", nil), (.int32, "integer", "int32"), (.int16, "integer", "int16"),
        (.sbyte, "integer", "int8"), (.byte, "integer", "uint8"),
        (.double, "number", nil), (.single, "number", "float"), (.decimal, "number", "decimal"),
        (.boolean, "boolean", nil),
    ]

    static func primitive(type: String, format: String?, encoding: String? = nil) -> Primitive? {
        if let format, let row = spellings.first(where: { $0.type == type && $0.format == format }) {
            return row.primitive
        }
        if type == "string", encoding == "base64" { return .binary }
        return spellings.first(where: { $0.type == type })?.primitive
    }

    /// How a spec would write `type`, for diagnostics: `integer (int32)`, `array of Pet`; never `Edm.Int32`.
    static func spelling(of type: TypeRef) -> String {
        switch type {
        case .named(let name): return name.name
        case .collection(let element): return "array of \(spelling(of: element))"
        case .dictionary(let value): return "map of \(spelling(of: value))"
        case .primitive(let primitive):
            guard let row = spellings.first(where: { $0.primitive == primitive }) else { return "any value" }
            return row.format.map { "\(row.type) (\($0))" } ?? row.type
        }
    }

    /// `nullable: true` (3.0), a `"null"` type (3.1), or a null among the enum values.
    static func isNullable(_ schema: OpenAPINode) -> Bool {
        if schema["nullable"]?.bool == true { return true }
        if let typeNode = schema["type"], typeNames(of: typeNode)?.contains("null") == true { return true }
        return schema["enum"]?.elements?.contains { $0.value.isNull } ?? false
    }

    /// An object schema without properties or allOf: a map of anything, which the model reads as any JSON value.
    static func isFreeForm(_ schema: OpenAPINode) -> Bool {
        schema["allOf"] == nil && (schema["properties"]?.members.isEmpty ?? true)
    }
}
