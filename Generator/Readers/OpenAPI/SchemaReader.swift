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

/// Reads JSON Schemas into the spec model's enums, structures and type references.
///
/// Every `components/schemas` entry is read in document order. Inline object and enum schemas get names
/// `<Parent><Property>` (unique, ignoring case); the component names are reserved first so an inline name never
/// takes one. Schemas that are neither objects nor string enums (arrays, primitives, unions) declare nothing:
/// references to them resolve to their type.
///
/// Its one job is the schema walk with the state it shares (names taken, components in progress, nodes already
/// read). Unions, read into choices, are in `UnionReader.swift`; the passes that only read its results are beside it
/// (`WebhookReader.swift`, `UnionCycles.swift`, `DiscriminatorReader`).
final class OpenAPISchemaReader {
    let context: OpenAPIContext
    private let extensions: OpenAPIExtensionReader
    let lookup: OpenAPISchemaLookup
    let discriminators: OpenAPIDiscriminatorReader
    let namespace: String

    var typeNames = OpenAPINameRegistry()
    private var componentOrder: [String] = []
    private var componentStructures: [String: StructureSpec] = [:]
    private var componentEnums: [String: EnumSpec] = [:]
    private var inlineStructures: [StructureSpec] = []
    private var inlineEnums: [EnumSpec] = []
    /// Unions read as choices, in the order they were met.
    var choices: [ChoiceSpec] = []
    private var aliasTypes: [String: OpenAPIResolvedType] = [:]
    /// Components being read right now: meeting one again is a cycle.
    private var inProgress: Set<String> = []
    /// Alias components that referred to themselves while being read: where they did first.
    private var recursiveUses: [String: OpenAPINode] = [:]
    /// Each schema node is read once, so shared parameters or bodies do not declare their inline types twice.
    private var resolvedByPointer: [String: OpenAPIResolvedType] = [:]
    /// Where each structure named its base type, to point a base-type cycle at it.
    private var baseReferences: [QualifiedName: OpenAPINode] = [:]
    private var explicitKeys: [QualifiedName: [(name: String, node: OpenAPINode)]] = [:]

    init(context: OpenAPIContext, namespace: String) {
        self.context = context
        self.extensions = OpenAPIExtensionReader(context: context)
        self.lookup = OpenAPISchemaLookup(context: context)
        self.discriminators = OpenAPIDiscriminatorReader(context: context, lookup: lookup)
        self.namespace = namespace
    }

    /// Components first in document order, then inline types in the order they were met.
    var structures: [StructureSpec] {
        componentOrder.compactMap { name in
            guard var structure = componentStructures[name] else { return nil }
            discriminators.apply(to: &structure, component: name)
            return structure
        } + inlineStructures
    }
    var enums: [EnumSpec] { componentOrder.compactMap { componentEnums[$0] } + inlineEnums }

    func qualified(_ name: String) -> QualifiedName { QualifiedName(namespace: namespace, name: name) }

    // MARK: Components

