// libcurl's own behaviour: only where the package is built with it (not under BINDERY_NO_CURL=1).
#if canImport(CCurl)
    import BinderyRuntime
    import Foundation
    import GoldenOData
    import Testing

    /// What a hostile or broken server can send, over real loopback HTTP: every call ends with a typed error within
    /// its timeout, bodies never grow past the transport's limit, and credentials never reach another origin.
    // The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
    // wait a minute or more for a thread before its first line runs.
    @Suite(.serialized, .timeLimit(.minutes(5)))
    struct HostileServerTests {
        /// A transport that holds at most 1 MiB of body, with a timeout so a failure here cannot hang the suite.
        func smallTransport() -> CurlTransport {
            CurlTransport(configuration: .init(timeout: .seconds(20), maxResponseBodySize: 1 << 20))
        }

        func transportError(_ transport: CurlTransport, _ url: URL, timeout: Duration? = nil) async -> BinderyError? {
            var options = TransferOptions()
            options.timeout = timeout
            do {
                _ = try await transport.send(transportRequest(.get, url, options: options))
                return nil
            } catch {
                return error as? BinderyError
            }
        }

        /// Writes `chunk` until the client goes away.
        static func flood(_ connection: RawConnection, _ chunk: [UInt8]) {
            while connection.write(chunk) {}
        }

        @Test func aTwoGigabyteBodyIsRefusedByTheDefaultLimit() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\n\r\n")
                Self.flood(connection, [UInt8](repeating: 0x61, count: 1 << 16))
            }
            defer { server.stop() }
            let error = await transportError(CurlTransport(), server.baseURL, timeout: .seconds(20))
            #expect(error?.kind == .invalidResponse)
            #expect(
                error?.message.contains(
                    "larger than the limit of \(CurlTransport.Configuration.defaultMaxResponseBodySize)")
                    == true, "\(String(describing: error))")
        }

        @Test func anEndlessChunkedStreamStopsAtTheLimit() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                Self.flood(connection, Array("10000\r\n".utf8) + [UInt8](repeating: 0x62, count: 0x10000) + [13, 10])
            }
            defer { server.stop() }
            let error = await transportError(smallTransport(), server.baseURL)
            #expect(error?.kind == .invalidResponse)
            #expect(
                error?.message.contains("larger than the limit of 1048576 bytes") == true,
                "\(String(describing: error))")
        }

        @Test func aGzipBombStopsAtTheLimit() async throws {
            let bomb = GzipBomb.zeros(count: 64 << 20)
            #expect(bomb.count < 600_000, "64 MiB of zeros compress to \(bomb.count) bytes")
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n")
                connection.write(bomb)
                connection.waitUntilClosed()
            }
            defer { server.stop() }
            let error = await transportError(smallTransport(), server.baseURL)
            #expect(error?.kind == .invalidResponse)
            #expect(error?.message.contains("larger than the limit") == true, "\(String(describing: error))")
        }

        @Test func oneBytePerSecondEndsWithATimeout() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                guard connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n") else { return }
                while !connection.isStopped, connection.write("x") { sleep(1) }
            }
            defer { server.stop() }
            let error = await transportError(CurlTransport(), server.baseURL, timeout: .seconds(2))
            #expect(error?.kind == .timeout, "\(String(describing: error))")
        }

        @Test func tenThousandHeadersEndTyped() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                var head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                for index in 0..<10_000 { head += "X-Field-\(index): value-\(index)\r\n" }
                connection.write(head + "\r\nok")
                connection.waitUntilClosed()
            }
            defer { server.stop() }
            do {
                let response = try await smallTransport().send(transportRequest(.get, server.baseURL))
                // libcurl accepts up to 300 KB of header fields; these are about 250 KB, so all of them arrive.
                #expect(response.headers.count == 10_001)
                #expect(response.body == Array("ok".utf8))
            } catch {
                #expect(error is BinderyError, "an untyped error: \(error)")
            }
        }

        // MARK: Redirects and links, through a client that sends a credential to its own server only

        func client(_ server: LoopbackServer) -> GoldenODataClient {
            GoldenODataClient(
                client: ServiceClient(
                    baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware(),
                    conventions: GoldenODataClient.conventions, defaultHeaders: [.authorization: "Bearer secret-token"])
            )
        }

        func clientError(_ call: () async throws -> Void) async -> BinderyError? {
            do {
                try await call()
                return nil
            } catch {
                return error as? BinderyError
            }
        }

        @Test func aRedirectLoopIsATypedError() async throws {
            let server = try await LoopbackServer(["GET /me": { _ in .init(status: 302, headers: ["Location": "/me"]) }]
            )
            defer { Task { await server.stop() } }
            let error = await clientError { _ = try await client(server).me.request().get() }
            #expect(error?.kind == .tooManyRedirects)
            #expect(server.requests.count == 6, "the first request and 5 redirects")
        }

        @Test(arguments: ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]:8080/x"])
        func aRedirectOffTheWebOrToALinkLocalAddressIsNotFollowed(_ location: String) async throws {
            let server = try await LoopbackServer([
                "GET /me": { _ in .init(status: 302, headers: ["Location": location]) }
            ])
            defer { Task { await server.stop() } }
            let error = await clientError { _ = try await client(server).me.request().get() }
            #expect(error != nil, "a redirect to \(location) gave a value")
            #expect(
                error?.kind != .connection && error?.kind != .timeout,
                "\(location) was tried: \(String(describing: error))"
            )
            #expect(server.requests.count == 1)
        }

        @Test func nextAndRedirectTargetsOnAnotherPortGetNoCredential() async throws {
            let foreign = try await LoopbackServer([
                "GET /page2": { _ in .init(json: #"{"value":[{"id":"2"}]}"#) },
                "GET /profile": { _ in .init(json: #"{"id":"me"}"#) },
            ])
            defer { Task { await foreign.stop() } }
            // The same host as the client's own server, another port: another origin.
            let elsewhere = "http://127.0.0.1:\(foreign.port)"
            let server = try await LoopbackServer([
                "GET /drive/items": { _ in
                    .init(json: #"{"value":[{"id":"1"}],"@odata.nextLink":"\#(elsewhere)/page2"}"#)
                },
                "GET /me": { _ in .init(status: 307, headers: ["Location": "\(elsewhere)/profile"]) },
            ])
            defer { Task { await server.stop() } }
            var ids: [String] = []
            for try await item in client(server).drive.items.request().all() { ids.append(item.id ?? "?") }
            _ = try await client(server).me.request().get()
            #expect(ids == ["1", "2"])
            #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer secret-token" })
            #expect(foreign.requests.map(\.path) == ["/page2", "/profile"])
            #expect(
                foreign.requests.allSatisfy { $0.header("Authorization") == nil }, "a credential reached another port")
        }
    }

    /// A gzip stream of many zeros made with fixed Huffman codes: one literal zero, then copies of 258 bytes at
    /// distance 1 (13 bits each). The CRC is left 0: the client must stop long before it could check it.
    enum GzipBomb {
        static func zeros(count: Int) -> [UInt8] {
            var writer = BitWriter()
            writer.bits(1, 1)  // BFINAL
            writer.bits(1, 2)  // BTYPE 01: fixed Huffman codes
            writer.code(0x30, 8)  // literal 0
            for _ in 0..<((count - 1) / 258) {
                writer.code(0xC5, 8)  // length code 285: 258 bytes
                writer.code(0, 5)  // distance code 0: distance 1
            }
            writer.code(0, 7)  // end of block
            let size = UInt32(truncatingIfNeeded: 1 + (count - 1) / 258 * 258)
            let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
            let trailer: [UInt8] = [0, 0, 0, 0] + (0..<4).map { UInt8(truncatingIfNeeded: size >> ($0 * 8)) }
            return header + writer.bytes + trailer
        }

        struct BitWriter {
            var bytes: [UInt8] = []
            var used = 8

            /// Appends `count` bits of `value`, least significant first (header fields).
            mutating func bits(_ value: Int, _ count: Int) {
                for index in 0..<count { bit((value >> index) & 1) }
            }

            /// Appends a Huffman code, most significant bit first.
            mutating func code(_ value: Int, _ count: Int) {
                for index in stride(from: count - 1, through: 0, by: -1) { bit((value >> index) & 1) }
            }

            mutating func bit(_ bit: Int) {
                if used == 8 {
                    bytes.append(0)
                    used = 0
                }
                bytes[bytes.count - 1] |= UInt8(bit) << used
                used += 1
            }
        }
    }
#endif
