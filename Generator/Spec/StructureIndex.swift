/// The one ancestor walk and the one base-type cycle check of the spec model, shared by both readers and the emitter.
///
/// Generic over how a type is named, so a reader can ask before its structures exist (the OpenAPI reader follows
/// allOf references by component name while it still reads schemas); `StructureIndex` asks over finished structures.
public enum BaseTypes {
    /// `start` and its bases, nearest first, following `base` until it names nothing or a type already in the chain
    /// (a cycle, which `cycles(among:base:)` reports).
    public static func chain<Name: Hashable>(from start: Name, base: (Name) -> Name?) -> [Name] {
        var chain = [start]
        var seen: Set<Name> = [start]
        while let next = base(chain[chain.count - 1]), seen.insert(next).inserted {
            chain.append(next)
        }
        return chain
    }

    /// Every cycle of base types once, each starting at its member that comes first in `names` (declaration
    /// order), in the order of those members. A type whose bases lead into a cycle is not part of it.
    public static func cycles<Name: Hashable>(among names: [Name], base: (Name) -> Name?) -> [[Name]] {
        let order = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var done: Set<Name> = []
        var cycles: [[Name]] = []
        for start in names where !done.contains(start) {
            var path: [Name] = []
            var onPath: [Name: Int] = [:]
            var current: Name? = start
            while let name = current, !done.contains(name), onPath[name] == nil {
                onPath[name] = path.count
                path.append(name)
                current = base(name)
            }
            if let name = current, let cycleStart = onPath[name] {
                let cycle = path[cycleStart...]
                let first = cycle.indices.min { order[cycle[$0]] ?? .max < order[cycle[$1]] ?? .max } ?? cycleStart
                cycles.append(Array(cycle[first...] + cycle[..<first]))
            }
            done.formUnion(path)
        }
        return cycles.sorted { order[$0[0]] ?? .max < order[$1[0]] ?? .max }
    }
}

/// The structures of a spec by name, with their derived types: what the readers, the emitter and the fixture
/// writer ask (a type's ancestors, its descendants, base-type cycles) without rebuilding the tables each.
public struct StructureIndex: Sendable {
    /// In spec order.
    public let structures: [StructureSpec]
    /// Where each name first appears in `structures` (positions, not copies: building it retains nothing).
    private let positions: [QualifiedName: Int]
    /// Types derived directly from each base, in spec order.
    public let derived: [QualifiedName: [QualifiedName]]
    /// The position of each structure's base (as `positions` finds it), -1 for none: ancestor walks follow these
    /// instead of hashing names at every step.
    private let bases: [Int]

    public init(_ structures: [StructureSpec]) {
        self.structures = structures
        // By position: iterating the structures themselves would copy (retain and release) every spec.
        var positions: [QualifiedName: Int] = [:]
        positions.reserveCapacity(structures.count)
        var derived: [QualifiedName: [QualifiedName]] = [:]
        for position in structures.indices {
            let name = structures[position].name
            if positions[name] == nil { positions[name] = position }
            if let base = structures[position].baseType { derived[base, default: []].append(name) }
        }
        self.positions = positions
        self.derived = derived
        bases = structures.indices.map { structures[$0].baseType.flatMap { positions[$0] } ?? -1 }
    }

    public subscript(name: QualifiedName) -> StructureSpec? { positions[name].map { structures[$0] } }

    /// Whether a structure of that name is indexed (without copying it out, as the subscript does).
    public func contains(_ name: QualifiedName) -> Bool { positions[name] != nil }

    /// Where the structure of that name lies in `structures`, for a caller that reads a member of it in place.
    public func position(of name: QualifiedName) -> Int? { positions[name] }

    /// The type and its ancestors, root first; stops at a base that is missing or repeats.
    public func lineage(of structure: StructureSpec) -> [StructureSpec] {
        ancestors(of: structure).reversed() + [structure]
    }

