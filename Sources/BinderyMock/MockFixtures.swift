import BinderyJSON
import BinderyRuntime
import Foundation

/// One conformance fixture (`bindery-gen --fixtures`): a request a generated builder sends and an answer.
public struct MockFixture: Sendable {
    /// `microsoft.graph.driveItem/copy`: the spec's resource and operation.
    public var operation: String
    /// `driveItem/copy`, the file's path below the fixture folder without `.json`.
    public var name: String
    public var method: String
    /// Below the service root, percent-encoded as a client sends it.
    public var path: String
    public var query: [(String, String)]
    /// Header parameters the operation declares (not the ones every request carries).
    public var headers: [(String, String)]
    public var requestBody: JSONValue?
    /// A multipart body's part names, or a raw body's text.
    public var multipartParts: [String]?
    public var requestText: String?
    public var status: Int
    public var responseBody: JSONValue?
    public var responseText: String?
    /// What the generated call passes for each spec parameter, by its name in the spec.
    public var arguments: [String: JSONValue]

    public var segments: [String] {
        path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
    }

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Every `*.json` below `directory`, sorted by name.
    public static func load(from directory: URL) throws -> [MockFixture] {
        // Relative paths: on Apple platforms the URL enumerator may answer /private/var/… for a folder under /var.
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else {
            throw LoadError(description: "\(directory.path): no such folder")
        }
        var fixtures: [MockFixture] = []
        for case let relative as String in enumerator where relative.hasSuffix(".json") {
            fixtures.append(try load(directory.appendingPathComponent(relative), name: String(relative.dropLast(5))))
        }
        return fixtures.sorted { $0.name < $1.name }
    }

    static func load(_ url: URL, name: String) throws -> MockFixture {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(try Data(contentsOf: url)))
        } catch {
            throw LoadError(description: "\(url.path): \(error)")
        }
        guard let operation = json["operation"]?.stringValue, let request = json["request"],
            let response = json["response"],
            let method = request["method"]?.stringValue, let path = request["path"]?.stringValue
        else {
            throw LoadError(
                description: "\(url.path): a fixture needs operation, request.method, request.path and response")
        }
        let query = request["query"]?.objectValue?.members.map { ($0.key, $0.value.text ?? "") } ?? []
        let headers = request["headers"]?.objectValue?.members.map { ($0.key, $0.value.text ?? "") } ?? []
        var arguments: [String: JSONValue] = [:]
        for member in json["arguments"]?.objectValue?.members ?? [] { arguments[member.key] = member.value }
        return MockFixture(
            operation: operation, name: name, method: method, path: path, query: query, headers: headers,
            requestBody: request["body"],
            multipartParts: request["multipart"]?.arrayValue?.compactMap(\.stringValue),
            requestText: request["bodyText"]?.stringValue,
            status: response["status"]?.numberValue?.intValue ?? 200, responseBody: response["body"],
            responseText: response["bodyText"]?.stringValue, arguments: arguments)
    }
}

extension MockServer {
    /// Puts what a read fixture answered into the store: a list's items into their collection, an item
    /// at its path (its key member set to the key in the path).
    func seedStore(from fixture: MockFixture) {
        guard let method = HTTPRequest.Method(rawValue: fixture.method) else { return }
        let path = fixture.segments
        if method == .patch || method == .put || method == .delete {
            seedItemToWrite(at: path, method: method)
            return
        }
        guard method == .get, let body = fixture.responseBody else { return }
        var match = service.routes.match(method: method, segments: path, query: fixture.query)
        // A read on a resource's own URL with parameters (Spark's `searchListings`, Inbox's `listThreads`) is served
        // as that collection or item, so it seeds it too.
        if case .operation(let operation, let resource, let keys)? = match, operation.segments.isEmpty {
            match =
                operation.onCollection
                ? .collection(resource: resource, keys: keys) : .item(resource: resource, keys: keys)
        }
        switch match {
        case .collection?:
            store.createCollection(at: path)
            for case .object(let item) in items(in: body) {
                store.insert(item, into: path, idMember: service.idMember, logged: false)
            }
        case .item(_, let keys)?:
            guard case .object(let object)? = self.item(in: body) else { return }
            place(object, at: path, keys: keys)
        default:
            break
        }
    }

    /// Stores `object` at an item's path: as the keyed member of its collection, or (a single entity) at the path.
    private func place(_ object: JSONObject, at path: [String], keys: [String]) {
        if let key = keys.last, path.last == key, path.count >= 2 {
            store.createCollection(at: Array(path.dropLast()))
            store.insert(object, into: Array(path.dropLast()), key: key, idMember: service.idMember, logged: false)
        } else {
            store.set(object, at: path)
        }
    }

    /// A generic write needs its item to exist: the shortest way to a resource may refuse the write (capability
    /// restrictions), so its fixture goes another way, which no read seeded.
    private func seedItemToWrite(at path: [String], method: HTTPRequest.Method) {
        guard store.object(at: path) == nil,
            case .item(_, let keys)? = service.routes.match(method: method, segments: path)
        else { return }
        place([:], at: path, keys: keys)  // an item in a collection gets its key as its id
    }

    /// A list payload's items, wherever the service puts them.
    func items(in body: JSONValue) -> [JSONValue] {
        switch service.conventions.listShape {
        case .odata: return body["value"]?.arrayValue ?? []
        case .wrapped(let path): return body.value(at: path)?.arrayValue ?? []
        case .bare: return body.arrayValue ?? []
        }
    }

    /// A single-item payload's object (Spark's first result).
    func item(in body: JSONValue) -> JSONValue? {
        service.conventions.unwrapSingle(body)
    }

    /// The status each generic write's fixture gives, by `"<resource> <METHOD>"` (`"microsoft.graph.event DELETE"` → 204).
    func writeStatuses(of fixtures: [MockFixture]) -> [String: Int] {
        var statuses: [String: Int] = [:]
        for fixture in fixtures {
            guard let method = HTTPRequest.Method(rawValue: fixture.method) else { continue }
            switch service.routes.match(method: method, segments: fixture.segments) {
            case .item(let found, _)?, .collection(let found, _)?:
                if statuses["\(found.name) \(fixture.method)"] == nil {
                    statuses["\(found.name) \(fixture.method)"] = fixture.status
                }
            default: break
            }
        }
        return statuses
    }
}
