// Over 500 lines on purpose: the resolver is one pass over one set of tables (names, annotations, types,
// operations), each part a MARK section; split, each part would need the others' private tables.

import BinderySpec

/// An action or function with every type resolved.
struct ResolvedOperation {
    var name: QualifiedName
    var isAction: Bool
    /// The binding parameter's type for bound operations: `.named(T)` or `.collection(.named(T))`.
    var binding: TypeRef?
    /// The parameters after the binding one, located where the operation kind sends them.
    var parameters: [ParameterSpec]
    var returnType: TypeRef?
    var isComposable: Bool
    /// `Bindery.Alias`: other URL segments the service accepts for it.
    var aliases: [String]
    /// `Bindery.Monitor`: the type the `Location` of its `202 Accepted` answers.
    var monitor: TypeRef?
    var doc: Documentation
    var location: SourceLocation
}

struct ResolvedContainer {
    var name: QualifiedName
    /// Entity sets and singletons in document order.
    var children: [ChildSpec]
    var imports: [ResolvedImport]
    var doc: Documentation
    var location: SourceLocation
}

/// A `FunctionImport` or `ActionImport` with the unbound overloads it exposes.
struct ResolvedImport {
    var name: String
    /// Indices into `ResolvedModel.operations`.
    var operations: [Int]
    var doc: Documentation
    var location: SourceLocation
}

/// The data half of the spec plus the operations and containers the resource builder needs.
struct ResolvedModel {
    var enums: [EnumSpec] = []
    var structures: [StructureSpec] = []
    /// The structures indexed, as the base-type check built it (the resource builder asks it too).
    var structureIndex = StructureIndex([])
    var operations: [ResolvedOperation] = []
    var containers: [ResolvedContainer] = []
}

/// The second pass: qualifies every name, applies out-of-line annotations and checks what a single streaming
/// pass cannot (forward references, duplicates, base-type cycles).
struct CSDLResolver {
    private var document: RawDocument
    private var diagnostics: Diagnostics
    private var model = ResolvedModel()
    /// Schema namespaces and aliases, each mapped to its namespace.
    private var namespaceForPrefix: [String: String] = [:]
    private var declaredTypes: [QualifiedName: DeclaredType] = [:]
    private var containerIndex: [QualifiedName: Int] = [:]
    /// The overloads of each action and function name, in document order.
    private var operationsByName: [QualifiedName: [Int]] = [:]
    /// Successful resolutions by spelling; Graph spells `Edm.String` thousands of times.
    private var resolvedTypes: [String: TypeRef] = [:]
    /// Where in `diagnostics` each unsupported primitive was reported: what merging the runs of structures resolved
    /// in parallel reads of each run's copy (the resolver's own list is not read).
    private var unsupportedReports: [(index: Int, spelling: String)] = []

    private enum DeclaredType {
        case enumType(Int)
        case structure(Int)
        case typeDefinition(Int)
    }

    /// Takes the document: were the caller to keep it, applying annotations would copy it first.
    static func resolve(_ document: consuming RawDocument, diagnostics: inout Diagnostics) -> ResolvedModel {
        var resolver = CSDLResolver(document: document, diagnostics: diagnostics)
        resolver.registerNamespaces()
        resolver.registerDeclarations()
        resolver.applyAnnotationBlocks()
        resolver.resolveEnums()
        resolver.resolveStructures()
        resolver.checkBaseTypeCycles()
        resolver.resolveOperations()
        resolver.resolveContainers()
        diagnostics = resolver.diagnostics
        return resolver.model
    }

    private init(document: RawDocument, diagnostics: Diagnostics) {
        self.document = document
        self.diagnostics = diagnostics
    }

    // MARK: - Names

    private mutating func registerNamespaces() {
        for schema in document.schemas {
            namespaceForPrefix[schema.namespace] = schema.namespace
        }
        for schema in document.schemas {
            guard let alias = schema.alias else { continue }
            if let existing = namespaceForPrefix[alias], existing != schema.namespace {
                diagnostics.error(
                    "alias '\(alias)' of '\(schema.namespace)' is already the name of '\(existing)'",
                    at: schema.location)
            } else {
                namespaceForPrefix[alias] = schema.namespace
            }
        }
    }

