import Foundation
import HTTPTypes

/// Reads an error response into one `BinderyError`, by the paths of the service's error shape.
///
/// A body that matches no shape (an HTML error page, an empty or truncated body) still gives an API
/// error with the status and the raw body; it never crashes and never hides the status.
enum ErrorParser {
    static func parse(_ response: APIResponse, shape: ServiceConventions.ErrorShape) -> BinderyError {
        var error = read(response, shape: shape)
        if !response.credentialsSent.isEmpty {
            error.message = Redaction.text(error.message, hiding: response.credentialsSent)
            error.serviceCode = error.serviceCode.map { Redaction.text($0, hiding: response.credentialsSent) }
        }
        return error
    }

    private static func read(_ response: APIResponse, shape: ServiceConventions.ErrorShape) -> BinderyError {
        let status = response.status.code
        var error = BinderyError(
            kind: .api, message: "HTTP \(status) \(response.status.reasonPhrase)", status: status,
            requestID: response.headers[requestID] ?? response.headers[xRequestID]
                ?? response.headers[HeadersMiddleware.clientRequestID],
            date: response.headers[.date], retryAfter: response.retryAfter, body: response.body)
        guard let root = try? JSONValue.parse(response.body) else {
            if !response.body.isEmpty { error.message += " (the body is not JSON: \(Self.preview(response.body)))" }
            return error
        }
        guard shape != .common else {
            readCommonShapes(root, into: &error)
            return error
        }
        /// The first of a part's paths that holds a value.
        func first(_ paths: [[String]]) -> JSONValue? {
            paths.lazy.compactMap { root.value(at: $0) }.first { $0 != .null }
        }
        error.serviceCode = first(shape.code)?.scalarText
        error.message = first(shape.message)?.scalarText ?? error.message
        error.details = first(shape.details)
        error.requestID = first(shape.requestID)?.stringValue ?? error.requestID
        error.date = first(shape.date)?.stringValue ?? error.date
        error.helpURL = first(shape.helpURL)?.stringValue
        return error
    }

    /// The shapes public APIs use, the most specific first; a member that is not there changes nothing.
    private static func readCommonShapes(_ root: JSONValue, into error: inout BinderyError) {
        if case .object(let body)? = root["error"] {
            // `{"error": {"code" or "type", "message", "details"}}` (Google, OData-like, Stripe-like).
            let inner = JSONValue.object(body)
            error.serviceCode = inner["code"]?.scalarText ?? inner["type"]?.scalarText ?? inner["status"]?.scalarText
            error.message = inner["message"]?.scalarText ?? error.message
            error.details = inner["details"] ?? inner["innerError"] ?? inner["innererror"]
        } else if let code = root["error"]?.scalarText {
            // OAuth: `{"error": "invalid_grant", "error_description": "..."}`.
            error.serviceCode = code
            error.message = root["error_description"]?.scalarText ?? root["message"]?.scalarText ?? code
        } else if root["title"] != nil || root["detail"] != nil {
            // RFC 7807 problem details; its own members (`errors`, `instance`...) are the details.
            let type = root["type"]?.scalarText
            error.serviceCode = type == "about:blank" ? root["title"]?.scalarText : type ?? root["title"]?.scalarText
            error.message = root["detail"]?.scalarText ?? root["title"]?.scalarText ?? error.message
            error.details = root
        } else if let message = root["message"]?.scalarText {
            // `{"message": "...", "code": ...}` (GitHub, many others).
            error.serviceCode = root["code"]?.scalarText ?? root["type"]?.scalarText ?? root["error_code"]?.scalarText
            error.message = message
            error.details = root["errors"] ?? root["details"]
        } else if case .array(let errors)? = root["errors"], let first = errors.first {
            // `{"errors": [{"message", "code"}...]}`.
            error.serviceCode = first["code"]?.scalarText ?? first["type"]?.scalarText
            error.message = errors.compactMap { $0["message"]?.scalarText ?? $0["detail"]?.scalarText }
                .joined(separator: "; ")
            if error.message.isEmpty { error.message = "HTTP \(error.status ?? 0)" }
            error.details = root["errors"]
        }
    }

    /// The start of a non-JSON body, on one line, for the message.
    private static func preview(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        return body.count > 120 ? line + "…" : line
    }

    private static let requestID = HTTPField.Name("request-id")!
    private static let xRequestID = HTTPField.Name("x-request-id")!
}

extension JSONValue {
    /// A string, or a number's text: codes, ids and cursors arrive as either (Spark's `1020`).
    public var scalarText: String? {
        switch self {
        case .string(let string): return string
        case .number(let number): return number.text
        default: return nil
        }
    }
}

extension BinderyError {
    /// The error an unsuccessful response means, read by the service's error shape (for calls made outside a
    /// `ServiceClient`, such as a sign-in request).
    public static func api(_ response: APIResponse, shape: ServiceConventions.ErrorShape) -> BinderyError {
        ErrorParser.parse(response, shape: shape)
    }
}
