import BinderyJSON
import BinderyRuntime
import Foundation
import Synchronization

/// Replays every fixture of a service end to end: its generated call builds the request with the typed builders
/// and sends it through a real `ServiceClient` pipeline (middleware, auth, the transport) to a `MockServer` on
/// 127.0.0.1. The mock must receive what the fixture says, the call must decode the answer with the generated
/// type, and the answer must re-encode to the JSON on the wire.
public struct ConformanceRun: Sendable {
    public struct Outcome: Sendable {
        public let fixture: String
        public let operation: String
        public let problems: [String]
        public var passed: Bool { problems.isEmpty }
    }

    public let service: MockService
    public let fixtures: [MockFixture]
    /// The generated calls by fixture name (`ConformanceCalls.oneDrive`…).
    public let calls: [String: ConformanceCall]

    /// `calls`: the service's generated calls (`ConformanceCalls.byService[service.name]` in `BinderyServiceMocks`).
    public init(_ service: MockService, fixtures: [MockFixture], calls: [String: ConformanceCall]) {
        self.service = service
        self.fixtures = fixtures
        self.calls = calls
    }

    /// Operations with a passing fixture, and operations in the spec (one fixture each).
    public static func coverage(_ outcomes: [Outcome]) -> (passed: Int, total: Int) {
        let operations = Dictionary(grouping: outcomes, by: \.operation)
        return (operations.values.filter { $0.allSatisfy(\.passed) }.count, operations.count)
    }

    public func run(transport: any HTTPTransport = DefaultTransport.shared) async throws -> [Outcome] {
        let server = try await MockServer(service)
        server.seed(fixtures)
        var outcomes: [Outcome] = []
        for fixture in fixtures {
            outcomes.append(await replay(fixture, on: server, transport: transport))
        }
        await server.stop()
        return outcomes
    }

    private func replay(_ fixture: MockFixture, on server: MockServer, transport: any HTTPTransport) async -> Outcome {
        func outcome(_ problems: [String]) -> Outcome {
            Outcome(fixture: fixture.name, operation: fixture.operation, problems: problems)
        }
        guard let call = calls[fixture.name] else {
            return outcome(["no generated call reaches this operation (see Sources/ServiceMocks/<Service>/Generated)"])
        }
        server.reset()
        server.prepare(for: fixture)
        let scheme = service.authorization
        let recorder = ResponseRecorder()
        let client = ServiceClient(
            baseURL: server.serviceURL, transport: transport,
            middleware: [recorder] + .defaults + [
                AuthMiddleware(StaticTokenAuth(server.identity.acceptedToken, scheme: scheme))
            ],
            conventions: service.conventions)
        let validator = PayloadValidator(routes: service.routes, conventions: service.conventions)
        let method = HTTPRequest.Method(rawValue: fixture.method) ?? .get
        let shape = validator.response(method: method, path: fixture.path, query: fixture.query)
        let arguments = ConformanceArguments(
            fixture: fixture, enveloped: shape?.isEnveloped ?? true, conventions: service.conventions)

        // The call decodes the answer with the generated type; a failure here is a builder's or a model's.
        var problems: [String] = []
        do {
            try await call(client, arguments)
        } catch {
            problems.append("the generated call failed: \(error)")
        }

        // What arrived is what the fixture says a client sends.
        guard let received = server.requests.last else { return outcome(problems + ["the mock received nothing"]) }
        problems += Self.differences(fixture, received, service: service)

        // What came back re-encodes to the same JSON.
        guard let response = recorder.last else { return outcome(problems + ["no answer came back"]) }
        if fixture.responseText != nil {
            if response.body.isEmpty { problems.append("the raw body is empty") }
        } else if fixture.responseBody != nil {
            guard let shape, let report = validator.validate(response.body, as: shape) else {
                return outcome(problems + ["no response type in the route table"])
            }
            if let failure = report.failure {
                problems.append("the answer does not decode as \(report.typeName): \(failure)")
            }
            if report.decoded, !report.roundTrips {
                problems.append("re-encoding \(report.typeName) does not give back the wire JSON")
            }
        }
        return outcome(problems)
    }

