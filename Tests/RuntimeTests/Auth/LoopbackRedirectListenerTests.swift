import Foundation
import Synchronization
import Testing

@testable import BinderyRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal sign-in's redirect listener (RFC 8252 §7.3): what `OAuthFlowTests` does not cover already.
@Suite struct LoopbackRedirectListenerTests {
    @Test func itListensOn127001Only() async throws {
        let listener = try LoopbackRedirectListener()
        defer { listener.close() }
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        #expect(await connects(to: "127.0.0.1", port: listener.port), "the loopback address answers")
        // Linux routes all of 127/8 to the loopback interface: a socket bound to 0.0.0.0 would answer here.
        #expect(await !connects(to: "127.0.0.2", port: listener.port))
        #expect(await !connects(to: "::1", port: listener.port))
        let others = localIPv4Addresses().filter { !$0.hasPrefix("127.") }
        for address in others {
            #expect(await !connects(to: address, port: listener.port), "not reachable on \(address)")
        }
    }

    @Test func aWrongStateIsRefusedAndTheRightOneStillSignsIn() async throws {
        let provider = try await IdentityProvider()
        defer { Task { await provider.stop() } }
        let oauth = OAuth2Client(provider.configuration, transport: loopbackTransport(), middleware: fastMiddleware())
        let port = ListenerPort()
        // A minute: the full suite has shown process-wide stalls of about 20 s (see the closing notes); the point
        // here is which callbacks the listener accepts, not how fast.
        let token = try await oauth.signInWithBrowser(account: "ada", timeout: .seconds(60)) { url in
            Task {
                let redirect = try #require(OAuth2Client.formValues(in: url).first { $0.0 == "redirect_uri" }?.1)
                let listening = try #require(URL(string: redirect)?.port.flatMap { UInt16(exactly: $0) })
                port.value.withLock { $0 = listening }
                // A forged callback first, then a request that is not the callback: both refused, the wait goes on.
                let (forged, forgedBody) = try await loopbackTransport().send(
                    HTTPRequest(method: .get, url: URL(string: "\(redirect)?code=forged&state=someone-else")!),
                    body: nil)
                #expect(forged.status.code == 400)
                #expect(!String(decoding: forgedBody, as: UTF8.self).contains("Signed in"))
                let (favicon, _) = try await loopbackTransport().send(
                    HTTPRequest(
                        method: .get,
                        url: URL(string: redirect.replacingOccurrences(of: "/callback", with: "/favicon.ico"))!),
                    body: nil)
                #expect(favicon.status.code == 404)
                // Then the browser comes back from the provider.
                let (head, _) = try await loopbackTransport().send(HTTPRequest(method: .get, url: url), body: nil)
                let location = try #require(head.headerFields[.location].flatMap(URL.init(string:)))
                let (page, _) = try await loopbackTransport().send(HTTPRequest(method: .get, url: location), body: nil)
                #expect(page.status == .ok)
            }
        }
        #expect(token.accessToken.hasPrefix("access-"))
        let listened = try #require(port.value.withLock { $0 })
        #expect(await !connects(to: "127.0.0.1", port: listened), "one callback, then the listener is closed")
    }

    @Test(.timeLimit(.minutes(5))) func itTimesOutAndCloses() async throws {
        let oauth = OAuth2Client(
            OAuth2Configuration(
                authorizeURL: URL(string: "https://login.example.com/authorize")!,
                tokenURL: URL(string: "https://login.example.com/token")!, clientID: "app"),
            transport: loopbackTransport(), middleware: fastMiddleware())
        let port = Mutex<UInt16?>(nil)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: BinderyError.self) {
            _ = try await oauth.signInWithBrowser(account: "ada", timeout: .milliseconds(300)) { url in
                let redirect = OAuth2Client.formValues(in: url).first { $0.0 == "redirect_uri" }?.1
                port.withLock { $0 = redirect.flatMap(URL.init(string:))?.port.flatMap { UInt16(exactly: $0) } }
            }
        }
        #expect(error?.kind == .authorization)
        #expect(error?.serviceCode == "timeout")
        // Far above 300 ms, so a loaded machine cannot fail it (the whole suite on two cores once took 35 s to wake
        // it); its time limit catches a listener that never gives up.
        #expect(clock.now - start < .seconds(180))
        let listened = try #require(port.withLock { $0 })
        #expect(await !connects(to: "127.0.0.1", port: listened), "closed after the timeout")
    }
}

/// The port the listener of a sign-in was given, as the "browser" saw it.
final class ListenerPort: Sendable {
    let value = Mutex<UInt16?>(nil)
}

/// Whether a TCP connection to `host` (an IPv4 or IPv6 literal) at `port` is accepted. Off Swift's shared pool, and bounded: an address that
/// drops packets would otherwise hold one of its few threads for the kernel's connect timeout (about 20 s).
func connects(to host: String, port: UInt16) async -> Bool {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: connectsNow(to: host, port: port)) }
    }
}

private func connectsNow(to host: String, port: UInt16) -> Bool {
    #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
    #else
        let stream = SOCK_STREAM
    #endif
    let ipv6 = host.contains(":")
    let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, stream, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var limit = timeval(tv_sec: 2, tv_usec: 0)  // Linux bounds connect() by the send timeout
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    if ipv6 {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return false }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return false }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// This host's IPv4 addresses, loopback included.
func localIPv4Addresses() -> [String] {
    var first: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&first) == 0 else { return [] }
    defer { freeifaddrs(first) }
    var addresses: [String] = []
    var next = first
    while let interface = next {
        defer { next = interface.pointee.ifa_next }
        guard let address = interface.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
            continue
        }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
            var raw = ipv4.pointee.sin_addr
            _ = inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN))
        }
        addresses.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return addresses
}
