import Foundation
import HTTPTypes

/// What a payload was checked against, and what came of it: `bindery validate`'s answer.
public struct PayloadReport: Sendable {
    /// `microsoft.graph.driveItem`, or `Collection(microsoft.graph.driveItem)` for a page.
    public var typeName: String
    /// The first value that is not what the spec promised (or malformed JSON); nil when it decodes.
    public var failure: ModelDecodingError?
    /// JSON paths of members the spec does not declare: kept by the models and re-encoded, but worth knowing.
    /// OData control annotations (`@odata.context`, `thumbnails@odata.nextLink`) are left out.
    public var unknownFields: [String] = []
    /// Whether encoding the decoded models gives back the JSON that was read.
    public var roundTrips = false
    /// Items in a collection payload.
    public var itemCount: Int?

    public var decoded: Bool { failure == nil }
    public var isValid: Bool { decoded && roundTrips }
}

/// What an answer is, as the route table says: its kind, where it sits, and what it is for people.
public struct ResponseShape: Sendable {
    /// The model, page or value the answer decodes as; nil when there is nothing to decode.
    public var kind: FieldKind?
    /// Whether its body sits in the service's envelope (all but a few operations).
    public var isEnveloped = true
    /// Where the payload sits when the operation puts it elsewhere than the envelope's results.
    public var payloadPath: [String]?
    /// `inbox.Thread/count`, `GET of a microsoft.graph.driveItem`, `listing of a microsoft.graph.driveItem collection`.
    public var name: String
}

/// Checks real response bodies against a module's generated types: decode, list what the spec does not declare,
/// and re-encode. The mock server checks request bodies the same way.
public struct PayloadValidator: Sendable {
    public let routes: RouteTable
    public let conventions: ServiceConventions
    /// The hosts of the service's API; a URL elsewhere is on a storage host.
    public let apiHosts: Set<String>

    public init(routes: RouteTable, conventions: ServiceConventions, apiHosts: Set<String> = []) {
        self.routes = routes
        self.conventions = conventions
        self.apiHosts = apiHosts
    }

    /// Checks payloads against a generated module (`OneDriveService.descriptor`).
    public init(_ service: ServiceDescriptor) {
        self.init(
            routes: service.routes, conventions: service.conventions,
            apiHosts: Set(service.baseURLs.compactMap { $0.host?.lowercased() }))
    }

    /// The storage-host requests `method` on `url` may be: none when the URL is relative or on the API's own
    /// hosts, else those the spec declares for the method (an upload session's `PUT` answers the session while
    /// ranges are missing and the item once the last one arrived), in the spec's order.
    public func storageRoutes(method: HTTPRequest.Method, url: String) -> [StorageRoute] {
        guard let host = URL(string: url)?.host?.lowercased(), !apiHosts.contains(host) else { return [] }
        return routes.storage.filter { $0.method == method }
    }

    /// Which of `candidates` a storage host's answer is, and how it decodes: of those whose declared answer
    /// decodes, the one that leaves the fewest members undeclared (models keep unknown members, so an item would
    /// also decode as a session); else one that answers bytes (or nothing, for an empty body). Nil when there is no
    /// candidate; a failed report when nothing fits.
    public func storageAnswer(_ bytes: [UInt8], candidates: [StorageRoute]) -> (
        route: StorageRoute, report: PayloadReport?
    )? {
        let reports = candidates.compactMap { route in
            route.response.map { (route, validate(bytes, as: $0, enveloped: false)) }
        }
        if let best = reports.filter({ $0.1.decoded }).min(by: { $0.1.unknownFields.count < $1.1.unknownFields.count })
        {
            return best
        }
        // No declared answer decodes: bytes, or nothing when nothing came.
        if let untyped = candidates.first(where: { $0.response == nil && ($0.isRawBody || bytes.isEmpty) }) {
            return (untyped, nil)
        }
        return reports.first
    }

    /// What a response to `method` on `path` (below the service root, percent-encoded) is, found once in the route
    /// table. `query` tells apart the operations that share a URL (`view=count`).
    public func response(method: HTTPRequest.Method, path: String, query: [(String, String)] = []) -> ResponseShape? {
        switch match(method, path, query) {
        // An item's DELETE answers no content (204, or the service's bare success).
        case .item(let resource, _)? where method == .delete:
            return ResponseShape(kind: nil, name: "DELETE of a \(resource.name)")
        case .item(let resource, _)?:
            return ResponseShape(
                kind: resource.model.map { .model($0) }, name: "\(method.rawValue) of a \(resource.name)")
        // A POST to a collection answers the one item it created.
        case .collection(let resource, _)? where method == .post:
            return ResponseShape(
                kind: resource.model.map { .model($0) }, name: "add to a \(resource.name) collection")
        case .collection(let resource, _)?:
            return ResponseShape(
                kind: resource.model.map { .collection(.model($0)) }, name: "listing of a \(resource.name) collection")
        case .operation(let operation, let resource, _)?:
            return ResponseShape(
                kind: operation.response, isEnveloped: operation.isEnveloped, payloadPath: operation.payloadPath,
                name: "\(resource.name)/\(operation.name)")
        case nil:
            return nil
        }
    }

