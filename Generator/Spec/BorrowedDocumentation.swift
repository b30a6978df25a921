/// Documentation taken from a second document of the same service (`descriptions` in `bindery.json`): a spec kept
/// facts-only in a repository, documented in a user's build by the service's own metadata.
extension ServiceSpec {
    /// This spec with each undocumented declaration documented from `other`'s declaration of the same qualified
    /// name (members, parameters and steps by name within it). What this spec documents itself is kept; nothing
    /// but documentation is read from `other`. `filled` counts the declarations that gained documentation.
    public func documented(from other: ServiceSpec) -> (spec: ServiceSpec, filled: Int) {
        var spec = self
        var filled = 0
        func fill(_ doc: inout Documentation, from source: Documentation?) {
            guard doc.isEmpty, let source, !source.isEmpty else { return }
            doc = source
            filled += 1
        }
        /// Fills each element of `items` from the element of `sources` with the same key.
        func fillEach<Item, Key: Hashable>(
            _ items: inout [Item], from sources: [Item], by key: (Item) -> Key,
            _ fillOne: (inout Item, Item) -> Void
        ) {
            let byKey = Dictionary(sources.map { (key($0), $0) }) { first, _ in first }
            for index in items.indices {
                if let source = byKey[key(items[index])] { fillOne(&items[index], source) }
            }
        }

        fill(&spec.doc, from: other.doc)
        fillEach(&spec.enums, from: other.enums, by: \.name) { enumeration, source in
            fill(&enumeration.doc, from: source.doc)
            fillEach(&enumeration.members, from: source.members, by: \.name) { fill(&$0.doc, from: $1.doc) }
        }
        fillEach(&spec.structures, from: other.structures, by: \.name) { structure, source in
            fill(&structure.doc, from: source.doc)
            fillEach(&structure.properties, from: source.properties, by: \.name) { fill(&$0.doc, from: $1.doc) }
            fillEach(&structure.navigationProperties, from: source.navigationProperties, by: \.name) {
                fill(&$0.doc, from: $1.doc)
            }
        }
        fillEach(&spec.choices, from: other.choices, by: \.name) { fill(&$0.doc, from: $1.doc) }
        fillEach(&spec.resources, from: other.resources, by: \.name) { resource, source in
            fill(&resource.doc, from: source.doc)
            fillEach(&resource.children, from: source.children, by: \.name) { fill(&$0.doc, from: $1.doc) }
            let fillOperation = { (operation: inout OperationSpec, source: OperationSpec) in
                fill(&operation.doc, from: source.doc)
                fillEach(&operation.parameters, from: source.parameters, by: \.name) { fill(&$0.doc, from: $1.doc) }
            }
            fillEach(&resource.operations, from: source.operations, by: \.name, fillOperation)
            fillEach(&resource.collectionOperations, from: source.collectionOperations, by: \.name, fillOperation)
        }
        return (spec, filled)
    }
}
