import BinderyJSON
import BinderyRuntime
import Foundation

/// Resumable uploads and `$batch`.
extension MockServer {
    /// `createUploadSession`: `{uploadUrl, expirationDateTime, nextExpectedRanges: ["0-"]}`.
    func startUpload(_ call: MockCall) -> MockResponse {
        let id = store.newKey(prefix: "session")
        var item = call.body?["item"]?.objectValue ?? [:]
        let conflictBehavior = item["@microsoft.graph.conflictBehavior"]?.stringValue
        item["@microsoft.graph.conflictBehavior"] = nil
        // Addressed by path (`root:/a.bin:/createUploadSession`), the session is for that name in that folder;
        // addressed by key, the mock reads the item as the folder.
        let folder = call.addressed?.parent ?? call.resourcePath
        if let name = call.addressed?.name { item["name"] = .string(name) }
        if item["name"] == nil { item["name"] = "upload" }
        var replacing: String?
        if let name = item["name"]?.stringValue, let existing = PathAddress.child(named: name, of: folder, in: store) {
            guard conflictBehavior != "fail" else {
                return errorResponse(409, code: "nameAlreadyExists", message: "\(name) already exists")
            }
            replacing = existing
        }
        let parent = folder + ["children"]
        withUploads { $0[id] = UploadSession(parent: parent, item: item, replacing: replacing) }
        return MockResponse(json: [
            "uploadUrl": .string(storageURL.absoluteString + "/\(Self.uploadSegment)/\(id)"),
            "expirationDateTime": .string(Self.isoDate(Date(timeIntervalSinceNow: 3600))), "nextExpectedRanges": ["0-"],
        ])
    }

    /// The upload URL: `PUT` with `Content-Range: bytes a-b/total` appends (a must be the next byte expected,
    /// else 416; every range but the last a multiple of 320 KiB, else 400); the last range creates the item (201);
    /// `GET` reports progress; `DELETE` cancels. Like OneDrive, the URL is its own credential: no Authorization is
    /// needed (or wanted), and it is served on the storage host (`storageURL`).
    func upload(_ request: MockRequest, session id: String) -> MockResponse {
        let isLive = withUploads { uploads in
            if let session = uploads[id], session.expires <= Date() { uploads[id] = nil }
            return uploads[id] != nil
        }
        guard isLive else {
            return errorResponse(404, code: "itemNotFound", message: "the upload session does not exist or has expired")
        }
        switch request.method {
        case "DELETE":
            withUploads { $0[id] = nil }
            return .empty(204)
        case "GET":
            let received = withUploads { $0[id]?.received.count ?? 0 }
            return MockResponse(json: [
                "expirationDateTime": .string(Self.isoDate(Date(timeIntervalSinceNow: 3600))),
                "nextExpectedRanges": [.string("\(received)-")],
            ])
        case "PUT":
            guard let range = ContentRange(request.header("Content-Range")), range.length == request.body.count else {
                return errorResponse(
                    400, code: "invalidRange",
                    message: "Content-Range must say bytes first-last/total and match the body")
            }
            guard range.last + 1 == range.total || range.length % Self.uploadFragmentUnit == 0,
                range.length < 60 << 20
            else {
                return errorResponse(
                    400, code: "invalidRange",
                    message: "a range other than the last must be a multiple of 320 KiB, and under 60 MiB")
            }
            enum Outcome {
                case outOfOrder(expected: Int)
                case finished(UploadSession)
                case partial(received: Int)
            }
            let outcome = withUploads { uploads -> Outcome in
                guard var session = uploads[id] else { return .partial(received: 0) }
                guard range.first == session.received.count else {
                    return .outOfOrder(expected: session.received.count)
                }
                session.received += request.body
                if session.received.count >= range.total {
                    uploads[id] = nil
                    return .finished(session)
                }
                uploads[id] = session
                return .partial(received: session.received.count)
            }
            switch outcome {
            case .outOfOrder(let expected):
                return errorResponse(416, code: "invalidRange", message: "expected the range to start at \(expected)")
            case .finished(let finished):
                var item = finished.item
                item["size"] = .number(JSONNumber(finished.received.count))
                item["file"] = .object(
                    service.uploadedFileFacet?(finished.received) ?? ["mimeType": "application/octet-stream"])
                // Replacing keeps the item's id, as OneDrive does.
                let stored = store.insert(
                    item, into: finished.parent, key: finished.replacing, idMember: service.idMember)
                store.setBlob(finished.received, at: finished.parent + [stored.key, "content"])
                return single(stored.object, status: 201)
            case .partial(let received):
                return MockResponse(
                    status: 202,
                    json: [
                        "expirationDateTime": .string(Self.isoDate(Date(timeIntervalSinceNow: 3600))),
                        "nextExpectedRanges": [.string("\(received)-")],
                    ])
            }
        default:
            return errorResponse(405, code: "methodNotAllowed", message: "\(request.method) on an upload session")
        }
    }

