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
    /// Every Swift type name claimed in the module.
    private let declaredNames: Set<String>

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

        // Primary-namespace types first, so they keep the short names when a sub-namespace repeats one. (Listed in
        // one pass and read by position below: Graph declares thousands, and every copy retains their names.)
        let primary = spec.primaryNamespace
        var ordered: [DeclaredName] = []
        ordered.reserveCapacity(typeCount)
        for inPrimary in [true, false] {
            for index in spec.enums.indices where (spec.enums[index].name.namespace == primary) == inPrimary {
                ordered.append(DeclaredName(spec.enums[index].name, spec.enums[index].location, companion: "Values"))
            }
            for index in spec.structures.indices where (spec.structures[index].name.namespace == primary) == inPrimary {
                ordered.append(
                    DeclaredName(spec.structures[index].name, spec.structures[index].location, companion: "Fields"))
            }
            // Choices are enums of their own and need no companion.
            for index in spec.choices.indices where (spec.choices[index].name.namespace == primary) == inPrimary {
                ordered.append(DeclaredName(spec.choices[index].name, spec.choices[index].location, companion: nil))
            }
        }
        // The preferred names are worked out on every core; claiming them stays in order.
        let preferred = ordered.concurrentMap { [overrides] declared in
            Self.preferredName(of: declared.name, primaryNamespace: primary, overrides: overrides)
        }
        var swiftNames: [String] = []
        swiftNames.reserveCapacity(ordered.count)
        for index in ordered.indices {
            let name = Self.claim(
                preferred[index], for: ordered[index].name, in: &taken, location: ordered[index].location,
                diagnostics: &diagnostics)
            typeNames[ordered[index].name] = name
            swiftNames.append(name)
        }
        for index in ordered.indices {
            guard let suffix = ordered[index].companion else { continue }
            companionNames[ordered[index].name] = Self.claim(
                swiftNames[index] + suffix, for: ordered[index].name, in: &taken, location: ordered[index].location,
                diagnostics: &diagnostics)
        }
        for index in spec.resources.indices where spec.resources[index].name != spec.rootResource {
            // Named after the model it reads (`DriveItemRequestBuilder`); when another resource reads the same
            // model (Inbox's `delta` and `delta/longpoll` both answer a `DeltaPage`), after the resource itself.
            let resource = spec.resources[index].name
            var base: String
            if case .named(let model)? = spec.resources[index].model, let modelName = typeNames[model],
                taken[modelName + "RequestBuilder"] == nil
            {
                base = modelName
            } else {
                base = Self.preferredName(of: resource, primaryNamespace: primary, overrides: overrides)
            }
            builderNames[resource] = Self.claim(
                base + "RequestBuilder", for: resource, in: &taken, location: spec.resources[index].location,
                diagnostics: &diagnostics)
        }
        builderNames[spec.rootResource] = self.clientName
        declaredNames = Set(taken.keys)
    }

    /// Whether a Swift name is one of the module's types (a declared type, its companion or a builder).
    func isTypeName(_ swiftName: String) -> Bool { declaredNames.contains(swiftName) }

    /// A member's, case's or parameter's Swift name, with `Value` when it is spelled like one of the module's types.
    /// Member names start lowercase and type names uppercase, except names with no lowercase form (`_2fa`,
    /// `日付`): such a member would hide the type wherever its scope names it (`_2fa.self`).
    func typeSafeMemberName(_ property: String, of owner: QualifiedName?) -> String {
        let name = owner.map { memberName(property, of: $0) } ?? SwiftNames.memberName(property)
        return isTypeName(name) ? name + "Value" : name
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

    /// The name a spec type or resource asks for: its override, or its name with the namespace it has relative to
    /// the primary one (`microsoft.graph.security.alert` → `SecurityAlert`).
    private static func preferredName(
        of name: QualifiedName, primaryNamespace: String, overrides: [String: String]
    ) -> String {
        // Most specs override nothing: then no qualified name is spelled out for every type.
        if !overrides.isEmpty, let override = overrides[name.description] { return override }
        if name.namespace == primaryNamespace { return SwiftNames.typeName(name.name) }
        return SwiftNames.typeName(relativeNamespace(name.namespace, to: primaryNamespace) + "." + name.name)
    }

    /// A spec type as the table names it: where it is declared, and the suffix of its companion, if it has one.
    private struct DeclaredName: Sendable {
        var name: QualifiedName
        var location: SourceLocation?
        var companion: String?

        init(_ name: QualifiedName, _ location: SourceLocation?, companion: String?) {
            self.name = name
            self.location = location
            self.companion = companion
        }
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
        // One lookup when the name is free, as nearly every one is; a taken name gets its holder back.
        guard let holder = taken.updateValue(owner, forKey: preferred) else { return preferred }
        taken[preferred] = holder
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