    /// The type's bases, nearest first; stops at a base that is missing or repeats.
    public func ancestors(of structure: StructureSpec) -> [StructureSpec] {
        ancestorPositions(of: structure).map { structures[$0] }
    }

    /// Where the type's bases lie in `structures`, nearest first: `ancestors(of:)` for a caller that reads a few
    /// members of each in place, since a copy of a spec retains everything it holds.
    public func ancestorPositions(of structure: StructureSpec) -> [Int] {
        ancestorPositions(own: positions[structure.name], base: structure.baseType)
    }

    /// Where the indexed type `name` and its bases lie in `structures`, root first; empty when it is not indexed.
    public func lineagePositions(of name: QualifiedName) -> [Int] {
        guard let position = positions[name] else { return [] }
        return ancestorPositions(own: position, base: structures[position].baseType).reversed() + [position]
    }

    /// The chain of bases from `base`, nearest first, stopping before the type itself (`own`, when indexed) or a
    /// base already in the chain: a cycle, which `baseTypeCycles()` reports.
    private func ancestorPositions(own: Int?, base: QualifiedName?) -> [Int] {
        var chain: [Int] = []
        var next = base.flatMap { positions[$0] }
        while let position = next, position != own, !chain.contains(position) {
            chain.append(position)
            next = bases[position] >= 0 ? bases[position] : nil
        }
        return chain
    }

    /// Each base-type cycle once, starting at its member declared first, in declaration order.
    public func baseTypeCycles() -> [[StructureSpec]] {
        guard hasBaseTypeCycle() else { return [] }
        return BaseTypes.cycles(among: structures.map(\.name), base: indexedBase(of:)).map {
            $0.compactMap { self[$0] }
        }
    }

    /// Whether following base types from some structure comes back to it: one pass over positions, so the
    /// usual answer (no) costs no sets or dictionaries of names.
    private func hasBaseTypeCycle() -> Bool {
        // 0: not visited, 1: on the current path, 2: known to end without a cycle.
        var state = [UInt8](repeating: 0, count: structures.count)
        for start in structures.indices where state[start] == 0 {
            var path: [Int] = []
            var current = start
            // Structures repeated under one name are reached at the first position, as `indexedBase` reads them.
            while current >= 0, state[current] == 0 {
                state[current] = 1
                path.append(current)
                current = bases[positions[structures[current].name] ?? current]
            }
            if current >= 0, state[current] == 1 { return true }
            for position in path { state[position] = 2 }
        }
        return false
    }

    /// The base type of `name`, when both are in the index.
    private func indexedBase(of name: QualifiedName) -> QualifiedName? {
        guard let position = positions[name], let base = structures[position].baseType, positions[base] != nil
        else { return nil }
        return base
    }

    /// The first non-abstract type derived (at any depth) from `name`, in spec order.
    public func firstConcreteDescendant(of name: QualifiedName) -> QualifiedName? {
        for child in derived[name] ?? [] {
            if self[child]?.isAbstract == false { return child }
            if let deeper = firstConcreteDescendant(of: child) { return deeper }
        }
        return nil
    }
}

extension ServiceSpec {
    /// How an operation's path segment appears in a URL: operations of the primary namespace unqualified
    /// (`sendMail`, `delta`), as Graph documents them; others keep their namespace.
    public func urlSegment(_ segment: String) -> String {
        // Byte-wise: Foundation's `contains` of a string costs a bridged search, and builders ask this of every
        // operation.
        let namespace = primaryNamespace.utf8
        let bytes = segment.utf8
        guard bytes.count > namespace.count, bytes.starts(with: namespace),
            bytes.dropFirst(namespace.count).first == UInt8(ascii: "."),
            !bytes.dropFirst(namespace.count + 1).contains(UInt8(ascii: "."))
        else { return segment }
        return String(decoding: bytes.dropFirst(namespace.count + 1), as: UTF8.self)
    }
}
