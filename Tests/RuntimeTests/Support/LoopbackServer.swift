// The only file that imports FlyingFox: its HTTPRequest/HTTPResponse names would clash with
// swift-http-types' in the tests, so tests see this neutral wrapper instead.
import FlyingFox
import Foundation
import Synchronization
import TestSupport

/// A real HTTP server on 127.0.0.1 with a free port, started and stopped by each test.
final class LoopbackServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var query: [(name: String, value: String)]
        var headers: [String: String]
        var body: [UInt8]
        /// The client's port: the same port on two requests means one kept-alive connection.
        var remotePort: UInt16?

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        func queryValue(_ name: String) -> String? { query.last { $0.name == name }?.value }
    }

    struct Reply: Sendable {
        var status: Int = 200
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        /// Streamed from a file instead of `body`.
        var file: URL?

        init(status: Int = 200, headers: [String: String] = [:], body: [UInt8] = [], file: URL? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.file = file
        }

        init(status: Int = 200, headers: [String: String] = [:], json: String) {
            self.init(
                status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                body: Array(json.utf8))
        }
    }

    typealias Handler = @Sendable (Request) async throws -> Reply

    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let log = RequestLog()
    let port: UInt16

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Every request received so far, in order.
    var requests: [Request] { log.all }

    /// Starts a server answering `routes`, keyed like `"GET /items/*"`; anything else gets 404.
    init(_ routes: [String: Handler]) async throws {
        // A long read timeout, as the mock's: with the whole suite on two cores a request's body can take more than
        // FlyingFox's default 15 s to be read, and the handler's failure would be an unscripted 500.
        let server = try HTTPServer(address: .inet(ip4: "127.0.0.1", port: 0), timeout: 120, logger: .disabled)
        self.server = server
        task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw ServerError.noPort }
        self.port = port
        for (route, handler) in routes {
            await server.appendRoute(HTTPRoute(stringLiteral: route)) { [log] request in
                let body = try await request.bodyData
                var headers: [String: String] = [:]
                for (name, values) in zip(request.headers.keys, request.headers.values) {
                    headers[name.rawValue] = values.joined(separator: ", ")
                }
                var remotePort: UInt16?
                if case .ip4(_, let port)? = request.remoteAddress { remotePort = port }
                let seen = Request(
                    method: request.method.rawValue, path: request.path,
                    query: request.query.map { ($0.name, $0.value) }, headers: headers, body: Array(body),
                    remotePort: remotePort)
                log.append(seen)
                let reply = try await handler(seen)
                var replyHeaders = HTTPHeaders()
                for (name, value) in reply.headers { replyHeaders.addValue(value, for: HTTPHeader(name)) }
                if let file = reply.file {
                    return HTTPResponse(
                        statusCode: HTTPStatusCode(reply.status, phrase: "Status"), headers: replyHeaders,
                        body: try HTTPBodySequence(file: file, suggestedBufferSize: 64 * 1024))
                }
                return HTTPResponse(
                    statusCode: HTTPStatusCode(reply.status, phrase: "Status"), headers: replyHeaders,
                    body: Data(reply.body))
            }
        }
    }

    /// Stops the server, waiting at most five seconds for FlyingFox to let go.
    func stop() async {
        let (server, task) = (self.server, self.task)
        await awaitAtMost(.seconds(5)) { await server.stop(timeout: 1) }
        task.cancel()
    }

    enum ServerError: Error { case noPort }

    private final class RequestLog: Sendable {
        private let requests = Mutex<[Request]>([])
        var all: [Request] { requests.withLock { $0 } }
        func append(_ request: Request) { requests.withLock { $0.append(request) } }
    }
}
