import Foundation
import HTTPTypes

/// A response as the client received it.
public struct APIResponse: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: [UInt8]

    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The `Retry-After` header as a duration: seconds (decimals such as `0.249` included) or an HTTP date.
    public var retryAfter: Duration? {
        guard let value = headers[.retryAfter]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds.isFinite, seconds >= 0 { return .milliseconds(Int64(seconds * 1000)) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
    }

    /// The body parsed as JSON, or a typed error naming what was wrong with it.
    public func json() throws(BinderyError) -> JSONValue {
        guard !body.isEmpty else {
            throw BinderyError.invalidResponse("the response has an empty body", response: self)
        }
        do {
            return try JSONValue.parse(body)
        } catch {
            throw BinderyError.invalidResponse("the response is not valid JSON (\(error))", response: self)
        }
    }
}