    /// What a response to `method` on `path` decodes as: a model, a page of models, or an operation's declared
    /// response.
    public func responseKind(method: HTTPRequest.Method, path: String, query: [(String, String)] = []) -> FieldKind? {
        response(method: method, path: path, query: query)?.kind
    }

    /// Whether `bytes` is an answer without content, as an operation that declares none may send: nothing at all,
    /// an empty object, or only the service's envelope saying it succeeded (Spark's `{"D": {"Success": true}}`, with
    /// no results or an empty list of them).
    public func isNoContent(_ bytes: [UInt8]) -> Bool {
        if bytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) { return true }
        guard case .object(let root)? = try? JSONValue.parse(bytes) else { return false }
        guard !root.isEmpty else { return true }
        guard case .wrapped(let path) = conventions.listShape, let outer = path.first, root.count == 1,
            case .object(let envelope)? = root[outer], envelope["Success"]?.boolValue == true
        else { return false }
        let results = path.count > 1 ? envelope[path[1]] : nil
        return envelope.count == 1 || (envelope.count == 2 && results?.arrayValue?.isEmpty == true)
    }

    /// Checks `bytes` as the answer `shape` describes; nil when it declares nothing to decode.
    public func validate(_ bytes: [UInt8], as shape: ResponseShape) -> PayloadReport? {
        shape.kind.map { validate(bytes, as: $0, enveloped: shape.isEnveloped, payloadPath: shape.payloadPath) }
    }

    private func match(_ method: HTTPRequest.Method, _ path: String, _ query: [(String, String)]) -> RouteTable.Match? {
        let segments = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        return routes.match(method: method, segments: segments, query: query)
    }

    /// The path of a captured URL below the service root, to look up in the route table: an absolute URL loses
    /// whichever of `bases` it starts with (`https://graph.microsoft.com/v1.0/me/drive` gives `/me/drive`), or
    /// just its host; a relative path is taken as it is. Query and fragment are dropped.
    public static func path(of url: String, below bases: [URL]) -> String {
        var text = url
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<end]) }
        for base in bases {
            var prefix = base.absoluteString
            while prefix.hasSuffix("/") { prefix.removeLast() }
            if text.hasPrefix(prefix + "/") { return String(text.dropFirst(prefix.count)) }
            let basePath = base.path
            if basePath.count > 1, text.hasPrefix(basePath + "/") { return String(text.dropFirst(basePath.count)) }
        }
        if let parsed = URL(string: text), parsed.host != nil {
            return parsed.path(percentEncoded: true)
        }
        return text
    }

    /// The kind a spec type name stands for: `microsoft.graph.driveItem` or `Collection(microsoft.graph.driveItem)`.
    public func kind(named typeName: String) -> FieldKind? {
        if typeName.hasPrefix("Collection("), typeName.hasSuffix(")") {
            return kind(named: String(typeName.dropFirst("Collection(".count).dropLast())).map { .collection($0) }
        }
        return routes.models[typeName].map { .model($0) }
    }

    /// Decodes `bytes` as `kind`, where the service puts it (a page's `value`, Spark's `D.Results`, a bare array;
    /// the body itself when the operation is not `enveloped`, or at `payloadPath` when the operation says so).
    public func validate(_ bytes: [UInt8], as kind: FieldKind, enveloped: Bool = true, payloadPath: [String]? = nil)
        -> PayloadReport
    {
        var report = PayloadReport(typeName: Self.name(of: kind))
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            report.failure = ModelDecodingError(
                path: [], message: "malformed JSON at \(error.position): \(error.message)")
            return report
        }
        let (payload, path) =
            if let payloadPath {
                (root.value(at: payloadPath) ?? .null, payloadPath.map(JSONPathComponent.key))
            } else if enveloped {
                locate(kind, in: root)
            } else {
                (root, [JSONPathComponent]())
            }
        do {
            try ModelSchema.validate(payload, as: kind, path: path)
        } catch {
            report.failure = error
            return report
        }
        if case .collection = kind { report.itemCount = payload.arrayValue?.count }
        collectUnknownFields(payload, kind, path: Self.text(path), into: &report.unknownFields)
        report.roundTrips = reencodes(payload, kind)
        return report
    }

    /// Where the payload sits: OData and Nylas-style pages hold items in `value`, an envelope in its results path
    /// (where a single item is a one-element array), everything else is the body itself.
    private func locate(_ kind: FieldKind, in root: JSONValue) -> (JSONValue, [JSONPathComponent]) {
        switch conventions.listShape {
        case .wrapped(let resultsPath):
            let results = root.value(at: resultsPath) ?? .null
            let path = resultsPath.map(JSONPathComponent.key)
            if case .collection = kind { return (results, path) }
            if case .array(let items) = results, items.count == 1 { return (items[0], path + [.index(0)]) }
            return (results, path)
        case .odata:
            // A single entity or complex value is the body; a collection or a primitive (an action's Boolean,
            // a function's count) is wrapped as {"value": ...}.
            if case .model = kind { return (root, []) }
            if let value = root["value"] { return (value, [.key("value")]) }
            return (root, [])
        case .bare:
            return (root, [])
        }
    }

    private func collectUnknownFields(_ value: JSONValue, _ kind: FieldKind, path: String, into found: inout [String]) {
        switch (kind, value) {
        case (.collection(let element), .array(let items)):
            for (index, item) in items.enumerated() {
                collectUnknownFields(item, element, path: path + "[\(index)]", into: &found)
            }
        case (.model(let declared), .object(let object)):
            let type = ModelSchema.resolve(declared: declared, object: object) ?? declared
            let fields = Dictionary(type.schema.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for member in object {
                if let field = fields[member.key] {
                    collectUnknownFields(member.value, field.kind, path: path + "." + member.key, into: &found)
                } else if !member.key.contains("@odata.") {
                    found.append(path + "." + member.key)
                }
            }
        default:
            return
        }
    }

    /// Encodes each decoded model through `Codable` and compares with what was read.
    private func reencodes(_ value: JSONValue, _ kind: FieldKind) -> Bool {
        switch (kind, value) {
        case (.collection(let element), .array(let items)):
            return items.allSatisfy { $0.isNull || reencodes($0, element) }
        case (.model(let type), .object(let object)):
            do {
                let model = try type.init(validating: object)
                let encoded = try JSONEncoder().encode(model)
                return try JSONValue.parse(Array(encoded)) == value
            } catch {
                return false
            }
        default:
            return true
        }
    }

    /// `microsoft.graph.driveItem`, `Collection(microsoft.graph.driveItem)`: how reports and `--type` name a kind.
    public static func name(of kind: FieldKind) -> String { name(of: kind, expandingChoices: true) }

    /// A choice lists its members, unless `expandingChoices` is false (inside a choice's own list, where a
    /// choice that contains itself would list itself without end).
    static func name(of kind: FieldKind, expandingChoices: Bool) -> String {
        switch kind {
        case .model(let type): return type.schema.typeName
        case .collection(let element): return "Collection(\(name(of: element, expandingChoices: expandingChoices)))"
        case .dictionary(let element): return "Map(\(name(of: element, expandingChoices: expandingChoices)))"
        case .choice(let type): return expandingChoices ? type.choiceDescription : type.choiceName
        default: return "\(kind)"
        }
    }

    static func text(_ path: [JSONPathComponent]) -> String {
        ModelDecodingError(path: path, message: "").jsonPath
    }
}

