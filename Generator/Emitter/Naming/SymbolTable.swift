import BinderySpec

/// The Swift name of every spec type and resource in one module, decided once, collision-free.
struct SymbolTable {
    private(set) var typeNames: [QualifiedName: String] = [:]
    private(set) var builderNames: [QualifiedName: String] = [:]
    /// `DriveItemFields` for a model, `ImportanceValues` for an enumeration.
    private(set) var companionNames: [QualifiedName: String] = [:]
    let clientName: String
    /// `OneDriveService`: the module's descriptor (name, base URLs, routes, conventions).
    let serviceName: String
    private let overrides: [String: String]

    init(
        spec: ServiceSpec, moduleName: String, clientName: String?, overrides: [String: String],
        diagnostics: inout Diagnostics
    ) {
        self.overrides = overrides
        self.clientName = clientName ?? SwiftNames.typeName(moduleName) + "Client"
        self.serviceName = SwiftNames.typeName(moduleName) + "Service"
        var taken: [String: QualifiedName] = [:]
        // Sized up front: a spec such as Graph names thousands of types, builders and companions.
        let typeCount = spec.enums.count + spec.structures.count + spec.choices.count
        taken.reserveCapacity(2 * typeCount + spec.resources.count + SwiftNames.typeNamesToAvoid.count + 2)
        typeNames.reserveCapacity(typeCount)
        companionNames.reserveCapacity(typeCount)
        builderNames.reserveCapacity(spec.resources.count)
        let reservedOwner = QualifiedName(namespace: "", name: "<module>")
        taken[self.clientName] = reservedOwner
        taken[self.serviceName] = reservedOwner
        for name in SwiftNames.typeNamesToAvoid { taken[name] = reservedOwner }

        // Primary-namespace types first, so they keep the short names when a sub-namespace repeats one.
        let declared: [(QualifiedName, SourceLocation?)] =
            spec.enums.map { ($0.name, $0.location) } + spec.structures.map { ($0.name, $0.location) }
            + spec.choices.map { ($0.name, $0.location) }
        let ordered =
            declared.filter { $0.0.namespace == spec.primaryNamespace }
            + declared.filter { $0.0.namespace != spec.primaryNamespace }
        for (name, location) in ordered {
            let preferred =
                overrides[name.description]
                ?? SwiftNames.typeName(
                    Self.relativeNamespace(name.namespace, to: spec.primaryNamespace) + "." + name.name)
            let swiftName = Self.claim(preferred, for: name, in: &taken, location: location, diagnostics: &diagnostics)
            typeNames[name] = swiftName
        }
        let enumNames = Set(spec.enums.map(\.name))
        let choiceNames = Set(spec.choices.map(\.name))
        // Choices are enums of their own and need no companion.
        for (name, location) in ordered where !choiceNames.contains(name) {
            guard let typeName = typeNames[name] else { continue }
            let suffix = enumNames.contains(name) ? "Values" : "Fields"
            companionNames[name] = Self.claim(
                typeName + suffix, for: name, in: &taken, location: location, diagnostics: &diagnostics)
        }
        for resource in spec.resources where resource.name != spec.rootResource {
            // Named after the model it reads (`DriveItemRequestBuilder`); when another resource reads the same
            // model (Inbox's `delta` and `delta/longpoll` both answer a `DeltaPage`), after the resource itself.
            let ownName =
                overrides[resource.name.description]
                ?? SwiftNames.typeName(
                    Self.relativeNamespace(resource.name.namespace, to: spec.primaryNamespace) + "."
                        + resource.name.name)
            var base = ownName
            if case .named(let model)? = resource.model, let modelName = typeNames[model],
                taken[modelName + "RequestBuilder"] == nil
            {
                base = modelName
            }
            builderNames[resource.name] = Self.claim(
                base + "RequestBuilder", for: resource.name, in: &taken, location: resource.location,
                diagnostics: &diagnostics)
        }
        builderNames[spec.rootResource] = self.clientName
    }

    func typeName(_ name: QualifiedName) -> String {
        typeNames[name] ?? SwiftNames.typeName(name.name)
    }

    func companionName(of name: QualifiedName) -> String {
        companionNames[name] ?? typeName(name) + "Fields"
    }

    func builderName(_ name: QualifiedName) -> String {
        builderNames[name] ?? SwiftNames.typeName(name.name) + "RequestBuilder"
    }

    /// A property's Swift name, honouring `"type/property"` overrides.
    func memberName(_ property: String, of owner: QualifiedName) -> String {
        // Most specs override nothing: then no key is built for every property of every type.
        if !overrides.isEmpty, let override = overrides["\(owner)/\(property)"] { return override }
        return SwiftNames.memberName(property)
    }

    /// `microsoft.graph.security` relative to `microsoft.graph` is `security`; the primary namespace itself is empty.
    static func relativeNamespace(_ namespace: String, to primary: String) -> String {
        if namespace == primary { return "" }
        if namespace.hasPrefix(primary + ".") { return String(namespace.dropFirst(primary.count + 1)) }
        return namespace
    }

    /// Takes `preferred` if free; otherwise a numbered variant, with a warning naming both owners.
    private static func claim(
        _ preferred: String, for owner: QualifiedName, in taken: inout [String: QualifiedName],
        location: SourceLocation?, diagnostics: inout Diagnostics
    ) -> String {
        guard let holder = taken[preferred] else {
            taken[preferred] = owner
            return preferred
        }
        var counter = 2
        while taken["\(preferred)\(counter)"] != nil { counter += 1 }
        let name = "\(preferred)\(counter)"
        diagnostics.warning(
            "'\(owner)' would be named '\(preferred)' like '\(holder)'; it is named '\(name)' (set a nameOverrides entry to choose)",
            at: location)
        taken[name] = owner
        return name
    }
}
