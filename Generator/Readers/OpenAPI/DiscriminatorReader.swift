import BinderySpec

/// `discriminator`s, on a union or on a base schema: the member a base type's payloads are told apart by, and the
/// value that names each derived schema.
///
/// Read as they are met and applied when the structures are handed over, since a union may be met before its
/// members are built.
final class OpenAPIDiscriminatorReader {
    private let context: OpenAPIContext
    private let lookup: OpenAPISchemaLookup
    /// Base component → the member that names the concrete type.
    private var properties: [String: String] = [:]
    /// Derived component → the value that names it.
    private var values: [String: String] = [:]

    init(context: OpenAPIContext, lookup: OpenAPISchemaLookup) {
        self.context = context
        self.lookup = lookup
    }

    /// Reads one `discriminator` of `base`, whose union lists `members`. Without a `mapping`, a schema's value is
    /// its component name (OpenAPI's rule).
    func read(_ node: OpenAPINode, base: String, members: [String]) {
        guard let property = node["propertyName"]?.string, !property.isEmpty else {
            context.error("discriminator needs a \"propertyName\" string", at: node)
            return
        }
        if let existing = properties[base], existing != property {
            context.error(
                "discriminator '\(property)' differs from '\(existing)', which '\(base)' already uses", at: node)
            return
        }
        properties[base] = property
        var named = Set<String>()
        if let mapping = node["mapping"] {
            guard mapping.isObject else {
                context.error(
                    "discriminator.mapping must be an object of values to schema references, found \(mapping.value.kindName)",
                    at: mapping)
                return
            }
            for (value, target) in mapping.members {
                guard let text = target.string,
                    let name = OpenAPIReferences.componentName(in: text, section: .schemas)
                        ?? (text.contains("/") ? nil : text),
                    let component = context.component(.schemas, named: name),
                    lookup.componentKind(of: component) == .structure
                else {
                    context.error(
                        "discriminator.mapping '\(value)' must name an object schema (\"#/components/schemas/Name\")",
                        at: target)
                    continue
                }
                guard lookup.ancestry(of: name).contains(base) else {
                    context.error(
                        "discriminator.mapping '\(value)' names '\(name)', which does not derive from '\(base)'",
                        at: target)
                    continue
                }
                values[name] = value
                named.insert(name)
            }
        }
        for member in members where !named.contains(member) && member != base && values[member] == nil {
            values[member] = member
        }
    }

    /// The discriminator facts of the structure read from component `name`.
    func apply(to structure: inout StructureSpec, component name: String) {
        structure.discriminatorProperty = properties[name]
        structure.discriminatorValue = values[name]
        // Under a discriminated base, a schema the mapping leaves out is named by its component name.
        if structure.discriminatorValue == nil,
            lookup.ancestry(of: name).dropFirst().contains(where: { properties[$0] != nil })
        {
            structure.discriminatorValue = name
        }
    }
}
