import Foundation
import HTTPTypes
import Logging

/// Logs one line per HTTP exchange through swift-log: method, URL, status and duration, with every
/// secret redacted. At `trace` it adds the headers and the request body, redacted the same way.
///
/// Levels follow the Spark SDK's error / warning / info / fine: a success is logged at `successLevel`
/// (debug unless set), a 4xx at `clientErrorLevel` (`failureLevel` unless set), a 5xx at `failureLevel`, a failed
/// exchange at `error`.
///
/// A library logs nothing unless its app asks: this middleware is not in `.defaults`, and it takes the app's
/// logger (`.defaults(logger:)` adds it).
public struct LoggingMiddleware: HTTPMiddleware {
    public var logger: Logger
    public var successLevel: Logger.Level
    public var failureLevel: Logger.Level
    public var clientErrorLevel: Logger.Level

    public init(
        logger: Logger, successLevel: Logger.Level = .debug,
        failureLevel: Logger.Level = .info, clientErrorLevel: Logger.Level? = nil
    ) {
        self.logger = logger
        self.successLevel = successLevel
        self.failureLevel = failureLevel
        self.clientErrorLevel = clientErrorLevel ?? failureLevel
    }

    public func intercept(
        _ request: TransportRequest, next: @Sendable (TransportRequest) async throws -> APIResponse
    ) async throws -> APIResponse {
        let clock = ContinuousClock()
        let start = clock.now
        // Redacting parses the URL: done only for lines that are written, not on every request.
        var line: String { "\(request.head.method) \(request.head.url.map(Redaction.url) ?? "?")" }
        if logger.logLevel <= .trace {
            logger.trace("\(line) headers: \(Redaction.headers(request.head.headerFields))")
            if case .bytes(let body)? = request.body, !body.isEmpty {
                let type = request.head.headerFields[.contentType]
                logger.trace("\(line) body: \(Redaction.body(body, contentType: type))")
            }
        }
        do {
            let response = try await next(request)
            let elapsed = Self.milliseconds(clock.now - start)
            let level =
                switch response.status.kind {
                case .successful, .redirection: successLevel
                case .clientError: clientErrorLevel
                default: failureLevel
                }
            logger.log(level: level, "\(line) → \(response.status.code) in \(elapsed) ms")
            if logger.logLevel <= .trace {
                logger.trace("\(line) response headers: \(Redaction.headers(response.headers))")
            }
            return response
        } catch {
            let elapsed = Self.milliseconds(clock.now - start)
            let kind = (error as? BinderyError)?.kind.description ?? "error"
            logger.error("\(line) → \(kind) after \(elapsed) ms")
            throw error
        }
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", ms)
    }
}

/// Removes secrets from what is logged: credentials in headers, query strings, form and JSON bodies.
public enum Redaction {
    public static let placeholder = "<redacted>"

    /// Query and form parameters and JSON members whose values are secrets (compared case-insensitively).
    public static let secretParameters: Set<String> = [
        "access_token", "refresh_token", "id_token", "code", "client_secret", "password", "apisig", "authtoken",
        "device_code", "code_verifier", "assertion", "openid.spark.code", "openid.sig", "client_assertion", "token",
    ]

    /// Headers whose values are secrets.
    public static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-sparkapi-authtoken",
    ]

    public static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unparseable URL>"
        }
        components.user = nil
        components.password = nil
        let query = components.percentEncodedQuery
        components.percentEncodedQuery = nil
        components.fragment = nil
        let base = components.string ?? "<unparseable URL>"
        return query.map { base + "?" + form($0) } ?? base
    }

    /// An `a=1&b=2` string with secret values replaced.
    public static func form(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let decoded = name.removingPercentEncoding ?? name
            return isSecret(decoded) ? "\(name)=\(placeholder)" : String(pair)
        }.joined(separator: "&")
    }

    public static func headers(_ fields: HTTPFields) -> String {
        fields.map { field in
            var value = secretHeaders.contains(field.name.canonicalName) ? placeholder : field.value
            // A redirect back from sign-in carries the code in its query.
            if field.name == .location, let url = URL(string: value) { value = Redaction.url(url) }
            return "\(field.name): \(value)"
        }.joined(separator: ", ")
    }

    /// A request body as text, with secrets replaced; bodies that are neither form nor JSON are summarized.
    public static func body(_ bytes: [UInt8], contentType: String?) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") { return form(String(decoding: bytes, as: UTF8.self)) }
        if type.contains("json"), let value = try? JSONValue.parse(bytes) { return json(value).jsonText }
        return "<\(bytes.count) bytes of \(contentType ?? "unknown type")>"
    }

    static func json(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map {
                        .init(key: $0.key, value: isSecret($0.key) ? .string(placeholder) : json($0.value))
                    }))
        case .array(let elements):
            return .array(elements.map(json))
        default:
            return value
        }
    }

    /// `text` with every occurrence of each secret replaced: for messages that a server wrote and may have
    /// echoed a credential into ("refresh token 0.AX… is revoked").
    public static func text(_ text: String, hiding secrets: some Sequence<String>) -> String {
        // Longest first, so that a secret containing another is replaced whole.
        secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }.reduce(text) {
            $0.replacingOccurrences(of: $1, with: placeholder)
        }
    }

    static func isSecret(_ name: String) -> Bool { secretParameters.contains(name.lowercased()) }
}
