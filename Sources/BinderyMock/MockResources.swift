import BinderyJSON
import BinderyRuntime
import Foundation

/// Reads and writes of items and collections, in each service's query dialect.
extension MockServer {
    // MARK: Lists

    func list(_ request: MockRequest, at addressedPath: [String]) -> MockResponse {
        let path = locateCollection(addressedPath)
        guard store.isCollection(path) || store.object(at: path) == nil else {
            return errorResponse(404, code: "itemNotFound", message: "nothing at /\(path.joined(separator: "/"))")
        }
        let options = service.queryOptions
        var items = store.items(in: path)
        if service.gatheringCollections.contains(path), let name = path.last {
            let owner = Array(path.dropLast())
            items += store.allItems(below: owner).filter { $0.collection.last == name && $0.collection != path }
                .map { (key: $0.key, object: $0.object) }
        }
        switch filtered(items, request, options, in: path) {
        case .success(let kept): items = kept
        case .failure(let error):
            return errorResponse(400, code: service.errorCodes.badQuery, message: error.description)
        }
        if let order = request.queryValue(options.orderBy) {
            items = SortOrder(order).sorted(items) { queryable($0.object) }
        }
        let shaped = items.map { shape($0.object, at: path + [$0.key], request, options) }
        return page(shaped, request, path: path)
    }

    /// `path`, or the same collection below where its owner is stored: `items/{id}/children` lists the children
    /// of the item listed at `root/children/{id}`, and a create there adds to them, even while there are none.
    func locateCollection(_ path: [String]) -> [String] {
        guard !store.isCollection(path), path.count >= 2, let name = path.last else { return path }
        let owner = Array(path.dropLast())
        // `locate` answers another path only when the owner is stored there.
        let located = store.locate(owner)
        return located != owner ? located + [name] : path
    }

    /// One page of `items` in the service's paging style, or the other view of the listing the request asks for
    /// (`MockService.listingView`): what a behaviour that chooses its own items answers.
    public func page(_ items: [JSONObject], _ request: MockRequest, path: [String], extra: JSONObject = [:])
        -> MockResponse
    {
        let page = pageBody(items, request, extra: extra)
        if let view = service.listingView, let answer = view(request, items.count, page) {
            return MockResponse(json: answer)
        }
        return MockResponse(json: page)
    }

    private func pageBody(_ items: [JSONObject], _ request: MockRequest, extra: JSONObject) -> JSONValue {
        switch service.conventions.paging {
        case .pageNumber(let pageName, let sizeName, _, let totalPagesPath):
            let size = max(1, Int(sizeName.flatMap { request.queryValue($0) } ?? "") ?? service.pageSize)
            let current = max(1, Int(request.queryValue(pageName) ?? "") ?? 1)
            let slice = items.dropFirst((current - 1) * size).prefix(size)
            let shape: [String] =
                switch service.conventions.listShape {
                case .wrapped(let path): path
                case .odata: ["value"]
                case .bare: []
                }
            // What the service says of the page's place (Spark's `Pagination`), beside the results.
            let place = PagePlace(items: items.count, size: size, page: current)
            var members = extra
            for member in service.pageSummary?(place) ?? [:] { members[member.key] = member.value }
            let body = wrapped(shape, results: slice.map { .object($0) }, extra: members)
            // Without one, at least the count of pages where the conventions read it; a bare array has no room for
            // it, and the client reads a short page as the last.
            guard service.pageSummary == nil, !totalPagesPath.isEmpty, !shape.isEmpty else { return body }
            return body.setting(.number(JSONNumber(place.pages)), at: totalPagesPath[...])
        case .offset(let offsetName, let limitName, let defaultLimit):
            let limit = min(1000, max(0, Int(request.queryValue(limitName) ?? "") ?? defaultLimit))
            let offset = max(0, Int(request.queryValue(offsetName) ?? "") ?? 0)
            return .array(items.dropFirst(offset).prefix(limit).map { .object($0) })
        default:
            return .object(odataPageBody(items, request, onLastPage: extra))
        }
    }

