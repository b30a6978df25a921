import BinderySpec

/// The `x-bindery-*` vocabulary and its validation. `Docs/OpenAPIExtensions.md` describes the same rules for
/// spec authors; keep the two in step.
///
/// Every bad value is an error at its own location: a silently ignored typo in a convention would produce a
/// client that pages or unwraps wrongly, which is far harder to find than a compile-time message.
struct OpenAPIExtensionReader {
    let context: OpenAPIContext

    /// Which `x-bindery-*` extensions each kind of OpenAPI object may carry.
    enum Site: String {
        case document = "the document root"
        case pathItem = "a path item"
        case operation = "an operation"
        case schema = "a schema"

        var allowed: [String] {
            switch self {
            case .document: return ["x-bindery-namespace", "x-bindery-conventions"]
            case .pathItem: return ["x-bindery-resource"]
            case .operation: return ["x-bindery-paging", "x-bindery-delta", "x-bindery-envelope", "x-bindery-variants"]
            case .schema: return ["x-bindery-key", "x-bindery-loose"]
            }
        }
    }

    /// Reports `x-bindery-*` members that do not belong on this object; other `x-` extensions are not ours.
    func checkExtensionNames(of node: OpenAPINode, at site: Site) {
        for (key, value) in node.members where key.hasPrefix("x-bindery-") && !site.allowed.contains(key) {
            let allowed = site.allowed.joined(separator: ", ")
            context.error("unknown extension '\(key)' on \(site.rawValue) (allowed here: \(allowed))", at: value)
        }
    }

    // MARK: Document conventions

    /// Reads `x-bindery-conventions`; every key is optional.
    func conventions(_ node: OpenAPINode?) -> Conventions {
        var conventions = Conventions(
            envelope: .none, paging: .none, delta: nil, errors: .common, queryOptions: .declared)
        guard let node else { return conventions }
        let name = "x-bindery-conventions"
        guard requireObject(node, name) else { return conventions }
        checkKeys(node, name, allowed: ["envelope", "paging", "delta", "errors", "queryOptions", "select"])
        if let envelopeNode = node["envelope"], let envelope = envelope(envelopeNode) {
            conventions.envelope = envelope
        }
        if let pagingNode = node["paging"], let paging = paging(pagingNode, name: "\(name).paging") {
            conventions.paging = paging.paging
        }
        if let deltaNode = node["delta"] {
            conventions.delta = delta(deltaNode, name: "\(name).delta")
        }
        if let errorsNode = node["errors"], let errors = errorShape(errorsNode, name: "\(name).errors") {
            conventions.errors = errors
        }
        if let optionsNode = node["queryOptions"],
            let options = keyword(
                optionsNode, "\(name).queryOptions", as: QueryOptionStyle.self, choices: ["odata", "declared"])
        {
            conventions.queryOptions = options
        }
        if let selectNode = node["select"] {
            guard let parameter = selectNode.string, !parameter.isEmpty else {
                context.error(
                    "\(name).select must be the name of a query parameter, found \(describe(selectNode))",
                    at: selectNode)
                return conventions
            }
            conventions.selectParameter = parameter
        }
        return conventions
    }

    /// `"odata"`, `"common"`, or where each part sits: `{"code": ["D", "Code"], "message": ["D", "Message"]}`, a
    /// part's value one path or a list of paths tried in order.
    func errorShape(_ node: OpenAPINode, name: String) -> ErrorShape? {
        switch node.string {
        case "odata": return .odata
        case "common": return .common
        case nil where node.isObject: break
        default:
            context.error(
                "\(name) must be \"odata\", \"common\" or an object of paths, found \(describe(node))", at: node)
            return nil
        }
        let parts = ["code", "message", "details", "requestID", "date", "helpURL"]
        checkKeys(node, name, allowed: parts)
        var paths: [String: [[String]]] = [:]
        for part in parts {
            guard let value = node[part] else { continue }
            let partName = "\(name).\(part)"
            // One path is an array of names; several are an array of such arrays.
            if let elements = value.elements, elements.first?.elements != nil {
                let list = elements.compactMap { path($0, partName) }
                guard list.count == elements.count else { return nil }
                paths[part] = list
            } else {
                guard let one = path(value, partName) else { return nil }
                paths[part] = [one]
            }
        }
        guard paths["code"] != nil, paths["message"] != nil else {
            context.error("\(name) needs \"code\" and \"message\"", at: node)
            return nil
        }
        return ErrorShape(
            code: paths["code"] ?? [], message: paths["message"] ?? [], details: paths["details"] ?? [],
            requestID: paths["requestID"] ?? [], date: paths["date"] ?? [], helpURL: paths["helpURL"] ?? [])
    }

