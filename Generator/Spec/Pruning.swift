import Foundation

extension ServiceSpec {
    /// The spec cut down to what `include` names (all when empty) minus `exclude`, plus everything the kept
    /// types need to compile: base types and the types of properties and operation parameters.
    /// Navigation properties and operations that would lead to a dropped type are dropped with them.
    public func pruned(include: [String], exclude: [String]) -> ServiceSpec {
        if include.isEmpty && exclude.isEmpty { return self }
        let structuresByName = Dictionary(structures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let root = resources.first { $0.name == rootResource }

        func isIncluded(_ name: String) -> Bool {
            (include.isEmpty || include.contains { Glob.matches($0, name) })
                && !exclude.contains { Glob.matches($0, name) }
        }

        var seeds: [QualifiedName] = []
        for structure in structures where isIncluded(structure.name.description) { seeds.append(structure.name) }
        for enumeration in enums where isIncluded(enumeration.name.description) { seeds.append(enumeration.name) }
        for choice in choices where isIncluded(choice.name.description) { seeds.append(choice.name) }
        for child in root?.children ?? [] where isIncluded(child.name) { seeds.append(child.target) }
        for resource in resources where isIncluded(resource.name.description) { seeds.append(resource.name) }

        let choicesByName = Dictionary(choices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Close over what compiling the kept types requires.
        var kept = Set<QualifiedName>()
        var queue = seeds
        while let name = queue.popLast() {
            guard kept.insert(name).inserted else { continue }
            if let structure = structuresByName[name] {
                if let base = structure.baseType { queue.append(base) }
                for property in structure.properties { queue.append(contentsOf: property.type.namedTypes) }
            }
            for member in choicesByName[name]?.members ?? [] { queue.append(contentsOf: member.type.namedTypes) }
            if let resource = resources.first(where: { $0.name == name }), let model = resource.model {
                queue.append(contentsOf: model.namedTypes)
            }
        }

        func keeps(_ type: TypeRef?) -> Bool { type?.namedTypes.allSatisfy(kept.contains) ?? true }
        func keeps(_ operation: OperationSpec) -> Bool {
            operation.parameters.allSatisfy { keeps($0.type) } && keeps(operation.requestBody?.type)
                && keeps(operation.response?.type)
        }

        var copy = self
        copy.enums = enums.filter { kept.contains($0.name) }
        copy.choices = choices.filter { kept.contains($0.name) }
        copy.structures = structures.filter { kept.contains($0.name) }.map { structure in
            var structure = structure
            structure.navigationProperties = structure.navigationProperties.filter { keeps($0.type) }
            return structure
        }
        copy.resources = resources.filter { $0.name == rootResource || kept.contains($0.name) }.map { resource in
            var resource = resource
            let isRoot = resource.name == rootResource
            resource.children = resource.children.filter {
                kept.contains($0.target) && (!isRoot || isIncluded($0.name) || include.isEmpty)
            }
            resource.operations = resource.operations.filter(keeps)
            resource.collectionOperations = resource.collectionOperations.filter(keeps)
            return resource
        }
        return copy
    }
}

extension TypeRef {
    /// The spec types this reference names, collections unwrapped.
    public var namedTypes: [QualifiedName] {
        switch self {
        case .primitive: return []
        case .named(let name): return [name]
        case .collection(let element), .dictionary(let element): return element.namedTypes
        }
    }
}

/// `*` matches any run of characters; everything else matches itself.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == text }
        guard text.hasPrefix(parts[0]) else { return false }
        var rest = text.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(parts[parts.count - 1])
    }
}
