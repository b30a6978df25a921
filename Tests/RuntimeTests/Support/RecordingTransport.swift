import BinderyRuntime
import Foundation
import Logging
import Synchronization

/// A transport that answers with a closure and records every request: for unit tests of middleware,
/// whose behaviour is a state machine. The same behaviour is proven over loopback HTTP elsewhere.
final class RecordingTransport: HTTPTransport {
    private let answer: @Sendable (TransportRequest, Int) throws -> APIResponse
    private let log = Mutex<[TransportRequest]>([])

    init(_ answer: @escaping @Sendable (TransportRequest, Int) throws -> APIResponse) { self.answer = answer }

    var requests: [TransportRequest] { log.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> APIResponse {
        let index = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        return try answer(request, index)
    }
}

/// Collects the sleeps a middleware asked for instead of sleeping.
final class SleepRecorder: Sendable {
    private let sleeps = Mutex<[Duration]>([])
    var recorded: [Duration] { sleeps.withLock { $0 } }
    var sleep: @Sendable (Duration) async throws -> Void {
        { [self] duration in sleeps.withLock { $0.append(duration) } }
    }
}

/// A swift-log handler that keeps every line, to search the log for secrets.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }

    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }
}