    /// `{"value": [...], "@odata.nextLink": "...?$skiptoken=N"}`; `$top` sets the page size.
    func odataPage(_ items: [JSONObject], _ request: MockRequest, onLastPage: JSONObject) -> MockResponse {
        MockResponse(json: .object(odataPageBody(items, request, onLastPage: onLastPage)))
    }

    private func odataPageBody(_ items: [JSONObject], _ request: MockRequest, onLastPage: JSONObject) -> JSONObject {
        let size = max(1, Int(request.queryValue("$top") ?? "") ?? service.pageSize)
        let skip = max(0, Int(request.queryValue("$skiptoken") ?? "") ?? 0)
        var body = JSONObject()
        body["value"] = .array(items.dropFirst(skip).prefix(size).map { .object($0) })
        if skip + size < items.count {
            body["@odata.nextLink"] = .string(link(request, replacing: "$skiptoken", with: String(skip + size)))
        } else {
            for member in onLastPage { body[member.key] = member.value }
        }
        return body
    }

    /// The request's own URL with one query parameter set: next links and delta links.
    func link(_ request: MockRequest, replacing name: String, with value: String, dropping: Set<String> = []) -> String
    {
        var query = request.query.filter { $0.name != name && !dropping.contains($0.name) }
        query.append((name, value))
        let text = query.map { PercentEncoding.query($0.name) + "=" + PercentEncoding.query($0.value) }.joined(
            separator: "&")
        return origin(of: request) + request.path + "?" + text
    }

    private func filtered(
        _ items: [(key: String, object: JSONObject)], _ request: MockRequest, _ options: QueryOptionNames,
        in path: [String]
    ) -> Result<[(key: String, object: JSONObject)], FilterExpression.SyntaxError> {
        if let filter = service.parameterFilter {
            return .success(filter(MockListing(items: items, request: request, collection: path, store: store)))
        }
        guard let text = request.queryValue(options.filter), !text.isEmpty else { return .success(items) }
        do {
            let expression = try FilterExpression.parse(text)
            return .success(items.filter { expression.matches(queryable($0.object)) })
        } catch {
            return .failure(error)
        }
    }

    /// What a filter or a sort reads: the object, and its record's fields beside its own members (Spark).
    private func queryable(_ object: JSONObject) -> JSONObject {
        guard let member = service.recordMember, let fields = object[member]?.objectValue else { return object }
        var merged = object
        for member in fields { merged[member.key] = member.value }
        return merged
    }

    // MARK: Items

    func read(_ request: MockRequest, at path: [String]) -> MockResponse {
        let path = store.locate(path)
        guard let object = store.object(at: path) else {
            return errorResponse(404, code: "itemNotFound", message: "nothing at /\(path.joined(separator: "/"))")
        }
        return single(shape(object, at: path, request, service.queryOptions))
    }

    func create(_ request: MockRequest, in path: [String], resource: ResourceRoute) -> MockResponse {
        guard case .object(var object)? = requestBody(request) else {
            return errorResponse(
                400, code: service.errorCodes.notAnObject, message: "the body is not a JSON object")
        }
        if let refusal = invalidBody(object, resource: resource) { return refusal }
        if let version = service.versionMembers[resource.name] { object[version] = 0 }
        var collection = locateCollection(path)
        if let placement = service.createPlacements[path] {
            collection = placement.collection
            for member in placement.setting { object[member.key] = member.value }
        }
        // OneDrive's `@microsoft.graph.conflictBehavior` on a create: an instruction, never stored.
        let behavior = object[Self.conflictBehavior]?.stringValue
        object[Self.conflictBehavior] = nil
        if let behavior, let name = object["name"]?.stringValue,
            let existing = PathAddress.child(named: name, of: Array(collection.dropLast()), in: store)
        {
            switch behavior {
            case "fail":
                return errorResponse(409, code: "nameAlreadyExists", message: "an item named \(name) already exists")
            case "replace":
                _ = store.remove(at: collection + [existing])
            default:  // "rename", the service's default: the first free "name 1", "name 2", … (before the extension)
                object["name"] = .string(Self.freeName(for: name, in: Array(collection.dropLast()), store: store))
            }
        }
        let stored = store.insert(object, into: collection, idMember: service.idMember)
        return single(stored.object, status: fixtureStatus(resource, "POST", otherwise: 201))
    }

