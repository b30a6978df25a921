import BinderyJSON
import BinderySpec

/// A schema as one use site sees it: the type, plus the facts that belong to the property or parameter
/// rather than to the type (nullability, loose values).
struct OpenAPIResolvedType: Equatable {
    var type: TypeRef
    var isNullable = false
    var acceptsLooseValues = false

    static let untyped = OpenAPIResolvedType(type: .primitive(.untyped))
}

/// Turns JSON Schemas into the spec model's enums, structures and type references.
///
/// Every `components/schemas` entry is translated in document order. Inline object and enum schemas get names
/// `<Parent><Property>` (unique, ignoring case); the component names are reserved first so an inline name never
/// takes one. Schemas that are neither objects nor string enums (arrays, primitives, unions) declare nothing:
/// references to them resolve to their type.
final class OpenAPISchemaTranslator {
    private let context: OpenAPIContext
    private let extensions: OpenAPIExtensionReader
    let namespace: String

    private var typeNames = OpenAPINameRegistry()
    private var componentOrder: [String] = []
    private var componentStructures: [String: StructureSpec] = [:]
    private var componentEnums: [String: EnumSpec] = [:]
    private var inlineStructures: [StructureSpec] = []
    private var inlineEnums: [EnumSpec] = []
    private var aliasTypes: [String: OpenAPIResolvedType] = [:]
    /// Components being translated right now: meeting one again is a cycle.
    private var inProgress: Set<String> = []
    /// Each schema node is translated once, so shared parameters or bodies do not declare their inline types twice.
    private var resolvedByPointer: [String: OpenAPIResolvedType] = [:]
    /// Where each structure named its base type, to point a base-type cycle at it.
    private var baseReferences: [QualifiedName: OpenAPINode] = [:]
    private var explicitKeys: [QualifiedName: [(name: String, node: OpenAPINode)]] = [:]
    /// `discriminator`s read so far: the member a base type's payloads are told apart by, and each derived
    /// type's value. Applied when the structures are read, since a union may be met before its members are built.
    private var discriminatorProperties: [String: String] = [:]
    private var discriminatorValues: [String: String] = [:]

    init(context: OpenAPIContext, namespace: String) {
        self.context = context
        self.extensions = OpenAPIExtensionReader(context: context)
        self.namespace = namespace
    }

    /// Components first in document order, then inline types in the order they were met.
    var structures: [StructureSpec] {
        componentOrder.compactMap { name in
            guard var structure = componentStructures[name] else { return nil }
            structure.discriminatorProperty = discriminatorProperties[name]
            structure.discriminatorValue = discriminatorValues[name]
            // Under a discriminated base, a schema the mapping leaves out is named by its component name.
            if structure.discriminatorValue == nil,
                ancestry(of: name).dropFirst().contains(where: { discriminatorProperties[$0] != nil })
            {
                structure.discriminatorValue = name
            }
            return structure
        } + inlineStructures
    }
    var enums: [EnumSpec] { componentOrder.compactMap { componentEnums[$0] } + inlineEnums }

    private func qualified(_ name: String) -> QualifiedName { QualifiedName(namespace: namespace, name: name) }

    // MARK: Components

    func translateComponents() {
        guard let schemas = context.root["components"]?["schemas"] else { return }
        guard schemas.isObject else {
            context.error("components/schemas must be an object, found \(schemas.value.kindName)", at: schemas)
            return
        }
        let members = schemas.members
        for (name, _) in members {
            typeNames.reserve(name)
            componentOrder.append(name)
        }
        for (name, node) in members {
            switch componentKind(of: node) {
            case .structure: _ = componentStructure(named: name, node: node, referencedAt: node)
            case .enumeration:
                validateKeywords(of: node)
                componentEnums[name] = buildEnum(node, name: qualified(name))
            case .alias: _ = componentAlias(named: name, node: node, referencedAt: node)
            }
        }
        checkBaseTypeCycles()
        settleEntityKinds()
    }

    private enum ComponentKind { case structure, enumeration, alias }

    private func componentKind(of node: OpenAPINode) -> ComponentKind {
        guard node.isObject else { return .alias }
        switch shape(of: node) {
        case .object: return .structure
        case .enumeration: return .enumeration
        default: return .alias
        }
    }

