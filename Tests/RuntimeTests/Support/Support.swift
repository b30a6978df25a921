import BinderyRuntime
import Foundation
import HTTPTypes
import Synchronization

/// A transport that answers from a script and records what it was asked: for unit tests of request
/// building and paging state. End-to-end proof goes over real loopback HTTP (CurlTransport, mock server).
final class ScriptedTransport: HTTPTransport {
    struct Reply: Sendable {
        var status: Int = 200
        var headers: HTTPFields = [:]
        var body: String
    }

    private let state: Mutex<(replies: [Reply], requests: [HTTPRequest], bodies: [[UInt8]?])>

    init(_ replies: [Reply]) { state = Mutex((replies, [], [])) }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var bodies: [String?] { state.withLock { $0.bodies.map { $0.map { String(decoding: $0, as: UTF8.self) } } } }

    func send(_ request: TransportRequest) async throws -> APIResponse {
        let reply: Reply = state.withLock { state in
            state.requests.append(request.head)
            if case .bytes(let bytes)? = request.body { state.bodies.append(bytes) } else { state.bodies.append(nil) }
            return state.replies.isEmpty ? Reply(status: 500, body: "no scripted reply") : state.replies.removeFirst()
        }
        return APIResponse(status: .init(code: reply.status), headers: reply.headers, body: Array(reply.body.utf8))
    }
}

/// Parses JSON text in tests, failing loudly.
func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}

func object(_ text: String) throws -> JSONObject {
    guard case .object(let object) = try JSONValue.parse(text) else { throw TestFailure("not an object: \(text)") }
    return object
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The transport loopback tests send through: the real default transport of this platform.
func loopbackTransport() -> any HTTPTransport { DefaultTransport.shared }

/// Middleware for loopback tests: the defaults, with retries that wait at most a few milliseconds.
func fastMiddleware() -> [any HTTPMiddleware] {
    [
        HeadersMiddleware(), RetryMiddleware(baseBackoff: .milliseconds(5), maxBackoff: .milliseconds(20)),
        RedirectMiddleware(),
    ]
}
