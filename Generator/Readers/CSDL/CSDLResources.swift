import BinderySpec

/// The third pass: the request-builder graph. One resource per entity type (with what it inherits) and one root
/// resource for the entity container.
struct CSDLResourceBuilder {
    private let model: ResolvedModel
    private let structureIndex: StructureIndex
    /// Bound operations by the entity type they bind to, as one item or as a collection (indices, document order).
    private var boundToItem: [QualifiedName: [Int]] = [:]
    private var boundToCollection: [QualifiedName: [Int]] = [:]

    /// Success codes of actions: Graph answers with any of them depending on the action.
    private static let actionSuccessCodes = [200, 201, 202, 204]

    init(model: ResolvedModel) {
        self.model = model
        structureIndex = model.structureIndex
        for (index, operation) in model.operations.enumerated() {
            switch operation.binding {
            case .named(let type)?:
                boundToItem[type, default: []].append(index)
            case .collection(.named(let type))?:
                boundToCollection[type, default: []].append(index)
            default:
                continue
            }
        }
    }

    /// All resources (entity types in document order, root last) and the root's name.
    /// `primarySchema` names and locates a root resource when the document has no container.
    func build(primarySchema: RawSchema, diagnostics: inout Diagnostics) -> (
        resources: [ResourceSpec], root: QualifiedName
    ) {
        // Each entity type's resource depends on nothing but the model: they are built on every core.
        var resources = model.structures.filter { $0.kind == .entity }.concurrentMap { resource(for: $0) }
        let root = rootResource(primarySchema: primarySchema, diagnostics: &diagnostics)
        resources.append(root)
        return (Self.droppingRefusedWrites(consume resources), root.name)
    }

    /// A generic write that every step leading to a resource refuses is not an operation of the service: it gets
    /// no fixture and no place in the route table (the runtime refuses it at each of those steps as well).
    static func droppingRefusedWrites(_ resources: consuming [ResourceSpec]) -> [ResourceSpec] {
        /// What the steps leading to a resource allow between them: a write is refused when none allows it.
        struct Leading {
            var hasCollections = false
            var insertable = false
            var updatable = false
            var deletable = false

            mutating func add(_ restrictions: Restrictions, isCollection: Bool) {
                if isCollection {
                    hasCollections = true
                    insertable = insertable || restrictions.insertable
                }
                updatable = updatable || restrictions.updatable
                deletable = deletable || restrictions.deletable
            }
        }
        // Read and changed in place, by position: Graph's resources have thousands of steps, and a copy of a spec
        // retains everything it holds.
        var leading: [QualifiedName: Leading] = [:]
        for resource in resources.indices {
            for child in resources[resource].children.indices {
                let step = resources[resource].children[child]
                leading[step.target, default: Leading()].add(step.restrictions, isCollection: step.isCollection)
            }
        }
        for index in resources.indices {
            guard let steps = leading[resources[index].name] else { continue }
            let refusesInsert = steps.hasCollections && !steps.insertable
            let refusesUpdate = !steps.updatable
            let refusesDelete = !steps.deletable
            guard refusesInsert || refusesUpdate || refusesDelete else { continue }
            resources[index].operations.removeAll { operation in
                switch operation.kind {
                case .update, .replace: return refusesUpdate
                case .delete: return refusesDelete
                default: return false
                }
            }
            resources[index].collectionOperations.removeAll { $0.kind == .create && refusesInsert }
        }
        return resources
    }

    // MARK: - Entity types

    private func resource(for structure: StructureSpec) -> ResourceSpec {
        let name = structure.name
        let lineage = self.lineage(of: structure)
        let model = TypeRef.named(name)

        var operations = [
            OperationSpec(
                name: "get", kind: .get, method: .get, response: ResponseSpec(type: model), location: structure.location
            ),
            OperationSpec(
                name: "update", kind: .update, method: .patch, requestBody: BodySpec(type: model),
                response: ResponseSpec(type: model, successCodes: [200, 204]), location: structure.location),
            OperationSpec(
                name: "delete", kind: .delete, method: .delete, response: ResponseSpec(type: nil, successCodes: [204]),
                location: structure.location),
        ]
        operations += boundOperations(for: lineage, in: boundToItem)

        var collectionOperations = [
            OperationSpec(
                name: "list", kind: .list, method: .get, response: ResponseSpec(type: .collection(model)),
                location: structure.location),
            OperationSpec(
                name: "create", kind: .create, method: .post, requestBody: BodySpec(type: model),
                response: ResponseSpec(type: model, successCodes: [201]), location: structure.location),
        ]
        collectionOperations += boundOperations(for: lineage, in: boundToCollection)

        return ResourceSpec(
            name: name, model: model, children: children(for: lineage), operations: operations,
            collectionOperations: collectionOperations, doc: structure.doc, location: structure.location)
    }

    /// The type and its base types, most derived first. Stops at a repeated type, which the resolver has
    /// already reported as a cycle.
    private func lineage(of structure: StructureSpec) -> [QualifiedName] {
        [structure.name] + structureIndex.ancestorPositions(of: structure).map { structureIndex.structures[$0].name }
    }

