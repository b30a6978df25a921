import BinderyRuntime
import Foundation
import HTTPTypes
import Synchronization
import TestSupport

/// Answers each request with the next scripted reply and keeps what was sent: these tests check the requests
/// the generated builders make and the decoding of real-shaped answers. The same clients are proven end to end
/// over HTTP by the conformance suite.
final class CapturingTransport: HTTPTransport {
    struct Reply: Sendable {
        var status: Int = 200
        var headers: HTTPFields = [:]
        var body: String = ""
    }

    private let state: Mutex<(replies: [Reply], sent: [TransportRequest])>

    init(_ replies: [Reply] = []) { state = Mutex((replies, [])) }

    var sent: [TransportRequest] { state.withLock { $0.sent } }
    var last: TransportRequest? { sent.last }

    func send(_ request: TransportRequest) async throws -> APIResponse {
        let reply = state.withLock { state in
            state.sent.append(request)
            return state.replies.isEmpty ? Reply(status: 599, body: "no scripted reply") : state.replies.removeFirst()
        }
        return APIResponse(status: .init(code: reply.status), headers: reply.headers, body: Array(reply.body.utf8))
    }
}

extension TransportRequest {
    /// The URL without its query.
    var url: String {
        let path = (head.path ?? "").split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return "\(head.scheme ?? "")://\(head.authority ?? "")\(path)"
    }
    var bodyText: String? {
        guard case .bytes(let bytes)? = body else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
    var bodyJSON: JSONValue? {
        guard case .bytes(let bytes)? = body else { return nil }
        return try? JSONValue.parse(bytes)
    }
}

/// Parses test JSON, failing loudly.
func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Whether decoding and re-encoding kept every member: the model's JSON equals the wire JSON.
func roundTrips(_ model: some JSONModel, _ wire: String) throws -> Bool {
    try JSONValue.parse(wire) == model.json
}

/// Runs a command to its end without holding a thread of Swift's shared pool while it works: the pool has one
/// thread per core, and a command that talks to a mock in this process needs one free to be answered.
func runToEnd(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String)
{
    let run = try await ChildProcess.run(executable, arguments)
    return (run.ending.status, run.output, run.errors)
}
