import BinderyJSON
import BinderyRuntime
import Foundation

/// Operations every service of a dialect has: OData delta, upload sessions and copy monitors, Inbox-style cursors
/// and longpoll. Behaviours of one service (sending mail, Spark's sign-in, Inbox's drafts) live with the service
/// in `BinderyServiceMocks`.
extension MockOperation {
    /// Answers `status` with no body (`send`, `reply`: 202 Accepted).
    public static func accepted(_ status: Int = 202) -> MockOperation { MockOperation { _ in .empty(status) } }

    /// A read whose answer is an object kept at the operation's own path (Spark's `GET my/account`): that object
    /// when the store holds one (a sample put it there), else the operation's fixture.
    public static let readStored = MockOperation { call in
        let path = call.resourcePath + call.operation.segments
        if let object = call.store.object(at: path) { return call.server.single(object) }
        return call.server.cannedAnswer(call.key, for: call)
    }

    /// The write that goes with `readStored` (Spark's `PUT my/account`): merges the body into the stored object when
    /// there is one, and answers as the fixture does.
    public static let updateStored = MockOperation { call in
        let path = call.resourcePath + call.operation.segments
        if case .object(let changes)? = call.body, call.store.object(at: path) != nil {
            _ = call.store.update(at: path, merging: changes)
        }
        return call.server.cannedAnswer(call.key, for: call)
    }

    /// OData delta: every item below the resource first, then what was created, changed or deleted since
    /// the token; the last page carries `@odata.deltaLink` with the next token.
    public static let odataDelta = MockOperation(
        prepare: { fixture, server in
            let token =
                fixture.query.first { $0.0 == "$deltatoken" || $0.0 == "token" }?.1
                ?? MockServer.functionToken(fixture.segments.last)
            if let token { server.acceptDeltaToken(token) }
        }, handle: { call in call.server.odataDelta(call) })

    /// `createUploadSession`: an upload URL on the mock that takes byte ranges (see `MockServer.upload`).
    public static let uploadSession = MockOperation { call in call.server.startUpload(call) }

    /// OneDrive `search(q='…')` (or `view.search?q=…`): the items below the resource whose name holds the text,
    /// without case, as a page. (The service also matches metadata and content, which the mock does not hold.)
    public static let searchByName = MockOperation { call in
        let segment = call.request.segments.last ?? ""
        let text = (FunctionSegment(segment)["q"] ?? call.request.queryValue("q") ?? "").lowercased()
        let matching = call.store.allItems(below: call.store.locate(call.resourcePath)).map(\.object).filter {
            !text.isEmpty && ($0["name"]?.stringValue?.lowercased().contains(text) ?? false)
        }
        return call.server.odataPage(matching, call.request, onLastPage: [:])
    }

    /// OneDrive `copy`: the copy is made at once, in the folder `parentReference` names by id (beside the
    /// original without one), and the answer is 202 with a monitor URL that reports it done.
    public static let copy = MockOperation { call in
        let sourcePath = call.store.locate(call.resourcePath)
        guard let source = call.store.object(at: sourcePath) else {
            return call.server.errorResponse(404, code: "itemNotFound", message: "nothing to copy")
        }
        var copy = source
        copy["id"] = nil
        if let name = call.body?["name"]?.stringValue { copy["name"] = .string(name) }
        var parent = Array(sourcePath.dropLast())
        if let folderID = call.body?["parentReference"]?["id"]?.stringValue {
            // An item by id wherever it is listed (`drive/items/{id}`), or the drive's own `root`.
            let drive = sourcePath.lastIndex(of: "drive").map { Array(sourcePath[...$0]) } ?? []
            let byID = call.store.locate(drive + ["items", folderID])
            guard let folder = [byID, drive + [folderID]].first(where: { call.store.object(at: $0) != nil }) else {
                return call.server.errorResponse(
                    404, code: "itemNotFound", message: "no folder \(folderID) to copy into")
            }
            parent = folder + ["children"]
        }
        let stored = call.store.insert(copy, into: parent.isEmpty ? ["copies"] : parent)
        let monitor = call.server.origin(of: call.request) + "/\(MockServer.monitorSegment)/\(stored.key)"
        return MockResponse(status: 202, headers: [("Location", monitor)])
    }

    /// `POST …/delta/generate_cursor {"start": <unix seconds>}`: a cursor before the first change at or after `start`.
    public static let generateCursor = MockOperation { call in
        let start = call.body?["start"]?.numberValue?.doubleValue ?? 0
        let before =
            call.store.changes(after: 0, below: []).last { $0.date.timeIntervalSince1970 < start }?.sequence ?? 0
        return MockResponse(json: ["cursor": .string(MockCursor.text(before))])
    }

    /// `POST …/delta/latest_cursor`: a cursor after every change so far.
    public static let latestCursor = MockOperation { call in
        MockResponse(json: ["cursor": .string(MockCursor.text(call.store.latestSequence))])
    }

    /// `GET …/delta?cursor=C`: up to 100 changes after the cursor; `cursor_start == cursor_end` when there are none.
    public static let cursorDelta = MockOperation { call in call.server.cursorDelta(call) }

    /// `GET …/delta/longpoll?cursor=C&timeout=S`: holds the request until a change arrives or the timeout passes.
    public static let longpoll = MockOperation { call in
        // Without a timeout the mock waits 2 s (the service: 30 s), so replays stay quick.
        let timeout = min(60, Double(call.request.queryValue("timeout") ?? "") ?? 2)
        let deadline = Date(timeIntervalSinceNow: timeout)
        let after = MockCursor.sequence(call.request.queryValue("cursor"))
        while Date() < deadline,
            call.store.changes(after: after, below: call.server.service.cursorDeltaScope(call.resourcePath)).isEmpty
        {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return call.server.cursorDelta(call)
    }
}

/// The mock's delta cursors: opaque to clients, they carry the store's change sequence number.
public enum MockCursor {
    /// The cursor after change `sequence` (`MockStore.latestSequence` for one after every change so far).
    public static func text(_ sequence: Int) -> String { "cursor-\(sequence)" }