extension ModelSchema {
    /// Checks any JSON value against a field kind, reporting paths below `path`.
    public static func validate(_ value: JSONValue, as kind: FieldKind, path: [JSONPathComponent] = [])
        throws(ModelDecodingError)
    {
        try check(value, kind, loose: false, path: path)
    }
}

/// What `bindery validate --error` says of a captured error body: whether it has the service's error shape, and
/// what the client reads from it.
public struct ErrorBodyReport: Sendable {
    /// Where the service keeps an error's parts.
    public var shape: ServiceConventions.ErrorShape
    public var code: String?
    public var message: String?
    public var requestID: String?

    /// The body has the service's error shape: it carries the service's error code.
    public var isRecognized: Bool { code != nil }
}

extension PayloadValidator {
    /// Reads `bytes` as the service's error body, exactly as a client reads a failed response.
    public func validateError(_ bytes: [UInt8]) -> ErrorBodyReport {
        let error = BinderyError.api(APIResponse(status: .badRequest, body: bytes), shape: conventions.errors)
        return ErrorBodyReport(
            shape: conventions.errors, code: error.serviceCode,
            message: error.serviceCode == nil ? nil : error.message, requestID: error.requestID)
    }
}

/// What `bindery validate` says of a `$batch` answer: each step's answer checked against the operation its request
/// named (found by the step's `id` in the batch request), or as an error body when its status is not a success.
public struct BatchReport: Sendable {
    public struct Step: Sendable {
        public var id: String
        public var status: Int
        /// `GET /me/drive/root`: the step's request, when the batch request names it.
        public var request: String?
        public var outcome: Outcome
    }

