import BinderyJSON
import Foundation

/// A request as the mock received it. `path` is percent-encoded; query names and values are decoded.
public struct MockRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func queryValue(_ name: String) -> String? { query.last { $0.name == name }?.value }

    /// The path's segments, percent-decoded.
    public var segments: [String] {
        path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
    }

    /// The body as JSON, or nil when it is empty or not JSON.
    public var json: JSONValue? { body.isEmpty ? nil : try? JSONValue.parse(body) }

    /// A form body (`a=1&b=2`), `+` read as a space.
    public var form: [String: String] {
        var values: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                let text = $0.replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return values
    }
}

/// What the mock answers, and how it goes on the wire.
public struct MockResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    var delivery: Delivery = .whole

    enum Delivery: Sendable { case whole, truncated, reset }

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, json: JSONValue, headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", "application/json")] + headers, body: json.serialized())
    }

    public static func empty(_ status: Int = 204) -> MockResponse { MockResponse(status: status) }

    /// The JSON body, for tests that look at what the mock sent.
    public var json: JSONValue? { body.isEmpty ? nil : try? JSONValue.parse(body) }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 412: return "Precondition Failed"
        case 416: return "Range Not Satisfiable"
        case 429: return "Too Many Requests"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
