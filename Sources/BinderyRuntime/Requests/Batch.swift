import BinderyJSON
import Foundation
import HTTPTypes

/// One request of an OData JSON batch (`POST $batch`): what a generated builder built, under an id of the caller's.
public struct BatchStep: Sendable {
    public var id: String
    public var request: APIRequest
    /// Steps that must be answered, successfully, before this one runs.
    public var dependsOn: [String]

    public init(id: String, _ request: APIRequest, dependsOn: [String] = []) {
        self.id = id
        self.request = request
        self.dependsOn = dependsOn
    }
}

/// A step's answer: a response of its own, read as if it had been sent alone.
public struct BatchAnswer: Sendable {
    public let id: String
    /// Status, headers and body; a body the batch carried base64-encoded (a file's bytes) is decoded.
    public let response: APIResponse
    /// How many times the step was sent (more than once after 429, 503 or 504).
    public let attempts: Int
    /// The client that sent the batch, which knows the service's envelope and error shape.
    let client: ServiceClient

    public var succeeded: Bool { response.status.kind == .successful }

    /// The step's failure read by the service's error shape, or nil when it succeeded.
    public var error: BinderyError? {
        succeeded ? nil : ErrorParser.parse(response, shape: client.conventions.errors)
    }

    /// The step's body as a model; the step's own error when it failed.
    public func decode<Decoded: JSONModel>(_ type: Decoded.Type) throws(BinderyError) -> Decoded {
        if let error { throw error }
        return try client.decodeModel(type, from: response)
    }
}

extension ServiceClient {
    /// The most steps one `$batch` call may carry.
    public static let batchLimit = 20

    /// Sends any number of steps as `$batch` calls of at most 20 and returns one answer per step, in the order of
    /// `steps`.
    ///
    /// - Steps are ordered so that every `dependsOn` chain is honoured: a step goes in the same call as the steps
    ///   it depends on, or a later one (then its `dependsOn` is dropped from the wire, and it is answered 424
    ///   without being sent when a dependency failed, as the service does within one call).
    /// - Steps answered 429, 503 or 504 are sent again, after the longest `Retry-After` among them (or a backoff),
    ///   up to `maxAttempts` times each, with the steps that failed only because they depended on them. Every
    ///   other answer is kept as it came.
    /// - Throws for the batch as a whole only: unknown or repeated ids, a cycle (nothing is sent), or a call
    ///   that failed outright. A step's failure is in its answer (`error`, `decode`).
    public func batch(
        _ steps: [BatchStep], path: ResourcePath = ResourcePath().appending("$batch"), maxAttempts: Int = 4,
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws(BinderyError) -> [BatchAnswer] {
        let order = try BatchPlan.order(steps)
        var answers: [String: BatchAnswer] = [:]
        var attempts: [String: Int] = [:]
        var pending = order
        while !pending.isEmpty {
            let call = Array(pending.prefix(Self.batchLimit))
            pending.removeFirst(call.count)
            var sent: [BatchStep] = []
            for step in call {
                let earlier = step.dependsOn.filter { dependency in !call.contains { $0.id == dependency } }
                if let failed = earlier.first(where: { answers[$0]?.succeeded == false }) {
                    answers[step.id] = BatchAnswer(
                        id: step.id, response: Self.failedDependency(failed), attempts: attempts[step.id] ?? 0,
                        client: self)
                    continue
                }
                var wire = step
                wire.dependsOn = step.dependsOn.filter { dependency in call.contains { $0.id == dependency } }
                sent.append(wire)
                attempts[step.id, default: 0] += 1
            }
            guard !sent.isEmpty else { continue }
            for answer in try await sendBatch(sent, path: path, attempts: attempts) { answers[answer.id] = answer }

            // Throttled steps, and the steps of this call that failed only because they depended on one, go again.
            var again = Set(
                sent.filter { step in
                    [429, 503, 504].contains(answers[step.id]?.response.status.code ?? 0)
                        && attempts[step.id, default: 0] < maxAttempts
                }.map(\.id))
            guard !again.isEmpty else { continue }
            var grew = true
            while grew {
                grew = false
                for step in sent where !again.contains(step.id) && answers[step.id]?.response.status.code == 424 {
                    if step.dependsOn.contains(where: again.contains) {
                        again.insert(step.id)
                        grew = true
                    }
                }
            }
            let wait = sent.filter { again.contains($0.id) }.compactMap { answers[$0.id]?.response.retryAfter }.max()
            do {
                try await sleep(min(wait ?? .milliseconds(200 * (attempts.values.max() ?? 1)), .seconds(60)))
            } catch {
                throw BinderyError(kind: .cancelled, message: "the batch was cancelled")
            }
            pending = order.filter { again.contains($0.id) } + pending
        }
        return steps.map { answers[$0.id]! }
    }

    /// One `$batch` call.
    private func sendBatch(_ steps: [BatchStep], path: ResourcePath, attempts: [String: Int]) async throws(BinderyError)
        -> [BatchAnswer]
    {
        var request = APIRequest(method: .post, path: path)
        request.setJSONBody(["requests": .array(steps.map { BatchPlan.wire($0, root: baseURL) })])
        let response = try await send(request)
        guard case .array(let entries)? = try response.json()["responses"] else {
            throw BinderyError.invalidResponse("a $batch answer needs a responses array", response: response)
        }
        var answers: [BatchAnswer] = []
        for entry in entries {
            guard let id = entry["id"]?.stringValue, steps.contains(where: { $0.id == id }),
                let status = entry["status"]?.numberValue?.intValue
            else {
                throw BinderyError.invalidResponse(
                    "a $batch answer has a response without a known id or status", response: response)
            }
            var headers = HTTPFields()
            for member in entry["headers"]?.objectValue ?? [:] {
                if let name = HTTPField.Name(member.key), let text = member.value.stringValue { headers[name] = text }
            }
            let body: [UInt8]
            switch entry["body"] {
            case .string(let text)? where !(headers[.contentType] ?? "").contains("json"):
                // Bytes that are not JSON travel base64-encoded.
                body = Data(base64Encoded: text).map(Array.init) ?? Array(text.utf8)
            case let value?: body = value.serialized()
            case nil: body = []
            }
            answers.append(
                BatchAnswer(
                    id: id,
                    response: APIResponse(status: HTTPResponse.Status(code: status), headers: headers, body: body),
                    attempts: attempts[id] ?? 1, client: self))
        }
        let missing = steps.filter { step in !answers.contains { $0.id == step.id } }
        guard missing.isEmpty else {
            throw BinderyError.invalidResponse(
                "the $batch answer has no response for step \(missing.map(\.id).joined(separator: ", "))",
                response: response)
        }
        return answers
    }

    /// What the service answers a step whose dependency failed.
    private static func failedDependency(_ id: String) -> APIResponse {
        APIResponse(
            status: HTTPResponse.Status(code: 424), headers: [.contentType: "application/json"],
            body: JSONValue.object([
                "error": [
                    "code": "FailedDependency", "message": .string("step \(id), which this one depends on, failed"),
                ]
            ]).serialized())
    }
}

/// Checking and ordering steps, and writing one for the wire.
enum BatchPlan {
    /// The steps in an order where each comes after the steps it depends on, otherwise as given.
    static func order(_ steps: [BatchStep]) throws(BinderyError) -> [BatchStep] {
        var byID: [String: BatchStep] = [:]
        for step in steps {
            guard byID.updateValue(step, forKey: step.id) == nil else {
                throw BinderyError(kind: .refused, message: "two batch steps have the id \(step.id)")
            }
        }
        for step in steps {
            for dependency in step.dependsOn where byID[dependency] == nil {
                throw BinderyError(
                    kind: .refused, message: "step \(step.id) depends on \(dependency), which is not a step")
            }
        }
        var ordered: [BatchStep] = []
        var placed = Set<String>()
        var visiting = Set<String>()
        func place(_ step: BatchStep) throws(BinderyError) {
            if placed.contains(step.id) { return }
            guard visiting.insert(step.id).inserted else {
                throw BinderyError(
                    kind: .refused, message: "the batch steps' dependsOn make a cycle through \(step.id)")
            }
            for dependency in step.dependsOn { try place(byID[dependency]!) }
            visiting.remove(step.id)
            placed.insert(step.id)
            ordered.append(step)
        }
        for step in steps { try place(step) }
        return ordered
    }

