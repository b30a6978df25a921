import BinderySpec

/// One node of the path tree: a path segment, the path item written for it (if any), and deeper segments.
///
/// A class because the tree is built by walking down from the root and appending in place.
final class OpenAPIPathNode {
    enum Segment: Equatable {
        case root
        case literal(String)
        case parameter(String)
        /// Text and parameters in one segment (`thumbnail.{extension}`), written as the template says.
        case template(String)
    }

    let segment: Segment
    private(set) var children: [OpenAPIPathNode] = []
    /// The path as the document writes it, when a path item sits exactly here.
    var template: String?
    var pathItem: OpenAPINode?
    var operations: [OpenAPIReadOperation] = []
    /// `x-bindery-resource` of this node's path item.
    var resourceName: (name: String, node: OpenAPINode)?
    /// For a parameter node: the first template that used it, for messages about differing names.
    var firstTemplate: String?

    init(segment: Segment) { self.segment = segment }

    var isParameter: Bool {
        if case .parameter = segment { return true }
        return false
    }

    var parameterChild: OpenAPIPathNode? { children.first { $0.isParameter } }

    /// The child for a segment, created at the end if new. All parameters at one level share a node, as
    /// `/n/{a}` and `/n/{b}` are the same URL shape.
    func child(for segment: Segment) -> OpenAPIPathNode {
        if let existing = children.first(where: {
            $0.segment == segment || ($0.isParameter && Self.isParameter(segment))
        }) {
            return existing
        }
        let node = OpenAPIPathNode(segment: segment)
        children.append(node)
        return node
    }

    private static func isParameter(_ segment: Segment) -> Bool {
        if case .parameter = segment { return true }
        return false
    }

    /// The first path item at or under this node, to place a message about the whole subtree.
    var firstPathItem: (template: String, node: OpenAPINode)? {
        if let template, let pathItem { return (template, pathItem) }
        for child in children {
            if let found = child.firstPathItem { return found }
        }
        return nil
    }

    /// The GET of this node's path item, if any.
    var get: OpenAPIReadOperation? { operations.first { $0.method == .get } }

    /// Nothing is written here or below.
    var isEmpty: Bool { children.isEmpty && operations.isEmpty && pathItem == nil }

    func remove(_ child: OpenAPIPathNode) { children.removeAll { $0 === child } }
}

/// Builds the resource graph from `paths`.
///
/// Rules, applied from the root down (see `Docs/OpenAPIExtensions.md`):
/// - `literal/{param}` is a collection step to the item resource. Methods on `literal` are the item
///   resource's collection operations (GET list, POST create); methods on `{param}` are its operations.
/// - A literal without `{param}` after it is a single step to its own resource when it has deeper paths or
///   a GET returning a JSON object (`/n/{ns}/delta`).
/// - Any other literal leaf is an operation of the parent resource with that segment as its path suffix
///   (GET → function, others → action).
final class OpenAPIPathTreeReader {
    private let context: OpenAPIContext
    private let operationReader: OpenAPIOperationReader
    private let extensions: OpenAPIExtensionReader
    private let namespace: String
    private let root = OpenAPIPathNode(segment: .root)
    private var resourceNames = OpenAPINameRegistry()
    private(set) var resources: [ResourceSpec] = []

    init(context: OpenAPIContext, operationReader: OpenAPIOperationReader, namespace: String) {
        self.context = context
        self.operationReader = operationReader
        self.extensions = OpenAPIExtensionReader(context: context)
        self.namespace = namespace
    }

    var rootResourceName: QualifiedName { QualifiedName(namespace: namespace, name: "Service") }

    func read() {
        if let paths = context.root["paths"] {
            if paths.isObject {
                for (template, pathItem) in paths.members { addPath(template, pathItem: pathItem) }
            } else {
                context.error("paths must be an object, found \(paths.value.kindName)", at: paths)
            }
        }
        adoptLists(under: root)
        resourceNames.reserve(rootResourceName.name)
        resources.append(ResourceSpec(name: rootResourceName, doc: Documentation(summary: "The service root.")))
        addOperations(of: root, to: 0)
        attachChildren(of: root, to: 0)
        OpenAPIOperationNames.renamePathSpelledOperations(in: &resources, names: pathSpelledNames)
    }

