import HTTPTypes

/// A request for an action or function (`copy`, `sendMail`, `send`, `generate_cursor`): built by a generated
/// method, inspectable before it is sent, sent by `send()`.
public struct OperationRequest<Output: Sendable>: SendingRequest, SelectableRequest {
    public let client: ServiceClient
    public var request: APIRequest
    let decoder: ResponseDecoder<Output>

    public init(client: ServiceClient, request: APIRequest, decoder: ResponseDecoder<Output>) {
        self.client = client
        self.request = request
        self.decoder = decoder
    }

    /// Sends the request and decodes its answer.
    @discardableResult
    public func send() async throws(BinderyError) -> Output {
        let response = try await client.send(request)
        return try decoder.decode(response, client)
    }

    @available(*, deprecated, renamed: "send()", message: "every request is sent with send()")
    @discardableResult
    public func execute() async throws(BinderyError) -> Output { try await send() }
}

/// How an operation's response body becomes its output.
public struct ResponseDecoder<Output: Sendable>: Sendable {
    let decode: @Sendable (APIResponse, ServiceClient) throws(BinderyError) -> Output

    public init(_ decode: @escaping @Sendable (APIResponse, ServiceClient) throws(BinderyError) -> Output) {
        self.decode = decode
    }

    /// A model (unwrapped from the service's envelope).
    public static func model(_ type: Output.Type) -> Self where Output: JSONModel {
        Self { response, client throws(BinderyError) in try client.decodeModel(Output.self, from: response) }
    }

    /// A primitive or a collection of values: OData wraps them as `{"value": ...}`, an envelope holds them in its
    /// results (the whole array, or its one element), others send them bare.
    public static func value(_ type: Output.Type) -> Self where Output: JSONConvertible {
        Self { response, client throws(BinderyError) in
            let root = try client.conventions.checkEnvelope(try response.json(), response: response)
            var candidates: [JSONValue] = []
            if let value = root.objectValue?["value"] { candidates.append(value) }
            if case .wrapped(let path) = client.conventions.listShape, let results = root.value(at: path) {
                candidates.append(results)
                if case .array(let items) = results, items.count == 1 { candidates.append(items[0]) }
            }
            candidates.append(root)
            for candidate in candidates {
                if let output = Output(json: candidate) { return output }
            }
            throw BinderyError.invalidResponse(
                "the response is not a \(Output.self): \(root.kindName)", response: response)
        }
    }
}

extension ResponseDecoder {
    /// A model at a fixed place in the body rather than in the envelope's results (Spark's `_pagination=count`
    /// answers `{"D": {"Success": true, "Pagination": {...}}}`).
    public static func model(_ type: Output.Type, at path: [String]) -> Self where Output: JSONModel {
        Self { response, client throws(BinderyError) in try client.decodeModel(Output.self, from: response, at: path) }
    }

    /// A value at a fixed place in the body rather than in the envelope's results.
    public static func value(_ type: Output.Type, at path: [String]) -> Self where Output: JSONConvertible {
        Self { response, client throws(BinderyError) in
            let root = try client.conventions.checkEnvelope(try response.json(), response: response)
            guard let value = root.value(at: path), let output = Output(json: value) else {
                throw BinderyError.invalidResponse(
                    "the response has no \(Output.self) at \(path.joined(separator: "."))", response: response)
            }
            return output
        }
    }
}

extension ResponseDecoder {
    /// The same answer, turned into another type: a case of an operation's per-status answer enum.
    public func map<Mapped: Sendable>(_ transform: @escaping @Sendable (Output) -> Mapped) -> ResponseDecoder<Mapped> {
        let decode = self.decode
        return ResponseDecoder<Mapped> { response, client throws(BinderyError) in
            transform(try decode(response, client))
        }
    }

    /// An operation whose success codes answer differently (`201` a file, `202` "not processed yet"): each status
    /// decoded its own way; a success status the spec does not list is read as the first one.
    public static func byStatus(_ decoders: KeyValuePairs<Int, Self>) -> Self {
        let table = Array(decoders)
        return Self { response, client throws(BinderyError) in
            guard let first = table.first else {
                throw BinderyError.invalidResponse("no answer is declared", response: response)
            }
            let decoder = table.first { $0.key == response.status.code }?.value ?? first.value
            return try decoder.decode(response, client)
        }
    }
}

extension ResponseDecoder where Output == [UInt8] {
    /// The body as bytes (downloads, non-JSON responses).
    public static var raw: Self { Self { response, _ in response.body } }
}

extension ResponseDecoder where Output == String {
    /// The body as text (`text/plain`, `text/csv`, `text/html` answers), read as UTF-8; bytes that are not UTF-8
    /// are an `invalidResponse` error rather than replaced.
    public static var text: Self {
        Self { response, _ throws(BinderyError) in
            guard let text = String(validating: response.body, as: UTF8.self) else {
                throw BinderyError.invalidResponse("the response body is not UTF-8 text", response: response)
            }
            return text
        }
    }
}

extension ResponseDecoder where Output == Void {
    /// The body is ignored (204 No Content, 202 Accepted).
    public static var empty: Self { Self { _, _ in () } }
}
