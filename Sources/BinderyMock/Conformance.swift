import BinderyJSON
import BinderyRuntime
import Foundation

/// Replays every fixture of a service end to end: the request goes through a real `ServiceClient` pipeline
/// (middleware, auth, the transport) to a `MockServer` on 127.0.0.1; the mock must receive what the fixture
/// says, and its answer must decode with the generated type and re-encode to the JSON on the wire.
public struct ConformanceRun: Sendable {
    public struct Outcome: Sendable {
        public let fixture: String
        public let operation: String
        public let problems: [String]
        public var passed: Bool { problems.isEmpty }
    }

    public let service: MockService
    public let fixtures: [MockFixture]

    public init(_ service: MockService, fixtures: [MockFixture]) {
        self.service = service
        self.fixtures = fixtures
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
        server.reset()
        server.prepare(for: fixture)
        var problems: [String] = []
        let scheme: AuthorizationScheme = switch service.conventions.errors {
        case .spark: .oauth
        case .inbox, .nylas: .basicUser
        case .odata: .bearer
        }
        let client = ServiceClient(
            baseURL: server.serviceURL, transport: transport,
            middleware: .defaults + [AuthMiddleware(StaticTokenAuth(server.identity.acceptedToken, scheme: scheme))],
            conventions: service.conventions)

        let response: APIResponse
        switch await Result(catching: { () async throws(BinderyError) -> APIResponse in try await client.send(request(for: fixture)) }) {
        case .success(let answer): response = answer
        case .failure(let error):
            return Outcome(fixture: fixture.name, operation: fixture.operation, problems: ["the mock refused it: \(error)"])
        }

        // What arrived is what the fixture says a client sends.
        if let received = server.requests.last {
            problems += Self.differences(fixture, received, basePath: service.basePath)
        } else {
            problems.append("the mock received nothing")
        }

        // What came back decodes with the generated type and re-encodes to the same JSON.
        let validator = PayloadValidator(routes: service.routes, conventions: service.conventions)
        let method = HTTPRequest.Method(rawValue: fixture.method) ?? .get
        if fixture.responseText != nil {
            if response.body.isEmpty { problems.append("the raw body is empty") }
        } else if fixture.responseBody != nil {
            guard let kind = validator.responseKind(method: method, path: fixture.path) else {
                return Outcome(fixture: fixture.name, operation: fixture.operation, problems: problems + ["no response type in the route table"])
            }
            let report = validator.validate(response.body, as: kind, enveloped: validator.isEnveloped(method: method, path: fixture.path))
            if let failure = report.failure { problems.append("the answer does not decode as \(report.typeName): \(failure)") }
            if report.decoded, !report.roundTrips { problems.append("re-encoding \(report.typeName) does not give back the wire JSON") }
        }
        return Outcome(fixture: fixture.name, operation: fixture.operation, problems: problems)
    }

    /// The fixture's request as an `APIRequest`: its path, query and body, nothing added.
    func request(for fixture: MockFixture) -> APIRequest {
        var path = ResourcePath()
        for segment in fixture.segments { path = path.appending(segment) }
        var request = APIRequest(method: HTTPRequest.Method(rawValue: fixture.method) ?? .get, path: path)
        for (name, value) in fixture.query { request.query.append(.init(name, value)) }
        if let body = fixture.requestBody {
            request.setJSONBody(body)
        } else if fixture.multipartParts != nil {
            request.setMultipartBody(.file(Array("conformance".utf8), filename: "conformance.txt", contentType: "text/plain"))
        } else if let text = fixture.requestText {
            request.body = .bytes(Array(text.utf8))
            request.headers[.contentType] = "application/octet-stream"
        }
        return request
    }

    static func differences(_ fixture: MockFixture, _ received: MockRequest, basePath: [String]) -> [String] {
        var problems: [String] = []
        if received.method != fixture.method { problems.append("method \(received.method), expected \(fixture.method)") }
        if received.segments != basePath + fixture.segments {
            problems.append("path \(received.path), expected \(fixture.path) below /\(basePath.joined(separator: "/"))")
        }
        for (name, value) in fixture.query where received.queryValue(name) != value {
            problems.append("query \(name)=\(received.queryValue(name) ?? "(missing)"), expected \(value)")
        }
        if let body = fixture.requestBody, received.json != body {
            problems.append("the body differs from the fixture's: \(received.json?.jsonText ?? "(none)")")
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
