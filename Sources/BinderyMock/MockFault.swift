import Foundation

/// A failure the mock plays on request.
public enum MockFault: Sendable, Hashable {
    /// The token has expired: 401, or Spark's 1020.
    case expiredToken
    /// An error status (429, 503, …), with `Retry-After` seconds when given.
    case status(Int, retryAfter: Int? = nil)
    /// The status line and headers, then the connection drops before the body.
    case reset
    /// Content-Length promises the whole body; the connection closes after half of it.
    case truncated
    /// The normal answer, late.
    case slow(Duration)

    public static let headerName = "X-Bindery-Fault"

    /// `expired`, `429`, `429; retry-after=2`, `503`, `reset`, `truncated`, `slow=250` (milliseconds).
    public init?(header: String) {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let first = parts.first else { return nil }
        switch first {
        case "expired": self = .expiredToken
        case "reset": self = .reset
        case "truncated": self = .truncated
        default:
            if first.hasPrefix("slow="), let milliseconds = Int(first.dropFirst(5)) {
                self = .slow(.milliseconds(milliseconds))
            } else if let status = Int(first), (400...599).contains(status) {
                let retryAfter = parts.dropFirst().first { $0.hasPrefix("retry-after=") }.flatMap {
                    Int($0.dropFirst(12))
                }
                self = .status(status, retryAfter: retryAfter)
            } else {
                return nil
            }
        }
    }
}
