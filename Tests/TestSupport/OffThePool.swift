import Foundation

/// Runs blocking work (waiting for a child process, polling a file, sleeping a fixed time) on a thread of its own.
///
/// Every suite runs at once in one process, and the shared pool has one thread per core: two here. A test that
/// blocks a pool thread while a child process works starves every other test's tasks, the in-process mock
/// servers the child may be talking to included, and unrelated tests pass their time limits.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// `offThePool` for work that cannot fail.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