    /// Reads the GETs that list as the list found inside their answer: a collection's always (`literal/{id}`
    /// follows), another literal's when the answer shows how it pages, any GET where `x-bindery-paging` says so. An
    /// item's GET otherwise answers the item.
    private func adoptLists(under node: OpenAPIPathNode) {
        var isLiteral = false
        if case .literal = node.segment { isLiteral = true }
        for index in node.operations.indices where node.operations[index].method == .get {
            guard let candidate = node.operations[index].listCandidate,
                candidate.isExplicit || (isLiteral && (node.parameterChild != nil || candidate.pages))
            else { continue }
            operationReader.adoptList(&node.operations[index])
        }
        for child in node.children { adoptLists(under: child) }
    }

    /// The `operationId`s that only spell their method and path, which `OpenAPIOperationNames` replaces.
    private var pathSpelledNames: Set<String> = []

    // MARK: Building the tree

    private func addPath(_ template: String, pathItem: OpenAPINode) {
        guard template.hasPrefix("/") else {
            context.warning("path '\(template)' does not start with '/'; skipped", at: pathItem)
            return
        }
        // A `#fragment` is never sent: documents use it to describe more operations at one URL.
        let urlTemplate = template.split(separator: "#", maxSplits: 1).first.map(String.init) ?? template
        let isAlternative = urlTemplate != template
        var segments: [OpenAPIPathNode.Segment] = []
        for part in urlTemplate.split(separator: "/") {
            let text = String(part)
            if text.hasPrefix("{"), text.hasSuffix("}"), text.count > 2,
                !text.dropFirst().dropLast().contains(where: { $0 == "{" || $0 == "}" })
            {
                segments.append(.parameter(String(text.dropFirst().dropLast())))
            } else if text.contains("{") || text.contains("}") {
                guard Self.isWellFormedTemplate(text) else {
                    context.warning(
                        "path '\(template)': the segment '\(text)' has unbalanced or nested braces; skipped",
                        at: pathItem)
                    return
                }
                segments.append(.template(text))
            } else {
                segments.append(.literal(text))
            }
        }
        var node = root
        var renamedKeys: [String] = []
        for segment in segments {
            node = node.child(for: segment)
            if case .parameter(let name) = segment {
                if let first = node.firstTemplate, case .parameter(let existing) = node.segment, existing != name {
                    renamedKeys.append(
                        "path '\(template)' names the parameter '{\(name)}' where '\(first)' has '{\(existing)}'; the key is named '\(existing)'"
                    )
                } else if node.firstTemplate == nil {
                    node.firstTemplate = template
                }
            }
        }
        // `/_inference/{task_type}/{ai21_inference_id}` beside `/_inference/{task_type}/{inference_id}`: another
        // description of the same URLs (a body per provider), so its operations are named methods, as a fragment's,
        // and its own names for the keys say nothing new.
        if isAlternative || node.template != nil {
            readPathItem(pathItem, template: template, segments: segments, into: node, isAlternative: true)
            return
        }
        for message in renamedKeys { context.warning(message, at: pathItem) }
        node.template = template
        node.pathItem = pathItem
        readPathItem(pathItem, template: template, segments: segments, into: node)
    }

    /// `thumbnail.{extension}`: braces in pairs, each around a name.
    private static func isWellFormedTemplate(_ text: String) -> Bool {
        var isOpen = false
        var nameLength = 0
        for character in text {
            switch character {
            case "{":
                if isOpen { return false }
                isOpen = true
                nameLength = 0
            case "}":
                if !isOpen || nameLength == 0 { return false }
                isOpen = false
            default:
                if isOpen { nameLength += 1 }
            }
        }
        return !isOpen
    }

    /// The parameter names of a template segment, in order.
    static func parameterNames(in text: String) -> [String] {
        text.split(separator: "{", omittingEmptySubsequences: true).dropFirst(text.hasPrefix("{") ? 0 : 1)
            .compactMap { part in part.split(separator: "}", maxSplits: 1).first.map(String.init) }
    }