    /// A component object schema, translated once; asking for one that is being translated is an allOf cycle.
    private func componentStructure(named name: String, node: OpenAPINode, referencedAt reference: OpenAPINode)
        -> StructureSpec?
    {
        if let done = componentStructures[name] { return done }
        guard inProgress.insert(name).inserted else {
            context.error("$ref cycle: the allOf of '\(name)' includes '\(name)' itself", at: reference)
            return nil
        }
        defer { inProgress.remove(name) }
        validateKeywords(of: node)
        let structure = buildStructure(node, name: qualified(name))
        componentStructures[name] = structure
        if let discriminator = node["discriminator"] {
            readDiscriminator(discriminator, base: name, members: [])
        }
        return structure
    }

    /// The type a non-declaring component stands for (an array, a primitive, a union, another reference).
    private func componentAlias(named name: String, node: OpenAPINode, referencedAt reference: OpenAPINode)
        -> OpenAPIResolvedType
    {
        if let done = aliasTypes[name] { return done }
        guard inProgress.insert(name).inserted else {
            context.error("$ref cycle: '\(name)' refers to itself", at: reference)
            return .untyped
        }
        defer { inProgress.remove(name) }
        // Only array items can declare something here; name them after the component.
        let resolved = resolve(node, nameHint: name + "Item")
        aliasTypes[name] = resolved
        return resolved
    }

    // MARK: Resolving a schema at a use site

    /// The type of a schema where it is used (property, array items, parameter, body), declaring inline
    /// object and enum schemas under `nameHint` as it goes.
    func resolve(_ schema: OpenAPINode, nameHint: String) -> OpenAPIResolvedType {
        if let done = resolvedByPointer[schema.pointer] { return done }
        let resolved = translate(schema, nameHint: nameHint)
        resolvedByPointer[schema.pointer] = resolved
        return resolved
    }

    private func translate(_ schema: OpenAPINode, nameHint: String) -> OpenAPIResolvedType {
        // OpenAPI 3.1 allows the boolean schemas `true` (anything) and `false` (nothing).
        if schema.bool == true { return .untyped }
        guard schema.isObject else {
            context.error("a schema must be an object, found \(schema.value.kindName)", at: schema)
            return .untyped
        }
        validateKeywords(of: schema)
        var resolved: OpenAPIResolvedType
        switch shape(of: schema) {
        case .reference(let reference):
            resolved = resolveSchemaReference(reference)
        case .object:
            if isFreeForm(schema) {
                // No map type in the model: a free-form object is any JSON value.
                resolved = .untyped
            } else {
                let name = qualified(typeNames.unique(nameHint))
                // Reserve the slot first, so a parent precedes the inline types of its own properties.
                let slot = inlineStructures.count
                inlineStructures.append(StructureSpec(name: name, kind: .complex))
                inlineStructures[slot] = buildStructure(schema, name: name)
                resolved = OpenAPIResolvedType(type: .named(name))
            }
        case .enumeration:
            let name = qualified(typeNames.unique(nameHint))
            inlineEnums.append(buildEnum(schema, name: name))
            resolved = OpenAPIResolvedType(type: .named(name))
        case .union(let keyword, let members):
            resolved = resolveUnion(schema, keyword: keyword, members: members, nameHint: nameHint)
        case .array(let items):
            if let items {
                let element = resolve(items, nameHint: nameHint)
                resolved = OpenAPIResolvedType(type: .collection(element.type), acceptsLooseValues: element.acceptsLooseValues)
            } else {
                resolved = OpenAPIResolvedType(type: .collection(.primitive(.untyped)))
            }
        case .primitive(let primitive):
            resolved = OpenAPIResolvedType(type: .primitive(primitive))
            if let values = schema["enum"], primitive != .string {
                context.warning("only string enums become enums; this \(primitive.rawValue) enum is read as its primitive type", at: values)
            }
        case .untyped:
            resolved = .untyped
            if let typeNode = schema["type"], let names = typeNames(of: typeNode), names.filter({ $0 != "null" }).count > 1 {
                context.warning("a schema of several types (\(names.joined(separator: ", "))) is read as an untyped JSON value", at: typeNode)
            }
        }
        if isNullable(schema) { resolved.isNullable = true }
        if schema["x-bindery-loose"]?.bool == true { resolved.acceptsLooseValues = true }
        return resolved
    }