    /// Navigation properties, inherited ones first, as the JSON of an item lists them.
    private func children(for lineage: [QualifiedName]) -> [ChildSpec] {
        var children: [ChildSpec] = []
        var names: Set<String> = []
        for type in lineage.reversed() {
            let navigationProperties = structureIndex.position(of: type).map {
                structureIndex.structures[$0].navigationProperties
            }
            for navigation in navigationProperties ?? [] where names.insert(navigation.name).inserted {
                guard case .named(let target) = navigation.type.elementType else { continue }
                let isCollection = navigation.type.isCollection
                children.append(
                    ChildSpec(
                        name: navigation.name, segment: navigation.name, target: target, isCollection: isCollection,
                        keyName: isCollection ? "\(target.name)-id" : nil,
                        restrictions: restrictions(navigation.restrictions, reaching: target), doc: navigation.doc))
            }
        }
        return children
    }

    // MARK: - Bound operations

    /// One operation that may end up on a resource, with what decides between overloads.
    private struct Candidate {
        var operation: Int
        /// How many steps up the lineage the binding type is (0: bound to the type itself).
        var distance: Int
        var name: String
        var pathSuffix: [String]
        var doc: Documentation
        var location: SourceLocation
    }

    private func boundOperations(for lineage: [QualifiedName], in index: [QualifiedName: [Int]]) -> [OperationSpec] {
        var candidates: [Candidate] = []
        for (distance, type) in lineage.enumerated() {
            for operationIndex in index[type] ?? [] {
                let operation = model.operations[operationIndex]
                candidates.append(
                    Candidate(
                        operation: operationIndex, distance: distance, name: operation.name.name,
                        pathSuffix: [operation.name.description], doc: operation.doc, location: operation.location))
            }
        }
        candidates.sort { $0.operation < $1.operation }
        return operationSpecs(from: candidates)
    }

    /// Groups candidates by name (at the first one's place) and drops overloads that repeat a parameter list
    /// already kept. Within a name the fewest parameters come first, then the most specific binding, then
    /// document order, so `delta` on `user` beats the inherited `delta` on `directoryObject`.
    private func operationSpecs(from candidates: [Candidate]) -> [OperationSpec] {
        var groupOrder: [String] = []
        var groups: [String: [Candidate]] = [:]
        for candidate in candidates {
            if groups[candidate.name] == nil { groupOrder.append(candidate.name) }
            groups[candidate.name, default: []].append(candidate)
        }
        var specs: [OperationSpec] = []
        for name in groupOrder {
            let ranked = (groups[name] ?? []).sorted {
                let left = model.operations[$0.operation].parameters.count
                let right = model.operations[$1.operation].parameters.count
                return (left, $0.distance, $0.operation) < (right, $1.distance, $1.operation)
            }
            var keptSignatures: [[String]] = []
            for candidate in ranked {
                let operation = model.operations[candidate.operation]
                let signature = operation.parameters.map(\.name).sorted()
                guard !keptSignatures.contains(signature) else { continue }
                keptSignatures.append(signature)
                specs.append(spec(for: operation, as: candidate))
            }
        }
        return specs
    }

    private func spec(for operation: ResolvedOperation, as candidate: Candidate) -> OperationSpec {
        let isRawBody = operation.returnType == .primitive(.stream)
        let response: ResponseSpec
        if let monitor = operation.monitor {
            // Accepted, with a Location to poll: whatever the return type says, the answer is the monitor.
            response = ResponseSpec(type: nil, successCodes: [202], monitor: monitor)
        } else if operation.isAction {
            response = ResponseSpec(
                type: operation.returnType, successCodes: Self.actionSuccessCodes, isRawBody: isRawBody)
        } else {
            response = ResponseSpec(
                type: operation.returnType,
                delta: operation.name.name == "delta" ? .odata(tokenParameter: "token") : nil, isRawBody: isRawBody)
        }
        return OperationSpec(
            name: candidate.name, kind: operation.isAction ? .action : .function,
            method: operation.isAction ? .post : .get, pathSuffix: candidate.pathSuffix,
            parameters: operation.parameters, response: response, isComposable: operation.isComposable,
            segmentAliases: operation.aliases, doc: candidate.doc, location: candidate.location)
    }

    // MARK: - The container

    private func rootResource(primarySchema: RawSchema, diagnostics: inout Diagnostics) -> ResourceSpec {
        guard let container = model.containers.first else {
            let name = QualifiedName(namespace: primarySchema.namespace, name: "Service")
            diagnostics.warning(
                "the document declares no EntityContainer; the root resource '\(name)' is empty",
                at: primarySchema.location)
            return ResourceSpec(name: name, location: primarySchema.location)
        }
        for extra in model.containers.dropFirst() {
            diagnostics.warning(
                "only the first EntityContainer is read; '\(extra.name)' is skipped", at: extra.location)
        }
        var candidates: [Candidate] = []
        for operationImport in container.imports {
            for operationIndex in operationImport.operations {
                let operation = model.operations[operationIndex]
                candidates.append(
                    Candidate(
                        operation: operationIndex, distance: 0, name: operationImport.name,
                        pathSuffix: [operationImport.name],
                        doc: operationImport.doc.isEmpty ? operation.doc : operationImport.doc,
                        location: operationImport.location))
            }
        }
        let children = container.children.map { child in
            var restricted = child
            restricted.restrictions = restrictions(child.restrictions, reaching: child.target)
            return restricted
        }
        return ResourceSpec(
            name: container.name, children: children, operations: operationSpecs(from: candidates),
            doc: container.doc, location: container.location)
    }

    /// A step's own restrictions and those of the type it reaches, which hold wherever the type is.
    private func restrictions(_ own: Restrictions, reaching target: QualifiedName) -> Restrictions {
        own.intersection(
            structureIndex.position(of: target).map { structureIndex.structures[$0].restrictions } ?? Restrictions())
    }
}