    public enum Outcome: Sendable {
        /// The step's body checked against its operation's answer.
        case payload(operation: String, PayloadReport)
        /// A failed step's body, read as the client reads a failed response.
        case error(ErrorBodyReport)
        /// An operation that answers no body, and the step carries none.
        case noContent(operation: String)
        /// What is wrong with the step itself: no request of its id, no operation for its URL, a body where none is
        /// declared, a body that is not JSON.
        case problem(String)
    }

    public var steps: [Step]
    /// What is wrong with the answer as a whole (not JSON, no `responses` array), or nil.
    public var failure: String?

    public var isValid: Bool {
        failure == nil
            && steps.allSatisfy { step in
                switch step.outcome {
                case .payload(_, let report): report.isValid
                case .error(let report): report.isRecognized
                case .noContent: true
                case .problem: false
                }
            }
    }
}

extension PayloadValidator {
    /// Checks a `$batch` answer (`{"responses": [{"id", "status", "body"}...]}`) step by step. `request` is the batch
    /// request that was sent (`{"requests": [{"id", "method", "url"}...]}`): it says which operation each step is;
    /// without it, a successful step's body cannot be checked and is reported as a problem.
    public func validateBatch(_ answer: [UInt8], request: [UInt8]?) -> BatchReport {
        guard let root = try? JSONValue.parse(answer), case .array(let responses)? = root["responses"] else {
            return BatchReport(steps: [], failure: "a $batch answer is an object with a \"responses\" array")
        }
        var requests: [String: (method: String, url: String)] = [:]
        if let request {
            guard let sent = try? JSONValue.parse(request), case .array(let steps)? = sent["requests"] else {
                return BatchReport(steps: [], failure: "a $batch request is an object with a \"requests\" array")
            }
            for step in steps {
                if let id = step["id"]?.scalarText, let url = step["url"]?.stringValue {
                    requests[id] = ((step["method"]?.stringValue ?? "GET").uppercased(), url)
                }
            }
        }
        let steps = responses.map { response -> BatchReport.Step in
            let id = response["id"]?.scalarText ?? "?"
            let status = Int(response["status"]?.scalarText ?? "") ?? 0
            let sent = requests[id]
            var step = BatchReport.Step(
                id: id, status: status, request: sent.map { "\($0.method) \($0.url)" }, outcome: .problem(""))
            step.outcome = outcome(of: response, status: status, sent: sent, checkingRequests: request != nil)
            return step
        }
        return BatchReport(steps: steps, failure: nil)
    }

    private func outcome(
        of answer: JSONValue, status: Int, sent: (method: String, url: String)?, checkingRequests: Bool
    ) -> BatchReport.Outcome {
        let body = answer["body"]
        let bytes = body.map { $0.serialized() } ?? []
        guard (200..<300).contains(status) else {
            guard body != nil else { return .problem("status \(status) without an error body") }
            return .error(validateError(bytes))
        }
        guard let sent else {
            return .problem(checkingRequests ? "the batch request has no step of this id" : "no batch request given")
        }
        // A step's URL is relative to the service root: `/me/drive/root?$select=id` or `me/drive/root`.
        let relative = sent.url.hasPrefix("/") ? sent.url : "/" + sent.url
        guard let components = URLComponents(string: relative), URL(string: sent.url)?.scheme == nil else {
            return .problem("a step's URL is relative to the service root, not \(sent.url)")
        }
        let query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        guard let method = HTTPRequest.Method(sent.method),
            let shape = response(method: method, path: components.percentEncodedPath, query: query)
        else {
            return .problem("the service has no operation for \(sent.method) \(components.percentEncodedPath)")
        }
        // 204 says there is no body, whatever the operation may answer (a DELETE, or an update without a return).
        if status == 204, body == nil || body == .null { return .noContent(operation: shape.name) }
        guard let kind = shape.kind else {
            return body == nil || body == .null || isNoContent(body?.serialized() ?? [])
                ? .noContent(operation: shape.name) : .problem("\(shape.name) answers no body, but the step has one")
        }
        guard let body, body.objectValue != nil || body.arrayValue != nil else {
            return .problem("the body is not JSON (a base64-encoded body is not checked)")
        }
        return .payload(
            operation: shape.name,
            validate(bytes, as: kind, enveloped: shape.isEnveloped, payloadPath: shape.payloadPath))
    }
}
