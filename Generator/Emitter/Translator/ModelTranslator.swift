import BinderySpec
import Foundation

/// Entity, complex and enum types → `Model<Fields>` type aliases and their field tables.
///
/// A model is a table of its fields, inherited ones included, and a schema built from it: a struct of stored
/// `Field`s, or a labelled tuple of them for large specs. No per-type Codable code: the runtime decodes, validates,
/// encodes and reads properties from the table.
struct ModelTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let mapping: TypeMapping
    let referenceURL: String?
    /// Whether tables are labelled tuples where they can be (`GeneratorConfig.FieldTables`), else structs.
    let tupleTables: Bool
    private let index: StructureIndex
    private let choiceNames: Set<QualifiedName>

    /// Members every model already has (from `JSONModel`), which would hide a property of the same name.
    static let reservedModelMembers: Set<String> = [
        "storage", "schema", "additionalData", "odataType", "resolved", "json", "changes", "downcast",
        "isDeletedInDelta", "fieldKind", "hashValue", "all", "typeTag", "requestMembers",
    ]
    static let reservedEnumMembers: Set<String> = [
        "rawValue", "knownValues", "isKnown", "description", "members", "json", "fieldKind", "hashValue",
    ]

    init(
        spec: ServiceSpec, symbols: SymbolTable, mapping: TypeMapping, referenceURL: String? = nil,
        tupleTables: Bool = false
    ) {
        self.tupleTables = tupleTables
        self.spec = spec
        self.symbols = symbols
        self.mapping = mapping
        self.referenceURL = referenceURL
        index = StructureIndex(spec.structures)
        choiceNames = Set(spec.choices.map(\.name))
    }

    /// The stream properties of a type, inherited ones included (`driveItem/content`): builders reach them
    /// as `StreamRequestBuilder`s, since a stream has no JSON form.
    func streamProperties(of name: QualifiedName) -> [PropertySpec] {
        // Read in place: filtering would copy every property of the lineage to look at its type.
        index.lineagePositions(of: name).flatMap { position in
            let properties = index.structures[position].properties
            return properties.indices.compactMap { property -> PropertySpec? in
                guard case .primitive(.stream) = properties[property].type else { return nil }
                return properties[property]
            }
        }
    }

    /// One row of a field table: a declared property, as the table lists it.
    private struct TableField {
        /// The Swift name, backticked when a keyword.
        var name: String
        /// The member's name in JSON.
        var wireName: String
        /// `Field<String>`.
        var type: SwiftType
        /// `Field("name", loose: true)`.
        var value: Expression
        /// The spec's description of the field.
        var prose: [String]
        /// What Bindery adds: who sets it, when it is present.
        var notes: [String]
        var isDeprecated: Bool
        var isNavigation: Bool
        /// The type that declares it, the model's own or an ancestor.
        var owner: QualifiedName

        /// The name without backticks.
        var label: String { name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name }
        /// The name as a label in a tuple expression, where only `inout` still needs its backticks.
        var argumentLabel: String { label == "inout" ? name : label }
        /// The field's doc comment: the description, then the notes.
        var doc: [String] { prose.isEmpty || notes.isEmpty ? prose + notes : prose + [""] + notes }
        /// Where it came from, as a type's doc comment says it: `- Remark: Generated from `a.b/name`.`
        var remark: String { "- Remark: Generated from `\(owner)/\(wireName)`." }
    }

    func translate(_ structure: StructureSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        let typeName = symbols.typeName(structure.name)
        var fields: [TableField] = []
        var usedNames: Set<String> = []

        func addField(
            _ wireName: String, _ type: TypeRef, loose: Bool, owner: QualifiedName, prose: [String], notes: [String],
            isDeprecated: Bool = false, readOnly: Bool = false, isNavigation: Bool = false
        ) {
            // Streams have no JSON form.
            guard let swiftType = mapping.swiftType(type) else { return }
            let name = memberName(wireName, owner: owner, reserved: Self.reservedModelMembers, used: &usedNames)
            var arguments: [Expression.Argument] = [.init(.string(wireName))]
            if loose { arguments.append(.init("loose", .raw("true"))) }
            if readOnly { arguments.append(.init("readOnly", .raw("true"))) }
            fields.append(
                TableField(
                    name: name, wireName: wireName, type: .generic("Field", [swiftType]),
                    value: .call("Field", arguments),
                    prose: prose, notes: notes, isDeprecated: isDeprecated, isNavigation: isNavigation, owner: owner))
        }

        func addFields(of owner: StructureSpec) {
            for property in owner.properties {
                addField(
                    property.name, property.type, loose: property.acceptsLooseValues, owner: owner.name,
                    prose: DocComment.lines(property.doc, remark: nil), notes: Self.notes(on: property),
                    isDeprecated: property.isDeprecated, readOnly: property.isLeftOutOfRequests)
            }
            for navigation in owner.navigationProperties {
                addField(
                    navigation.name, navigation.type, loose: false, owner: owner.name,
                    prose: DocComment.lines(navigation.doc, remark: nil),
                    notes: ["Present when the request expanded it (`expand(\(navigation.name.swiftLiteral))`)."],
                    isNavigation: true)
            }
        }
        // Inherited fields first, root first. Ancestors are read where they lie: copies would retain all they hold.
        for position in index.ancestorPositions(of: structure).reversed() { addFields(of: index.structures[position]) }
        addFields(of: structure)

        var schemaArguments: [Expression.Argument] = [.init(.string(structure.name.description))]
        if let base = structure.baseType, index.contains(base) {
            schemaArguments.append(.init("base", .metatype(.named(symbols.typeName(base)))))
        }
        let derived = index.derived[structure.name] ?? []
        if !derived.isEmpty {
            schemaArguments.append(.init("derived", .array(derived.map { .metatype(.named(symbols.typeName($0))) })))
        }
        if let discriminator = structure.discriminatorProperty {
            schemaArguments.append(.init("discriminator", .string(discriminator)))
        }
        if let tag = structure.discriminatorValue { schemaArguments.append(.init("tag", .string(tag))) }
        if !structure.aliases.isEmpty {
            schemaArguments.append(.init("aliases", .array(structure.aliases.map { .string($0) })))
        }
        let fieldsName = symbols.companionName(of: structure.name)

        // A labelled tuple compiles to no function per field, where a struct's stored property compiles to a getter
        // (BENCHMARKS.md: the full Graph builds in about two thirds of the time). A tuple element carries no doc
        // comment: the fields' comments move to the table's.
        let isTuple = tupleTables && Self.fitsTuple(fields)
        schemaArguments.append(
            .init(
                "fields",
                isTuple
                    ? .cast(.tuple(fields.map { .init($0.argumentLabel, $0.value) }), to: "Table") : .call(fieldsName)))
        let schema = Declaration(
            .variable(.stored("schema", type: nil, value: .call("ModelSchema", schemaArguments), isStatic: true)))
        let fieldsType =
            isTuple
            ? TypeDeclaration(
                .enum, fieldsName, conformances: ["FieldSet"],
                members: [
                    Declaration(.tupleAlias(name: "Table", elements: fields.map { TupleElement($0.name, $0.type) })),
                    schema,
                ])
            : TypeDeclaration(
                .struct, fieldsName, conformances: ["FieldSet"], members: [schema] + Self.storedFields(fields))
        let fieldsDoc =
            ["The properties of a `\(typeName)`, inherited ones included."]
            + (isTuple ? Self.tableDocumentation(fields, of: structure.name) : [])
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
        var declarations = [
            Declaration(doc: doc, .typeAlias(name: typeName, type: .generic("Model", [.named(fieldsName)]))),
            Declaration(doc: fieldsDoc, .type(fieldsType)),
        ]
        if let variants = structure.variants, let swiftType = mapping.swiftType(variants) {
            // Named in the model's scope, after its fields and the members every model has.
            var taken = usedNames.union(Self.reservedModelMembers)
            let name = SwiftNames.unique("variant", in: &taken)
            let property = Declaration(
                doc: [
                    "Which of the shapes the spec lists (`oneOf`) this object is, read from the same JSON; the",
                    "properties above are the ones every shape shares. Nil when no shape reads it.",
                ],
                .variable(
                    .computed(
                        name, type: .optional(swiftType),
                        getter: [.expression(.call(.type(swiftType), [.init("json", .raw("json"))]))])))
            declarations.append(Declaration(.extension(ExtensionDeclaration(typeName, members: [property]))))
        }
        return declarations
    }

    /// A struct table's members after its schema: a stored `Field` per field, and the initializer that sets them.
    private static func storedFields(_ fields: [TableField]) -> [Declaration] {
        var declarations: [Declaration] = []
        var initializer: [Statement] = []
        for field in fields {
            let doc = field.doc.isEmpty ? [field.remark] : field.doc + ["", field.remark]
            guard !field.isDeprecated else {
                // Set where it is declared: an assignment in `init()` would be a use of a deprecated property.
                declarations.append(
                    Declaration(
                        doc: doc, attributes: [.deprecated],
                        .variable(.stored(field.name, type: field.type, value: field.value))))
                continue
            }
            declarations.append(Declaration(doc: doc, .variable(.stored(field.name, type: field.type))))
            initializer.append(.assignment(.raw("self.\(field.label)"), field.value))
        }
        // Private: only `schema` calls it, so the optimizer inlines it there and does not compile it on its own. One
        // function fewer per model: 50 tables of 40 fields built in release in 9.7 s instead of 12.6 s; in the full
        // Graph module it lowered the release build's peak memory (4.00 → 3.69 GiB) more than its time.
        var fieldsInitializer = FunctionDeclaration("init", body: initializer)
        fieldsInitializer.isPrivate = true
        return declarations + [Declaration(.function(fieldsInitializer))]
    }

    /// What the spec says of a property beyond its type and description: its one value, who sets it.
    static func notes(on property: PropertySpec) -> [String] {
        var notes: [String] = []
        if let constant = property.constant { notes.append("Always `\(constant)`.") }
        if property.isLeftOutOfRequests {
            notes.append("Set by the service: read it; request bodies leave it out.")
        } else if property.isReadOnly, !property.isWriteOnly {
            notes.append("Set by the service: read it, do not send it.")
        }
        if property.isWriteOnly, !property.isReadOnly {
            notes.append("Sent to the service, never returned by it: answers may leave it out, even when required.")
        }
        return notes
    }

    /// A tuple table's doc comment lines after its summary: a list item per field comment (fields with the same
    /// comment share one), its later lines indented under it, the navigation properties in one item, then where
    /// the inherited fields were declared (a tuple element carries no comment of its own to say it).
    private static func tableDocumentation(_ fields: [TableField], of model: QualifiedName) -> [String] {
        // Fields that share a comment share its entry: the distinct comments in order, with their fields' labels.
        var comments: [(comment: [String], labels: [String])] = []
        var positions: [[String]: Int] = [:]
        for field in fields {
            let comment = field.isNavigation ? field.prose : field.doc
            guard !comment.isEmpty else { continue }
            let label = "`\(field.label)`"
            // One lookup of the comment's text for a new comment, as most are.
            if let position = positions.updateValue(comments.count, forKey: comment) {
                positions[comment] = position
                comments[position].labels.append(label)
            } else {
                comments.append((comment, [label]))
            }
        }
        var lines = comments.flatMap { comment, labels in
            let first = "- \(labels.joined(separator: ", ")): \(comment[0])"
            return [first] + comment.dropFirst().map { $0.isEmpty ? "" : "  " + $0 }
        }
        // By the name `expand(_:)` takes, where the Swift name differs (`schemaValue` is expanded as "schema").
        let navigation = fields.filter(\.isNavigation).map { field in
            field.label == field.wireName ? "`\(field.label)`" : "`\(field.label)` (\(field.wireName.swiftLiteral))"
        }
        if !navigation.isEmpty {
            lines.append(
                "- Present when the request expanded them (`expand(_:)`): \(navigation.joined(separator: ", ")).")
        }
        // Ancestors' fields come first, root first, so each ancestor's fields are one run.
        var inherited: [(owner: QualifiedName, labels: [String])] = []
        for field in fields where field.owner != model {
            if inherited.last?.owner == field.owner {
                inherited[inherited.count - 1].labels.append("`\(field.label)`")
            } else {
                inherited.append((field.owner, ["`\(field.label)`"]))
            }
        }
        if !inherited.isEmpty {
            let sources = inherited.map { "\($0.labels.joined(separator: ", ")) from `\($0.owner)`" }
            lines.append("- Remark: Generated from `\(model)`; inherited \(sources.joined(separator: "; ")).")
        }
        return lines.isEmpty ? [] : [""] + lines
    }

    /// Whether a table can be a labelled tuple: it has two fields or more (Swift has no one-element tuple), and
    /// none is deprecated (a tuple element takes no `@available`).
    private static func fitsTuple(_ fields: [TableField]) -> Bool {
        fields.count >= 2 && !fields.contains(where: \.isDeprecated)
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
            Declaration(doc: doc, .typeAlias(name: typeName, type: .generic("OpenEnum", [.named(valuesName)]))),
            Declaration(
                doc: ["The values of `\(typeName)` that the spec declares; others decode and re-encode too."],
                .type(
                    TypeDeclaration(
                        .enum, valuesName, conformances: [enumeration.isFlags ? "FlagValues" : "EnumValues"],
                        members: [
                            Declaration(
                                .variable(.stored("known", type: .array("String"), value: known, isStatic: true)))
                        ]))),
        ]
        if !members.isEmpty {
            declarations.append(Declaration(.extension(ExtensionDeclaration(typeName, members: members))))
        }
        return declarations
    }

    static let reservedChoiceCases: Set<String> = [
        "other", "json", "choiceSchema", "fieldKind", "choiceDescription", "validateChoice", "hashValue",
    ]

    /// A `oneOf`/`anyOf` → an enum with a case per member and `other` for kinds a newer server may send.
    func translate(_ choice: ChoiceSpec, diagnostics: inout Diagnostics) -> [Declaration] {
        let typeName = symbols.typeName(choice.name)
        var usedNames: Set<String> = []
        var cases: [Declaration] = []
        var schemaMembers: [Expression] = []
        var jsonCases: [Statement.SwitchCase] = []
        for member in choice.members {
            guard let swiftType = mapping.swiftType(member.type) else { continue }
            // A member named after the choice (`ContactVariantPerson` in `ContactVariant`) is the case `person`.
            var preferred = caseName(of: member.type)
            if preferred.count > typeName.count, preferred.hasPrefix(typeName),
                preferred.dropFirst(typeName.count).first?.isUppercase == true
            {
                preferred = String(preferred.dropFirst(typeName.count))
            }
            let name = memberName(
                preferred, owner: choice.name, reserved: Self.reservedChoiceCases, used: &usedNames)
            var doc: [String] = []
            if !member.tags.isEmpty {
                doc = [
                    "When `\(choice.discriminator ?? "")` is \(member.tags.map { "`\($0)`" }.joined(separator: " or "))."
                ]
            }
            cases.append(Declaration(doc: doc, .enumCase(name: name, associatedValues: [swiftType])))
            var arguments: [Expression.Argument] = [.init(.metatype(swiftType))]
            if !member.tags.isEmpty { arguments.append(.init("tags", .array(member.tags.map { .string($0) }))) }
            arguments.append(.init(.raw("Self.\(name)")))
            schemaMembers.append(.dot("member", arguments))
            jsonCases.append(.init(name, binding: "value", [.return(.raw("value.json"))]))
        }
        jsonCases.append(.init("other", binding: "json", [.return(.raw("json"))]))
        let otherDoc =
            choice.discriminator.map {
                "A value whose `\($0)` names none of the cases above (a kind added later), as sent."
            }
            ?? "Any other JSON. Decoding never gives it: a value no case above reads fails to decode."
        cases.append(Declaration(doc: [otherDoc], .enumCase(name: "other", associatedValues: ["JSONValue"])))

        var schemaArguments: [Expression.Argument] = [.init(.string(choice.name.description))]
        if let discriminator = choice.discriminator {
            schemaArguments.append(.init("discriminator", .string(discriminator)))
        }
        schemaArguments.append(.init("members", .array(schemaMembers)))
        let members =
            cases + [
                Declaration(
                    .variable(
                        .stored(
                            "choiceSchema", type: nil,
                            value: .call(.type(.generic("ChoiceSchema", ["Self"])), schemaArguments),
                            isStatic: true))),
                Declaration(
                    .variable(.computed("json", type: "JSONValue", getter: [.switch(.raw("self"), jsonCases)]))),
            ]
        var doc = DocComment.lines(choice.doc, remark: choice.name.description)
        let how =
            choice.discriminator.map { "One of the cases below, chosen by `\($0)`." }
            ?? "One of the cases below: the first that reads the value (among objects, the one declaring most of its members)."
        doc.insert(contentsOf: [how, ""], at: doc.count - 1)
        return [
            Declaration(
                doc: doc,
                .type(
                    TypeDeclaration(
                        .enum, typeName, conformances: ["JSONChoice"], members: members,
                        isIndirect: holdsAChoice(choice))))
        ]
    }

    /// Whether a case holds a choice itself (not inside an array or a map): such a choice may hold itself
    /// through it (`A` is a `B` or a string, `B` an `A` or a number), which Swift stores only `indirect`.
    private func holdsAChoice(_ choice: ChoiceSpec) -> Bool {
        choice.members.contains { member in
            guard case .named(let name) = member.type else { return false }
            return choiceNames.contains(name)
        }
    }

    /// `File` → `file`, `[String]` → `strings`, `Int64` → `integer`.
    private func caseName(of type: TypeRef) -> String {
        switch type {
        case .named(let name): return symbols.typeName(name)
        case .primitive(let primitive):
            switch primitive {
            case .boolean: return "bool"
            case .byte, .sbyte, .int16, .int32, .int64: return "integer"
            case .single, .double, .decimal: return "number"
            case .untyped: return "value"
            default: return Self.lowercasedFirst(TypeMapping.swiftType(primitive) ?? primitive.rawValue)
            }
        case .collection(let element):
            let name = caseName(of: element)
            return name.hasSuffix("s") ? name + "List" : name + "s"
        case .dictionary(let element): return caseName(of: element) + "Map"
        }
    }

    private static func lowercasedFirst(_ text: String) -> String { text.prefix(1).lowercased() + text.dropFirst() }

    private func memberName(_ name: String, owner: QualifiedName, reserved: Set<String>, used: inout Set<String>)
        -> String
    {
        SwiftNames.unique(symbols.typeSafeMemberName(name, of: owner), reserved: reserved, in: &used)
    }
}
