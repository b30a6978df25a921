import Foundation
import HTTPTypes

/// A response as the client received it.
public struct APIResponse: Sendable {
    public var status: HTTPResponse.Status
    public var headers: HTTPFields
    public var body: [UInt8]
    /// The credentials the request carried, set by `AuthMiddleware` on a failed response: a service that repeats
    /// the token in its error (`"token eyJ… is expired"`) must not put it into the error's message.
    public var credentialsSent: [String] = []

    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The `Retry-After` header as a duration: seconds (decimals such as `0.249` included) or an HTTP date.
    public var retryAfter: Duration? {
        guard let value = headers[.retryAfter]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds.isFinite, seconds >= 0 {
            // Capped: a number of seconds beyond what Int64 milliseconds hold (`1e300`) would trap.
            return .milliseconds(Int64(min(seconds * 1000, Self.maxMilliseconds)))
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .milliseconds(Int64(min(max(0, date.timeIntervalSinceNow) * 1000, Self.maxMilliseconds)))
    }

    /// The longest `Retry-After` read, in milliseconds: about 146 million years, and safely below `Int64.max`.
    private static let maxMilliseconds = Double(Int64.max / 2)

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