    private func resolveSchemaReference(_ reference: OpenAPINode) -> OpenAPIResolvedType {
        guard let (name, target) = context.resolveReference(reference, in: .schemas, followChains: false) else {
            return .untyped
        }
        switch componentKind(of: target) {
        case .structure, .enumeration: return OpenAPIResolvedType(type: .named(qualified(name)))
        case .alias: return componentAlias(named: name, node: target, referencedAt: reference)
        }
    }

    /// `oneOf`/`anyOf`: `{"type": "null"}` members make the use nullable; one remaining member is that member;
    /// object schemas with a common allOf base are that base; anything else is untyped, with a warning.
    private func resolveUnion(
        _ schema: OpenAPINode, keyword: String, members: [OpenAPINode], nameHint: String
    ) -> OpenAPIResolvedType {
        var includesNull = false
        var candidates: [OpenAPINode] = []
        for member in members {
            if let typeNode = member["type"], typeNames(of: typeNode) == ["null"] {
                includesNull = true
            } else {
                candidates.append(member)
            }
        }
        if candidates.count == 1, let only = candidates.first {
            var resolved = resolve(only, nameHint: nameHint)
            resolved.isNullable = resolved.isNullable || includesNull
            return resolved
        }
        var referencedNames: [String] = []
        var allAreObjectReferences = !candidates.isEmpty
        for member in candidates {
            guard let reference = member["$ref"] else {
                allAreObjectReferences = false
                continue
            }
            guard let (name, target) = context.resolveReference(reference, in: .schemas, followChains: false) else {
                return OpenAPIResolvedType(type: .primitive(.untyped), isNullable: includesNull)
            }
            if componentKind(of: target) == .structure {
                referencedNames.append(name)
            } else {
                allAreObjectReferences = false
            }
        }
        if allAreObjectReferences, let base = commonBase(of: referencedNames) {
            if let discriminator = schema["discriminator"] {
                readDiscriminator(discriminator, base: base, members: referencedNames)
            }
            return OpenAPIResolvedType(type: .named(qualified(base)), isNullable: includesNull)
        }
        context.warning(
            "\(keyword) members do not share an allOf base type; read as an untyped JSON value",
            at: schema[keyword] ?? schema)
        return OpenAPIResolvedType(type: .primitive(.untyped), isNullable: includesNull)
    }

    /// `discriminator` on a union (or on a base schema): which member names the concrete type, and the value
    /// that names each derived schema. Without a `mapping`, a schema's value is its component name (OpenAPI's rule).
    private func readDiscriminator(_ node: OpenAPINode, base: String, members: [String]) {
        guard let property = node["propertyName"]?.string, !property.isEmpty else {
            context.error("discriminator needs a \"propertyName\" string", at: node)
            return
        }
        if let existing = discriminatorProperties[base], existing != property {
            context.error("discriminator '\(property)' differs from '\(existing)', which '\(base)' already uses", at: node)
            return
        }
        discriminatorProperties[base] = property
        var named = Set<String>()
        if let mapping = node["mapping"] {
            guard mapping.isObject else {
                context.error("discriminator.mapping must be an object of values to schema references, found \(mapping.value.kindName)", at: mapping)
                return
            }
            for (value, target) in mapping.members {
                guard let text = target.string,
                    let name = OpenAPIReferences.componentName(in: text, section: .schemas) ?? (text.contains("/") ? nil : text),
                    let component = context.component(.schemas, named: name), componentKind(of: component) == .structure
                else {
                    context.error("discriminator.mapping '\(value)' must name an object schema (\"#/components/schemas/Name\")", at: target)
                    continue
                }
                guard ancestry(of: name).contains(base) else {
                    context.error("discriminator.mapping '\(value)' names '\(name)', which does not derive from '\(base)'", at: target)
                    continue
                }
                discriminatorValues[name] = value
                named.insert(name)
            }
        }
        for member in members where !named.contains(member) && member != base && discriminatorValues[member] == nil {
            discriminatorValues[member] = member
        }
    }

    /// The nearest schema that every one of `names` is or derives from (through the first allOf `$ref`).
    private func commonBase(of names: [String]) -> String? {
        let chains = names.map(ancestry(of:))
        guard let first = chains.first else { return nil }
        return first.first { candidate in chains.dropFirst().allSatisfy { $0.contains(candidate) } }
    }

