import BinderyRuntime
import Foundation

// Handwritten beside the generated code: `$batch` (not an OData operation, so not in the spec), scopes, and
// Outlook's dates without an offset.

extension GraphClient {
    /// Scopes for the walkthrough's calls: the profile, mail and a refresh token for silent renewal.
    public static let scopes = ["User.Read", "Mail.ReadWrite", "Mail.Send", "Calendars.Read", "offline_access"]

    /// The most requests one `$batch` call may carry.
    public static let batchLimit = 20

    /// Sends requests as `$batch` calls of at most 20 steps each, in order, and returns every step's answer in the
    /// order of `steps` (the service may answer a batch in any order).
    ///
    /// A step that failed (a 4xx or 5xx `status`, a 429 with `Retry-After` among them) is an answer like any
    /// other: look at `status` per step, since the batch call itself succeeds. `dependsOn` works within one call
    /// of 20: keep a step and the steps it depends on among the same twenty.
    public func batch(_ steps: [BatchRequestStep]) async throws(BinderyError) -> [BatchResponseStep] {
        var answers: [BatchResponseStep] = []
        var start = steps.startIndex
        while start < steps.endIndex {
            let end = min(start + Self.batchLimit, steps.endIndex)
            var content = BatchRequestContent()
            content.requests = Array(steps[start..<end])
            var request = APIRequest(method: .post, path: path.appending("$batch"))
            request.setJSONBody(client.body(for: content))
            let response = try await client.send(request)
            answers += try client.decodeModel(BatchResponseContent.self, from: response).responses ?? []
            start = end
        }
        let order = Dictionary(
            steps.enumerated().map { ($0.element.id ?? "", $0.offset) }, uniquingKeysWith: { first, _ in first })
        return answers.sorted { (order[$0.id ?? ""] ?? .max) < (order[$1.id ?? ""] ?? .max) }
    }
}

extension BatchRequestStep {
    /// A step that sends what a generated builder built: `BatchRequestStep(id: "1", client.me.request().request)`.
    /// A request that continues from a link the service gave (`nextRequest`) is addressed below the version
    /// segment of that link, as `$batch` wants it.
    public init(id: String, _ request: APIRequest, dependsOn: [String] = []) {
        self.init()
        self.id = id
        self.method = request.method.rawValue
        if let absolute = request.absoluteURL,
            let components = URLComponents(url: absolute, resolvingAgainstBaseURL: false)
        {
            // `/v1.0/me/messages?$skip=10` → `/me/messages?$skip=10`
            let path = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).dropFirst()
            self.url = "/" + path.joined(separator: "/") + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        } else {
            self.url = request.pathAndQuery
        }
        var headers = JSONObject()
        for field in request.headers { headers[field.name.canonicalName] = .string(field.value) }
        if !headers.isEmpty { self.headers = .object(headers) }
        if case .bytes(let bytes)? = request.body, let json = try? JSONValue.parse(bytes) { self.body = json }
        if !dependsOn.isEmpty { self.dependsOn = dependsOn }
    }
}

extension BatchResponseStep {
    public var succeeded: Bool { (200..<300).contains(Int(self.status ?? 0)) }

    /// The step's body as a model, such as a `Message` or a `User`.
    public func decode<Model: JSONModel>(_ type: Model.Type) throws(ModelDecodingError) -> Model? {
        guard case .object(let object)? = self.body else { return nil }
        return try Model(validating: object)
    }
}

extension DateTimeTimeZone {
    /// The moment this names: Outlook sends `dateTime` without an offset (`2017-04-21T10:00:00.0000000`) and the
    /// zone separately. Nil when the zone is not an IANA or UTC name this system knows (Windows zone names, such
    /// as `Pacific Standard Time`, are sent when the `Prefer: outlook.timezone` header is not).
    public var date: Date? {
        guard let text = self.dateTime else { return nil }
        // A value that carries its own offset needs no zone.
        if text.hasSuffix("Z") || text.dropFirst(19).contains(where: { $0 == "+" || $0 == "-" }) {
            return ISO8601.parseDateTime(text)
        }
        guard let zone = TimeZone(identifier: self.timeZone ?? "UTC") else { return nil }
        let digits = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let head = digits.first else { return nil }
        let parts = head.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        var components = DateComponents(
            timeZone: zone, year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4],
            second: parts[5])
        if digits.count == 2, !digits[1].isEmpty, let fraction = Double("0." + digits[1]) {
            components.nanosecond = Int(fraction * 1_000_000_000)
        }
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: components)
    }
}
