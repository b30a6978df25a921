import BinderySpec

/// The streaming pass: walks the document's start tags once, as `XMLTagReader` reads them on another thread, and
/// collects raw declarations.
///
/// It keeps only what the spec model needs. Subtrees it does not understand (annotation records, navigation
/// property bindings, vocabulary terms) are passed over.
struct CSDLParser {
    private let path: String
    private var lines: SourceLines
    private var document = RawDocument()
    private var diagnostics = Diagnostics()
    /// The open elements the parser entered and their depths, innermost last.
    private var stack: [(context: Context, depth: Int)] = []
    /// The start tag being read, and the batch whose bytes it points into.
    private var tag = XMLStartTag(element: .other, depth: 0, isEmpty: true, endLine: 1, name: 0..<0, attributes: 0..<0)
    private var batch = XMLTagBatch()
    /// Attribute values of the current element, indexed by `CSDLAttribute.rawValue`.
    private var attributeValues = [String?](repeating: nil, count: CSDLAttribute.allCases.count)
    private var setAttributes: [Int] = []
    private var skippedTerms = 0
    /// Annotation terms classified so far, nil for the ones not kept: a document spells the same few thousands of
    /// times (Graph: 6,000 descriptions). Forgotten when an `edmx:Include` adds an alias.
    private var knownTerms: [String: KnownTerm?] = [:]
    private var firstSkippedTerm: SourceLocation?

    /// Where an element sits, which decides how its children are read.
    private enum Context {
        case edmx, dataServices, reference
        case schema(Int)
        case structure(Int)
        case key(Int)
        case enumType(Int)
        case operation(Int)
        case container(Int)
        case annotationBlock(Int)
        /// A property, parameter, member, ...: only annotations inside it matter.
        case annotatable(AnnotationTarget)
        /// A documentation annotation whose text is in a child `<String>` element.
        case annotation(KnownTerm, AnnotationTarget)
        /// A term whose value is a `<Record>`: a capability restriction (a `Bool` member says whether the operation
        /// is allowed), a storage operation (`String` members).
        case record(KnownTerm, AnnotationTarget)

        var annotationTarget: AnnotationTarget? {
            switch self {
            case .structure(let index): return .structure(index)
            case .enumType(let index): return .enumType(index)
            case .operation(let index): return .operation(index)
            case .container(let index): return .container(index)
            case .annotationBlock(let index): return .block(index)
            case .annotatable(let target): return target
            case .edmx, .dataServices, .reference, .schema, .key, .annotation, .record: return nil
            }
        }
    }

    /// What to do after an element's start tag.
    private enum Step {
        /// Read its children in this context.
        case enter(Context)
        /// Jump past its subtree.
        case skip
    }