    func readComponents() {
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
            switch lookup.componentKind(of: node) {
            case .structure: _ = componentStructure(named: name, node: node, referencedAt: node)
            case .enumeration:
                validateKeywords(of: node)
                componentEnums[name] = buildEnum(node, name: qualified(name))
            case .alias: _ = componentAlias(named: name, node: node, referencedAt: node)
            }
        }
        let index = StructureIndex(structures)
        checkBaseTypeCycles(index)
        settleEntityKinds(index)
        UnionCycles.dropMembers(of: &choices) { context.warning($0, at: $1) }
    }

    /// A component object schema, read once; asking for one that is being read is an allOf cycle.
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
            discriminators.read(discriminator, base: name, members: [])
        }
        return structure
    }

    /// The type a non-declaring component stands for (an array, a primitive, a union, another reference).
    ///
    /// A component met again while it is being read recurses. Through a union, it is the choice of its name
    /// (Swift can name an enum before its cases are known); through an array, it becomes a choice of one case,
    /// since Swift has no recursive type alias. (Objects and maps are structures, which recurse as they are.) Only
    /// a cycle with no type in between (`A` is `B`, `B` is `A`) is an error; a union member that leads back to its
    /// union through unions alone is dropped (`removeUnionCycles`).
    private func componentAlias(named name: String, node: OpenAPINode, referencedAt reference: OpenAPINode)
        -> OpenAPIResolvedType
    {
        if let done = aliasTypes[name] { return done }
        guard inProgress.insert(name).inserted else {
            // Decided once the component is read (below): a choice of this name, or a cycle with nothing in between.
            if recursiveUses[name] == nil { recursiveUses[name] = reference }
            return OpenAPIResolvedType(type: .named(qualified(name)))
        }
        defer { inProgress.remove(name) }
        var resolved: OpenAPIResolvedType
        if case .union(let keyword, let members) = OpenAPISchemaShape(of: node) {
            // A union component is a choice of that name.
            validateKeywords(of: node)
            resolved = resolveUnion(node, keyword: keyword, members: members, choiceName: name)
            resolvedByPointer[node.pointer] = resolved
        } else {
            // Only array items can declare something here; name them after the component.
            resolved = resolve(node, nameHint: name + "Item")
        }
        if let use = recursiveUses[name], !choices.contains(where: { $0.name == qualified(name) }) {
            switch resolved.type {
            case .primitive, .named(qualified(name)):
                context.error("$ref cycle: '\(name)' refers to itself with no type in between", at: use)
            default:
                // An array of itself (or a union that came down to one member): one case holds it.
                choices.append(
                    ChoiceSpec(
                        name: qualified(name), members: [ChoiceSpec.Member(type: resolved.type)],
                        doc: node.documentation(), location: context.location(of: node)))
                resolved.type = .named(qualified(name))
            }
        }
        aliasTypes[name] = resolved
        return resolved
    }

    // MARK: Resolving a schema at a use site

    /// The type of a schema where it is used (property, array items, parameter, body), declaring inline
    /// object and enum schemas under `nameHint` as it goes.
    func resolve(_ schema: OpenAPINode, nameHint: String) -> OpenAPIResolvedType {
        if let done = resolvedByPointer[schema.pointer] { return done }
        let resolved = read(schema, nameHint: nameHint)
        resolvedByPointer[schema.pointer] = resolved
        return resolved
    }

    private func read(_ schema: OpenAPINode, nameHint: String) -> OpenAPIResolvedType {
        // OpenAPI 3.1 allows the boolean schemas `true` (anything) and `false` (nothing).
        if schema.bool == true { return .untyped }
        guard schema.isObject else {
            context.error("a schema must be an object, found \(schema.value.kindName)", at: schema)
            return .untyped
        }
        validateKeywords(of: schema)
        var resolved: OpenAPIResolvedType
        switch OpenAPISchemaShape(of: schema) {
        case .reference(let reference):
            resolved = resolveSchemaReference(reference)
        case .object:
            if let values = OpenAPISchemaShape.mapValues(of: schema) {
                let element = resolve(values, nameHint: nameHint + "Value")
                resolved = OpenAPIResolvedType(type: .dictionary(element.type))
            } else if OpenAPISchemaShape.isFreeForm(schema) {
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
            resolved = resolveUnion(schema, keyword: keyword, members: members, choiceName: nil, nameHint: nameHint)
        case .array(let items):
            if let items {
                let element = resolve(items, nameHint: nameHint)
                resolved = OpenAPIResolvedType(
                    type: .collection(element.type), acceptsLooseValues: element.acceptsLooseValues)
            } else {
                resolved = OpenAPIResolvedType(type: .collection(.primitive(.untyped)))
            }
        case .primitive(let primitive):
            resolved = OpenAPIResolvedType(type: .primitive(primitive))
            if let values = schema["enum"], primitive != .string {
                context.warning(
                    "only string enums become enums; this \(OpenAPISchemaShape.spelling(of: .primitive(primitive))) "
                        + "enum is read as its primitive type", at: values)
            }
        case .untyped:
            resolved = .untyped
            if let typeNode = schema["type"], let names = OpenAPISchemaShape.typeNames(of: typeNode),
                names.filter({ $0 != "null" }).count > 1
            {
                context.warning(
                    "a schema of several types (\(names.joined(separator: ", "))) is read as an untyped JSON value",
                    at: typeNode)
            }
        }
        if OpenAPISchemaShape.isNullable(schema) { resolved.isNullable = true }
        if schema["x-bindery-loose"]?.bool == true { resolved.acceptsLooseValues = true }
        return resolved
    }

    private func resolveSchemaReference(_ reference: OpenAPINode) -> OpenAPIResolvedType {
        guard let (name, target) = context.resolveReference(reference, in: .schemas, followChains: false) else {
            return .untyped
        }
        switch lookup.componentKind(of: target) {
        case .structure, .enumeration: return OpenAPIResolvedType(type: .named(qualified(name)))
        case .alias: return componentAlias(named: name, node: target, referencedAt: reference)
        }
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
        // `oneOf`/`anyOf` beside properties: the shared members are the structure's, the choice reads the same JSON.
        var variants: TypeRef?
        if let union = schema["oneOf"] ?? schema["anyOf"] {
            if let members = union.elements, !members.isEmpty {
                // Members that only constrain the shared members (`{"required": ["email"]}`) are no shape of their own.
                let shaped = members.filter { member in
                    ["$ref", "type", "properties", "allOf", "oneOf", "anyOf", "enum", "const"].contains {
                        member[$0] != nil
                    }
                }
                if !shaped.isEmpty {
                    let resolved = resolveUnion(
                        schema, keyword: union.key, members: shaped, choiceName: nil,
                        nameHint: OpenAPINaming.joined(name.name, "Variant"))
                    if resolved.type != .primitive(.untyped) { variants = resolved.type }
                }
            } else {
                context.error("\(union.key) must be a non-empty array of schemas", at: union)
            }
        }
        var doc = schema.documentation()
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
        var structure = StructureSpec(
            name: name, kind: kind, baseType: parts.base, isOpen: parts.isOpen, key: key,
            properties: parts.properties, doc: doc, location: context.location(of: schema))
        structure.variants = variants
        return structure
    }

    /// Reads `allOf`, `properties` and `additionalProperties` in document order; inline allOf members are
    /// fragments of the same object, read the same way.
    private func collect(
        fragment: OpenAPINode, structureName: String, required: Set<String>, into parts: inout StructureParts
    ) {
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
                    let property = buildProperty(
                        propertyName, schema: propertySchema, structureName: structureName, required: required)
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
    private func addAllOfReference(
        _ reference: OpenAPINode, structureName: String, into parts: inout StructureParts, depth: Int = 0
    ) {
        guard let (name, target) = context.resolveReference(reference, in: .schemas, followChains: false) else {
            return
        }
        // A component that only renames another (`Metadata: {allOf: [{$ref: Metadata--Base}]}`) stands for it.
        if depth < 16, case .reference(let inner) = OpenAPISchemaShape(of: target) {
            addAllOfReference(inner, structureName: structureName, into: &parts, depth: depth + 1)
            return
        }
        guard lookup.componentKind(of: target) == .structure else {
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
        // Reading each component on the way (its base is known once it is read); one being read is a cycle.
        var chain: [StructureSpec] = []
        _ = BaseTypes.chain(from: name) { next in
            guard let node = context.component(.schemas, named: next),
                let structure = componentStructure(named: next, node: node, referencedAt: reference)
            else { return nil }
            chain.append(structure)
            return structure.baseType.map(\.name)
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

    private func buildProperty(_ name: String, schema: OpenAPINode, structureName: String, required: Set<String>)
        -> PropertySpec
    {
        let resolved = resolve(schema, nameHint: OpenAPINaming.joined(structureName, name))
        // Annotations may sit on the property or on an allOf that wraps its reference.
        let annotated = [schema] + (schema["allOf"]?.elements ?? [])
        func flag(_ keyword: String) -> Bool { annotated.contains { $0[keyword]?.bool == true } }
        var property = PropertySpec(
            name: name, type: resolved.type, isNullable: !required.contains(name) || resolved.isNullable,
            isReadOnly: flag("readOnly"), acceptsLooseValues: resolved.acceptsLooseValues,
            doc: schema.documentation(), location: context.location(of: schema))
        property.isWriteOnly = flag("writeOnly")
        // Both at once says nothing a client can act on: it is sent as written and only documented as neither.
        property.isLeftOutOfRequests = property.isReadOnly && !property.isWriteOnly
        property.isDeprecated = flag("deprecated")
        property.constant = Self.fixedString(of: lookup.dereferenced(schema))
        return property
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
                        context.error(
                            "required entries must be property names, found \(element.value.kindName)", at: element)
                    }
                }
            } else {
                context.error(
                    "required must be an array of property names, found \(required.value.kindName)", at: required)
            }
        }
        for member in schema["allOf"]?.elements ?? [] where member.isObject && member["$ref"] == nil {
            names.formUnion(requiredNames(of: member))
        }
        return names
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
        return EnumSpec(
            name: name, members: members, doc: schema.documentation(), location: context.location(of: schema))
    }

    // MARK: Checks after all components are read

    /// A base chain that comes back to where it started cannot be generated; reported once per cycle, at the
    /// allOf reference of its member read first.
    private func checkBaseTypeCycles(_ index: StructureIndex) {
        for cycle in index.baseTypeCycles() {
            let names = (cycle + cycle.prefix(1)).map(\.name.name).joined(separator: " → ")
            if let reference = baseReferences[cycle[0].name] {
                context.error("$ref cycle in allOf base types: \(names)", at: reference)
            }
        }
    }

    /// Types derived from an entity are entities (their key is inherited); explicit keys must name properties.
    private func settleEntityKinds(_ index: StructureIndex) {
        for structure in index.structures {
            let bases = index.ancestors(of: structure)
            if let keys = explicitKeys[structure.name] {
                let known = Set((bases.flatMap(\.properties) + structure.properties).map(\.name))
                for key in keys where !known.contains(key.name) {
                    context.error(
                        "x-bindery-key names '\(key.name)', which is not a property of \(structure.name.name)",
                        at: key.node)
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

    /// Diagnostics for one schema object's own keywords, reported once per node.
    private func validateKeywords(of schema: OpenAPINode) {
        extensions.checkExtensionNames(of: schema, at: .schema)
        if let loose = schema["x-bindery-loose"] { _ = extensions.loose(loose) }
        if let key = schema["x-bindery-key"], !OpenAPISchemaShape(of: schema).isObject {
            context.warning("x-bindery-key only applies to object schemas; ignored", at: key)
        }
        if let typeNode = schema["type"] {
            if let names = OpenAPISchemaShape.typeNames(of: typeNode) {
                let known: Set<String> = ["string", "integer", "number", "boolean", "object", "array", "null"]
                for name in names where !known.contains(name) {
                    context.error("unknown schema type '\(name)'", at: typeNode)
                }
            } else {
                context.error(
                    "type must be a string or an array of strings, found \(typeNode.value.kindName)", at: typeNode)
            }
        }
        if let not = schema["not"] {
            context.warning("'not' is not supported; the constraint is ignored", at: not)
        }
    }
}
