import BinderyRuntime
import Foundation
import HTTPTypes
import Testing

/// Inputs that crashed or misled the runtime, each kept as a test before its fix (see RELIABILITY.md and
/// Fuzz/Fuzz.swift for the targets that look for more).
@Suite struct FuzzFindingsTests {
    func retryAfter(_ value: String) -> Duration? {
        var headers = HTTPFields()
        headers[.retryAfter] = value
        return APIResponse(status: .tooManyRequests, headers: headers).retryAfter
    }

    /// A number of seconds past what a Duration in milliseconds holds trapped converting to Int64.
    @Test(arguments: ["1e300", "99999999999999999999", "9223372036854776"])
    func aHugeRetryAfterIsCappedInsteadOfTrapping(_ value: String) {
        let wait = retryAfter(value)
        #expect(wait != nil)
        #expect(wait.map { $0 > .seconds(86_400 * 365) } == true, "still a very long wait: \(String(describing: wait))")
    }

    @Test(arguments: ["-1", "nan", "inf", "1e-400", ""])
    func anUnusableRetryAfterIsNoneOrZero(_ value: String) {
        let wait = retryAfter(value)
        #expect(wait == nil || wait == .zero, "\(value): \(String(describing: wait))")
    }
}