    /// A component and its bases, nearest first; stops at a cycle (reported elsewhere).
    private func ancestry(of name: String) -> [String] {
        var chain = [name]
        var current = name
        while let node = context.component(.schemas, named: current),
            let base = baseComponentName(of: node), !chain.contains(base)
        {
            chain.append(base)
            current = base
        }
        return chain
    }

    /// The first allOf `$ref` to an object component, looking into inline allOf members in document order.
    private func baseComponentName(of schema: OpenAPINode) -> String? {
        for member in schema["allOf"]?.elements ?? [] {
            if let text = member["$ref"]?.string {
                if let name = OpenAPIReferences.componentName(in: text, section: .schemas),
                    let target = context.component(.schemas, named: name), componentKind(of: target) == .structure
                {
                    return name
                }
            } else if member.isObject, let nested = baseComponentName(of: member) {
                return nested
            }
        }
        return nil
    }

    // MARK: Structures

    /// What the members of an object schema and its inline allOf fragments add up to.
    private struct StructureParts {
        var properties: [PropertySpec] = []
        var base: QualifiedName?
        var baseReference: OpenAPINode?
        var isOpen = false
        var notes: [String] = []
    }

    private func buildStructure(_ schema: OpenAPINode, name: QualifiedName) -> StructureSpec {
        var parts = StructureParts()
        let required = requiredNames(of: schema)
        collect(fragment: schema, structureName: name.name, required: required, into: &parts)
        if let union = schema["oneOf"] ?? schema["anyOf"] {
            context.warning("\(union.key) next to properties is not supported; the object's own properties are used", at: union)
        }
        var doc = Self.documentation(schema)
        if !parts.notes.isEmpty {
            doc.details = ([doc.details].compactMap { $0 } + parts.notes).joined(separator: "\n\n")
        }
        var kind = StructureSpec.Kind.complex
        var key: [String] = []
        if let keyNode = schema["x-bindery-key"], let names = extensions.key(keyNode) {
            kind = .entity
            key = names.map(\.name)
            explicitKeys[name] = names
        } else if parts.properties.contains(where: { $0.name == "id" }) {
            kind = .entity
            key = ["id"]
        }
        if let reference = parts.baseReference { baseReferences[name] = reference }
        return StructureSpec(
            name: name, kind: kind, baseType: parts.base, isOpen: parts.isOpen, key: key,
            properties: parts.properties, doc: doc, location: context.location(of: schema))
    }

    /// Reads `allOf`, `properties` and `additionalProperties` in document order; inline allOf members are
    /// fragments of the same object, read the same way.
    private func collect(fragment: OpenAPINode, structureName: String, required: Set<String>, into parts: inout StructureParts) {
        for (key, value) in fragment.members {
            switch key {
            case "allOf":
                guard let members = value.elements else {
                    context.error("allOf must be an array of schemas, found \(value.value.kindName)", at: value)
                    continue
                }
                for member in members {
                    if let reference = member["$ref"] {
                        addAllOfReference(reference, structureName: structureName, into: &parts)
                    } else if member.isObject {
                        validateKeywords(of: member)
                        collect(fragment: member, structureName: structureName, required: required, into: &parts)
                    } else {
                        context.error("allOf members must be schemas, found \(member.value.kindName)", at: member)
                    }
                }
            case "properties":
                guard value.isObject else {
                    context.error("properties must be an object, found \(value.value.kindName)", at: value)
                    continue
                }
                for (propertyName, propertySchema) in value.members {
                    let property = buildProperty(propertyName, schema: propertySchema, structureName: structureName, required: required)
                    if let existing = parts.properties.firstIndex(where: { $0.name == propertyName }) {
                        parts.properties[existing] = property
                    } else {
                        parts.properties.append(property)
                    }
                }
            case "additionalProperties":
                if value.bool != false { parts.isOpen = true }
            default:
                break
            }
        }
    }

