import Foundation
import HTTPTypes

/// One HTTP request as a builder made it, before the client sends it: inspectable and testable.
public struct APIRequest: Sendable, Hashable {
    public var method: HTTPRequest.Method
    /// The path under the client's base URL.
    public var path: ResourcePath
    /// A URL the service handed out (next link, delta link), used as is instead of `path` and `query`.
    public var absoluteURL: URL?
    /// Query parameters in order; values are percent-encoded when the URL is built.
    public var query: [QueryItem]
    public var headers: HTTPFields
    /// Bytes, or a file streamed as it is sent (uploads).
    public var body: RequestBody?

    public init(
        method: HTTPRequest.Method, path: ResourcePath, query: [QueryItem] = [], headers: HTTPFields = [:],
        body: RequestBody? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public struct QueryItem: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Sets a query parameter, replacing an earlier value of the same name.
    public mutating func setQuery(_ name: String, _ value: String?) {
        query.removeAll { $0.name == name }
        if let value { query.append(QueryItem(name, value)) }
    }

    public func queryValue(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }

    /// The path and the encoded query, as a `$batch` step addresses a request: `/me/messages?$top=5`.
    public var pathAndQuery: String {
        var text = path.description
        if !query.isEmpty {
            text +=
                "?"
                + query.map { PercentEncoding.query($0.name) + "=" + PercentEncoding.query($0.value) }
                .joined(separator: "&")
        }
        return text
    }

    /// The full URL under `baseURL` (or the absolute URL the service gave).
    public func url(relativeTo baseURL: URL) -> URL {
        if let absoluteURL { return absoluteURL }
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += pathAndQuery
        // Every component was encoded above, so this only fails for a malformed base URL.
        return URL(string: text) ?? baseURL
    }

    /// Sets the body to a JSON value, with its content type.
    public mutating func setJSONBody(_ value: JSONValue) {
        body = .bytes(value.serialized())
        headers[.contentType] = "application/json"
    }

    /// Sets the body to a form (`application/x-www-form-urlencoded`) of an object's members, in their order:
    /// strings as they are, numbers and booleans as their JSON text, each element of an array as a field of the
    /// same name, an object as its JSON text; a null member is left out.
    public mutating func setFormBody(_ value: JSONValue) {
        var fields: [String] = []
        for member in value.objectValue ?? JSONObject() {
            let values: [JSONValue]
            switch member.value {
            case .null: continue
            case .array(let elements): values = elements
            default: values = [member.value]
            }
            for value in values where !value.isNull {
                fields.append(PercentEncoding.form(member.key) + "=" + PercentEncoding.form(Self.text(of: value)))
            }
        }
        body = .bytes(Array(fields.joined(separator: "&").utf8))
        headers[.contentType] = "application/x-www-form-urlencoded"
    }

    /// Sets the body to text, UTF-8 encoded, with a content type (`text/plain`, `text/csv`).
    public mutating func setTextBody(_ text: String, contentType: String) {
        body = .bytes(Array(text.utf8))
        headers[.contentType] = contentType.contains("charset") ? contentType : contentType + "; charset=utf-8"
    }
}

extension APIRequest {
    /// Sets a query parameter from a typed value: strings as they are, numbers and booleans as their JSON
    /// text, enums as their raw value, arrays comma-separated. Nil leaves the parameter out.
    public mutating func setQuery(_ name: String, json value: (some JSONConvertible)?) {
        setQuery(name, value.map { Self.text(of: $0.json) })
    }

    /// Sets a header from a typed value, as `setQuery(_:json:)` writes it; an invalid header name is ignored.
    public mutating func setHeader(_ name: String, json value: (some JSONConvertible)?) {
        guard let fieldName = HTTPField.Name(name) else { return }
        headers[fieldName] = value.map { Self.text(of: $0.json) }
    }

    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let string): return string
        case .number(let number): return number.text
        case .bool(let bool): return bool ? "true" : "false"
        case .null: return "null"
        case .array(let elements): return elements.map(text(of:)).joined(separator: ",")
        case .object: return value.jsonText
        }
    }
}
