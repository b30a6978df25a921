import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bare TCP server on 127.0.0.1 for what a well-behaved HTTP server will not do: answer never, cut a
/// body short, reset the connection, dribble bytes. Each connection runs `handler` on its own thread with
/// blocking sockets, so a script reads top to bottom.
final class RawSocketServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = Mutex(State())
    private let acceptLoopDone = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
        var accepted = 0
        var open: [ObjectIdentifier: RawConnection] = [:]
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// How many connections the server has accepted: one per connection a client opened.
    var connectionCount: Int { state.withLock { $0.accepted } }

    init(_ handler: @escaping @Sendable (RawConnection) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw TestFailure("bind/listen: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop(handler) }.start()
    }

    /// Stops accepting, breaks every open connection and waits until the accept loop has ended.
    func stop() {
        let connections = state.withLock { state -> [RawConnection] in
            state.stopped = true
            return Array(state.open.values)
        }
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the blocked accept()
        for connection in connections { connection.shutdownBoth() }
        acceptLoopDone.wait()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop(_ handler: @escaping @Sendable (RawConnection) -> Void) {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                if errno == EINTR { continue }
                break
            }
            let connection = RawConnection(descriptor: descriptor, server: self)
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.accepted += 1
                state.open[ObjectIdentifier(connection)] = connection
                return true
            }
            guard admitted else {
                connection.close()
                break
            }
            Thread { [self] in
                handler(connection)
                connection.close()
                _ = state.withLock { $0.open.removeValue(forKey: ObjectIdentifier(connection)) }
            }.start()
        }
        close(listener)
        acceptLoopDone.signal()
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// One accepted connection, driven by a test's script.
final class RawConnection: Sendable {
    private let descriptor: Mutex<Int32>
    /// Strong on purpose: the server drops the connection when its script ends, which breaks the cycle.
    private let server: RawSocketServer

    init(descriptor: Int32, server: RawSocketServer) {
        self.descriptor = Mutex(descriptor)
        self.server = server
    }

    /// Whether the test is over: long scripts stop when it is.
    var isStopped: Bool { server.isStopped }

    /// Reads up to the blank line that ends a request head; nil if the peer closed first.
    @discardableResult
    func readRequestHead() -> String? {
        guard let fd = descriptor.withLock({ $0 >= 0 ? $0 : nil }) else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            received += buffer[..<count]
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                return String(decoding: received[..<end.lowerBound], as: UTF8.self)
            }
        }
    }

    /// Reads one whole request with a `Content-Length` body: its head, and its body (after a `100 Continue` when the
    /// client asks for one). Nil if the peer closed first. For tests whose server must keep reading while the shared
    /// pool is busy: this runs on the server's own thread.
    func readRequest() -> (head: String, body: [UInt8])? {
        guard let fd = descriptor.withLock({ $0 >= 0 ? $0 : nil }) else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func receive() -> Bool {
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                received += buffer[..<count]
                return true
            }
        }
        var headEnd: Range<Int>?
        while headEnd == nil {
            guard receive() else { return nil }
            headEnd = received.firstRange(of: Array("\r\n\r\n".utf8))
        }
        let head = String(decoding: received[..<headEnd!.lowerBound], as: UTF8.self)
        let fields = head.split(separator: "\r\n").dropFirst().map { $0.split(separator: ":", maxSplits: 1) }
        func field(_ name: String) -> String? {
            fields.first { $0.first?.lowercased() == name }.flatMap { $0.last?.trimmingCharacters(in: .whitespaces) }
        }
        if field("expect")?.lowercased() == "100-continue" { write("HTTP/1.1 100 Continue\r\n\r\n") }
        let length = field("content-length").flatMap(Int.init) ?? 0
        var body = Array(received[headEnd!.upperBound...])
        while body.count < length {
            received = []
            guard receive() else { return nil }
            body += received
        }
        return (head, body)
    }

    /// Sends bytes; false once the peer has gone. Never raises SIGPIPE.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        guard let fd = descriptor.withLock({ $0 >= 0 ? $0 : nil }) else { return false }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Blocks until the peer closes the connection (or the server stops).
    func waitUntilClosed() {
        while readRequestHead() != nil {}
    }

    /// Closes normally (FIN).
    func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            closeDescriptor(fd)
            fd = -1
        }
    }

    /// Closes with a TCP reset (RST) instead of a FIN: SO_LINGER with a zero timeout.
    func reset() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            closeDescriptor(fd)
            fd = -1
        }
    }

    fileprivate func shutdownBoth() {
        descriptor.withLock { fd in
            if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}

/// `close(2)`, callable where a method named `close` hides it.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