    static func sequence(_ text: String?) -> Int {
        guard let text, text.hasPrefix("cursor-") else { return 0 }
        return Int(text.dropFirst(7)) ?? 0
    }
}

extension MockServer {
    func odataDelta(_ call: MockCall) -> MockResponse {
        let request = call.request
        let token =
            request.queryValue("$deltatoken") ?? request.queryValue("token")
            ?? Self.functionToken(request.segments.last)
        let prefix = call.resourcePath
        // Items are shaped by `$select` and `$expand` as in a list. Removals are too: the strict reading, under
        // which a OneDrive client that leaves `deleted` out of its `$select` cannot see what was removed.
        var items: [JSONObject] = []
        if let token, let after = deltaSequence(token) {
            var latest: [String: MockStore.Change] = [:]
            var order: [String] = []
            for change in store.changes(after: after, below: prefix) {
                let id = (change.collection + [change.key]).joined(separator: "/")
                if latest[id] == nil { order.append(id) }
                latest[id] = change
            }
            for id in order {
                guard let change = latest[id] else { continue }
                let path = change.collection + [change.key]
                if change.kind != .deleted, let object = store.object(at: path) {
                    items.append(shape(object, at: path, request, service.queryOptions))
                } else {
                    var tombstone = JSONObject()
                    tombstone[service.idMember] = .string(change.key)
                    switch service.deletionMarker {
                    case .removedAnnotation: tombstone["@removed"] = ["reason": "deleted"]
                    case .deletedFacet: tombstone["deleted"] = ["state": "deleted"]
                    }
                    items.append(shape(tombstone, at: path, request, service.queryOptions))
                }
            }
        } else if token != nil {
            return errorResponse(
                410, code: "resyncRequired", message: "the delta token is not valid; start again without one")
        } else {
            items = store.allItems(below: prefix).map {
                shape($0.object, at: $0.collection + [$0.key], request, service.queryOptions)
            }
        }
        let deltaLink = link(
            request, replacing: "$deltatoken", with: String(store.latestSequence), dropping: ["$skiptoken", "token"])
        return odataPage(items, request, onLastPage: ["@odata.deltaLink": .string(deltaLink)])
    }

    /// `delta(token='42')` → `42`.
    static func functionToken(_ segment: String?) -> String? {
        guard let token = segment.flatMap({ FunctionSegment($0)["token"] }), !token.isEmpty else { return nil }
        return token
    }

    func cursorDelta(_ call: MockCall) -> MockResponse {
        let cursor = call.request.queryValue("cursor")
        let after = MockCursor.sequence(cursor)
        let excluded = Set((call.request.queryValue("exclude_types") ?? "").split(separator: ",").map(String.init))
        let changes = Array(store.changes(after: after, below: service.cursorDeltaScope(call.resourcePath)).prefix(100))
        var deltas: [JSONValue] = []
        for change in changes {
            let object = store.object(at: change.collection + [change.key])
            let type = object?["object"]?.text ?? String((change.collection.last ?? "item").dropLast())
            guard !excluded.contains(type) else { continue }
            var delta: JSONObject = [
                "object": .string(type),
                "event": .string(change.kind == .created ? "create" : change.kind == .updated ? "modify" : "delete"),
                "id": .string(change.key), "cursor": .string(MockCursor.text(change.sequence)),
            ]
            if change.kind != .deleted, let object { delta["attributes"] = .object(object) }
            deltas.append(.object(delta))
        }
        let start = MockCursor.text(after)
        let end = changes.last.map { MockCursor.text($0.sequence) } ?? start
        return MockResponse(json: [
            "cursor_start": .string(start), "cursor_end": .string(end), "deltas": .array(deltas),
        ])
    }
}

/// The parts of a `multipart/form-data` body.
public struct MultipartParts: Sendable {
    public struct File: Sendable {
        /// The form field's name (`file`).
        public var name: String?
        public var filename: String
        public var contentType: String
        public var bytes: [UInt8]
    }

    public var files: [File] = []

    public init(_ request: MockRequest) {
        guard let type = request.header("Content-Type"), let range = type.range(of: "boundary=") else { return }
        let boundary = Array(
            ("--" + type[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        let body = request.body
        var starts: [Int] = []
        var index = 0
        while index + boundary.count <= body.count {
            if body[index] == boundary[0], Array(body[index..<index + boundary.count]) == boundary {
                starts.append(index)
                index += boundary.count
            } else {
                index += 1
            }
        }
        for (start, end) in zip(starts, starts.dropFirst()) {
            let part = Array(body[(start + boundary.count)..<end])
            guard let split = Self.headerEnd(part) else { continue }
            let head = String(decoding: part[..<split], as: UTF8.self)
            var content = Array(part[(split + 4)...])
            if content.suffix(2) == [13, 10] { content.removeLast(2) }
            guard let name = Self.parameter("filename", in: head) else { continue }
            let contentType =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
                .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
                ?? "application/octet-stream"
            files.append(
                File(name: Self.parameter("; name", in: head), filename: name, contentType: contentType, bytes: content)
            )
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parameter(_ name: String, in head: String) -> String? {
        guard let range = head.range(of: name + "=\"") else { return nil }
        let rest = head[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