    /// The first object reference is the base type; later ones are flattened in, as Swift has one base.
    private func addAllOfReference(_ reference: OpenAPINode, structureName: String, into parts: inout StructureParts) {
        guard let (name, target) = context.resolveReference(reference, in: .schemas, followChains: false) else { return }
        guard componentKind(of: target) == .structure else {
            context.warning("allOf member '\(name)' is not an object schema; ignored", at: reference)
            return
        }
        guard parts.base != nil else {
            parts.base = qualified(name)
            parts.baseReference = reference
            return
        }
        for property in inheritedProperties(ofComponent: name, referencedAt: reference)
        where !parts.properties.contains(where: { $0.name == property.name }) {
            parts.properties.append(property)
        }
        parts.notes.append("Also has the properties of \(name) (allOf), copied here as there is only one base type.")
    }

    /// A component's properties including those of its bases, bases first.
    private func inheritedProperties(ofComponent name: String, referencedAt reference: OpenAPINode) -> [PropertySpec] {
        var chain: [StructureSpec] = []
        var visited: Set<String> = []
        var current: String? = name
        while let next = current, visited.insert(next).inserted,
            let node = context.component(.schemas, named: next),
            let structure = componentStructure(named: next, node: node, referencedAt: reference)
        {
            chain.append(structure)
            current = structure.baseType.map(\.name)
        }
        var properties: [PropertySpec] = []
        for structure in chain.reversed() {
            for property in structure.properties {
                if let existing = properties.firstIndex(where: { $0.name == property.name }) {
                    properties[existing] = property
                } else {
                    properties.append(property)
                }
            }
        }
        return properties
    }

    private func buildProperty(_ name: String, schema: OpenAPINode, structureName: String, required: Set<String>) -> PropertySpec {
        let resolved = resolve(schema, nameHint: OpenAPINaming.joined(structureName, name))
        return PropertySpec(
            name: name, type: resolved.type, isNullable: !required.contains(name) || resolved.isNullable,
            isReadOnly: schema["readOnly"]?.bool == true, acceptsLooseValues: resolved.acceptsLooseValues,
            doc: Self.documentation(schema), location: context.location(of: schema))
    }

    /// `required` of the schema and of its inline allOf fragments.
    private func requiredNames(of schema: OpenAPINode) -> Set<String> {
        var names: Set<String> = []
        if let required = schema["required"] {
            if let elements = required.elements {
                for element in elements {
                    if let name = element.string {
                        names.insert(name)
                    } else {
                        context.error("required entries must be property names, found \(element.value.kindName)", at: element)
                    }
                }
            } else {
                context.error("required must be an array of property names, found \(required.value.kindName)", at: required)
            }
        }
        for member in schema["allOf"]?.elements ?? [] where member.isObject && member["$ref"] == nil {
            names.formUnion(requiredNames(of: member))
        }
        return names
    }

    private func isFreeForm(_ schema: OpenAPINode) -> Bool {
        schema["allOf"] == nil && (schema["properties"]?.members.isEmpty ?? true)
    }

    // MARK: Enums

    private func buildEnum(_ schema: OpenAPINode, name: QualifiedName) -> EnumSpec {
        var members: [EnumSpec.Member] = []
        for element in schema["enum"]?.elements ?? [] {
            if element.value.isNull { continue }
            guard let value = element.string else {
                context.warning("enum value of \(element.value.kindName) in a string enum is ignored", at: element)
                continue
            }
            if !members.contains(where: { $0.name == value }) { members.append(EnumSpec.Member(name: value)) }
        }
        return EnumSpec(name: name, members: members, doc: Self.documentation(schema), location: context.location(of: schema))
    }

    // MARK: Checks after all components are read

