import Synchronization

/// Runs `work` and returns when it finishes or when `limit` has passed, whichever comes first.
///
/// For shutting down a server in a test: FlyingFox's stop can stay blocked in `epoll_wait` after its clients are
/// gone, and a test that awaits it would hang the whole run. `work` keeps running unstructured if it overstays.
public func awaitAtMost(_ limit: Duration, _ work: @escaping @Sendable () async -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let finish = FirstCall(continuation)
        Task {
            await work()
            finish()
        }
        Task {
            try? await Task.sleep(for: limit)
            finish()
        }
    }
}

/// Resumes the continuation on the first call only.
private final class FirstCall: Sendable {
    private let continuation: Mutex<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = Mutex(continuation) }

    func callAsFunction() { continuation.withLock { $0.take() }?.resume() }
}
