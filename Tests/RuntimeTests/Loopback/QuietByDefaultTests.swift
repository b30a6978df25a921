import BinderyRuntime
import Foundation
import GoldenOData
import Logging
import Synchronization
import Testing

/// A library writes no log line its app did not ask for: a client with the default middleware that hits server
/// errors logs nothing through swift-log's global system; given a logger, it logs each exchange there.
@Suite struct QuietByDefaultTests {
    /// Every line logged through the global logging system in this process (no other test bootstraps it; the
    /// library creates no logger of its own).
    static let global: GlobalLog = {
        let log = GlobalLog()
        LoggingSystem.bootstrap { label in GlobalLog.Handler(label: label, log: log) }
        return log
    }()

    final class GlobalLog: Sendable {
        let lines = Mutex<[String]>([])

        struct Handler: LogHandler {
            let label: String
            let log: GlobalLog
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                log.lines.withLock { $0.append("\(label) \(event.level) \(event.message)") }
            }
        }
    }

    @Test func theDefaultsLogNothingAndAGivenLoggerGetsEveryExchange() async throws {
        let global = Self.global
        let server = try await LoopbackServer(["GET /me": { _ in .init(status: 503, body: Array("down".utf8)) }])
        defer { Task { await server.stop() } }

        // The generated client's own initializer, default middleware: four attempts, four 503s.
        let quiet = GoldenODataClient(baseURL: server.baseURL, transport: loopbackTransport())
        await #expect(throws: BinderyError.self) { _ = try await quiet.me.request().get() }
        #expect(server.requests.count >= 2, "the defaults retry a 503")
        #expect(global.lines.withLock { $0.filter { $0.contains("/me") } } == [])

        let logger = Logger(label: "app.http")
        let loud = GoldenODataClient(
            baseURL: server.baseURL, transport: loopbackTransport(),
            middleware: [HeadersMiddleware(), LoggingMiddleware(logger: logger)])
        await #expect(throws: BinderyError.self) { _ = try await loud.me.request().get() }
        // The exchange at info, its headers at trace (the handler takes every level).
        let lines = global.lines.withLock { $0.filter { $0.hasPrefix("app.http info") } }
        #expect(lines.count == 1 && lines[0].contains("GET") && lines[0].contains("→ 503"), "\(lines)")
        #expect([any HTTPMiddleware].defaults(logger: logger).contains { $0 is LoggingMiddleware })
    }
}
