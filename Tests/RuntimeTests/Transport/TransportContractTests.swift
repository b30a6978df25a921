import BinderyRuntime
import Foundation
import Synchronization
import TestSupport
import Testing

/// What every transport does, checked over each one this build has (libcurl and URLSession; URLSession alone when
/// the package is built as Apple platforms see it, with `BINDERY_NO_CURL=1`), over real HTTP on 127.0.0.1.
// The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
// wait a minute or more for a thread before its first line runs.
@Suite(.timeLimit(.minutes(5)))
struct TransportContractTests {
    @Test func theDefaultIsLibcurlWhereThePackageHasItAndURLSessionElsewhere() {
        #if canImport(CCurl)
            #expect(DefaultTransport.shared is CurlTransport)
        #else
            #expect(DefaultTransport.shared is URLSessionTransport)
        #endif
    }

    struct Exchange: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var body: [UInt8]?
        var contentType: String?

        var testDescription: String { "\(method) \(body.map { "\($0.count) bytes" } ?? "no body")" }
        /// What the server should see as the body: POST, PUT and PATCH without one send an empty one.
        var sentBody: [UInt8] { body ?? [] }
        var sendsContentLength: Bool { body != nil || [.post, .put, .patch].contains(method) }
    }

    static let exchanges: [Exchange] = [
        Exchange(method: .get),
        Exchange(method: .post, body: Array(#"{"name":"new"}"#.utf8), contentType: "application/json"),
        Exchange(method: .post),
        Exchange(method: .put, body: Array(0...255), contentType: "application/octet-stream"),
        // No content type given: none may be invented (libcurl would add a form type to a POST body).
        Exchange(method: .patch, body: Array(#"{"name":"changed"}"#.utf8)),
        Exchange(method: .delete),
        Exchange(method: .delete, body: Array(#"{"reason":"spam"}"#.utf8), contentType: "application/json"),
        Exchange(method: HTTPRequest.Method("PURGE")!),
    ]

    @Test(arguments: TransportKind.allCases, exchanges)
    func roundTrip(_ kind: TransportKind, _ exchange: Exchange) async throws {
        let echo: LoopbackServer.Handler = { request in
            LoopbackServer.Reply(
                status: 201, headers: ["X-Reply": "yes", "X-Seen-Method": request.method],
                body: Array("\(request.method) \(request.body.count)".utf8))
        }
        let server = try await LoopbackServer(["/echo/*": echo, "PURGE /echo/*": echo])
        defer { Task { await server.stop() } }
        let url = URL(string: "\(server.baseURL)/echo/items?a=1&b=two%20words")!
        var headers: HTTPFields = [.accept: "application/json"]
        headers[HTTPField.Name("X-Custom")!] = "custom value"
        if let contentType = exchange.contentType { headers[.contentType] = contentType }

        let response = try await kind.make().send(
            transportRequest(exchange.method, url, headers: headers, body: exchange.body.map(RequestBody.bytes)))

        let seen = try #require(server.requests.last)
        #expect(server.requests.count == 1)
        #expect(seen.method == exchange.method.rawValue)
        #expect(seen.path == "/echo/items")
        #expect(seen.queryValue("a") == "1")
        #expect(seen.queryValue("b") == "two words")
        #expect(seen.header("X-Custom") == "custom value")
        #expect(seen.header("Accept") == "application/json")
        #expect(seen.header("Content-Type") == exchange.contentType)
        #expect(seen.body == exchange.sentBody)
        if exchange.sendsContentLength { #expect(seen.header("Content-Length") == "\(exchange.sentBody.count)") }
        #if canImport(CCurl)
            if kind == .curl {
                #expect(seen.header("Expect") == nil)
                #expect(seen.header("Transfer-Encoding") == nil)
            }
        #endif

        #expect(response.status.code == 201)
        #expect(response.headers[HTTPField.Name("X-Reply")!] == "yes")
        #expect(response.headers[HTTPField.Name("X-Seen-Method")!] == exchange.method.rawValue)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == "\(exchange.method.rawValue) \(exchange.sentBody.count)")
    }

    @Test(arguments: TransportKind.allCases)
    func redirectsAreHandedBackNotFollowed(_ kind: TransportKind) async throws {
        let server = try await LoopbackServer([
            "GET /old": { _ in LoopbackServer.Reply(status: 302, headers: ["Location": "/new"]) },
            "GET /new": { _ in LoopbackServer.Reply(body: Array("moved".utf8)) },
        ])
        defer { Task { await server.stop() } }
        let response = try await kind.make().send(
            transportRequest(.get, server.baseURL.appendingPathComponent("old")))
        #expect(response.status.code == 302)
        #expect(response.headers[.location] == "/new")
        #expect(server.requests.map(\.path) == ["/old"])
    }

    @Test(arguments: TransportKind.allCases)
    func gzipBodiesAreDecoded(_ kind: TransportKind) async throws {
        let text = Array(String(repeating: #"{"id":"01BYE5RZ","name":"report.docx"},"#, count: 500).utf8)
        let compressed = try await offThePool { try gzip(text) }
        #expect(compressed.count < text.count / 10)
        let server = try await LoopbackServer([
            "GET /zipped": { _ in LoopbackServer.Reply(headers: ["Content-Encoding": "gzip"], body: compressed) }
        ])
        defer { Task { await server.stop() } }
        let response = try await kind.make().send(
            transportRequest(.get, server.baseURL.appendingPathComponent("zipped")))
        #expect(response.body == text)
        #if canImport(CCurl)
            if kind == .curl {
                #expect(server.requests.last?.header("Accept-Encoding")?.contains("gzip") == true)
                #expect(response.headers[.contentEncoding] == "gzip")
            }
        #endif
    }

    @Test(arguments: TransportKind.allCases)
    func downloadPathKeepsErrorBodiesInMemory(_ kind: TransportKind) async throws {
        let scratch = try ScratchDirectory()
        let error = #"{"error":{"code":"itemNotFound","message":"The resource could not be found."}}"#
        let server = try await LoopbackServer([
            "GET /missing": { _ in LoopbackServer.Reply(status: 404, json: error) },
            "GET /present": { _ in LoopbackServer.Reply(body: Array("file content".utf8)) },
        ])
        defer { Task { await server.stop() } }
        let transport = kind.make()
        let destination = scratch.path("item.txt")

        let toFile = TransferOptions(downloadPath: destination)
        let missing = try await transport.send(
            transportRequest(.get, server.baseURL.appendingPathComponent("missing"), options: toFile))
        #expect(missing.status == .notFound)
        #expect(String(decoding: missing.body, as: UTF8.self) == error)
        #expect(try scratch.contents().isEmpty)

        let present = try await transport.send(
            transportRequest(.get, server.baseURL.appendingPathComponent("present"), options: toFile))
        #expect(present.status == .ok)
        #expect(present.body.isEmpty)
        #expect(FileManager.default.contents(atPath: destination) == Data("file content".utf8))
        #expect(try scratch.contents() == ["item.txt"])
    }

    @Test(arguments: TransportKind.allCases)
    func refusedConnection(_ kind: TransportKind) async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let error = await binderyError {
            _ = try await kind.make().send(transportRequest(.get, URL(string: "http://127.0.0.1:\(port)/")!))
        }
        withExtendedLifetime(refusing) {}
        #expect(error?.kind == .connection)
        #if canImport(CCurl)
            if kind == .curl {
                #expect(
                    error?.message.contains("cannot connect to 127.0.0.1:\(port)") == true,
                    "\(String(describing: error))")
                #expect((error?.underlying as? CurlTransport.CurlError)?.code == 7)
            }
        #endif
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadStreamsToItsFileAndReportsItsProgress(_ kind: TransportKind) async throws {
        let scratch = try ScratchDirectory()
        let size = 4 << 20
        let source = scratch.path("source.bin")
        try writeTestFile(at: source, size: size)
        let server = try await fileServer(source)
        defer { Task { await server.stop() } }
        let destination = scratch.path("downloaded.bin")
        try Data("the old file".utf8).write(to: URL(fileURLWithPath: destination))
        let progress = ProgressLog()

        let response = try await kind.make().send(
            transportRequest(
                .get, server.baseURL.appendingPathComponent("big"),
                options: TransferOptions(downloadPath: destination, progress: progress.callback)))

        #expect(response.status == .ok)
        #expect(response.body.isEmpty, "the body went to the file, not to memory")
        let written = (try FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.intValue
        #expect(written == size)
        #expect(try checksum(ofFileAt: destination) == checksum(ofFileAt: source))
        #expect(try scratch.contents() == ["downloaded.bin", "source.bin"])  // replaced, nothing left beside it
        #expect(progress.isMonotonic)
        #expect(progress.all.last?.received == Int64(size))
        // How often reports come while under way is the transport's choice (none on a fast loopback is fine).
    }

    @Test(arguments: TransportKind.allCases)
    func anUploadFromAFileSendsItAllAndReportsItsProgress(_ kind: TransportKind) async throws {
        let scratch = try ScratchDirectory()
        let size = 2 << 20
        let source = scratch.path("upload.bin")
        try writeTestFile(at: source, size: size)
        let expected = try checksum(ofFileAt: source)
        // A server on threads of its own: FlyingFox reads a body on the shared pool, and with the whole suite
        // running, a 2 MB body was sometimes not read within a minute (the client had sent every byte).
        let seen = Mutex<String?>(nil)
        let server = try RawSocketServer { connection in
            guard let (head, body) = connection.readRequest() else { return }
            seen.withLock { $0 = head }
            let json = #"{"count":\#(body.count),"checksum":"\#(checksum(body))"}"#
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n" + json)
            connection.close()
        }
        defer { server.stop() }
        let progress = ProgressLog()

        let response = try await kind.make().send(
            transportRequest(
                .put, server.baseURL.appendingPathComponent("content"),
                headers: [.contentType: "application/octet-stream"],
                body: .file(path: source), options: TransferOptions(progress: progress.callback)))

        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"count":\#(size),"checksum":"\#(expected)"}"#)
        let head = seen.withLock { $0 ?? "" }.lowercased()
        #expect(head.contains("content-length: \(size)"), "\(head)")
        #expect(!head.contains("transfer-encoding"), "\(head)")
        #expect(progress.isMonotonic)
        #expect(progress.all.last?.sent == Int64(size))
        #expect(progress.all.last?.totalToSend == Int64(size))
    }

    /// A task cancelled before it sends ends at once with `.cancelled`, whether its transfer is watched (progress,
    /// a file) or not, and nothing reaches the server.
    @Test(arguments: TransportKind.allCases, [false, true])
    func aTaskCancelledBeforeItSendsEndsCancelled(_ kind: TransportKind, watched: Bool) async throws {
        let scratch = try ScratchDirectory()
        let server = try await LoopbackServer(["GET /ping": { _ in LoopbackServer.Reply(body: Array("pong".utf8)) }])
        defer { Task { await server.stop() } }
        let transport = kind.make()
        let options =
            watched ? TransferOptions(downloadPath: scratch.path("ping.txt"), progress: { _ in }) : TransferOptions()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(
                transportRequest(.get, server.baseURL.appendingPathComponent("ping"), options: options))
        }
        let error = await binderyError { _ = try await task.value }
        #expect(error?.kind == .cancelled)
        #expect(server.requests.isEmpty)
        #expect(try scratch.contents().isEmpty)
    }

    /// A request with a body whose answer goes to a file: the file holds the answer, nothing comes back in memory.
    @Test(arguments: TransportKind.allCases)
    func aPostWhoseAnswerGoesToAFileWritesIt(_ kind: TransportKind) async throws {
        let scratch = try ScratchDirectory()
        let server = try await LoopbackServer([
            "POST /export": { request in LoopbackServer.Reply(body: Array("exported \(request.body.count)".utf8)) }
        ])
        defer { Task { await server.stop() } }
        let destination = scratch.path("export.txt")
        let response = try await kind.make().send(
            transportRequest(
                .post, server.baseURL.appendingPathComponent("export"), body: .bytes(Array("query".utf8)),
                options: TransferOptions(downloadPath: destination)))
        #expect(response.status == .ok)
        #expect(response.body.isEmpty)
        #expect(FileManager.default.contents(atPath: destination) == Data("exported 5".utf8))
        #expect(try scratch.contents() == ["export.txt"])
    }
}