    /// Registers types in document order, so a duplicate is reported where it is declared the second time.
    private mutating func registerDeclarations() {
        var declarations: [(name: QualifiedName, type: DeclaredType, location: SourceLocation)] = []
        declarations.reserveCapacity(document.enums.count + document.structures.count + document.typeDefinitions.count)
        for (index, raw) in document.enums.enumerated() {
            declarations.append(
                (QualifiedName(namespace: raw.namespace, name: raw.name), .enumType(index), raw.location))
        }
        for (index, raw) in document.structures.enumerated() {
            declarations.append(
                (QualifiedName(namespace: raw.namespace, name: raw.name), .structure(index), raw.location))
        }
        for (index, raw) in document.typeDefinitions.enumerated() {
            declarations.append(
                (QualifiedName(namespace: raw.namespace, name: raw.name), .typeDefinition(index), raw.location))
        }
        declarations.sort { ($0.location.line, $0.location.column) < ($1.location.line, $1.location.column) }
        declaredTypes.reserveCapacity(declarations.count)
        operationsByName.reserveCapacity(document.operations.count)
        for declaration in declarations {
            // One lookup for the usual case, a new name; a repeated one keeps its first declaration.
            guard let first = declaredTypes.updateValue(declaration.type, forKey: declaration.name) else { continue }
            declaredTypes[declaration.name] = first
            diagnostics.error(
                "duplicate type name '\(declaration.name)' (first declared at line \(location(of: first).line))",
                at: declaration.location)
        }
        for (index, container) in document.containers.enumerated() {
            let name = QualifiedName(namespace: container.namespace, name: container.name)
            if containerIndex[name] == nil { containerIndex[name] = index }
        }
        for index in document.operations.indices {
            let operation = QualifiedName(
                namespace: document.operations[index].namespace, name: document.operations[index].name)
            operationsByName[operation, default: []].append(index)
        }
    }

    /// Where a registered type is declared.
    private func location(of type: DeclaredType) -> SourceLocation {
        switch type {
        case .enumType(let index): document.enums[index].location
        case .structure(let index): document.structures[index].location
        case .typeDefinition(let index): document.typeDefinitions[index].location
        }
    }

    /// `graph.driveItem` → `microsoft.graph.driveItem`; unknown prefixes stay as written (and fail to resolve).
    private func qualify(_ spelling: Substring) -> QualifiedName {
        // Byte-wise: names are ASCII in practice, and a `.` byte is always a `.` character in UTF-8.
        guard let dot = spelling.utf8.lastIndex(of: UInt8(ascii: ".")) else {
            return QualifiedName(namespace: "", name: String(spelling))
        }
        let prefix = String(spelling[..<dot])
        return QualifiedName(
            namespace: namespaceForPrefix[prefix] ?? prefix, name: String(spelling[spelling.utf8.index(after: dot)...]))
    }

    /// Resolves a type as written (`Edm.Int64`, `graph.driveItem`, `Collection(self.alert)`); nil after an error.
    private mutating func resolveType(_ spelling: String, at location: SourceLocation) -> TypeRef? {
        if let known = resolvedTypes[spelling] { return known }
        let resolved: TypeRef?
        if spelling.hasPrefix("Collection("), spelling.hasSuffix(")") {
            let element = String(spelling.dropFirst("Collection(".count).dropLast())
            resolved = resolveType(element, at: location).map { .collection($0) }
        } else if spelling.hasPrefix("Edm.") {
            if let primitive = Primitive(rawValue: String(spelling.dropFirst("Edm.".count))) {
                resolved = .primitive(primitive)
            } else {
                // Cached below, so each unsupported primitive is reported once.
                unsupportedReports.append((diagnostics.all.count, spelling))
                diagnostics.warning("unsupported primitive type '\(spelling)' is read as Edm.Untyped", at: location)
                resolved = .primitive(.untyped)
            }
        } else {
            let name = qualify(spelling[...])
            switch declaredTypes[name] {
            case .enumType?, .structure?:
                resolved = .named(name)
            case .typeDefinition(let index)?:
                let underlying = document.typeDefinitions[index].underlyingType
                if underlying.hasPrefix("Edm.") {
                    resolved = resolveType(underlying, at: location)
                } else {
                    diagnostics.error(
                        "TypeDefinition '\(name)' has the non-primitive underlying type '\(underlying)'", at: location)
                    resolved = nil
                }
            case nil:
                diagnostics.error("unknown type '\(spelling)'", at: location)
                resolved = nil
            }
        }
        if let resolved { resolvedTypes[spelling] = resolved }
        return resolved
    }