    static let conflictBehavior = "@microsoft.graph.conflictBehavior"

    /// `name 1.txt`, `name 2.txt`, …: the first name no child of `folder` has (OneDrive's rename).
    static func freeName(for name: String, in folder: [String], store: MockStore) -> String {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let fileExtension = dot.map { String(name[$0...]) } ?? ""
        for number in 1... {
            let candidate = "\(stem) \(number)\(fileExtension)"
            if PathAddress.child(named: candidate, of: folder, in: store) == nil { return candidate }
        }
        return name
    }

    func update(_ request: MockRequest, at path: [String], resource: ResourceRoute, replacing: Bool) -> MockResponse {
        guard case .object(var changes)? = requestBody(request) else {
            return errorResponse(
                400, code: service.errorCodes.notAnObject, message: "the body is not a JSON object")
        }
        if let refusal = invalidBody(changes, resource: resource) { return refusal }
        let path = store.locate(path)
        guard let current = store.object(at: path) else {
            return errorResponse(404, code: "itemNotFound", message: "nothing at /\(path.joined(separator: "/"))")
        }
        if let version = service.versionMembers[resource.name] {
            if let given = changes[version], given != current[version] {
                return errorResponse(409, code: "conflict", message: "the item has changed since that version")
            }
            changes[version] = .number(JSONNumber((current[version]?.numberValue?.int64Value ?? 0) + 1))
        }
        if replacing {
            for member in current where changes[member.key] == nil { changes[member.key] = .null }
            changes[service.idMember] = current[service.idMember]
        }
        let updated = store.update(at: path, merging: changes) ?? current
        let status = fixtureStatus(resource, replacing ? "PUT" : "PATCH", otherwise: 200)
        return status == 204 ? .empty(204) : single(updated, status: status)
    }

    func delete(at path: [String], resource: ResourceRoute) -> MockResponse {
        guard store.remove(at: store.locate(path)) else {
            return errorResponse(404, code: "itemNotFound", message: "nothing at /\(path.joined(separator: "/"))")
        }
        let status = fixtureStatus(resource, "DELETE", otherwise: 204)
        if status == 204 { return .empty(204) }
        return MockResponse(status: status, json: .object(service.successBody))
    }

