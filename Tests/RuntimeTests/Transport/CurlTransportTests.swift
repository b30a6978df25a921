// libcurl's own behaviour: only where the package is built with it (not under BINDERY_NO_CURL=1).
#if canImport(CCurl)
    import BinderyRuntime
    import Foundation
    import Synchronization
    import TestSupport
    import Testing

    /// `CurlTransport` over real HTTP on 127.0.0.1: FlyingFox for well-formed exchanges, `RawSocketServer` for
    /// the faults a well-behaved server never produces. Serialized, so the memory and timing checks do not
    /// compete with the 50 MB download or with each other.
    // The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
    // wait a minute or more for a thread before its first line runs.
    @Suite(.serialized, .timeLimit(.minutes(5)))
    struct CurlTransportTests {
        // MARK: Requests and responses as both ends see them

        @Test func headGetsTheHeadersAndNoBody() async throws {
            let server = try RawSocketServer { connection in
                while let head = connection.readRequestHead() {
                    // Claims a body it does not send, as a HEAD answer should: waiting for it would hang.
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\nX-Method: \(head.prefix(4))\r\n\r\n")
                }
            }
            defer { server.stop() }
            let transport = CurlTransport()
            for _ in 0..<2 {
                let response = try await transport.send(
                    transportRequest(.head, server.baseURL.appendingPathComponent("item")))
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == "1234")
                #expect(response.headers[HTTPField.Name("X-Method")!] == "HEAD")
                #expect(response.body.isEmpty)
            }
            // And the connection stays usable: both requests went over one.
            #expect(server.connectionCount == 1)
        }

        @Test func headerNamesAreReadWhateverTheirCase() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                // Common names in any case (a fast path matches them), one that is only nearly common, a folded line.
                connection.write(
                    "HTTP/1.1 200 OK\r\nCONTENT-type: text/plain\r\ncontent-LENGTH: 2\r\nETag: \"1\"\r\n"
                        + "Content_Type: other\r\nX-Long: a\r\n  b\r\n\r\nok")
                connection.waitUntilClosed()
            }
            defer { server.stop() }
            let response = try await CurlTransport().send(transportRequest(.get, server.baseURL))
            #expect(response.headers[.contentType] == "text/plain")
            #expect(response.headers[.contentLength] == "2")
            #expect(response.headers[.eTag] == "\"1\"")
            #expect(response.headers[HTTPField.Name("content_type")!] == "other")
            #expect(response.headers[HTTPField.Name("x-long")!] == "a b")
            #expect(response.headers.count == 5)
            #expect(response.body == Array("ok".utf8))
        }

        @Test func interimResponseHeadersDoNotLeakIntoTheFinalOnes() async throws {
            let server = try RawSocketServer { connection in
                guard connection.readRequestHead() != nil else { return }
                connection.write("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n")
                connection.write("HTTP/1.1 200 OK\r\nX-Final: 1\r\nContent-Length: 2\r\n\r\nok")
                connection.waitUntilClosed()
            }
            defer { server.stop() }
            let response = try await CurlTransport().send(
                transportRequest(.post, server.baseURL, body: .bytes([1, 2, 3])))
            #expect(response.status == .ok)
            #expect(response.headers[HTTPField.Name("X-Final")!] == "1")
            #expect(response.headers[HTTPField.Name("X-Interim")!] == nil)
            #expect(response.body == Array("ok".utf8))
        }

        // MARK: Connections

        @Test func sequentialRequestsReuseOneConnection() async throws {
            let server = try await LoopbackServer(["GET /ping": { _ in LoopbackServer.Reply(body: Array("pong".utf8)) }]
            )
            defer { Task { await server.stop() } }
            let transport = CurlTransport()
            for _ in 0..<20 {
                let response = try await transport.send(
                    transportRequest(.get, server.baseURL.appendingPathComponent("ping")))
                #expect(response.body == Array("pong".utf8))
            }
            let ports = server.requests.map(\.remotePort)
            #expect(ports.count == 20)
            #expect(Set(ports).count == 1, "client ports: \(Set(ports))")
        }

        @Test func concurrentRequestsEachGetTheirOwnResponse() async throws {
            let server = try await LoopbackServer([
                "GET /items/*": { request in
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...20)))
                    return LoopbackServer.Reply(body: Array(request.path.utf8))
                }
            ])
            defer { Task { await server.stop() } }
            let transport = CurlTransport()
            let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<32 {
                    group.addTask {
                        let url = server.baseURL.appendingPathComponent("items/\(index)")
                        let response = try await transport.send(transportRequest(.get, url))
                        return response.body != Array("/items/\(index)".utf8)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(mismatches == 0)
            #expect(server.requests.count == 32)
        }

        @Test func releasingTheTransportClosesItsConnections() async throws {
            let closed = Mutex(false)
            let server = try RawSocketServer { connection in
                while connection.readRequestHead() != nil {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                }
                // The peer closed the kept-alive connection: the transport freed its handles.
                if !connection.isStopped { closed.withLock { $0 = true } }
            }
            defer { server.stop() }
            do {
                let transport = CurlTransport()
                let response = try await transport.send(transportRequest(.get, server.baseURL))
                #expect(response.body == Array("ok".utf8))
            }
            // deinit waits for the loop thread, which closes the connection on its way out.
            let deadline = ContinuousClock.now + .seconds(2)
            while !closed.withLock({ $0 }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(closed.withLock { $0 })
        }

        // MARK: The loop thread as a task executor

        /// The transport's loop thread, found through a progress callback (which runs there).
        func loopThread(of transport: CurlTransport, _ server: LoopbackServer) async throws -> ObjectIdentifier? {
            let thread = Mutex<ObjectIdentifier?>(nil)
            let options = TransferOptions(progress: { _ in thread.withLock { $0 = currentThread() } })
            _ = try await transport.send(
                transportRequest(.get, server.baseURL.appendingPathComponent("ping"), options: options))
            return thread.withLock { $0 }
        }

        @Test func tasksPreferringTheExecutorRunOnTheLoopThread() async throws {
            let server = try await LoopbackServer([
                "GET /ping": { _ in LoopbackServer.Reply(body: Array("pong".utf8)) },
                "GET /items/*": { request in LoopbackServer.Reply(body: Array(request.path.utf8)) },
            ])
            defer { Task { await server.stop() } }
            let transport = CurlTransport()
            let loop = try #require(try await loopThread(of: transport, server))
            let start = ContinuousClock.now
            let results = try await withThrowingTaskGroup(of: (matches: Bool, thread: ObjectIdentifier).self) { group in
                for index in 0..<16 {
                    group.addTask(executorPreference: transport.executor) {
                        let url = server.baseURL.appendingPathComponent("items/\(index)")
                        let response = try await transport.send(transportRequest(.get, url))
                        return (response.body == Array("/items/\(index)".utf8), currentThread())
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // A job left waiting for a wake-up would sit until the loop's idle poll ends, a minute later. The bound
            // sits well below that and well above what a loaded two-core CI machine takes (10.6 s was seen there).
            #expect(ContinuousClock.now - start < .seconds(40))
            #expect(results.count == 16)
            #expect(results.allSatisfy { $0.matches })
            #expect(results.allSatisfy { $0.thread == loop })
            #expect(server.requests.count == 17)
            // Without the preference, the response resumes this task on the global executor, not on the loop thread.
            _ = try await transport.send(transportRequest(.get, server.baseURL.appendingPathComponent("ping")))
            #expect(currentThread() != loop)
        }

        @Test func tasksPreferringTheExecutorGoOnAfterTheTransportIsGone() async throws {
            let server = try await LoopbackServer(["GET /ping": { _ in LoopbackServer.Reply(body: Array("pong".utf8)) }]
            )
            defer { Task { await server.stop() } }
            let first = CurlTransport()
            let loop = try #require(try await loopThread(of: first, server))
            let executor = first.executor
            var transport: CurlTransport? = consume first
            let start = ContinuousClock.now
            let (body, threads) = try await withTaskExecutorPreference(executor) {
                let response = try await transport?.send(
                    transportRequest(.get, server.baseURL.appendingPathComponent("ping")))
                let onTheLoop = currentThread()
                // The last reference goes on the loop thread itself: the loop stops once this job suspends.
                transport = nil
                try await Task.sleep(for: .milliseconds(10))
                return (response?.body, [onTheLoop, currentThread()])
            }
            #expect(ContinuousClock.now - start < .seconds(40))  // a missed wake-up costs the minute's idle poll
            #expect(body == Array("pong".utf8))
            #expect(threads.first == loop)
            #expect(threads.last != loop, "the task went on on the global executor")
        }

        // MARK: Bodies

        @Test func largeDownloadStreamsToTheFile() async throws {
            let scratch = try ScratchDirectory()
            let size = 50 << 20
            let source = scratch.path("source.bin")
            try writeTestFile(at: source, size: size)
            let expected = try checksum(ofFileAt: source)
            let server = try await fileServer(source)
            defer { Task { await server.stop() } }
            let destination = scratch.path("downloaded.bin")
            let progress = ProgressLog()
            let transport = CurlTransport()

            let before = ResidentMemory.resetPeak()
            let response = try await transport.send(
                transportRequest(
                    .get, server.baseURL.appendingPathComponent("big"),
                    options: TransferOptions(downloadPath: destination, progress: progress.callback)))
            let peak = ResidentMemory.peak()

            #expect(response.status == .ok)
            #expect(response.body.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: destination)
            #expect((attributes[.size] as? NSNumber)?.intValue == size)
            #expect(try checksum(ofFileAt: destination) == expected)
            #expect(try scratch.contents() == ["downloaded.bin", "source.bin"])  // no temporary file left behind

            let reports = progress.all
            // Reported while under way, not only at the end (how often is libcurl's choice).
            #expect(reports.contains { $0.received > 0 && $0.received < Int64(size) })
            #expect(progress.isMonotonic)
            #expect(reports.last?.received == Int64(size))
            #expect(reports.last?.totalToReceive == Int64(size))
            #expect(reports.allSatisfy { $0.totalToSend == nil })

            #if os(Linux)
                if let before, let peak {
                    let growth = peak - before
                    #expect(
                        growth < 20 << 20, "resident memory peaked \(growth >> 20) MB higher during a 50 MB download")
                } else {
                    Issue.record(
                        "cannot read /proc/self/status or reset its peak: the download's memory is not checked")
                }
            #else
                print("largeDownloadStreamsToTheFile: resident memory is only measured on Linux; not checked here")
            #endif
        }

        @Test func uploadStreamsAFile() async throws {
            let scratch = try ScratchDirectory()
            let size = 4 << 20
            let source = scratch.path("upload.bin")
            try writeTestFile(at: source, size: size)
            let expected = try checksum(ofFileAt: source)
            let server = try await LoopbackServer([
                "PUT /content": { request in
                    LoopbackServer.Reply(
                        json: #"{"count":\#(request.body.count),"checksum":"\#(checksum(request.body))"}"#)
                }
            ])
            defer { Task { await server.stop() } }
            let progress = ProgressLog()

            let response = try await CurlTransport().send(
                transportRequest(
                    .put, server.baseURL.appendingPathComponent("content"),
                    headers: [.contentType: "application/octet-stream"],
                    body: .file(path: source), options: TransferOptions(progress: progress.callback)))

            #expect(response.status == .ok)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"count":\#(size),"checksum":"\#(expected)"}"#)
            #expect(server.requests.last?.header("Content-Length") == "\(size)")
            #expect(server.requests.last?.header("Expect") == nil)  // libcurl would ask for 100-continue above 1 MB
            #expect(progress.isMonotonic)
            #expect(progress.all.last?.sent == Int64(size))
            #expect(progress.all.last?.totalToSend == Int64(size))
            #expect(
                progress.all.contains { $0.sent > 0 && $0.sent < Int64(size) },
                "no report while the upload was under way")
        }

        @Test func missingUploadFileFailsBeforeSending() async throws {
            let server = try await LoopbackServer(["PUT /content": { _ in LoopbackServer.Reply() }])
            defer { Task { await server.stop() } }
            let error = await binderyError {
                _ = try await CurlTransport().send(
                    transportRequest(
                        .put, server.baseURL.appendingPathComponent("content"),
                        body: .file(path: "/nonexistent/upload.bin")
                    ))
            }
            #expect(error?.message.contains("/nonexistent/upload.bin") == true)
            #expect(server.requests.isEmpty)
        }

        // MARK: Failures

        @Test(arguments: [false, true])
        func slowServerTimesOut(_ fromConfiguration: Bool) async throws {
            let server = try RawSocketServer { connection in
                connection.readRequestHead()
                connection.waitUntilClosed()  // never answers
            }
            defer { server.stop() }
            let transport =
                fromConfiguration ? CurlTransport(configuration: .init(timeout: .milliseconds(300))) : CurlTransport()
            let options = fromConfiguration ? TransferOptions() : TransferOptions(timeout: .milliseconds(300))
            let start = ContinuousClock.now
            let error = await binderyError {
                _ = try await transport.send(transportRequest(.get, server.baseURL, options: options))
            }
            let elapsed = ContinuousClock.now - start
            #expect(error?.kind == .timeout)
            // The upper bound is loose on purpose: a loaded CI machine is slow, and a missed timeout never ends.
            #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(60), "took \(elapsed)")
        }

        @Test func truncatedBodyIsAConnectionError() async throws {
            let server = try RawSocketServer { connection in
                connection.readRequestHead()
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
                connection.close()
            }
            defer { server.stop() }
            let error = await binderyError {
                _ = try await CurlTransport().send(transportRequest(.get, server.baseURL))
            }
            #expect(error?.kind == .connection)
            #expect(
                error?.message.contains("closed before the whole response body arrived") == true,
                "\(String(describing: error))")
        }

        @Test func tlsHandshakeFailureIsATLSError() async throws {
            // Plain HTTP where TLS was expected: the handshake fails on the first bytes of the answer.
            let server = try RawSocketServer { connection in
                connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                connection.waitUntilClosed()
            }
            defer { server.stop() }
            let url = URL(string: "https://127.0.0.1:\(server.port)/")!
            let error = await binderyError { _ = try await CurlTransport().send(transportRequest(.get, url)) }
            #expect(error?.kind == .tls, "\(String(describing: error))")
        }

        enum Hangup: String, CaseIterable, Sendable {
            case close, reset
        }

        @Test(arguments: Hangup.allCases)
        func serverHangsUpWithoutAnswering(_ hangup: Hangup) async throws {
            let server = try RawSocketServer { connection in
                connection.readRequestHead()
                switch hangup {
                case .close: connection.close()
                case .reset: connection.reset()
                }
            }
            defer { server.stop() }
            let error = await binderyError {
                _ = try await CurlTransport().send(transportRequest(.get, server.baseURL))
            }
            #expect(error?.kind == .connection, "\(String(describing: error))")
        }

        // MARK: Cancellation

        @Test func cancellingAbortsADownloadPromptly() async throws {
            let scratch = try ScratchDirectory()
            let server = try RawSocketServer { connection in
                while let head = connection.readRequestHead() {
                    guard head.hasPrefix("GET /slow") else {
                        connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        continue
                    }
                    // 10 MB at 1 KB per 20 ms: over three minutes for the whole body.
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n")
                    let chunk = [UInt8](repeating: 0x61, count: 1024)
                    while !connection.isStopped, connection.write(chunk) { usleep(20_000) }
                    return
                }
            }
            defer { server.stop() }
            let transport = CurlTransport()
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            let options = TransferOptions(downloadPath: scratch.path("slow.bin")) { progress in
                if progress.received > 0 { startedContinuation.yield() }
            }
            let slow = transportRequest(.get, server.baseURL.appendingPathComponent("slow"), options: options)
            let task = Task { try await transport.send(slow) }
            for await _ in started { break }

            let start = ContinuousClock.now
            task.cancel()
            let error = await binderyError { _ = try await task.value }
            let elapsed = ContinuousClock.now - start
            #expect(error?.kind == .cancelled)
            // Far below the three minutes the body takes, with room for a loaded CI machine.
            #expect(elapsed < .seconds(60), "cancelling took \(elapsed)")
            #expect(try scratch.contents().isEmpty)  // the partial download is gone

            let next = try await transport.send(transportRequest(.get, server.baseURL.appendingPathComponent("fast")))
            #expect(next.body == Array("ok".utf8))
        }

        @Test func alreadyCancelledTaskSendsNothing() async throws {
            let server = try await LoopbackServer(["GET /ping": { _ in LoopbackServer.Reply() }])
            defer { Task { await server.stop() } }
            let transport = CurlTransport()
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.send(transportRequest(.get, server.baseURL.appendingPathComponent("ping")))
            }
            let error = await binderyError { _ = try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(server.requests.isEmpty)
        }
    }

    /// The thread this runs on; synchronous, as `Thread.current` is not available to async code.
    private func currentThread() -> ObjectIdentifier { ObjectIdentifier(Thread.current) }
#endif
