import BinderyJSON
import BinderySpec

/// Unions (`oneOf`/`anyOf`) where a schema is used: nullable, one member, a shared base, or a choice and its tags.
extension OpenAPISchemaReader {
    /// `oneOf`/`anyOf`: `{"type": "null"}` members make the use nullable; one remaining member is that member;
    /// object schemas with a common allOf base are that base; anything else is a choice (`choiceName` for a
    /// component, else a new name from `nameHint`).
    func resolveUnion(
        _ schema: OpenAPINode, keyword: String, members: [OpenAPINode], choiceName: String?, nameHint: String = ""
    ) -> OpenAPIResolvedType {
        var includesNull = false
        var candidates: [OpenAPINode] = []
        for member in members {
            if let typeNode = member["type"], OpenAPISchemaShape.typeNames(of: typeNode) == ["null"] {
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
            if lookup.componentKind(of: target) == .structure {
                referencedNames.append(name)
            } else {
                allAreObjectReferences = false
            }
        }
        // A shared base is a polymorphic type only when a discriminator tells its kinds apart; without one, a
        // choice reads each member as its own type (by a tag the members fix, or by trying them).
        if allAreObjectReferences, let base = lookup.commonBase(of: referencedNames),
            schema["discriminator"] != nil || context.component(.schemas, named: base)?["discriminator"] != nil
        {
            if let discriminator = schema["discriminator"] {
                discriminators.read(discriminator, base: base, members: referencedNames)
            }
            return OpenAPIResolvedType(type: .named(qualified(base)), isNullable: includesNull)
        }
        let name = qualified(choiceName ?? typeNames.unique(nameHint))
        return OpenAPIResolvedType(
            type: .named(readChoice(schema, name: name, candidates: candidates)), isNullable: includesNull)
    }

    /// A choice over `candidates`, told apart by the declared discriminator, else by a member every object member
    /// fixes to one value (`"type": {"enum": ["file"]}`), else by trying them in order.
    private func readChoice(_ schema: OpenAPINode, name: QualifiedName, candidates: [OpenAPINode]) -> QualifiedName {
        let slot = choices.count
        choices.append(ChoiceSpec(name: name, members: []))
        var members: [ChoiceSpec.Member] = []
        let implied = schema["discriminator"] == nil ? impliedDiscriminator(candidates) : nil
        for (index, candidate) in candidates.enumerated() {
            // An inline member is named by what tells it apart: its tag (`"type": {"const": "file"}` →
            // `EntryFile`), else a short title, else its position (`EntryOption2`).
            let title = candidate["title"]?.string.flatMap { $0.split(separator: " ").count <= 4 ? $0 : nil }
            let place = implied?.tags[index].first ?? title ?? "Option\(index + 1)"
            let type = resolve(candidate, nameHint: OpenAPINaming.joined(name.name, place)).type
            if members.contains(where: { $0.type == type }) {
                context.warning(
                    "this union lists \(OpenAPISchemaShape.spelling(of: type)) twice; the second is ignored",
                    at: candidate)
                continue
            }
            members.append(ChoiceSpec.Member(type: type))
        }
        var discriminator: String?
        if let declared = schema["discriminator"] {
            discriminator = declaredDiscriminator(declared, candidates: candidates, into: &members)
        } else if let implied {
            discriminator = implied.property
            for index in members.indices { members[index].tags = implied.tags[index] }
        }
        choices[slot] = ChoiceSpec(
            name: name, members: members, discriminator: discriminator, doc: schema.documentation(),
            location: context.location(of: schema))
        return name
    }

    /// `discriminator.propertyName` and `mapping` over the union's references; a reference the mapping leaves out is
    /// named by its component name (OpenAPI's rule).
    private func declaredDiscriminator(
        _ node: OpenAPINode, candidates: [OpenAPINode], into members: inout [ChoiceSpec.Member]
    ) -> String? {
        guard let property = node["propertyName"]?.string, !property.isEmpty else {
            context.error("discriminator needs a \"propertyName\" string", at: node)
            return nil
        }
        let referenced = candidates.map { lookup.referencedComponentName($0) }
        var mapped: [String: [String]] = [:]
        for (value, target) in node["mapping"]?.members ?? [] {
            guard let text = target.string,
                let component = OpenAPIReferences.componentName(in: text, section: .schemas)
                    ?? text
                    .split(separator: "/").last.map(String.init),
                referenced.contains(component)
            else {
                context.error("discriminator.mapping '\(value)' must name a member of the union", at: target)
                continue
            }
            mapped[component, default: []].append(value)
        }
        for (index, component) in referenced.enumerated() where index < members.count {
            guard let component else { continue }
            members[index].tags = mapped[component] ?? [component]
        }
        return property
    }

    /// A property that every candidate, an object, fixes to values of its own (a one-value `enum` or `const`).
    func impliedDiscriminator(_ candidates: [OpenAPINode]) -> (property: String, tags: [[String]])? {
        var fixedByCandidate: [[String: String]] = []
        for candidate in candidates {
            let target = lookup.dereferenced(candidate)
            guard target.isObject, OpenAPISchemaShape(of: target).isObject else { return nil }
            var fixed: [String: String] = [:]
            for (property, propertySchema) in lookup.allProperties(of: target) {
                if let value = Self.fixedString(of: lookup.dereferenced(propertySchema)) { fixed[property] = value }
            }
            fixedByCandidate.append(fixed)
        }
        guard let first = fixedByCandidate.first else { return nil }
        for (property, _) in first.sorted(by: { $0.key < $1.key }) {
            let values = fixedByCandidate.compactMap { $0[property] }
            if values.count == candidates.count, Set(values).count == values.count {
                return (property, values.map { [$0] })
            }
        }
        return nil
    }

    /// The one string a schema allows: `const`, or an `enum` of one value.
    static func fixedString(of schema: OpenAPINode) -> String? {
        if let value = schema["const"]?.string { return value }
        if let values = schema["enum"]?.elements, values.count == 1 { return values[0].string }
        return nil
    }
}
