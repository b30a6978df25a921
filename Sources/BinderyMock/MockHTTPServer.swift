// The only file of the mock that imports FlyingFox: its HTTPRequest/HTTPResponse would clash with
// swift-http-types' names, so the rest of the mock sees `MockRequest` and `MockResponse`.
import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that hands every request to one handler.
final class MockHTTPServer: Sendable {
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    let port: UInt16

    init(port: UInt16, handler: @escaping @Sendable (MockRequest) async -> MockResponse) async throws {
        let server = try HTTPServer(
            address: .inet(ip4: "127.0.0.1", port: port), timeout: 120,
            pool: NoDelaySocketPool(HTTPServer.defaultPool()), logger: .disabled)
        self.server = server
        let failure = Mutex<(any Error)?>(nil)
        task = Task {
            do { try await server.run() } catch {
                failure.withLock { $0 = error }
                throw error
            }
        }
        // Starting can take seconds on a loaded machine (a whole test suite at once); a port that cannot be bound
        // fails at once, with its own error.
        let deadline = ContinuousClock.now + .seconds(60)
        while await !server.isListening {
            if let error = failure.withLock({ $0 }) { throw error }
            guard ContinuousClock.now < deadline else {
                task.cancel()
                throw MockServerError.notListening
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        guard case .ip4(_, let bound)? = await server.listeningAddress else { throw MockServerError.noPort }
        self.port = bound
        await server.appendRoute("*") { request in
            let body = Array(try await request.bodyData)
            var headers: [(String, String)] = []
            for (name, values) in zip(request.headers.keys, request.headers.values) {
                for value in values { headers.append((name.rawValue, value)) }
            }
            let seen = MockRequest(
                method: request.method.rawValue, path: request.path, query: request.query.map { ($0.name, $0.value) },
                headers: headers, body: body)
            return Self.encode(await handler(seen))
        }
    }

    /// Closes the port, then waits at most a few seconds for the connections to end. FlyingFox's own stop can wait
    /// for ever (its socket pool sleeps in `epoll_wait` with no event left to wake it); seen in CI as tests that
    /// stalled for minutes on `await mock.stop()` until a debugger's attach woke the process.
    func stop() async {
        let (server, task) = (self.server, self.task)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = ResumeOnce(continuation)
            Task {
                await server.stop(timeout: 1)
                task.cancel()
                resume()
            }
            Task {
                try? await Task.sleep(for: .seconds(5))
                task.cancel()
                resume()
            }
        }
    }

    private static func encode(_ response: MockResponse) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.addValue(value, for: HTTPHeader(name)) }
        let status = HTTPStatusCode(response.status, phrase: MockResponse.phrase(response.status))
        switch response.delivery {
        case .whole:
            return HTTPResponse(statusCode: status, headers: headers, body: Data(response.body))
        case .truncated:
            // Content-Length promises the whole body; the connection closes after half of it.
            let half = Array(response.body.prefix(response.body.count / 2))
            return HTTPResponse(
                statusCode: status, headers: headers,
                body: HTTPBodySequence(from: BrokenBytes(bytes: half), count: response.body.count))
        case .reset:
            // The status line and headers, then the connection drops before a byte of the promised body.
            return HTTPResponse(
                statusCode: status, headers: headers,
                body: HTTPBodySequence(from: BrokenBytes(bytes: []), count: max(response.body.count, 1)))
        }
    }
}

enum MockServerError: Error { case noPort, notListening }

/// FlyingFox writes a response's head and body in two writes. On a reused connection Nagle's algorithm holds the
/// body until the client acknowledges the head, and the client delays that acknowledgement: 40 ms per request, which
/// made replaying thousands of fixtures take minutes. This pool turns Nagle off on every connection it waits on
/// (the first wait comes before the first response is written).
private struct NoDelaySocketPool<Base: AsyncSocketPool>: AsyncSocketPool {
    let base: Base

    init(_ base: Base) { self.base = base }

    func prepare() async throws { try await base.prepare() }

    func run() async throws { try await base.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        // The listening socket refuses the option; that is harmless.
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}

/// Bytes that end in an error: FlyingFox then closes the connection mid-body.
private struct BrokenBytes: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let bytes: [UInt8]

    func makeAsyncIterator() -> Iterator { Iterator(remaining: bytes) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: [UInt8]

        mutating func next() async throws -> UInt8? {
            guard !remaining.isEmpty else { throw CancellationError() }
            return remaining.removeFirst()
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard !remaining.isEmpty else { throw CancellationError() }
            defer { remaining = [] }
            return remaining
        }
    }
}

/// Resumes a continuation the first time it is called, whichever of several tasks calls it first.
private final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = Mutex(continuation) }

    func callAsFunction() { continuation.withLock { $0.take() }?.resume() }
}
