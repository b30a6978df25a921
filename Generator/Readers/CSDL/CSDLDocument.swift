import BinderySpec

// The declarations as the streaming pass finds them: names still spelled as in the document (aliases,
// `Collection(...)`), attributes already parsed. The resolver turns them into the spec model once every type
// is known, so forward references cost nothing.

struct RawDocument {
    var schemas: [RawSchema] = []
    var enums: [RawEnum] = []
    var structures: [RawStructure] = []
    var typeDefinitions: [RawTypeDefinition] = []
    var operations: [RawOperation] = []
    var containers: [RawContainer] = []
    var annotationBlocks: [RawAnnotationBlock] = []
    /// `edmx:Include` aliases of referenced vocabularies (`Core` → `Org.OData.Core.V1`).
    var vocabularyAliases: [String: String] = [:]
}

struct RawSchema {
    var namespace: String
    var alias: String?
    var location: SourceLocation
}

struct RawEnum {
    var namespace: String
    var name: String
    var isFlags: Bool
    var members: [RawMember] = []
    var doc = Documentation()
    var location: SourceLocation
}

struct RawMember {
    var name: String
    var value: Int64?
    var doc = Documentation()
    var location: SourceLocation
}

struct RawStructure {
    var kind: StructureSpec.Kind
    var namespace: String
    var name: String
    var baseType: String?
    var isAbstract: Bool
    var isOpen: Bool
    var hasStream: Bool
    var key: [String] = []
    var properties: [RawProperty] = []
    var navigationProperties: [RawNavigationProperty] = []
    var aliases: [String] = []
    var restrictions = Restrictions()
    var storageOperations: [RawStorageOperation] = []
    var doc = Documentation()
    var location: SourceLocation
}

/// A `Bindery.StorageOperation` record: its `Name`, `Method`, `URL`, `Returns` members as written.
struct RawStorageOperation {
    var members: [String: String] = [:]
    var location: SourceLocation
}

struct RawProperty {
    var name: String
    var type: String
    var isNullable: Bool
    var isReadOnly = false
    var doc = Documentation()
    var location: SourceLocation
}

struct RawNavigationProperty {
    var name: String
    var type: String
    var containsTarget: Bool
    var restrictions = Restrictions()
    var doc = Documentation()
    var location: SourceLocation
}

/// A `TypeDefinition`: not modelled, but uses of it read as its underlying primitive.
struct RawTypeDefinition {
    var namespace: String
    var name: String
    var underlyingType: String
    var location: SourceLocation
}

struct RawOperation {
    var isAction: Bool
    var namespace: String
    var name: String
    var isBound: Bool
    var isComposable: Bool
    /// For bound operations the first one is the binding parameter.
    var parameters: [RawParameter] = []
    var returnType: RawReturnType?
    /// `Bindery.Alias`: other URL segments the service accepts for it (`action.copy`).
    var aliases: [String] = []
    /// `Bindery.Monitor`: the type that the `Location` of its `202 Accepted` answers.
    var monitor: String?
    var doc = Documentation()
    var location: SourceLocation
}

struct RawParameter {
    var name: String
    var type: String
    var isNullable: Bool
    var isOptional = false
    var doc = Documentation()
    var location: SourceLocation
}

struct RawReturnType {
    var type: String
    var location: SourceLocation
}

struct RawContainer {
    var namespace: String
    var name: String
    /// Entity sets and singletons in document order.
    var children: [RawContainerChild] = []
    var imports: [RawOperationImport] = []
    var doc = Documentation()
    var location: SourceLocation
}

struct RawContainerChild {
    var name: String
    var type: String
    /// Entity sets are collections, singletons are not.
    var isCollection: Bool
    var restrictions = Restrictions()
    var doc = Documentation()
    var location: SourceLocation
}

struct RawOperationImport {
    var name: String
    var isAction: Bool
    /// The imported action's or function's qualified name as written.
    var operation: String
    var doc = Documentation()
    var location: SourceLocation
}

/// An out-of-line `<Annotations Target="...">` block, applied after all declarations are known.
struct RawAnnotationBlock {
    var target: String
    var annotations: [RawAnnotation] = []
    var location: SourceLocation
}

struct RawAnnotation {
    var term: KnownTerm
    var string: String?
    var bool: Bool
    /// For a member of a record value (`Method` of a storage operation); nil for the annotation itself.
    var member: String? = nil
    var location: SourceLocation? = nil
}

/// Something an annotation can apply to, by index into the raw document.
enum AnnotationTarget {
    case structure(Int)
    case property(Int, Int)
    case navigationProperty(Int, Int)
    case enumType(Int)
    case member(Int, Int)
    case operation(Int)
    case parameter(Int, Int)
    case container(Int)
    case containerChild(Int, Int)
    case operationImport(Int, Int)
    case block(Int)
}

extension RawDocument {
    /// Records what an annotation says about its target; terms that do not apply to the target are ignored.
    mutating func apply(_ annotation: RawAnnotation, to target: AnnotationTarget) {
        switch target {
        case .structure(let s):
            structures[s].doc.apply(annotation)
            structures[s].restrictions.apply(annotation)
            if annotation.term == .alias, let alias = annotation.string { structures[s].aliases.append(alias) }
            if annotation.term == .storageOperation {
                if let member = annotation.member, let text = annotation.string,
                    !structures[s].storageOperations.isEmpty
                {
                    structures[s].storageOperations[structures[s].storageOperations.count - 1].members[member] = text
                } else if annotation.member == nil {
                    structures[s].storageOperations.append(
                        RawStorageOperation(location: annotation.location ?? structures[s].location))
                }
            }
        case .property(let s, let p):
            structures[s].properties[p].doc.apply(annotation)
            if annotation.term == .computed || annotation.term == .immutable {
                structures[s].properties[p].isReadOnly = annotation.bool
            }
        case .navigationProperty(let s, let n):
            structures[s].navigationProperties[n].doc.apply(annotation)
            structures[s].navigationProperties[n].restrictions.apply(annotation)
        case .enumType(let e):
            enums[e].doc.apply(annotation)
        case .member(let e, let m):
            enums[e].members[m].doc.apply(annotation)
        case .operation(let o):
            operations[o].doc.apply(annotation)
            if annotation.term == .alias, let alias = annotation.string { operations[o].aliases.append(alias) }
            if annotation.term == .monitor, let type = annotation.string { operations[o].monitor = type }
        case .parameter(let o, let p):
            operations[o].parameters[p].doc.apply(annotation)
            if annotation.term == .optionalParameter {
                operations[o].parameters[p].isOptional = annotation.bool
            }
        case .container(let c):
            containers[c].doc.apply(annotation)
        case .containerChild(let c, let child):
            containers[c].children[child].doc.apply(annotation)
            containers[c].children[child].restrictions.apply(annotation)
        case .operationImport(let c, let i):
            containers[c].imports[i].doc.apply(annotation)
        case .block(let b):
            annotationBlocks[b].annotations.append(annotation)
        }
    }
}

extension Documentation {
    mutating func apply(_ annotation: RawAnnotation) {
        switch annotation.term {
        case .description: summary = annotation.string ?? summary
        case .longDescription: details = annotation.string ?? details
        default: break
        }
    }
}

extension Restrictions {
    /// A restriction's `Insertable`, `Updatable` or `Deletable` member.
    mutating func apply(_ annotation: RawAnnotation) {
        switch annotation.term {
        case .insertRestrictions: insertable = annotation.bool
        case .updateRestrictions: updatable = annotation.bool
        case .deleteRestrictions: deletable = annotation.bool
        default: break
        }
    }
}