    // MARK: - Annotations

    /// Applies `<Annotations Target="...">` blocks to types, properties, enum members, container children and
    /// actions and functions (every overload, or one: `ns.copy(ns.driveItem)`, by its binding parameter's type).
    /// Targets on parameters and paths through the container are outside the model and skipped.
    private mutating func applyAnnotationBlocks() {
        for block in document.annotationBlocks where !block.annotations.isEmpty {
            // Byte-wise: `(`, `)`, `/` and `,` are single bytes in UTF-8, and searching characters cost most of
            // this pass on Graph's thousands of blocks.
            let target = block.target.utf8
            if let open = target.firstIndex(of: UInt8(ascii: "(")) {
                guard !target.contains(UInt8(ascii: "/")), target.last == UInt8(ascii: ")") else { continue }
                let name = qualify(block.target[..<open])
                let arguments = block.target[target.index(after: open)..<target.index(before: target.endIndex)]
                let binding = arguments.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) }
                applyToOperations(block, named: name, boundTo: binding ?? "")
                continue
            }
            let slash = target.firstIndex(of: UInt8(ascii: "/"))
            let member = slash.map { String(block.target[target.index(after: $0)...]) }
            guard member?.utf8.contains(UInt8(ascii: "/")) != true else { continue }
            let name = qualify(block.target[..<(slash ?? target.endIndex)])
            if member == nil, operationsByName[name] != nil, declaredTypes[name] == nil {
                applyToOperations(block, named: name, boundTo: nil)
                continue
            }
            guard let target = annotationTarget(name, member: member, of: block) else { continue }
            for annotation in block.annotations {
                document.apply(annotation, to: target)
            }
        }
    }

    /// The overloads of an action or function named by an annotation target: all of them (`binding` nil), the
    /// unbound one (`""`), or the one whose binding parameter has that type.
    private mutating func applyToOperations(
        _ block: RawAnnotationBlock, named name: QualifiedName, boundTo binding: String?
    ) {
        let bindingType = binding.flatMap { $0.isEmpty ? nil : Self.typeName($0, qualify) }
        var matched = false
        for index in operationsByName[name] ?? [] {
            let operation = document.operations[index]
            if let binding {
                let own = operation.isBound ? operation.parameters.first.map { Self.typeName($0.type, qualify) } : nil
                guard binding.isEmpty ? !operation.isBound : own == bindingType else { continue }
            }
            matched = true
            for annotation in block.annotations { document.apply(annotation, to: .operation(index)) }
        }
        if !matched {
            diagnostics.warning("annotation target '\(block.target)' names no declared operation", at: block.location)
        }
    }

    /// A type as written, with its namespace alias resolved: `graph.driveItem` and `Collection(graph.driveItem)`
    /// compare as `microsoft.graph.driveItem` and `Collection(microsoft.graph.driveItem)`.
    private static func typeName(_ spelling: String, _ qualify: (Substring) -> QualifiedName) -> String {
        if spelling.hasPrefix("Collection("), spelling.hasSuffix(")") {
            return "Collection(" + qualify(spelling.dropFirst("Collection(".count).dropLast()).description + ")"
        }
        return qualify(spelling[...]).description
    }

    private mutating func annotationTarget(
        _ name: QualifiedName, member: String?, of block: RawAnnotationBlock
    ) -> AnnotationTarget? {
        switch declaredTypes[name] {
        case .structure(let structure)?:
            guard let member else { return .structure(structure) }
            // Read in place: a copy of the whole declaration would retain everything it holds.
            if let property = document.structures[structure].properties.firstIndex(where: { $0.name == member }) {
                return .property(structure, property)
            }
            if let navigation = document.structures[structure].navigationProperties.firstIndex(where: {
                $0.name == member
            }) {
                return .navigationProperty(structure, navigation)
            }
        case .enumType(let enumIndex)?:
            guard let member else { return .enumType(enumIndex) }
            if let memberIndex = document.enums[enumIndex].members.firstIndex(where: { $0.name == member }) {
                return .member(enumIndex, memberIndex)
            }
        case .typeDefinition?:
            return nil
        case nil:
            if let container = containerIndex[name] {
                guard let member else { return .container(container) }
                if let child = document.containers[container].children.firstIndex(where: { $0.name == member }) {
                    return .containerChild(container, child)
                }
                if let operationImport = document.containers[container].imports.firstIndex(where: { $0.name == member })
                {
                    return .operationImport(container, operationImport)
                }
            } else if operationsByName[name] != nil {
                return nil
            } else {
                diagnostics.warning("annotation target '\(block.target)' names no declared type", at: block.location)
                return nil
            }
        }
        diagnostics.warning("annotation target '\(block.target)' names no member of '\(name)'", at: block.location)
        return nil
    }

    // MARK: - Types

    private mutating func resolveEnums() {
        model.enums.reserveCapacity(document.enums.count)
        for raw in document.enums {
            let name = QualifiedName(namespace: raw.namespace, name: raw.name)
            var firstLines: [String: Int] = [:]
            firstLines.reserveCapacity(raw.members.count)
            var members: [EnumSpec.Member] = []
            members.reserveCapacity(raw.members.count)
            for member in raw.members {
                if let firstLine = firstLines.updateValue(member.location.line, forKey: member.name) {
                    firstLines[member.name] = firstLine
                    diagnostics.error(
                        "duplicate member '\(member.name)' in '\(name)' (first declared at line \(firstLine))",
                        at: member.location)
                    continue
                }
                members.append(EnumSpec.Member(name: member.name, value: member.value, doc: member.doc))
            }
            model.enums.append(
                EnumSpec(name: name, members: members, isFlags: raw.isFlags, doc: raw.doc, location: raw.location))
        }
    }

    /// Structures depend on nothing but the registered declarations, so they are resolved on every core, in a few
    /// runs of consecutive structures that each keep their own cache of resolved spellings, and merged back in
    /// document order: the same structures and diagnostics as one pass would make. (An unsupported primitive is
    /// reported at its first use only: a run's report of one an earlier run already made is dropped.)
    private mutating func resolveStructures() {
        let count = document.structures.count
        let runLength = max(64, (count + 7) / 8)
        let runs = stride(from: 0, to: count, by: runLength).map { $0..<min($0 + runLength, count) }
        let shared = self
        let resolved = runs.concurrentMap(chunk: 1) { run in
            var worker = shared
            worker.diagnostics = Diagnostics()
            worker.unsupportedReports = []
            let structures = run.map { worker.resolveStructure(worker.document.structures[$0]) }
            return (structures, worker.diagnostics.all, worker.unsupportedReports, worker.resolvedTypes)
        }
        model.structures.reserveCapacity(count)
        for (structures, diagnostics, unsupported, resolvedTypes) in resolved {
            model.structures += structures
            var repeated = Set<Int>()
            for report in unsupported where self.resolvedTypes[report.spelling] != nil { repeated.insert(report.index) }
            self.diagnostics.append(
                contentsOf: diagnostics.enumerated().filter { !repeated.contains($0.offset) }.map(\.element))
            self.resolvedTypes.merge(resolvedTypes) { known, _ in known }
        }
    }

    private mutating func resolveStructure(_ raw: RawStructure) -> StructureSpec {
        let name = QualifiedName(namespace: raw.namespace, name: raw.name)
        let kindName = raw.kind == .entity ? "entity type" : "complex type"
        var baseType: QualifiedName?
        if let spelling = raw.baseType {
            let base = qualify(spelling[...])
            switch declaredTypes[base] {
            case .structure(let index)? where document.structures[index].kind == raw.kind:
                baseType = base
            case .structure?, .enumType?, .typeDefinition?:
                let expected = raw.kind == .entity ? "an entity type" : "a complex type"
                diagnostics.error(
                    "base type '\(spelling)' of \(kindName) '\(name)' is not \(expected)", at: raw.location)
            case nil:
                diagnostics.error("unknown base type '\(spelling)' of \(kindName) '\(name)'", at: raw.location)
            }
        }

        // Properties and navigation properties share one name space within a type.
        var firstLines: [String: Int] = [:]
        firstLines.reserveCapacity(raw.properties.count + raw.navigationProperties.count)
        var properties: [PropertySpec] = []
        properties.reserveCapacity(raw.properties.count)
        for property in raw.properties {
            guard isFirstMember(property.name, of: name, at: property.location, firstLines: &firstLines),
                let type = resolveType(property.type, at: property.location)
            else { continue }
            properties.append(
                PropertySpec(
                    name: property.name, type: type, isNullable: property.isNullable,
                    isReadOnly: property.isReadOnly,
                    doc: property.doc, location: property.location))
        }
        var navigationProperties: [NavigationPropertySpec] = []
        for navigation in raw.navigationProperties {
            guard isFirstMember(navigation.name, of: name, at: navigation.location, firstLines: &firstLines),
                let type = resolveType(navigation.type, at: navigation.location)
            else { continue }
            guard case .named(let target) = type.elementType, case .structure(let index)? = declaredTypes[target],
                document.structures[index].kind == .entity
            else {
                diagnostics.error(
                    "navigation property '\(navigation.name)' of '\(name)' must target an entity type, not '\(navigation.type)'",
                    at: navigation.location)
                continue
            }
            navigationProperties.append(
                NavigationPropertySpec(
                    name: navigation.name, type: type, containsTarget: navigation.containsTarget,
                    restrictions: navigation.restrictions, doc: navigation.doc, location: navigation.location))
        }
        return StructureSpec(
            name: name, kind: raw.kind, baseType: baseType, isAbstract: raw.isAbstract, isOpen: raw.isOpen,
            hasStream: raw.hasStream, key: raw.key, properties: properties,
            navigationProperties: navigationProperties, aliases: raw.aliases, restrictions: raw.restrictions,
            storageOperations: raw.storageOperations.compactMap { storageOperation($0, of: name) },
            doc: raw.doc, location: raw.location)
    }

    /// A `Bindery.StorageOperation` record, checked: `Name`, `Method` and `URL` are required, `Returns` is a type.
    private mutating func storageOperation(_ raw: RawStorageOperation, of owner: QualifiedName) -> StorageOperationSpec?
    {
        let members = raw.members
        let unknown = members.keys.filter { !["Name", "Method", "URL", "Returns"].contains($0) }.sorted()
        guard unknown.isEmpty else {
            diagnostics.error(
                "Bindery.StorageOperation on '\(owner)': unknown member \(unknown.joined(separator: ", ")) (expected Name, Method, URL, Returns)",
                at: raw.location)
            return nil
        }
        guard let name = members["Name"], let methodName = members["Method"], let urlMember = members["URL"] else {
            diagnostics.error(
                "Bindery.StorageOperation on '\(owner)' needs the members Name, Method and URL", at: raw.location)
            return nil
        }
        guard let method = HTTPMethod(rawValue: methodName.uppercased()) else {
            diagnostics.error(
                "Bindery.StorageOperation '\(name)' on '\(owner)': '\(methodName)' is not an HTTP method",
                at: raw.location)
            return nil
        }
        var response: TypeRef?
        if let returns = members["Returns"] {
            guard let type = resolveType(returns, at: raw.location) else { return nil }
            response = type
        }
        return StorageOperationSpec(
            name: name, method: method, urlMember: urlMember, response: response, location: raw.location)
    }

    private mutating func isFirstMember(
        _ member: String, of type: QualifiedName, at location: SourceLocation, firstLines: inout [String: Int]
    ) -> Bool {
        // One lookup for the usual case, a new name; a repeated one gets its first line back.
        guard let firstLine = firstLines.updateValue(location.line, forKey: member) else { return true }
        firstLines[member] = firstLine
        diagnostics.error(
            "duplicate property name '\(member)' in '\(type)' (first declared at line \(firstLine))", at: location)
        return false
    }

    /// Reports each cycle once, at its member declared first.
    private mutating func checkBaseTypeCycles() {
        model.structureIndex = StructureIndex(model.structures)
        for cycle in model.structureIndex.baseTypeCycles() {
            let names = (cycle + cycle.prefix(1)).map(\.name.description)
            diagnostics.error("base type cycle: \(names.joined(separator: " → "))", at: cycle[0].location)
        }
    }

    // MARK: - Operations and the container

    private mutating func resolveOperations() {
        model.operations.reserveCapacity(document.operations.count)
        for raw in document.operations {
            let name = QualifiedName(namespace: raw.namespace, name: raw.name)
            let kindName = raw.isAction ? "action" : "function"
            var rawParameters = raw.parameters[...]
            var binding: TypeRef?
            if raw.isBound {
                guard let bindingParameter = rawParameters.popFirst() else {
                    diagnostics.error("bound \(kindName) '\(name)' has no binding parameter", at: raw.location)
                    continue
                }
                guard let type = resolveType(bindingParameter.type, at: bindingParameter.location) else { continue }
                binding = type
            }
            var firstLines: [String: Int] = [:]
            var parameters: [ParameterSpec] = []
            var isComplete = true
            for parameter in rawParameters {
                if let firstLine = firstLines[parameter.name] {
                    diagnostics.error(
                        "duplicate parameter '\(parameter.name)' in \(kindName) '\(name)' (first declared at line \(firstLine))",
                        at: parameter.location)
                    isComplete = false
                    continue
                }
                firstLines[parameter.name] = parameter.location.line
                guard let type = resolveType(parameter.type, at: parameter.location) else {
                    isComplete = false
                    continue
                }
                parameters.append(
                    ParameterSpec(
                        name: parameter.name, type: type, location: raw.isAction ? .body : .function,
                        isRequired: !parameter.isNullable && !parameter.isOptional, doc: parameter.doc))
            }
            var returnType: TypeRef?
            if let rawReturn = raw.returnType {
                guard let type = resolveType(rawReturn.type, at: rawReturn.location) else { continue }
                returnType = type
            } else if !raw.isAction {
                diagnostics.warning("function '\(name)' declares no ReturnType", at: raw.location)
            }
            guard isComplete else { continue }
            model.operations.append(
                ResolvedOperation(
                    name: name, isAction: raw.isAction, binding: binding, parameters: parameters,
                    returnType: returnType,
                    isComposable: raw.isComposable, aliases: raw.aliases,
                    monitor: raw.monitor.flatMap { resolveType($0, at: raw.location) }, doc: raw.doc,
                    location: raw.location))
        }
    }

    private mutating func resolveContainers() {
        var unboundOperations: [QualifiedName: [Int]] = [:]
        for (index, operation) in model.operations.enumerated() where operation.binding == nil {
            unboundOperations[operation.name, default: []].append(index)
        }
        for raw in document.containers {
            let containerName = QualifiedName(namespace: raw.namespace, name: raw.name)
            var firstLines: [String: Int] = [:]
            var children: [ChildSpec] = []
            for child in raw.children {
                let kindName = child.isCollection ? "entity set" : "singleton"
                if let firstLine = firstLines[child.name] {
                    diagnostics.error(
                        "duplicate name '\(child.name)' in container '\(containerName)' (first declared at line \(firstLine))",
                        at: child.location)
                    continue
                }
                firstLines[child.name] = child.location.line
                let target = qualify(child.type[...])
                guard case .structure(let index)? = declaredTypes[target], document.structures[index].kind == .entity
                else {
                    let problem = declaredTypes[target] == nil ? "unknown type" : "not an entity type"
                    diagnostics.error(
                        "\(kindName) '\(child.name)' has type '\(child.type)': \(problem)", at: child.location)
                    continue
                }
                children.append(
                    ChildSpec(
                        name: child.name, segment: child.name, target: target, isCollection: child.isCollection,
                        keyName: child.isCollection ? "\(target.name)-id" : nil, restrictions: child.restrictions,
                        doc: child.doc))
            }
            var imports: [ResolvedImport] = []
            for rawImport in raw.imports {
                let kindName = rawImport.isAction ? "action" : "function"
                let operationName = qualify(rawImport.operation[...])
                let overloads = (unboundOperations[operationName] ?? []).filter {
                    model.operations[$0].isAction == rawImport.isAction
                }
                guard !overloads.isEmpty else {
                    diagnostics.error(
                        "\(rawImport.isAction ? "ActionImport" : "FunctionImport") '\(rawImport.name)' refers to unknown unbound \(kindName) '\(rawImport.operation)'",
                        at: rawImport.location)
                    continue
                }
                imports.append(
                    ResolvedImport(
                        name: rawImport.name, operations: overloads, doc: rawImport.doc, location: rawImport.location))
            }
            model.containers.append(
                ResolvedContainer(
                    name: containerName, children: children, imports: imports, doc: raw.doc, location: raw.location))
        }
    }
}
