import CLibXML2

// The element, attribute and annotation-term names the CSDL reader understands.
// Names are matched against libxml2's own byte strings so that nothing is allocated for the many
// nodes and attributes the reader does not care about.

/// The CSDL and EDMX elements the reader distinguishes (by local name; namespaces are not checked).
enum CSDLElement {
    case edmx, dataServices, reference, include
    case schema, entityType, complexType, enumType, typeDefinition, term
    case member, property, navigationProperty, key, propertyRef
    case action, function, parameter, returnType
    case entityContainer, entitySet, singleton, functionImport, actionImport, navigationPropertyBinding
    case annotations, annotation, string, record, propertyValue
    /// Children of a navigation property that only matter to servers.
    case referentialConstraint, onDelete
    case other

    private static let names: [(StaticString, CSDLElement)] = [
        ("Property", .property), ("Annotation", .annotation), ("Member", .member),
        ("Annotations", .annotations), ("Parameter", .parameter), ("NavigationProperty", .navigationProperty),
        ("ReturnType", .returnType), ("ComplexType", .complexType), ("EntityType", .entityType),
        ("EnumType", .enumType), ("Action", .action), ("Function", .function), ("String", .string),
        ("NavigationPropertyBinding", .navigationPropertyBinding), ("EntitySet", .entitySet),
        ("Singleton", .singleton), ("Key", .key), ("PropertyRef", .propertyRef), ("Schema", .schema),
        ("EntityContainer", .entityContainer), ("FunctionImport", .functionImport),
        ("ActionImport", .actionImport), ("Term", .term), ("TypeDefinition", .typeDefinition),
        ("ReferentialConstraint", .referentialConstraint), ("OnDelete", .onDelete),
        ("Edmx", .edmx), ("DataServices", .dataServices), ("Reference", .reference), ("Include", .include),
        ("Record", .record), ("PropertyValue", .propertyValue),
    ]

    /// Looks up a libxml2 local name; unknown or missing names are `.other`.
    init(localName: UnsafePointer<xmlChar>?) {
        self = lookUp(localName, in: Self.names) ?? .other
    }
}

/// The attributes the reader reads; every other attribute is passed over without a copy.
enum CSDLAttribute: Int, CaseIterable {
    case name, namespace, alias, type, nullable, baseType, abstract, openType, hasStream
    case isFlags, underlyingType, value, containsTarget, isBound, isComposable
    case entityType, function, action, target, term, string, bool, property

    private static let names: [(StaticString, CSDLAttribute)] = [
        ("Name", .name), ("Type", .type), ("Nullable", .nullable), ("Value", .value), ("Term", .term),
        ("String", .string), ("Bool", .bool), ("Target", .target), ("BaseType", .baseType),
        ("IsBound", .isBound), ("ContainsTarget", .containsTarget), ("Abstract", .abstract),
        ("OpenType", .openType), ("HasStream", .hasStream), ("IsFlags", .isFlags),
        ("IsComposable", .isComposable), ("EntityType", .entityType), ("Function", .function),
        ("Action", .action), ("Namespace", .namespace), ("Alias", .alias), ("UnderlyingType", .underlyingType),
        ("Property", .property),
    ]

    init?(localName: UnsafePointer<xmlChar>?) {
        guard let match = lookUp(localName, in: Self.names) else { return nil }
        self = match
    }

    /// The spelling in CSDL, for diagnostics.
    var spelling: String {
        Self.names.first { $0.1 == self }.map { "\($0.0)" } ?? "\(self)"
    }
}

/// The annotation terms that change the spec model; all other annotations are ignored.
///
/// - `Org.OData.Core.V1`: documentation, read-only properties, optional parameters.
/// - `Org.OData.Capabilities.V1`: the insert, update and delete restrictions of a collection or type, whose
///   records say in a `Bool` member (`Insertable`, `Updatable`, `Deletable`) what the service allows.
/// - `Bindery.V1.Alias`: another name the service uses for a type (`oneDrive.item`) or for an operation's URL
///   segment (`action.copy`); `Bindery.V1.StorageOperation`: a request to a URL a payload carries, on a storage
///   host outside the API (an upload session's byte ranges); `Bindery.V1.Monitor`: an action that answers
///   `202 Accepted` with a `Location` to poll, and the type the polls answer. See `Docs/CSDLAnnotations.md`.
enum KnownTerm {
    case description, longDescription, computed, immutable, optionalParameter
    case insertRestrictions, updateRestrictions, deleteRestrictions
    case alias, storageOperation, monitor

    /// Terms whose value is a `<Record>` of `<PropertyValue>`s.
    var hasRecord: Bool { restrictionMember != nil || self == .storageOperation }

    var isDocumentation: Bool { self == .description || self == .longDescription }

    /// The record member of a restriction that says whether the operation is allowed.
    var restrictionMember: String? {
        switch self {
        case .insertRestrictions: return "Insertable"
        case .updateRestrictions: return "Updatable"
        case .deleteRestrictions: return "Deletable"
        default: return nil
        }
    }

    /// Classifies a term such as `Org.OData.Core.V1.Description`, `Core.Description` or `MyCore.Description`
    /// (with `MyCore` an `edmx:Include` alias of `Org.OData.Core.V1`).
    init?(term: String, vocabularyAliases: [String: String]) {
        guard let dot = term.lastIndex(of: ".") else { return nil }
        let qualifier = String(term[..<dot])
        let namespace = vocabularyAliases[qualifier] ?? qualifier
        let name = term[term.index(after: dot)...]
        if namespace == "Core" || namespace == "Core.V1" || namespace.hasSuffix(".Core.V1") {
            switch name {
            case "Description": self = .description
            case "LongDescription": self = .longDescription
            case "Computed": self = .computed
            case "Immutable": self = .immutable
            case "OptionalParameter": self = .optionalParameter
            default: return nil
            }
        } else if namespace == "Capabilities" || namespace.hasSuffix("Capabilities.V1") {
            switch name {
            case "InsertRestrictions": self = .insertRestrictions
            case "UpdateRestrictions": self = .updateRestrictions
            case "DeleteRestrictions": self = .deleteRestrictions
            default: return nil
            }
        } else if namespace == "Bindery.V1", name == "Alias" {
            self = .alias
        } else if namespace == "Bindery.V1", name == "StorageOperation" {
            self = .storageOperation
        } else if namespace == "Bindery.V1", name == "Monitor" {
            self = .monitor
        } else {
            return nil
        }
    }
}

/// Finds a NUL-terminated libxml2 string in a small table without allocating.
private func lookUp<Value>(_ bytes: UnsafePointer<xmlChar>?, in table: [(StaticString, Value)]) -> Value? {
    guard let bytes else { return nil }
    for (name, value) in table where bytesEqual(bytes, name) {
        return value
    }
    return nil
}

/// Whether a NUL-terminated byte string equals an ASCII literal; stops at the first difference, so it never
/// reads past the terminator.
@inline(__always)
func bytesEqual(_ bytes: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
    let expected = literal.utf8Start
    let count = literal.utf8CodeUnitCount
    for index in 0..<count where bytes[index] != expected[index] {
        return false
    }
    return bytes[count] == 0
}