    private func readPathItem(
        _ pathItem: OpenAPINode, template: String, segments: [OpenAPIPathNode.Segment], into node: OpenAPIPathNode,
        isAlternative: Bool = false
    ) {
        guard pathItem.isObject else {
            context.error("a path item must be an object, found \(pathItem.value.kindName)", at: pathItem)
            return
        }
        extensions.checkExtensionNames(of: pathItem, at: .pathItem)
        if let reference = pathItem["$ref"] {
            context.warning("path item $ref is not supported; path '\(template)' skipped", at: reference)
            return
        }
        if !isAlternative, let nameNode = pathItem["x-bindery-resource"], let name = extensions.resourceName(nameNode) {
            node.resourceName = (name, nameNode)
        }
        let templateParameters = segments.flatMap { segment -> [String] in
            switch segment {
            case .parameter(let name): return [name]
            case .template(let text): return Self.parameterNames(in: text)
            case .root, .literal: return []
            }
        }
        let mixedSegmentParameters = Set(
            segments.flatMap { segment -> [String] in
                if case .template(let text) = segment { return Self.parameterNames(in: text) }
                return []
            })
        for (key, operation) in pathItem.members {
            guard let method = HTTPMethod(rawValue: key.uppercased()), key == key.lowercased() else { continue }
            let fallbackName = key + Self.segmentName(segments)
            if let read = operationReader.read(
                method: method, operation: operation, pathItem: pathItem, template: template,
                templateParameters: templateParameters, mixedSegmentParameters: mixedSegmentParameters,
                fallbackName: fallbackName)
            {
                var read = read
                if isAlternative {
                    read.isAlternative = true
                    read.isNamedByPath = false
                    // Named by its fragment (`get_shared_link`), which says what it does at the shared URL.
                    if template.contains("#"), let fragment = template.split(separator: "#", maxSplits: 1).last,
                        !fragment.isEmpty
                    {
                        read.name = String(fragment)
                    }
                }
                if read.isNamedByPath { pathSpelledNames.insert(read.name) }
                node.operations.append(read)
            }
        }
    }

    /// The `<Segment>` of a generated operation name: the last literal, plus `Item` when a parameter follows it.
    private static func segmentName(_ segments: [OpenAPIPathNode.Segment]) -> String {
        guard let last = segments.last else { return "Service" }
        switch last {
        case .literal(let text), .template(let text): return OpenAPINaming.upperFirst(text)
        case .parameter, .root:
            let literal = segments.reversed().lazy.compactMap { segment -> String? in
                if case .literal(let text) = segment { return text }
                return nil
            }.first
            return OpenAPINaming.upperFirst(literal ?? "") + "Item"
        }
    }

    // MARK: Building resources

    private func attachChildren(of node: OpenAPIPathNode, to resource: Int) {
        for child in node.children {
            switch child.segment {
            case .root:
                continue
            case .parameter(let name):
                // After a literal a key is a collection's item (`addCollection`), so here it follows a key or is
                // first in the path (Elasticsearch's `/{index}/_search`): a collection without a segment.
                addSecondKey(name, item: child, under: resource)
            case .template(let text):
                // A leaf such as `thumbnail.{extension}`: an operation of the parent, its parameters in the suffix.
                guard child.children.isEmpty else {
                    skip(child, because: "'\(text)' mixes text and parameters and has deeper paths")
                    continue
                }
                for operation in child.operations {
                    resources[resource].operations.append(
                        contentsOf: operation.specs(kind: Self.namedKind(operation.method), pathSuffix: [text]))
                }
            case .literal(let literal):
                if let item = child.parameterChild {
                    addCollection(literal, collection: child, item: item, under: resource)
                } else if !child.children.isEmpty || child.get?.returnsJSONObject == true {
                    addSingle(literal, node: child, under: resource)
                } else {
                    if let named = child.resourceName {
                        context.warning(
                            "x-bindery-resource is ignored: '\(child.template ?? literal)' is an operation, not a resource",
                            at: named.node)
                    }
                    for operation in child.operations {
                        resources[resource].operations.append(
                            contentsOf: operation.specs(
                                kind: operation.method == .get ? .function : .action, pathSuffix: [literal]))
                    }
                }
            }
        }
    }