    /// `{"results": ["D", "Results"], "request": ["D"]}`, or the string `"none"`.
    func envelope(_ node: OpenAPINode) -> Envelope? {
        let name = "x-bindery-conventions.envelope"
        if node.string == "none" { return Envelope.none }
        guard node.isObject else {
            context.error(
                "\(name) must be an object {\"results\": [...], \"request\": [...]} or \"none\", found \(node.value.kindName)",
                at: node)
            return nil
        }
        checkKeys(node, name, allowed: ["results", "request"])
        guard let resultsNode = node["results"] else {
            context.error(
                "\(name) needs \"results\": the JSON path of the payload in a response, such as [\"D\", \"Results\"]",
                at: node)
            return nil
        }
        guard let results = path(resultsNode, "\(name).results") else { return nil }
        var request: [String] = []
        if let requestNode = node["request"] {
            guard let requestPath = path(requestNode, "\(name).request", allowEmpty: true) else { return nil }
            request = requestPath
        }
        return .wrapped(resultsPath: results, requestPath: request)
    }

    /// One of the paging shapes, selected by `style`. An operation's own paging (`items: true`) may also say where
    /// its list's items sit (`"items": ["data"]`).
    func paging(_ node: OpenAPINode, name: String, items: Bool = false) -> (paging: PagingStyle, items: [String]?)? {
        guard requireObject(node, name) else { return nil }
        let styles = "pageNumber, offset, cursor, afterLastItem, nextLink, none"
        guard let styleNode = node["style"] else {
            context.error("\(name) needs \"style\": one of \(styles)", at: node)
            return nil
        }
        guard let style = styleNode.string else {
            context.error("\(name).style must be a string, found \(styleNode.value.kindName)", at: styleNode)
            return nil
        }
        var itemsPath: [String]?
        if items, let itemsNode = node["items"] {
            guard let path = memberPath(itemsNode, "\(name).items") else { return nil }
            itemsPath = path
        }
        /// The keys a style allows, besides `style` (and `items` on an operation).
        func allow(_ keys: String...) { checkKeys(node, name, allowed: ["style"] + (items ? ["items"] : []) + keys) }
        let paging: PagingStyle
        switch style {
        case "pageNumber":
            allow("page", "size", "extraQuery", "totalPages")
            let page = requiredString(node, "page", in: name)
            // Both optional: without `size` the service's page size is used, without `totalPages` a short or
            // empty page is the last.
            let size = node["size"] == nil ? "" : requiredString(node, "size", in: name)
            let totalPages =
                node["totalPages"] == nil ? [] : node["totalPages"].flatMap { path($0, "\(name).totalPages") }
            var extraQuery: [String: String] = [:]
            if let extraNode = node["extraQuery"] {
                guard let extra = stringMap(extraNode, "\(name).extraQuery") else { return nil }
                extraQuery = extra
            }
            guard let page, let size, let totalPages else { return nil }
            paging = .pageNumber(
                pageParameter: page, sizeParameter: size.isEmpty ? nil : size, extraQuery: extraQuery,
                totalPagesPath: totalPages)
        case "offset":
            allow("offset", "limit")
            let offset = requiredString(node, "offset", in: name)
            let limit = requiredString(node, "limit", in: name)
            guard let offset, let limit else { return nil }
            paging = .offset(offsetParameter: offset, limitParameter: limit)
        case "cursor":
            allow("field", "parameter", "hasMore")
            let field = requiredPath(node, "field", in: name)
            let parameter = requiredString(node, "parameter", in: name)
            let hasMore = node["hasMore"].map { memberPath($0, "\(name).hasMore") }
            guard let field, let parameter, hasMore != .some(nil) else { return nil }
            paging = .cursor(responsePath: field, requestParameter: parameter, hasMore: hasMore ?? nil)
        case "afterLastItem":
            allow("key", "parameter", "hasMore")
            let key = requiredString(node, "key", in: name)
            let parameter = requiredString(node, "parameter", in: name)
            let hasMore = requiredPath(node, "hasMore", in: name)
            guard let key, let parameter, let hasMore else { return nil }
            paging = .afterLastItem(key: key, requestParameter: parameter, hasMore: hasMore)
        case "nextLink":
            allow("field")
            guard let field = requiredPath(node, "field", in: name) else { return nil }
            paging = .nextLink(path: field)
        case "none":
            allow()
            paging = PagingStyle.none
        default:
            context.error("\(name).style '\(style)' is not one of \(styles)", at: styleNode)
            return nil
        }
        return (paging, itemsPath)
    }