    /// Reads `bytes` (kept alive by the caller for the whole call) into raw declarations.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, path: String) -> (RawDocument, Diagnostics) {
        var diagnostics = Diagnostics()
        guard bytes.baseAddress != nil, !bytes.isEmpty, bytes.count <= Int(Int32.max) else {
            diagnostics.error(
                "not a CSDL document: the file is empty or too large",
                at: SourceLocation(file: path, line: 1, column: 1))
            return (RawDocument(), diagnostics)
        }
        var parser = CSDLParser(path: path, lines: SourceLines(bytes))
        parser.run(XMLTagReader(bytes: bytes, path: path))
        return (parser.document, parser.diagnostics)
    }

    private init(path: String, lines: SourceLines) {
        self.path = path
        self.lines = lines
    }

    /// Takes every batch of start tags (the reader thread is done, and `bytes` free to go, once `next()` says so).
    private mutating func run(_ reader: XMLTagReader) {
        // Tags deeper than this are inside a subtree being passed over.
        var skippedDepth = Int.max
        while let batch = reader.next() {
            self.batch = batch
            for tag in batch.tags where tag.depth <= skippedDepth {
                skippedDepth = .max
                // An element is closed once a tag at its depth or above starts.
                while let open = stack.last, open.depth >= tag.depth { stack.removeLast() }
                self.tag = tag
                switch step() {
                case .enter(let context):
                    if !tag.isEmpty { stack.append((context, tag.depth)) }
                case .skip:
                    if !tag.isEmpty { skippedDepth = tag.depth }
                }
            }
        }
        let outcome = reader.outcome
        if outcome.status == -2 {
            diagnostics.error("cannot start the XML parser", at: SourceLocation(file: path, line: 1, column: 1))
        }
        for error in outcome.errors {
            diagnostics.error(
                "malformed XML: \(error.message)",
                at: SourceLocation(file: path, line: error.line, column: error.column))
        }
        if outcome.status == -1 && outcome.errors.isEmpty {
            diagnostics.error("malformed XML", at: SourceLocation(file: path, line: 1, column: 1))
        }
        if let firstSkippedTerm {
            // Terms define annotation vocabularies, not API: nothing to generate, and nothing for the user to do.
            diagnostics.note(
                "skipped \(skippedTerms) Term declaration\(skippedTerms == 1 ? "" : "s"): custom annotation terms are not generated",
                at: firstSkippedTerm)
        }
    }

    // MARK: - Elements

    private mutating func step() -> Step {
        let element = tag.element
        let location = currentLocation()
        readAttributes()
        guard let parent = stack.last?.context else {
            switch element {
            case .edmx: return .enter(.edmx)
            case .schema: return schema(at: location)
            default:
                diagnostics.error(
                    "not a CSDL document: the root element is '\(currentName())', expected 'edmx:Edmx'", at: location)
                return .skip
            }
        }
        switch parent {
        case .edmx:
            switch element {
            case .dataServices: return .enter(.dataServices)
            case .reference: return .enter(.reference)
            default: return .skip
            }
        case .reference:
            if element == .include, let namespace = value(.namespace), let alias = value(.alias) {
                document.vocabularyAliases[alias] = namespace
                knownTerms.removeAll()
            }
            return .skip
        case .dataServices:
            if element == .schema { return schema(at: location) }
            return unsupported(element, in: "DataServices", at: location)
        case .schema(let schema):
            return schemaMember(element, namespace: document.schemas[schema].namespace, at: location)
        case .structure(let structure):
            return structureMember(element, of: structure, at: location)
        case .key(let structure):
            if element == .propertyRef, let name = required(.name, at: location) {
                document.structures[structure].key.append(name)
            }
            return .skip
        case .enumType(let enumIndex):
            return enumMember(element, of: enumIndex, at: location)
        case .operation(let operation):
            return operationMember(element, of: operation, at: location)
        case .container(let container):
            return containerMember(element, of: container, at: location)
        case .annotationBlock, .annotatable:
            if element == .annotation, let target = parent.annotationTarget {
                return annotation(on: target, at: location)
            }
            return .skip
        case .annotation(let term, let target):
            if element == .string {
                document.apply(RawAnnotation(term: term, string: elementText(), bool: true), to: target)
            }
            return .skip
        case .record(let term, let target):
            if element == .record { return .enter(parent) }
            guard element == .propertyValue, let member = value(.property) else { return .skip }
            if let allowed = term.restrictionMember {
                if member == allowed, value(.bool) != nil {
                    document.apply(
                        RawAnnotation(term: term, string: nil, bool: bool(.bool, default: true, at: location)),
                        to: target)
                }
            } else if let text = value(.string) {
                document.apply(
                    RawAnnotation(term: term, string: text, bool: true, member: member, location: location), to: target)
            }
            return .skip
        }
    }

    private mutating func schema(at location: SourceLocation) -> Step {
        guard let namespace = required(.namespace, at: location) else { return .skip }
        document.schemas.append(RawSchema(namespace: namespace, alias: value(.alias), location: location))
        return .enter(.schema(document.schemas.count - 1))
    }

    private mutating func schemaMember(_ element: CSDLElement, namespace: String, at location: SourceLocation) -> Step {
        switch element {
        case .entityType, .complexType:
            guard let name = required(.name, at: location) else { return .skip }
            document.structures.append(
                RawStructure(
                    kind: element == .entityType ? .entity : .complex, namespace: namespace, name: name,
                    baseType: value(.baseType), isAbstract: bool(.abstract, default: false, at: location),
                    isOpen: bool(.openType, default: false, at: location),
                    hasStream: bool(.hasStream, default: false, at: location), location: location))
            return .enter(.structure(document.structures.count - 1))
        case .enumType:
            guard let name = required(.name, at: location) else { return .skip }
            document.enums.append(
                RawEnum(
                    namespace: namespace, name: name, isFlags: bool(.isFlags, default: false, at: location),
                    location: location))
            return .enter(.enumType(document.enums.count - 1))
        case .action, .function:
            guard let name = required(.name, at: location) else { return .skip }
            document.operations.append(
                RawOperation(
                    isAction: element == .action, namespace: namespace, name: name,
                    isBound: bool(.isBound, default: false, at: location),
                    isComposable: bool(.isComposable, default: false, at: location), location: location))
            return .enter(.operation(document.operations.count - 1))
        case .entityContainer:
            guard let name = required(.name, at: location) else { return .skip }
            document.containers.append(RawContainer(namespace: namespace, name: name, location: location))
            return .enter(.container(document.containers.count - 1))
        case .annotations:
            guard let target = required(.target, at: location) else { return .skip }
            document.annotationBlocks.append(RawAnnotationBlock(target: target, location: location))
            return .enter(.annotationBlock(document.annotationBlocks.count - 1))
        case .typeDefinition:
            guard let name = required(.name, at: location), let underlying = required(.underlyingType, at: location)
            else { return .skip }
            document.typeDefinitions.append(
                RawTypeDefinition(namespace: namespace, name: name, underlyingType: underlying, location: location))
            diagnostics.warning(
                "TypeDefinition '\(namespace).\(name)' is not supported; its uses read as \(underlying)", at: location)
            return .skip
        case .term:
            skippedTerms += 1
            if firstSkippedTerm == nil { firstSkippedTerm = location }
            return .skip
        case .annotation:
            // Annotations on a schema itself describe nothing the spec model holds.
            return .skip
        default:
            return unsupported(element, in: "Schema", at: location)
        }
    }

    private mutating func structureMember(_ element: CSDLElement, of structure: Int, at location: SourceLocation)
        -> Step
    {
        switch element {
        case .property:
            guard let name = required(.name, at: location), let type = required(.type, at: location) else {
                return .skip
            }
            document.structures[structure].properties.append(
                RawProperty(
                    name: name, type: type, isNullable: bool(.nullable, default: true, at: location), location: location
                ))
            return .enter(.annotatable(.property(structure, document.structures[structure].properties.count - 1)))
        case .navigationProperty:
            guard let name = required(.name, at: location), let type = required(.type, at: location) else {
                return .skip
            }
            document.structures[structure].navigationProperties.append(
                RawNavigationProperty(
                    name: name, type: type, containsTarget: bool(.containsTarget, default: false, at: location),
                    location: location))
            let index = document.structures[structure].navigationProperties.count - 1
            return .enter(.annotatable(.navigationProperty(structure, index)))
        case .key:
            guard document.structures[structure].kind == .entity else {
                return unsupported(element, in: "ComplexType", at: location)
            }
            return .enter(.key(structure))
        case .annotation:
            return annotation(on: .structure(structure), at: location)
        default:
            let kind = document.structures[structure].kind == .entity ? "EntityType" : "ComplexType"
            return unsupported(element, in: kind, at: location)
        }
    }

    private mutating func enumMember(_ element: CSDLElement, of enumIndex: Int, at location: SourceLocation) -> Step {
        switch element {
        case .member:
            guard let name = required(.name, at: location) else { return .skip }
            var memberValue: Int64?
            if let text = value(.value) {
                memberValue = Int64(text)
                if memberValue == nil {
                    diagnostics.error(
                        "enum member '\(name)' has a Value that is not an integer: '\(text)'", at: location)
                }
            }
            document.enums[enumIndex].members.append(RawMember(name: name, value: memberValue, location: location))
            return .enter(.annotatable(.member(enumIndex, document.enums[enumIndex].members.count - 1)))
        case .annotation:
            return annotation(on: .enumType(enumIndex), at: location)
        default:
            return unsupported(element, in: "EnumType", at: location)
        }
    }

    private mutating func operationMember(_ element: CSDLElement, of operation: Int, at location: SourceLocation)
        -> Step
    {
        switch element {
        case .parameter:
            guard let name = required(.name, at: location), let type = required(.type, at: location) else {
                return .skip
            }
            document.operations[operation].parameters.append(
                RawParameter(
                    name: name, type: type, isNullable: bool(.nullable, default: false, at: location),
                    location: location))
            return .enter(.annotatable(.parameter(operation, document.operations[operation].parameters.count - 1)))
        case .returnType:
            guard let type = required(.type, at: location) else { return .skip }
            document.operations[operation].returnType = RawReturnType(type: type, location: location)
            return .skip
        case .annotation:
            return annotation(on: .operation(operation), at: location)
        default:
            return unsupported(
                element, in: document.operations[operation].isAction ? "Action" : "Function", at: location)
        }
    }

    private mutating func containerMember(_ element: CSDLElement, of container: Int, at location: SourceLocation)
        -> Step
    {
        switch element {
        case .entitySet, .singleton:
            let typeAttribute: CSDLAttribute = element == .entitySet ? .entityType : .type
            guard let name = required(.name, at: location), let type = required(typeAttribute, at: location) else {
                return .skip
            }
            document.containers[container].children.append(
                RawContainerChild(name: name, type: type, isCollection: element == .entitySet, location: location))
            return .enter(.annotatable(.containerChild(container, document.containers[container].children.count - 1)))
        case .functionImport, .actionImport:
            let operationAttribute: CSDLAttribute = element == .actionImport ? .action : .function
            guard let name = required(.name, at: location), let operation = required(operationAttribute, at: location)
            else { return .skip }
            document.containers[container].imports.append(
                RawOperationImport(
                    name: name, isAction: element == .actionImport, operation: operation, location: location))
            return .enter(.annotatable(.operationImport(container, document.containers[container].imports.count - 1)))
        case .annotation:
            return annotation(on: .container(container), at: location)
        default:
            return unsupported(element, in: "EntityContainer", at: location)
        }
    }

    /// An inline `<Annotation>` or one inside an `<Annotations>` block; only the known terms are kept.
    private mutating func annotation(on target: AnnotationTarget, at location: SourceLocation) -> Step {
        guard let termName = required(.term, at: location) else { return .skip }
        let known: KnownTerm?
        if let cached = knownTerms[termName] {
            known = cached
        } else {
            known = KnownTerm(term: termName, vocabularyAliases: document.vocabularyAliases)
            knownTerms[termName] = known
        }
        guard let term = known else { return .skip }
        if term.hasRecord {
            // A record term starts an entry; its members follow as annotations of their own.
            if term == .storageOperation {
                document.apply(RawAnnotation(term: term, string: nil, bool: true, location: location), to: target)
            }
            return .enter(.record(term, target))
        }
        let text = value(.string)
        if term.isDocumentation && text == nil {
            return .enter(.annotation(term, target))
        }
        document.apply(
            RawAnnotation(term: term, string: text, bool: bool(.bool, default: true, at: location)), to: target)
        return .skip
    }

    private mutating func unsupported(_ element: CSDLElement, in parentName: String, at location: SourceLocation)
        -> Step
    {
        switch element {
        case .navigationPropertyBinding, .referentialConstraint, .onDelete:
            // Server-side details with no bearing on a client.
            return .skip
        default:
            diagnostics.warning("unsupported element '\(currentName())' in \(parentName) skipped", at: location)
            return .skip
        }
    }

    // MARK: - Attributes and text

    private mutating func readAttributes() {
        for index in setAttributes { attributeValues[index] = nil }
        setAttributes.removeAll(keepingCapacity: true)
        for (attribute, value) in batch.attributes[tag.attributes] {
            attributeValues[attribute.rawValue] = text(value)
            setAttributes.append(attribute.rawValue)
        }
    }

    /// Bytes of the batch as text.
    private func text(_ range: Range<Int>) -> String {
        String(decoding: batch.bytes[range], as: UTF8.self)
    }

    private func value(_ attribute: CSDLAttribute) -> String? {
        attributeValues[attribute.rawValue]
    }

    /// An attribute CSDL requires; a missing or empty one is an error naming the element and the attribute.
    private mutating func required(_ attribute: CSDLAttribute, at location: SourceLocation) -> String? {
        if let text = value(attribute), !text.isEmpty { return text }
        diagnostics.error("\(currentName()) is missing the required attribute '\(attribute.spelling)'", at: location)
        return nil
    }

    private mutating func bool(_ attribute: CSDLAttribute, default defaultValue: Bool, at location: SourceLocation)
        -> Bool
    {
        switch value(attribute) {
        case nil: return defaultValue
        case "true", "1": return true
        case "false", "0": return false
        case let text?:
            diagnostics.warning(
                "\(attribute.spelling)=\"\(text)\" is not a Boolean; using \(defaultValue)", at: location)
            return defaultValue
        }
    }

    /// The text content of the current element (for `<String>` annotation values).
    private func elementText() -> String? {
        tag.text.map(text)
    }

    /// The current element's name as written (with prefix); only built for messages.
    private func currentName() -> String {
        tag.name.isEmpty ? "element" : text(tag.name)
    }

    private mutating func currentLocation() -> SourceLocation {
        let start = batch.bytes.withUnsafeBufferPointer { bytes in
            lines.startOfTag(UnsafeBufferPointer(rebasing: bytes[tag.name]), endingOn: tag.endLine)
        }
        return SourceLocation(file: path, line: start.line, column: start.column)
    }
}