    private func addCollection(
        _ literal: String, collection: OpenAPIPathNode, item: OpenAPIPathNode, under parent: Int,
        onCollection: Bool = false
    ) {
        guard case .parameter(let keyName) = item.segment else { return }
        let candidates = [
            explicitName(item: item, collection: collection),
            item.get?.responseSchemaName,
            collection.get?.responseSchemaName,
        ]
        let name = resourceName(candidates.compactMap { $0 }.first ?? OpenAPINaming.singular(literal), parent: parent)
        let itemIndex = newResource(
            name: name, model: item.get?.model ?? collection.get?.model,
            doc: documentation(of: item.pathItem ?? collection.pathItem), location: item.pathItem ?? collection.pathItem
        )
        var child = ChildSpec(
            name: literal, segment: literal, target: resources[itemIndex].name, isCollection: true,
            keyName: keyName,
            doc: documentation(of: collection.pathItem))
        child.isOnCollection = onCollection
        resources[parent].children.append(child)
        resources[itemIndex].collectionOperations += takeViews(under: collection, items: resources[itemIndex].model)

        for operation in collection.operations {
            let kind: OperationSpec.Kind
            switch operation.method {
            case _ where operation.isAlternative: kind = Self.namedKind(operation.method)
            case .get:
                kind = .list
                if !operation.returnsList, operation.response?.isRawBody != true, operation.response?.type != nil {
                    let reason = operation.listWarning.map { ": \($0)" } ?? ""
                    context.warning(
                        "GET '\(collection.template ?? literal)' lists a collection but its response is not a list; its type is used as declared\(reason)",
                        at: collection.pathItem?["get"] ?? context.root)
                }
            case .post: kind = .create
            default: kind = .action
            }
            resources[itemIndex].collectionOperations.append(contentsOf: operation.specs(kind: kind))
        }
        addOperations(of: item, to: itemIndex)

        // `threads/search`: operations on the collection with a suffix; a literal with deeper paths
        // (`files/upload_sessions/{id}`) is a step from the collection's URL.
        for other in collection.children where !other.isParameter {
            guard case .literal(let suffix) = other.segment else { continue }
            if let otherItem = other.parameterChild {
                addCollection(suffix, collection: other, item: otherItem, under: itemIndex, onCollection: true)
                continue
            }
            guard other.children.isEmpty else {
                addSingle(suffix, node: other, under: itemIndex, onCollection: true)
                continue
            }
            for operation in other.operations {
                resources[itemIndex].collectionOperations.append(
                    contentsOf: operation.specs(
                        kind: operation.method == .get ? .function : .action, pathSuffix: [suffix]))
            }
        }
        attachChildren(of: item, to: itemIndex)
    }

    /// `contacts/tags/{TagName}`, `accounts/by/office/{Id}`, `contacts/export/all`: a leaf two or more segments under
    /// a collection, whose only method is a GET that lists the collection's own items, is the collection filtered,
    /// not a resource of its own. So is one that lists what a literal above it lists (`listings/rules` and
    /// `listings/rules/propertytypes/{PropertyType}`, both rules): that literal's list filtered. Each becomes the
    /// collection's function, a key in it an argument (`contacts.listByTag(tagName:)`), and leaves the tree, so the
    /// literals before it read as they would alone (`contacts/tags` still lists tags).
    private func takeViews(under collection: OpenAPIPathNode, items model: TypeRef?) -> [OperationSpec] {
        guard let model else { return [] }
        var views: [OperationSpec] = []
        func isView(_ node: OpenAPIPathNode, of models: [TypeRef]) -> Bool {
            guard node.children.isEmpty, node.operations.count == 1, let get = node.get, get.returnsList,
                let listed = get.model
            else { return false }
            return models.contains(listed)
        }
        func walk(_ node: OpenAPIPathNode, suffix: [String], models: [TypeRef]) {
            for child in node.children {
                switch child.segment {
                case .literal(let literal) where !suffix.isEmpty && isView(child, of: models):
                    views += child.operations[0].specs(kind: .function, pathSuffix: suffix + [literal])
                    node.remove(child)
                case .literal(let literal):
                    let listed = child.get.flatMap { $0.returnsList ? $0.model : nil }
                    walk(child, suffix: suffix + [literal], models: models + (listed.map { [$0] } ?? []))
                    if child.isEmpty { node.remove(child) }
                case .parameter(let key) where !suffix.isEmpty && isView(child, of: models):
                    var get = child.operations[0]
                    get.parameters.insert(contentsOf: get.pathParameters.filter { $0.name == key }, at: 0)
                    views += get.specs(kind: .function, pathSuffix: suffix + ["{\(key)}"])
                    node.remove(child)
                default:
                    continue
                }
            }
        }
        walk(collection, suffix: [], models: [model])
        return views
    }