    /// A response member: its name (`"next"`), or the path to it (`["links", "next"]`).
    private func memberPath(_ node: OpenAPINode, _ name: String) -> [String]? {
        if let text = node.string, !text.isEmpty { return [text] }
        return path(node, name)
    }

    private func requiredPath(_ node: OpenAPINode, _ key: String, in name: String) -> [String]? {
        guard let value = node[key] else {
            context.error("\(name) needs \"\(key)\": a member name or a path of member names", at: node)
            return nil
        }
        return memberPath(value, "\(name).\(key)")
    }

    /// One of the delta shapes, selected by `style`.
    func delta(_ node: OpenAPINode, name: String) -> DeltaStyle? {
        guard requireObject(node, name) else { return nil }
        guard let styleNode = node["style"] else {
            context.error("\(name) needs \"style\": cursor or odata", at: node)
            return nil
        }
        switch styleNode.string {
        case "cursor":
            checkKeys(node, name, allowed: ["style", "parameter", "start", "end"])
            let parameter = requiredString(node, "parameter", in: name)
            let start = requiredString(node, "start", in: name)
            let end = requiredString(node, "end", in: name)
            guard let parameter, let start, let end else { return nil }
            return .cursor(requestParameter: parameter, startField: start, endField: end)
        case "odata":
            checkKeys(node, name, allowed: ["style", "token"])
            guard let token = requiredString(node, "token", in: name) else { return nil }
            return .odata(tokenParameter: token)
        case let other?:
            context.error("\(name).style '\(other)' is not one of cursor, odata", at: styleNode)
            return nil
        case nil:
            context.error("\(name).style must be a string, found \(styleNode.value.kindName)", at: styleNode)
            return nil
        }
    }

    // MARK: Per-object extensions

    /// `x-bindery-delta` on an operation: `true` uses the document's delta style, `false` none, an object its own.
    /// The outer optional is "not given"; the inner is the style.
    func operationDelta(_ node: OpenAPINode, documentDelta: DeltaStyle?) -> DeltaStyle?? {
        if let flag = node.bool {
            guard flag else { return .some(nil) }
            guard let documentDelta else {
                context.error(
                    "x-bindery-delta: true needs a document delta style in x-bindery-conventions.delta", at: node)
                return nil
            }
            return .some(documentDelta)
        }
        guard node.isObject else {
            context.error(
                "x-bindery-delta must be true, false or an object {\"style\": ...}, found \(node.value.kindName)",
                at: node)
            return nil
        }
        guard let style = delta(node, name: "x-bindery-delta") else { return nil }
        return .some(style)
    }

    /// One entry of `x-bindery-variants`: the fixed query (required, non-empty), the response schema of the
    /// whole body (required), where the payload sits in it (optional), a summary (optional).
    struct Variant {
        var query: [String: String]
        var response: OpenAPINode
        var results: [String]?
        var summary: String?
    }

    func variant(_ node: OpenAPINode, name: String) -> Variant? {
        guard requireObject(node, name) else { return nil }
        checkKeys(node, name, allowed: ["query", "response", "results", "summary"])
        guard let queryNode = node["query"] else {
            context.error(
                "\(name) needs \"query\": the parameters that select it, such as {\"view\": \"count\"}", at: node)
            return nil
        }
        guard let query = stringMap(queryNode, "\(name).query") else { return nil }
        guard !query.isEmpty else {
            context.error("\(name).query must name at least one parameter", at: queryNode)
            return nil
        }
        guard let response = node["response"] else {
            context.error("\(name) needs \"response\": the schema of the whole response body", at: node)
            return nil
        }
        var results: [String]?
        if let resultsNode = node["results"] {
            guard let path = path(resultsNode, "\(name).results") else { return nil }
            results = path
        }
        var summary: String?
        if let summaryNode = node["summary"] {
            guard let text = summaryNode.string else {
                context.error("\(name).summary must be a string, found \(describe(summaryNode))", at: summaryNode)
                return nil
            }
            summary = text
        }
        return Variant(query: query, response: response, results: results, summary: summary)
    }