    /// Bytes behind a stream property: GET reads them, PUT writes them (and answers the owner).
    func stream(_ request: MockRequest, at addressedPath: [String]) -> MockResponse {
        // `items/{id}/content` reaches the bytes wherever the item is stored (`root/children/{id}/content`).
        let owner = store.locate(Array(addressedPath.dropLast()))
        let path = owner + addressedPath.suffix(1)
        switch request.method {
        case "GET":
            guard let bytes = store.blob(at: path) else {
                return errorResponse(
                    404, code: "itemNotFound", message: "no content at /\(path.joined(separator: "/"))")
            }
            guard service.redirectsContent else {
                return MockResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: bytes)
            }
            let token = store.newKey(prefix: "download")
            withDownloads { $0[token] = path }
            return MockResponse(
                status: 302, headers: [("Location", storageURL.absoluteString + "/\(Self.downloadSegment)/\(token)")],
                body: [])
        case "PUT":
            store.setBlob(request.body, at: path)
            let object = store.update(at: owner, merging: ["size": .number(JSONNumber(request.body.count))])
            return object.map { single($0) } ?? .empty(204)
        case "PATCH":
            return patchContent(request, at: path)
        default:
            return errorResponse(405, code: "methodNotAllowed", message: "\(request.method) on a stream")
        }
    }

    /// OneNote's `PATCH pages/{id}/content`: a JSON list of commands, each `{target, action, position, content}`.
    /// The mock applies them to the page's HTML when the target is `body` (append, prepend, replace); a command on
    /// an element of the page is refused with 400, as the mock does not parse the HTML.
    private func patchContent(_ request: MockRequest, at path: [String]) -> MockResponse {
        guard case .array(let commands)? = request.json, !commands.isEmpty else {
            return errorResponse(400, code: "BadRequest", message: "the body must be a non-empty list of commands")
        }
        var html = String(decoding: store.blob(at: path) ?? [], as: UTF8.self)
        for command in commands {
            guard command["target"]?.stringValue == "body", let action = command["action"]?.stringValue,
                let content = command["content"]?.stringValue
            else {
                return errorResponse(
                    400, code: "BadRequest",
                    message: "the mock applies append, prepend and replace to the target \"body\" only")
            }
            switch action {
            case "append": html += content
            case "prepend": html = content + html
            case "replace": html = content
            default:
                return errorResponse(400, code: "BadRequest", message: "unknown action \"\(action)\" on the body")
            }
        }
        store.setBlob(Array(html.utf8), at: path)
        return .empty(204)
    }

    /// Request bodies are checked against the generated model, as the service would: a builder that
    /// writes the wrong shape fails here rather than in production.
    private func invalidBody(_ object: JSONObject, resource: ResourceRoute) -> MockResponse? {
        guard let model = resource.model else { return nil }
        do {
            try model.schema.validate(object, path: [])
            return nil
        } catch {
            return errorResponse(
                400, code: service.errorCodes.invalidBody,
                message: "invalid \(model.schema.typeName): \(error)")
        }
    }

    /// The status the spec gives a generic write (Graph's PATCH answers 200, Inbox's DELETE 200).
    private func fixtureStatus(_ resource: ResourceRoute, _ method: String, otherwise status: Int) -> Int {
        fixtureStatus(resource: resource.name, method: method) ?? status
    }

    // MARK: Shaping: $select and $expand

    func shape(_ object: JSONObject, at path: [String], _ request: MockRequest, _ options: QueryOptionNames)
        -> JSONObject
    {
        let select = request.queryValue(options.select).map {
            $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        let expand = request.queryValue(options.expand).map(ExpandOption.parse) ?? []
        return shape(object, at: path, select: select, expand: expand)
    }

    private func shape(_ object: JSONObject, at path: [String], select: [String]?, expand: [ExpandOption]) -> JSONObject
    {
        var result = object
        var expanded: [String] = []
        for item in expand {
            guard let value = expansion(item, below: path) else { continue }
            // Spark puts expansions (`Photos`) among the listing's StandardFields.
            if let member = service.recordMember, case .object(var fields)? = result[member] {
                fields[item.property] = value
                result[member] = .object(fields)
            } else {
                result[item.property] = value
            }
            expanded.append(item.property)
        }
        guard let select, !select.isEmpty, !select.contains("*") else { return result }
        let keep = Set(select + expanded + [service.idMember])
        if let member = service.recordMember, case .object(let fields)? = result[member] {
            result[member] = .object(fields.filtered { keep.contains($0.key) })
            return result
        }
        return result.filtered { keep.contains($0.key) || $0.key.hasPrefix("@") }
    }

    private func expansion(_ item: ExpandOption, below path: [String]) -> JSONValue? {
        let childPath = childCollection(named: item.property, below: path)
        var nested = item.expand
        if item.levels > 1 {
            var deeper = item
            deeper.levels -= 1
            nested.append(deeper)
        }
        if store.isCollection(childPath) {
            return .array(
                store.items(in: childPath).map {
                    .object(shape($0.object, at: childPath + [$0.key], select: item.select, expand: nested))
                })
        }
        if let object = store.object(at: childPath) {
            return .object(shape(object, at: childPath, select: item.select, expand: nested))
        }
        return nil
    }

    /// `Photos` expands the `photos` collection: names match case-insensitively, as Spark's do.
    private func childCollection(named name: String, below path: [String]) -> [String] {
        let exact = path + [name]
        if store.isCollection(exact) || store.object(at: exact) != nil { return exact }
        return path + [name.lowercased()]
    }
}
