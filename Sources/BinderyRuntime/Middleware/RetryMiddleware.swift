import Foundation
import HTTPTypes

/// Retries throttled and unavailable responses (429, 503, 504) and, for idempotent requests, failed
/// connections: after `Retry-After` when the service sends one (seconds, decimals included, or an HTTP
/// date), otherwise after an exponential backoff with jitter. Attempts and the total wait are capped,
/// and the last response or error is returned as it was once the caps are reached.
public struct RetryMiddleware: HTTPMiddleware {
    /// Attempts in all, the first one included.
    public var maxAttempts: Int
    /// The most this middleware waits across all retries of one request.
    public var maxTotalDelay: Duration
    /// The first backoff; each later one doubles, up to `maxBackoff`.
    public var baseBackoff: Duration
    public var maxBackoff: Duration
    public var retryableStatuses: Set<Int>
    /// Waits between attempts; tests pass one that records instead of sleeping.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        maxAttempts: Int = 4, maxTotalDelay: Duration = .seconds(180), baseBackoff: Duration = .milliseconds(500),
        maxBackoff: Duration = .seconds(30), retryableStatuses: Set<Int> = [429, 503, 504],
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxAttempts = maxAttempts
        self.maxTotalDelay = maxTotalDelay
        self.baseBackoff = baseBackoff
        self.maxBackoff = maxBackoff
        self.retryableStatuses = retryableStatuses
        self.sleep = sleep
    }

    public func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        var waited = Duration.zero
        var attempt = 1
        while true {
            var sending = request
            // Graph's convention: tell the service which retry this is.
            if attempt > 1 { sending.head.headerFields[Self.retryAttempt] = String(attempt - 1) }
            let delay: Duration
            do {
                let response = try await next(sending)
                guard retryableStatuses.contains(response.status.code), attempt < maxAttempts else { return response }
                delay = response.retryAfter ?? backoff(attempt: attempt)
                guard waited + delay <= maxTotalDelay else { return response }
            } catch let error as BinderyError
                where Self.isRetryable(error) && request.isIdempotent && attempt < maxAttempts
            {
                delay = backoff(attempt: attempt)
                guard waited + delay <= maxTotalDelay else { throw error }
            }
            try await sleep(delay)
            waited += delay
            attempt += 1
        }
    }

    /// `base × 2^(attempt-1)`, capped, with "equal jitter": half fixed, half random, so that many
    /// clients throttled together do not all come back at the same instant.
    func backoff(attempt: Int) -> Duration {
        let exponential = baseBackoff * (1 << min(attempt - 1, 20))
        let capped = min(exponential, maxBackoff)
        let half = capped / 2
        return half + half * Double.random(in: 0...1)
    }

    static func isRetryable(_ error: BinderyError) -> Bool {
        error.kind == .connection || error.kind == .timeout
    }

    static let retryAttempt = HTTPField.Name("Retry-Attempt")!
}
