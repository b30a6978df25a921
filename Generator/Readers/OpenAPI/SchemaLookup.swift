import BinderySpec

/// Questions about schemas answered without reading them into the spec model: what a component declares, where a
/// reference leads, what sits at a path inside a schema, which component a schema derives from. No diagnostics:
/// the schema reader reports what is wrong where it reads the schemas.
struct OpenAPISchemaLookup {
    let context: OpenAPIContext

    /// What a component declares: a structure (an object schema), an enum (a string enum), or nothing of its own
    /// (an array, a primitive, a union, another reference), which its uses resolve to.
    enum ComponentKind { case structure, enumeration, alias }

    func componentKind(of node: OpenAPINode) -> ComponentKind {
        guard node.isObject else { return .alias }
        switch OpenAPISchemaShape(of: node) {
        case .object: return .structure
        case .enumeration: return .enumeration
        default: return .alias
        }
    }

    // MARK: Inside schemas (envelopes, response shapes)

    /// Follows `$ref`s (and lone allOf references) to the schema they name; bounded.
    func dereferenced(_ schema: OpenAPINode) -> OpenAPINode {
        var current = schema
        for _ in 0..<32 {
            guard current.isObject, case .reference(let reference) = OpenAPISchemaShape(of: current),
                let text = reference.string,
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

    /// Every property schema of an object, those of its allOf members (references followed) included; a later
    /// definition of a name replaces an earlier one.
    func allProperties(of schema: OpenAPINode, visited: Set<String> = []) -> [(key: String, node: OpenAPINode)] {
        var visited = visited
        guard visited.insert(schema.pointer).inserted else { return [] }
        var properties: [(key: String, node: OpenAPINode)] = []
        func add(_ key: String, _ node: OpenAPINode) {
            properties.removeAll { $0.key == key }
            properties.append((key, node))
        }
        for member in schema["allOf"]?.elements ?? [] {
            for (key, node) in allProperties(of: dereferenced(member), visited: visited) { add(key, node) }
        }
        for (key, node) in schema["properties"]?.members ?? [] { add(key, node) }
        return properties
    }

    /// `visited` stops at allOf cycles, which are reported where the schemas are read.
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
        guard target.isObject, case .array(let items) = OpenAPISchemaShape(of: target) else { return (false, nil) }
        return (true, items)
    }

    func isObjectSchema(_ schema: OpenAPINode) -> Bool {
        let target = dereferenced(schema)
        return target.isObject && OpenAPISchemaShape(of: target).isObject
    }

    /// `Thread` for `{"$ref": "#/components/schemas/Thread"}`.
    func referencedComponentName(_ schema: OpenAPINode) -> String? {
        guard let text = schema["$ref"]?.string else { return nil }
        return OpenAPIReferences.componentName(in: text, section: .schemas)
    }

    // MARK: Base types (the first allOf reference)

    /// The nearest schema that every one of `names` is or derives from.
    func commonBase(of names: [String]) -> String? {
        let chains = names.map(ancestry(of:))
        guard let first = chains.first else { return nil }
        return first.first { candidate in chains.dropFirst().allSatisfy { $0.contains(candidate) } }
    }

    /// A component and its bases, nearest first; stops at a cycle (reported elsewhere).
    func ancestry(of name: String) -> [String] {
        BaseTypes.chain(from: name) { context.component(.schemas, named: $0).flatMap(baseComponentName(of:)) }
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
}
