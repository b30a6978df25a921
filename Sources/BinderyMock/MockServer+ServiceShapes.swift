import BinderyJSON
import BinderyRuntime
import Foundation

/// How the mock writes what a service shapes its own way: error bodies, single objects in an envelope, dates.
extension MockServer {
    /// An error body as the service writes one: the service's own `errorBody`, else its parts placed at the first
    /// path of each in the conventions' error shape, else (a shape with no paths) RFC 7807 problem details, as most
    /// public APIs answer.
    public func errorResponse(_ status: Int, code: String, message: String) -> MockResponse {
        if let errorBody = service.errorBody {
            return MockResponse(status: status, json: errorBody(status, code, message))
        }
        let shape = service.conventions.errors
        guard shape != .common else {
            var response = MockResponse(
                status: status,
                json: [
                    "type": .string(code), "title": .string(code), "status": .number(JSONNumber(status)),
                    "detail": .string(message),
                ])
            response.headers.removeAll { $0.0.lowercased() == "content-type" }
            response.headers.append(("Content-Type", "application/problem+json"))
            return response
        }
        var body = JSONValue.object([:])
        let parts: [([[String]], JSONValue)] = [
            (shape.code, .string(code)), (shape.message, .string(message)),
            (shape.date, .string(Self.isoDate(Date()))), (shape.requestID, .string(UUID().uuidString.lowercased())),
        ]
        for (paths, value) in parts { if let path = paths.first { body = body.setting(value, at: path[...]) } }
        return MockResponse(status: status, json: body)
    }

    /// One object as the service answers it (Spark: `{"D": {"Success": true, "Results": [object]}}`).
    public func single(_ object: JSONObject, status: Int = 200) -> MockResponse {
        if case .wrapped(let path) = service.conventions.listShape {
            return MockResponse(status: status, json: wrapped(path, results: [.object(object)], extra: [:]))
        }
        return MockResponse(status: status, json: .object(object))
    }

    /// `results` at `path` (`["D", "Results"]`) inside the service's success body, so that an answer says it
    /// succeeded as the service's do (Spark's `"Success": true` beside the results), with `extra` beside them; the
    /// bare array when `path` is empty.
    func wrapped(_ path: [String], results: [JSONValue], extra: JSONObject) -> JSONValue {
        guard !path.isEmpty else { return .array(results) }
        var body = JSONValue.object(service.successBody).setting(.array(results), at: path[...])
        for member in extra { body = body.setting(member.value, at: (path.dropLast() + [member.key])[...]) }
        return body
    }

    /// `2026-11-24T18:43:58Z`: how the services write a date.
    public static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// The origin the client used, for links the mock writes (next pages, upload URLs).
    func origin(of request: MockRequest) -> String {
        "http://" + (request.header("Host") ?? "127.0.0.1:\(port)")
    }

    /// The service code an injected error status carries (Graph's names), so that a client sees a plausible error.
    static let faultCodes = [
        400: "BadRequest", 403: "accessDenied", 404: "itemNotFound", 429: "TooManyRequests", 500: "generalException",
    ]

    /// Upload sessions live outside the API, as on OneDrive: `/_upload/<session>`.
    static let uploadSegment = "_upload"
    /// Pre-authenticated download URLs on the storage host: `/_download/{token}`.
    static let downloadSegment = "_download"
    /// Copy monitors: `/_monitor/<new item>`.
    static let monitorSegment = "_monitor"
}

extension JSONValue {
    /// This value with `value` at `path`, objects made on the way where there are none.
    func setting(_ value: JSONValue, at path: ArraySlice<String>) -> JSONValue {
        guard let key = path.first else { return value }
        var object = objectValue ?? [:]
        object[key] = (object[key] ?? .object([:])).setting(value, at: path.dropFirst())
        return .object(object)
    }
}