    /// A pre-authenticated download URL: the bytes, or with `Range: bytes=a-b` (or `a-`) the range as 206 with
    /// `Content-Range`; a range that starts past the end is 416.
    func download(_ request: MockRequest, token: String) -> MockResponse {
        guard request.method == "GET" else {
            return errorResponse(405, code: "methodNotAllowed", message: "\(request.method) on a download URL")
        }
        guard let path = withDownloads({ $0[token] }), let bytes = store.blob(at: path) else {
            return errorResponse(404, code: "itemNotFound", message: "the download URL does not exist")
        }
        let headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        guard let range = request.header("Range") else {
            return MockResponse(status: 200, headers: headers, body: bytes)
        }
        let bounds =
            range.hasPrefix("bytes=")
            ? range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) } : []
        guard bounds.count == 2, let first = bounds[0], first < bytes.count, bounds[1].map({ $0 >= first }) ?? true
        else {
            return MockResponse(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")], body: [])
        }
        let last = min(bounds[1] ?? bytes.count - 1, bytes.count - 1)
        return MockResponse(
            status: 206, headers: headers + [("Content-Range", "bytes \(first)-\(last)/\(bytes.count)")],
            body: Array(bytes[first...last]))
    }

    /// `POST $batch {"requests": [{id, method, url, headers, body}]}`: each step is served as if sent alone
    /// (with the batch's credentials), at most 20.
    func batch(_ request: MockRequest) async -> MockResponse {
        guard let steps = request.json?["requests"]?.arrayValue else {
            return errorResponse(400, code: "BadRequest", message: "a batch needs a requests array")
        }
        guard steps.count <= 20 else {
            return errorResponse(
                400, code: "BadRequest", message: "a batch holds at most 20 requests, not \(steps.count)")
        }
        var responses: [JSONValue] = []
        // Graph runs a step after the steps it names in `dependsOn`, which must be in the same batch; a step whose
        // dependency failed is answered 424 without being run.
        var statuses: [String: Int] = [:]
        for step in steps {
            for dependency in step["dependsOn"]?.arrayValue ?? [] {
                guard let name = dependency.stringValue,
                    steps.contains(where: { $0["id"]?.stringValue == name && $0["id"] != step["id"] })
                else {
                    return errorResponse(
                        400, code: "BadRequest", message: "dependsOn names a step that is not in this batch")
                }
            }
        }
        for step in steps {
            let id = step["id"] ?? .null
            let failedDependency = (step["dependsOn"]?.arrayValue ?? []).contains { dependency in
                statuses[dependency.stringValue ?? ""].map { !(200..<300).contains($0) } ?? true
            }
            if failedDependency {
                statuses[id.stringValue ?? ""] = 424
                responses.append([
                    "id": id, "status": 424,
                    "body": ["error": ["code": "FailedDependency", "message": "a step this one depends on failed"]],
                ])
                continue
            }
            guard let method = step["method"]?.stringValue, let url = step["url"]?.stringValue else {
                responses.append([
                    "id": id, "status": 400,
                    "body": ["error": ["code": "BadRequest", "message": "a step needs method and url"]],
                ])
                continue
            }
            var headers = request.headers.filter {
                $0.name.lowercased() == "authorization" || $0.name.lowercased() == "host"
            }
            for member in step["headers"]?.objectValue ?? [:] { headers.append((member.key, member.value.text ?? "")) }
            let relative = url.hasPrefix("/") ? url : "/" + url
            let pathPart = relative.split(separator: "?", maxSplits: 1).first.map(String.init) ?? relative
            let queryPart = relative.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let query = queryPart.split(separator: "&").map { pair -> (name: String, value: String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    String($0).removingPercentEncoding ?? String($0)
                }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
            let body = step["body"].map { $0.serialized() } ?? []
            let inner = MockRequest(
                method: method, path: "/" + (service.basePath + [""]).joined(separator: "/") + pathPart.dropFirst(),
                query: query, headers: headers, body: body)
            let path = pathPart.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
            // Faults are played per step: Graph throttles the steps of a batch one by one.
            let answer = await withFaults(inner) { await self.serve($0, path: path) }
            statuses[id.stringValue ?? ""] = answer.status
            var entry: JSONObject = ["id": id, "status": .number(JSONNumber(answer.status))]
            var answerHeaders = JSONObject()
            for (name, value) in answer.headers { answerHeaders[name] = .string(value) }
            entry["headers"] = .object(answerHeaders)
            // A body that is not JSON (a file's bytes) is sent base64-encoded, as Graph does.
            if let json = answer.json {
                entry["body"] = json
            } else if !answer.body.isEmpty {
                entry["body"] = .string(Data(answer.body).base64EncodedString())
            }
            responses.append(.object(entry))
        }
        return MockResponse(json: ["responses": .array(responses)])
    }
}

extension MockServer {
    /// 320 KiB: the unit of every upload range but the last.
    static let uploadFragmentUnit = 327_680
}

/// `bytes 0-327679/1048576`.
struct ContentRange {
    let first: Int, last: Int, total: Int
    var length: Int { last - first + 1 }

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/")
        let bounds = parts.first?.split(separator: "-") ?? []
        guard parts.count == 2, bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]),
            let total = Int(parts[1]),
            first <= last, last < total
        else { return nil }
        (self.first, self.last, self.total) = (first, last, total)
    }
}
