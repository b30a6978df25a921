import BinderySpec
import Foundation

/// Entity, complex and enum types → storage-backed Swift structs.
///
/// A model is a schema table plus one accessor per property (inherited ones included, since Swift structs
/// do not inherit). No per-type Codable code: the runtime decodes, validates and encodes from the table.
struct ModelTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let mapping: TypeMapping
    let referenceURL: String?
    private let index: StructureIndex

    /// Members every model already has (from `JSONModel`), which would hide a property of the same name.
    static let reservedModelMembers: Set<String> = [
        "storage", "schema", "additionalData", "odataType", "resolved", "json", "changes", "downcast",
        "isDeletedInDelta", "fieldKind", "hashValue", "all",
    ]
    static let reservedEnumMembers: Set<String> = [
        "rawValue", "knownValues", "isKnown", "description", "members", "json", "fieldKind", "hashValue",
    ]

    init(spec: ServiceSpec, symbols: SymbolTable, mapping: TypeMapping, referenceURL: String? = nil) {
        self.spec = spec
        self.symbols = symbols
        self.mapping = mapping
        self.referenceURL = referenceURL
        index = StructureIndex(spec.structures)
    }

    /// The stream properties of a type, inherited ones included (`driveItem/content`): builders reach them
    /// as `StreamRequestBuilder`s, since a stream has no JSON form.
    func streamProperties(of name: QualifiedName) -> [PropertySpec] {
        guard let structure = index[name] else { return [] }
        return index.lineage(of: structure).flatMap(\.properties).filter { $0.type == .primitive(.stream) }
    }

    func translate(_ structure: StructureSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        let typeName = symbols.typeName(structure.name)
        var fieldDeclarations: [Declaration] = []
        var initializer: [Statement] = []
        var usedNames: Set<String> = []

        func addField(_ wireName: String, _ type: TypeRef, loose: Bool, owner: QualifiedName, doc: [String]) {
            // Streams have no JSON form.
            guard let swiftType = mapping.swiftType(type) else { return }
            let name = memberName(wireName, owner: owner, reserved: Self.reservedModelMembers, used: &usedNames)
            let plain = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
            fieldDeclarations.append(Declaration(doc: doc, .variable(.stored(name, type: "Field<\(swiftType)>"))))
            var arguments: [Expression.Argument] = [.init(.string(wireName))]
            if loose { arguments.append(.init("loose", .raw("true"))) }
            initializer.append(.assignment("self.\(plain)", .call("Field", arguments)))
        }

        for owner in index.lineage(of: structure) {
            for property in owner.properties {
                addField(
                    property.name, property.type, loose: property.acceptsLooseValues, owner: owner.name,
                    doc: DocComment.lines(property.doc, remark: nil))
            }
            for navigation in owner.navigationProperties {
                var doc = DocComment.lines(navigation.doc, remark: nil)
                if !doc.isEmpty { doc.append("") }
                doc.append("Present when the request expanded it (`expand(\(navigation.name.swiftLiteral))`).")
                addField(navigation.name, navigation.type, loose: false, owner: owner.name, doc: doc)
            }
        }

        var schemaArguments: [Expression.Argument] = [.init(.string(structure.name.description))]
        if let base = structure.baseType, index[base] != nil {
            schemaArguments.append(.init("base", .raw("\(symbols.typeName(base)).self")))
        }
        let derived = index.derived[structure.name] ?? []
        if !derived.isEmpty {
            schemaArguments.append(.init("derived", .array(derived.map { .raw("\(symbols.typeName($0)).self") })))
        }
        if let discriminator = structure.discriminatorProperty {
            schemaArguments.append(.init("discriminator", .string(discriminator)))
        }
        if let tag = structure.discriminatorValue { schemaArguments.append(.init("tag", .string(tag))) }
        if !structure.aliases.isEmpty {
            schemaArguments.append(.init("aliases", .array(structure.aliases.map { .string($0) })))
        }
        schemaArguments.append(.init("fields", .raw("all")))

        let fieldsName = symbols.companionName(of: structure.name)
        let fieldsType = TypeDeclaration(
            .struct, fieldsName, conformances: ["FieldSet"],
            members: [
                Declaration(.variable(.stored("all", type: nil, value: .call(fieldsName), isStatic: true))),
                Declaration(
                    .variable(
                        .stored("schema", type: nil, value: .call("ModelSchema", schemaArguments), isStatic: true))),
            ] + fieldDeclarations + [Declaration(.function(FunctionDeclaration("init", body: initializer)))])
        var doc = DocComment.lines(structure.doc, remark: structure.name.description)
        doc.insert(
            contentsOf: ["Its properties are listed in `\(fieldsName)`; read and write them as `value.name`.", ""],
            at: doc.count - 1)
        if structure.isAbstract {
            doc.insert(
                contentsOf: [
                    "Abstract: payloads name a derived type; read one with `downcast(to:)` or `resolved`.", "",
                ], at: doc.count - 1)
        }
        if let reference = reference(for: structure.name) {
            doc.insert(contentsOf: ["- SeeAlso: <\(reference)>"], at: doc.count - 1)
        }
        return [
            Declaration(doc: doc, .typeAlias(name: typeName, type: "Model<\(fieldsName)>")),
            Declaration(
                doc: ["The properties of a `\(typeName)`, inherited ones included."],
                .type(fieldsType)),
        ]
    }

    /// The reference page of a type of the main namespace or one below it (`security.alert` → `security-alert`).
    private func reference(for name: QualifiedName) -> String? {
        guard let referenceURL else { return nil }
        let main = spec.primaryNamespace
        guard name.namespace == main || name.namespace.hasPrefix(main + ".") else { return nil }
        let below = name.namespace.dropFirst(main.count).split(separator: ".")
        let page = (below + [Substring(name.name)]).joined(separator: "-").lowercased()
        return referenceURL.replacingOccurrences(of: "{name}", with: page)
    }

    func translate(_ enumeration: EnumSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        let typeName = symbols.typeName(enumeration.name)
        let valuesName = symbols.companionName(of: enumeration.name)
        var usedNames: Set<String> = []
        var members: [Declaration] = []
        for member in enumeration.members {
            let name = memberName(
                member.name, owner: enumeration.name, reserved: Self.reservedEnumMembers, used: &usedNames)
            // Computed, not stored: one small function each instead of a lazily initialized global.
            members.append(
                Declaration(
                    doc: DocComment.lines(member.doc, remark: nil),
                    .variable(
                        .computed(
                            name, type: "Self",
                            getter: [.expression(.call("Self", [.init("rawValue", .string(member.name))]))],
                            isStatic: true))))
        }
        let known = Expression.array(enumeration.members.map { .string($0.name) })
        var doc = DocComment.lines(enumeration.doc, remark: enumeration.name.description)
        if enumeration.isFlags {
            doc.insert(contentsOf: ["Flags: the wire value lists members separated by commas.", ""], at: doc.count - 1)
        }
        var declarations = [
            Declaration(doc: doc, .typeAlias(name: typeName, type: "OpenEnum<\(valuesName)>")),
            Declaration(
                doc: ["The values of `\(typeName)` that the spec declares; others decode and re-encode too."],
                .type(
                    TypeDeclaration(
                        .enum, valuesName, conformances: [enumeration.isFlags ? "FlagValues" : "EnumValues"],
                        members: [
                            Declaration(.variable(.stored("known", type: "[String]", value: known, isStatic: true)))
                        ]))),
        ]
        if !members.isEmpty {
            declarations.append(Declaration(.extension(ExtensionDeclaration(typeName, members: members))))
        }
        return declarations
    }

    private func memberName(_ name: String, owner: QualifiedName, reserved: Set<String>, used: inout Set<String>)
        -> String
    {
        var swiftName = symbols.memberName(name, of: owner)
        if reserved.contains(swiftName) { swiftName += "Value" }
        if used.contains(swiftName) {
            // `remote_Control_Software` and `remoteControlSoftware` both want one name; a keyword such as
            // `default` loses its backticks once a number makes it an ordinary identifier.
            let base = swiftName.hasPrefix("`") ? String(swiftName.dropFirst().dropLast()) : swiftName
            var counter = 2
            while used.contains("\(base)\(counter)") { counter += 1 }
            swiftName = "\(base)\(counter)"
        }
        used.insert(swiftName)
        return swiftName
    }
}