    /// `x-bindery-resource`: the name of the resource a path node stands for.
    func resourceName(_ node: OpenAPINode) -> String? {
        guard let name = node.string, OpenAPINaming.isIdentifierLike(name) else {
            context.error(
                "x-bindery-resource must be a name such as \"thread\" (letters, digits, '_', '-'), found \(describe(node))",
                at: node)
            return nil
        }
        return name
    }

    /// `x-bindery-key`: the key property names of an object schema.
    func key(_ node: OpenAPINode) -> [(name: String, node: OpenAPINode)]? {
        guard let elements = node.elements, !elements.isEmpty else {
            context.error(
                "x-bindery-key must be a non-empty array of property names, found \(describe(node))", at: node)
            return nil
        }
        var names: [(String, OpenAPINode)] = []
        for element in elements {
            guard let name = element.string, !name.isEmpty else {
                context.error("x-bindery-key entries must be property names, found \(describe(element))", at: element)
                return nil
            }
            names.append((name, element))
        }
        return names
    }

    /// `x-bindery-loose`: a boolean.
    func loose(_ node: OpenAPINode) -> Bool {
        guard let flag = node.bool else {
            context.error("x-bindery-loose must be true or false, found \(describe(node))", at: node)
            return false
        }
        return flag
    }

    /// `x-bindery-namespace`: a dotted name such as `sample.mail`.
    func namespace(_ node: OpenAPINode) -> String? {
        guard let namespace = node.string, OpenAPINaming.isValidNamespace(namespace) else {
            context.error(
                "x-bindery-namespace must be a dotted name such as \"sample.mail\", found \(describe(node))", at: node)
            return nil
        }
        return namespace
    }

    // MARK: Value helpers

    private func requireObject(_ node: OpenAPINode, _ name: String) -> Bool {
        if node.isObject { return true }
        context.error("\(name) must be an object, found \(node.value.kindName)", at: node)
        return false
    }

    private func checkKeys(_ node: OpenAPINode, _ name: String, allowed: [String]) {
        for (key, value) in node.members where !allowed.contains(key) {
            context.error(
                "\(name): unknown key '\(key)' (expected one of: \(allowed.joined(separator: ", ")))", at: value)
        }
    }

    private func requiredString(_ node: OpenAPINode, _ key: String, in name: String) -> String? {
        guard let value = node[key] else {
            context.error("\(name) needs \"\(key)\"", at: node)
            return nil
        }
        guard let text = value.string, !text.isEmpty else {
            context.error("\(name).\(key) must be a non-empty string, found \(describe(value))", at: value)
            return nil
        }
        return text
    }

    /// A JSON path written as an array of member names: `["D", "Results"]`.
    private func path(_ node: OpenAPINode, _ name: String, allowEmpty: Bool = false) -> [String]? {
        guard let elements = node.elements, allowEmpty || !elements.isEmpty else {
            context.error(
                "\(name) must be a\(allowEmpty ? "n" : " non-empty") array of member names, found \(describe(node))",
                at: node)
            return nil
        }
        var path: [String] = []
        for element in elements {
            guard let text = element.string, !text.isEmpty else {
                context.error("\(name) entries must be member names, found \(describe(element))", at: element)
                return nil
            }
            path.append(text)
        }
        return path
    }

    private func stringMap(_ node: OpenAPINode, _ name: String) -> [String: String]? {
        guard node.isObject else {
            context.error("\(name) must be an object of strings, found \(node.value.kindName)", at: node)
            return nil
        }
        var map: [String: String] = [:]
        for (key, value) in node.members {
            guard let text = value.string else {
                context.error("\(name).\(key) must be a string, found \(describe(value))", at: value)
                return nil
            }
            map[key] = text
        }
        return map
    }

    private func keyword<Value: RawRepresentable<String>>(
        _ node: OpenAPINode, _ name: String, as type: Value.Type, choices: [String]
    ) -> Value? {
        guard let text = node.string, let value = Value(rawValue: text) else {
            context.error(
                "\(name) must be one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), found \(describe(node))",
                at: node)
            return nil
        }
        return value
    }

    /// A short rendering of a bad value for messages: strings quoted, anything else by kind.
    private func describe(_ node: OpenAPINode) -> String {
        if let text = node.string { return "\"\(text)\"" }
        return node.value.kindName
    }
}
