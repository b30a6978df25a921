import HTTPTypes

/// Reads an error response in each service's dialect into one `BinderyError`.
///
/// A body that matches no dialect (an HTML error page, an empty or truncated body) still gives an API
/// error with the status and the raw body; it never crashes and never hides the status.
enum ErrorParser {
    static func parse(_ response: APIResponse, dialect: ServiceConventions.ErrorDialect) -> BinderyError {
        let status = response.status.code
        let requestIDHeader = response.headers[HTTPField.Name("request-id")!] ?? response.headers[HTTPField.Name("x-request-id")!]
        guard let root = try? JSONValue.parse(response.body) else {
            return BinderyError(
                kind: .api, message: "HTTP \(status) \(response.status.reasonPhrase)", status: status,
                requestID: requestIDHeader, body: response.body)
        }
        var code: String?
        var message: String?
        var requestID = requestIDHeader
        switch dialect {
        case .odata:
            let error = root["error"]
            code = error?["code"].flatMap(text)
            message = error?["message"].flatMap(text)
            let inner = error?["innerError"] ?? error?["innererror"]
            requestID = inner?["request-id"]?.stringValue ?? requestID
        case .spark:
            let body = root["D"]
            code = body?["Code"].flatMap(text)
            message = body?["Message"].flatMap(text)
        case .inbox:
            code = root["type"].flatMap(text)
            message = root["message"].flatMap(text)
        case .nylas:
            code = root["error"]?["type"].flatMap(text)
            message = root["error"]?["message"].flatMap(text)
            requestID = root["request_id"]?.stringValue ?? requestID
        }
        return BinderyError(
            kind: .api, message: message ?? "HTTP \(status) \(response.status.reasonPhrase)", status: status,
            serviceCode: code, requestID: requestID, body: response.body)
    }

    /// Codes arrive as strings or numbers (Spark's `1020`).
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let string): return string
        case .number(let number): return number.text
        default: return nil
        }
    }
}