    /// A base chain that comes back to where it started cannot be generated; reported once per cycle.
    private func checkBaseTypeCycles() {
        let byName = Dictionary(structures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var reported: Set<QualifiedName> = []
        for structure in structures where !reported.contains(structure.name) {
            var chain: [QualifiedName] = [structure.name]
            var current = structure.baseType
            while let base = current, let baseStructure = byName[base] {
                if base == structure.name {
                    reported.formUnion(chain)
                    let cycle = (chain + [base]).map(\.name).joined(separator: " → ")
                    if let reference = baseReferences[structure.name] {
                        context.error("$ref cycle in allOf base types: \(cycle)", at: reference)
                    }
                    break
                }
                if chain.contains(base) { break }  // a cycle further up; reported from its own members
                chain.append(base)
                current = baseStructure.baseType
            }
        }
    }

    /// Types derived from an entity are entities (their key is inherited); explicit keys must name properties.
    private func settleEntityKinds() {
        let all = structures
        let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func ancestors(of structure: StructureSpec) -> [StructureSpec] {
            var result: [StructureSpec] = []
            var current = structure.baseType
            while let base = current, let found = byName[base], !result.contains(where: { $0.name == base }),
                base != structure.name
            {
                result.append(found)
                current = found.baseType
            }
            return result
        }
        for structure in all {
            let bases = ancestors(of: structure)
            if let keys = explicitKeys[structure.name] {
                let known = Set((bases.flatMap(\.properties) + structure.properties).map(\.name))
                for key in keys where !known.contains(key.name) {
                    context.error("x-bindery-key names '\(key.name)', which is not a property of \(structure.name.name)", at: key.node)
                }
            } else if bases.contains(where: { $0.kind == .entity }) {
                update(structure.name) { derived in
                    derived.kind = .entity
                    derived.key = []
                }
            }
        }
    }

    private func update(_ name: QualifiedName, _ change: (inout StructureSpec) -> Void) {
        if name.namespace == namespace, var structure = componentStructures[name.name] {
            change(&structure)
            componentStructures[name.name] = structure
        } else if let index = inlineStructures.firstIndex(where: { $0.name == name }) {
            change(&inlineStructures[index])
        }
    }

    // MARK: Schema shape

    private enum Shape {
        case reference(OpenAPINode)
        case object
        case enumeration
        case union(keyword: String, members: [OpenAPINode])
        case array(items: OpenAPINode?)
        case primitive(Primitive)
        case untyped
    }

    /// What a schema is, from its keywords alone (no diagnostics: it is asked more than once per node).
    private func shape(of schema: OpenAPINode) -> Shape {
        if let reference = schema["$ref"] { return .reference(reference) }
        let types = schema["type"].flatMap(typeNames(of:)) ?? []
        let nonNullTypes = types.filter { $0 != "null" }
        if let allOf = schema["allOf"]?.elements {
            // `allOf: [{$ref}]` alone is the 3.0 way to add a description or `nullable` to a reference.
            if allOf.count == 1, let reference = allOf[0]["$ref"], schema["properties"] == nil {
                return .reference(reference)
            }
            return .object
        }
        if schema["properties"] != nil { return .object }
        for keyword in ["oneOf", "anyOf"] {
            if let members = schema[keyword]?.elements { return .union(keyword: keyword, members: members) }
        }
        if let values = schema["enum"]?.elements {
            let stringsOnly = values.allSatisfy { $0.string != nil || $0.value.isNull }
            if nonNullTypes == ["string"] || (nonNullTypes.isEmpty && stringsOnly && values.contains { $0.string != nil }) {
                return .enumeration
            }
        }
        guard nonNullTypes.count <= 1 else { return .untyped }
        switch nonNullTypes.first {
        case "object"?: return .object
        case "array"?: return .array(items: schema["items"])
        case let name?:
            return Self.primitive(type: name, format: schema["format"]?.string, encoding: schema["contentEncoding"]?.string)
                .map(Shape.primitive) ?? .untyped
        case nil:
            if schema["additionalProperties"] != nil { return .object }
            if let items = schema["items"] { return .array(items: items) }
            return .untyped
        }
    }

    private func isObjectShape(_ schema: OpenAPINode) -> Bool {
        if case .object = shape(of: schema) { return true }
        return false
    }

    /// The `type` keyword as a list (3.1 allows `["string", "null"]`); nil when malformed.
    private func typeNames(of node: OpenAPINode) -> [String]? {
        if let name = node.string { return [name] }
        guard let elements = node.elements else { return nil }
        let names = elements.compactMap(\.string)
        return names.count == elements.count ? names : nil
    }

    static func primitive(type: String, format: String?, encoding: String? = nil) -> Primitive? {
        switch type {
        case "string":
            switch format {
            case "date-time": return .dateTimeOffset
            case "date": return .date
            case "time": return .timeOfDay
            case "duration": return .duration
            case "byte": return .binary
            case "binary": return .stream
            case "uuid": return .guid
            default: return encoding == "base64" ? .binary : .string
            }
        case "integer":
            switch format {
            case "int32": return .int32
            case "int16": return .int16
            case "int8": return .sbyte
            case "uint8": return .byte
            default: return .int64
            }
        case "number":
            switch format {
            case "float": return .single
            case "decimal": return .decimal
            default: return .double
            }
        case "boolean": return .boolean
        default: return nil
        }
    }

    private func isNullable(_ schema: OpenAPINode) -> Bool {
        if schema["nullable"]?.bool == true { return true }
        if let typeNode = schema["type"], typeNames(of: typeNode)?.contains("null") == true { return true }
        return schema["enum"]?.elements?.contains { $0.value.isNull } ?? false
    }

    /// Diagnostics for one schema object's own keywords, reported once per node.
    private func validateKeywords(of schema: OpenAPINode) {
        extensions.checkExtensionNames(of: schema, at: .schema)
        if let loose = schema["x-bindery-loose"] { _ = extensions.loose(loose) }
        if let key = schema["x-bindery-key"], !isObjectShape(schema) {
            context.warning("x-bindery-key only applies to object schemas; ignored", at: key)
        }
        if let typeNode = schema["type"] {
            if let names = typeNames(of: typeNode) {
                let known: Set<String> = ["string", "integer", "number", "boolean", "object", "array", "null"]
                for name in names where !known.contains(name) {
                    context.error("unknown schema type '\(name)'", at: typeNode)
                }
            } else {
                context.error("type must be a string or an array of strings, found \(typeNode.value.kindName)", at: typeNode)
            }
        }
        if let not = schema["not"] {
            context.warning("'not' is not supported; the constraint is ignored", at: not)
        }
    }

    // MARK: Reading schemas without translating them (envelopes, response shapes)

    /// Follows `$ref`s (and lone allOf references) to the schema they name; no diagnostics, bounded.
    func dereferenced(_ schema: OpenAPINode) -> OpenAPINode {
        var current = schema
        for _ in 0..<32 {
            guard current.isObject, case .reference(let reference) = shape(of: current), let text = reference.string,
                let name = OpenAPIReferences.componentName(in: text, section: .schemas),
                let target = context.component(.schemas, named: name)
            else { return current }
            current = target
        }
        return current
    }

    /// The schema at a JSON path of member names (`["D", "Results"]`), through properties and allOf fragments.
    func schema(at path: [String], in schema: OpenAPINode) -> OpenAPINode? {
        var current = schema
        for key in path {
            guard let next = propertySchema(named: key, in: dereferenced(current)) else { return nil }
            current = next
        }
        return current
    }

    /// `visited` stops at allOf cycles, which are reported where the schemas are translated.
    private func propertySchema(named key: String, in schema: OpenAPINode, visited: Set<String> = []) -> OpenAPINode? {
        if let property = schema["properties"]?[key] { return property }
        var visited = visited
        guard visited.insert(schema.pointer).inserted else { return nil }
        for member in schema["allOf"]?.elements ?? [] {
            if let found = propertySchema(named: key, in: dereferenced(member), visited: visited) { return found }
        }
        return nil
    }

    /// Whether `schema` (after references) is an array schema; `items` is nil when it does not say.
    func arrayShape(of schema: OpenAPINode) -> (isArray: Bool, items: OpenAPINode?) {
        let target = dereferenced(schema)
        guard target.isObject, case .array(let items) = shape(of: target) else { return (false, nil) }
        return (true, items)
    }

    func isObjectSchema(_ schema: OpenAPINode) -> Bool {
        let target = dereferenced(schema)
        return target.isObject && isObjectShape(target)
    }

    /// `Thread` for `{"$ref": "#/components/schemas/Thread"}`.
    func referencedComponentName(_ schema: OpenAPINode) -> String? {
        guard let text = schema["$ref"]?.string else { return nil }
        return OpenAPIReferences.componentName(in: text, section: .schemas)
    }

    // MARK: Documentation

    /// `title` (or `summary`) is the summary and `description` the details; a lone description is the summary.
    static func documentation(_ node: OpenAPINode, summaryKey: String = "title") -> Documentation {
        let summary = node[summaryKey]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let description = node["description"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        if let summary { return Documentation(summary: summary, details: description) }
        return Documentation(summary: description)
    }
}
