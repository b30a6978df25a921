/// The structures of a spec by name, with their derived types: what the emitter and the fixture writer both ask
/// (a type's ancestors, its descendants) without rebuilding the tables each.
public struct StructureIndex: Sendable {
    public let byName: [QualifiedName: StructureSpec]
    /// Types derived directly from each base, in spec order.
    public let derived: [QualifiedName: [QualifiedName]]

    public init(_ structures: [StructureSpec]) {
        byName = Dictionary(structures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var derived: [QualifiedName: [QualifiedName]] = [:]
        for structure in structures {
            if let base = structure.baseType { derived[base, default: []].append(structure.name) }
        }
        self.derived = derived
    }

    public subscript(name: QualifiedName) -> StructureSpec? { byName[name] }

    /// The type and its ancestors, root first; stops at a base that is missing or repeats.
    public func lineage(of structure: StructureSpec) -> [StructureSpec] {
        var chain: [StructureSpec] = [structure]
        var seen: Set<QualifiedName> = [structure.name]
        while let baseName = chain[0].baseType, let base = byName[baseName], seen.insert(baseName).inserted {
            chain.insert(base, at: 0)
        }
        return chain
    }

    /// The first non-abstract type derived (at any depth) from `name`, in spec order.
    public func firstConcreteDescendant(of name: QualifiedName) -> QualifiedName? {
        for child in derived[name] ?? [] {
            if byName[child]?.isAbstract == false { return child }
            if let deeper = firstConcreteDescendant(of: child) { return deeper }
        }
        return nil
    }
}

extension ServiceSpec {
    /// How an operation's path segment appears in a URL: operations of the primary namespace unqualified
    /// (`sendMail`, `delta`), as Graph documents them; others keep their namespace.
    public func urlSegment(_ segment: String) -> String {
        let prefix = primaryNamespace + "."
        if segment.hasPrefix(prefix), !segment.dropFirst(prefix.count).contains(".") {
            return String(segment.dropFirst(prefix.count))
        }
        return segment
    }
}
