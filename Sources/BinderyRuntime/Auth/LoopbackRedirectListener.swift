import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives the browser's redirect after a sign-in, on 127.0.0.1 (RFC 8252 §7.3): the way a
/// terminal program or a server without a web view gets the authorization code.
///
/// It listens on a free port, answers the first request under `/callback` that carries the sign-in's
/// `state` with a short page telling the user to return to the program, and hands back the URL the
/// browser requested. A callback with another `state` (a forged or stale one) is refused with a 400
/// and the listener keeps waiting, so it can neither complete nor abort the sign-in.
final class LoopbackRedirectListener: Sendable {
    private let listening: Int32
    let port: UInt16

    var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    init(port requested: UInt16 = 0) throws {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else {
            let error = Self.failure("bind to 127.0.0.1")
            closeDescriptor(descriptor)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listening = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() {
        _ = shutdown(listening, Int32(SHUT_RDWR))
        closeDescriptor(listening)
    }

    /// Waits for the browser's request to `/callback` with `state` (any state when nil) and returns its full URL.
    func waitForCallback(timeout: Duration, state: String? = nil) async throws -> URL {
        let socket = listening
        let port = self.port
        let deadline = ContinuousClock.now + timeout
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try Self.accept(socket, port: port, state: state, until: deadline) })
            }
        }
    }

    private static func accept(_ socket: Int32, port: UInt16, state: String?, until deadline: ContinuousClock.Instant)
        throws -> URL
    {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else {
                throw BinderyError(
                    kind: .authorization, message: "no browser came back to \(port) in time", serviceCode: "timeout")
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining.components.seconds * 1000 + 1, 1000)))
            if ready < 0 && errno != EINTR { throw failure("wait for the browser") }
            guard ready > 0 else { continue }
            let client = acceptConnection(socket)
            guard client >= 0 else { throw failure("accept") }
            defer { closeDescriptor(client) }
            var buffer = [UInt8](repeating: 0, count: 8192)
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let head = String(decoding: buffer[..<count], as: UTF8.self)
            // "GET /callback?code=...&state=... HTTP/1.1"
            let parts = head.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ")
            guard parts.count >= 2, parts[0] == "GET", parts[1].hasPrefix("/callback"),
                let url = URL(string: "http://127.0.0.1:\(port)\(parts[1])")
            else {
                respond(client, status: "404 Not Found", text: "Not the sign-in callback.")
                continue
            }
            if let state, !OAuth2Client.formValues(in: url).contains(where: { $0 == ("state", state) }) {
                respond(client, status: "400 Bad Request", text: "This sign-in was not started here.")
                continue
            }
            respond(client, status: "200 OK", text: "Signed in. You can close this window and return to the program.")
            return url
        }
    }

    private static func respond(_ client: Int32, status: String, text: String) {
        let body = "<!doctype html><title>Bindery</title><p>\(text)</p>"
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, noSignal) }
    }

    private static func failure(_ step: String) -> BinderyError {
        BinderyError(
            kind: .connection, message: "cannot \(step) for the sign-in redirect: \(String(cString: strerror(errno)))")
    }
}

// The listener's methods are named like the C calls (`close`, `accept`), so the C calls go through these.
#if canImport(Glibc)
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    /// A browser that hangs up early must not kill the process with SIGPIPE.
    private let noSignal = Int32(MSG_NOSIGNAL)
    private func closeDescriptor(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
    private func acceptConnection(_ descriptor: Int32) -> Int32 { Glibc.accept(descriptor, nil, nil) }
#else
    private let streamSocket = SOCK_STREAM
    private let noSignal: Int32 = 0  // Darwin has no MSG_NOSIGNAL: SO_NOSIGPIPE is set on each accepted socket.
    private func closeDescriptor(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
    private func acceptConnection(_ descriptor: Int32) -> Int32 {
        let client = Darwin.accept(descriptor, nil, nil)
        var on: Int32 = 1
        if client >= 0 { _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) }
        return client
    }
#endif