    /// The step's URL below the service root: a request built from a link the service gave (`nextRequest`) is
    /// absolute, and `$batch` wants it relative (`/v1.0/me/messages?$skip=10` → `/me/messages?$skip=10`).
    static func relativeURL(_ request: APIRequest, root: URL) -> String {
        guard let absolute = request.absoluteURL,
            let components = URLComponents(url: absolute, resolvingAgainstBaseURL: false)
        else { return request.pathAndQuery }
        let rootPath = root.path.split(separator: "/")
        var path = components.percentEncodedPath.split(separator: "/")
        if path.starts(with: rootPath) { path.removeFirst(rootPath.count) }
        return "/" + path.joined(separator: "/") + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// `{"id", "method", "url", "headers", "body", "dependsOn"}`: the URL relative to the service root, a JSON body
    /// as JSON, any other body base64-encoded.
    static func wire(_ step: BatchStep, root: URL) -> JSONValue {
        var object: JSONObject = [
            "id": .string(step.id), "method": .string(step.request.method.rawValue),
            "url": .string(relativeURL(step.request, root: root)),
        ]
        var headers = JSONObject()
        for field in step.request.headers { headers[field.name.canonicalName] = .string(field.value) }
        if case .bytes(let bytes)? = step.request.body {
            if let json = try? JSONValue.parse(bytes),
                (headers["Content-Type"]?.stringValue ?? "application/json").contains("json")
            {
                object["body"] = json
                if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
            } else {
                object["body"] = .string(Data(bytes).base64EncodedString())
            }
        }
        if !headers.isEmpty { object["headers"] = .object(headers) }
        if !step.dependsOn.isEmpty { object["dependsOn"] = .array(step.dependsOn.map { .string($0) }) }
        return .object(object)
    }
}