    /// Everything in which the request the mock received differs from the fixture's. The query must be the
    /// fixture's exactly, except for what the pager adds to a collection's first request (`_pagination=1`,
    /// `_page=1`, `limit=100`) where the fixture names none.
    static func differences(_ fixture: MockFixture, _ received: MockRequest, service: MockService) -> [String] {
        var problems: [String] = []
        if received.method != fixture.method {
            problems.append("method \(received.method), expected \(fixture.method)")
        }
        if received.segments != service.basePath + fixture.segments {
            problems.append(
                "path \(received.path), expected \(fixture.path) below /\(service.basePath.joined(separator: "/"))")
        }
        let pagingNames = Set(service.conventions.paging.firstPageQuery.map(\.name)).subtracting(fixture.query.map(\.0))
        let sent = received.query.filter { !pagingNames.contains($0.name) }.map { "\($0.name)=\($0.value)" }.sorted()
        let expected = fixture.query.map { "\($0.0)=\($0.1)" }.sorted()
        if sent != expected {
            problems.append("query \(sent.joined(separator: "&")), expected \(expected.joined(separator: "&"))")
        }
        for (name, value) in fixture.headers where received.header(name) != value {
            problems.append("header \(name): \(received.header(name) ?? "(missing)"), expected \(value)")
        }
        if let body = fixture.requestBody {
            if received.json != body {
                problems.append("the body differs from the fixture's: \(received.json?.jsonText ?? "(none)")")
            }
        } else if let names = fixture.multipartParts {
            let parts = MultipartParts(received).files.map { $0.name ?? "(unnamed)" }
            if parts != names { problems.append("multipart parts \(parts), expected \(names)") }
        } else if let text = fixture.requestText {
            if received.body != Array(text.utf8) { problems.append("the raw body differs from the fixture's") }
        } else if !received.body.isEmpty {
            problems.append("a body was sent; the fixture has none")
        }
        return problems
    }
}

extension Result where Failure == BinderyError {
    init(catching body: () async throws(BinderyError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// One generated conformance call: the fixture's operation reached through the typed builders, sent with
/// `client`, its answer decoded by the generated type.
public typealias ConformanceCall = @Sendable (ServiceClient, ConformanceArguments) async throws -> Void

/// The generated calls, one table per service (`make gen` writes them into `Sources/BinderyMock/Calls`).
public enum ConformanceCalls {}

/// What a generated call passes to a builder's method, read from its fixture and typed by the method it is
/// passed to: `copy(parentReference: arguments("parentReference"))`.
public struct ConformanceArguments: Sendable {
    public let fixture: MockFixture
    /// Whether the operation's bodies travel in the service's envelope (Spark's `D`).
    public let enveloped: Bool
    let conventions: ServiceConventions

    /// The spec parameter `name` (query, header, path or function), as the type the method takes.
    public func callAsFunction<Value: JSONConvertible>(_ name: String) throws(BinderyError) -> Value {
        guard let json = fixture.arguments[name] else { throw Self.error("the fixture has no argument '\(name)'") }
        return try Self.value(json, name)
    }

    /// The body parameter `name`: a member of the fixture's request body (body parameters are written once, there).
    public func bodyMember<Value: JSONConvertible>(_ name: String) throws(BinderyError) -> Value {
        guard let json = try unwrappedBody()[name] else {
            throw Self.error("the fixture's body has no member '\(name)'")
        }
        return try Self.value(json, name)
    }

    private static func value<Value: JSONConvertible>(_ json: JSONValue, _ name: String) throws(BinderyError) -> Value {
        guard let value = Value(json: json) else {
            throw error("argument '\(name)' is not a \(Value.self): \(json.jsonText)")
        }
        return value
    }

    /// The operation's one body value: the fixture's request body, outside the service's envelope.
    public func body<Value: JSONConvertible>() throws(BinderyError) -> Value {
        let json = try unwrappedBody()
        guard let value = Value(json: json) else { throw Self.error("the fixture's body is not a \(Value.self)") }
        return value
    }

    private func unwrappedBody() throws(BinderyError) -> JSONValue {
        guard var json = fixture.requestBody else { throw Self.error("the fixture's request has no body") }
        if enveloped {
            for key in conventions.requestEnvelope {
                guard let inner = json[key] else {
                    throw Self.error("the fixture's body is not in the '\(key)' envelope")
                }
                json = inner
            }
        }
        return json
    }

    /// The multipart form of an upload: one small text file.
    public var form: MultipartForm {
        .file(Array("conformance".utf8), filename: "conformance.txt", contentType: "text/plain")
    }

    /// A raw body: the fixture's text.
    public var content: RequestBody { .bytes(Array((fixture.requestText ?? "").utf8)) }

    private static func error(_ message: String) -> BinderyError {
        BinderyError(kind: .invalidResponse, message: "conformance fixture: " + message)
    }
}

/// Keeps the last answer a client received, for checks on the raw bytes after the typed call returns.
final class ResponseRecorder: HTTPMiddleware, Sendable {
    private let response = Mutex<APIResponse?>(nil)

    var last: APIResponse? { response.withLock { $0 } }

    func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        let answer = try await next(request)
        response.withLock { $0 = answer }
        return answer
    }
}