    /// `metadata/{scope}/{template_key}`: a key right after a key, or first in the path. The items of a collection
    /// with no segment of its own, named after the key (`metadata("enterprise").templates("invoice")`).
    private func addSecondKey(_ keyName: String, item: OpenAPIPathNode, under parent: Int) {
        let plural = OpenAPINaming.pluralOfKey(keyName)
        let candidate =
            item.resourceName?.name ?? item.get?.responseSchemaName ?? OpenAPINaming.singular(plural)
        let index = newResource(
            name: resourceName(candidate, parent: parent), model: item.get?.model,
            doc: documentation(of: item.pathItem), location: item.pathItem)
        resources[parent].children.append(
            ChildSpec(
                name: plural, segment: "", target: resources[index].name, isCollection: true, keyName: keyName,
                doc: documentation(of: item.pathItem)))
        addOperations(of: item, to: index)
        attachChildren(of: item, to: index)
    }

    private func addSingle(_ literal: String, node: OpenAPIPathNode, under parent: Int, onCollection: Bool = false) {
        let candidate = node.resourceName?.name ?? node.get?.responseSchemaName ?? OpenAPINaming.singular(literal)
        let index = newResource(
            name: resourceName(candidate, parent: parent), model: node.get?.model,
            doc: documentation(of: node.pathItem),
            location: node.pathItem)
        var child = ChildSpec(
            name: literal, segment: literal, target: resources[index].name, isCollection: false,
            doc: documentation(of: node.pathItem))
        child.isOnCollection = onCollection
        resources[parent].children.append(child)
        addOperations(of: node, to: index)
        attachChildren(of: node, to: index)
    }

    /// Methods on a resource's own URL: GET get, PATCH update, PUT replace, DELETE delete, others are actions.
    /// A GET marked as a delta query is a function: it asks for changes rather than reading the resource.
    private func addOperations(of node: OpenAPIPathNode, to resource: Int) {
        for operation in node.operations {
            let kind: OperationSpec.Kind
            switch operation.method {
            case _ where operation.isAlternative: kind = Self.namedKind(operation.method)
            case .get: kind = operation.response?.delta == nil ? .get : .function
            case .patch: kind = .update
            case .put: kind = .replace
            case .delete: kind = .delete
            case .head: kind = .function
            case .post, .options, .trace: kind = .action
            }
            resources[resource].operations.append(contentsOf: operation.specs(kind: kind))
        }
    }

    /// The kind of an operation that is a named method rather than the resource's own get, update or delete.
    private static func namedKind(_ method: HTTPMethod) -> OperationSpec.Kind {
        method == .get || method == .head ? .function : .action
    }

    /// `x-bindery-resource` on the item path item or the collection's; they must agree.
    private func explicitName(item: OpenAPIPathNode, collection: OpenAPIPathNode) -> String? {
        if let itemName = item.resourceName, let collectionName = collection.resourceName,
            itemName.name != collectionName.name
        {
            context.error(
                "x-bindery-resource '\(collectionName.name)' differs from '\(itemName.name)' on the item path of the same collection",
                at: collectionName.node)
        }
        return item.resourceName?.name ?? collection.resourceName?.name
    }

    /// A free resource name: the candidate, else prefixed with the parent's name, else numbered.
    private func resourceName(_ candidate: String, parent: Int) -> String {
        if resourceNames.reserve(candidate) { return candidate }
        return resourceNames.unique(OpenAPINaming.joined(resources[parent].name.name, candidate))
    }

    private func newResource(name: String, model: TypeRef?, doc: Documentation, location: OpenAPINode?) -> Int {
        resources.append(
            ResourceSpec(
                name: QualifiedName(namespace: namespace, name: name), model: model, doc: doc,
                location: location.map(context.location(of:))))
        return resources.count - 1
    }

    private func documentation(of pathItem: OpenAPINode?) -> Documentation {
        guard let pathItem else { return Documentation() }
        return pathItem.documentation(summaryKey: "summary")
    }

    private func skip(_ node: OpenAPIPathNode, because reason: String) {
        guard let first = node.firstPathItem else { return }
        context.warning(
            "path '\(first.template)' and the others that share its prefix are skipped: \(reason)", at: first.node)
    }
}
