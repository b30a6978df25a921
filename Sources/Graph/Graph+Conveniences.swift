import BinderyRuntime
import Foundation

// Handwritten beside the generated code: `$batch` (not an OData operation, so not in the spec), scopes, and
// Outlook's dates without an offset.

extension GraphClient {
    /// Scopes for the walkthrough's calls: the profile, mail and a refresh token for silent renewal.
    public static let scopes = ["User.Read", "Mail.ReadWrite", "Mail.Send", "Calendars.Read", "offline_access"]

    /// Sends any number of requests through `$batch`, 20 per call, and answers each step typed: see
    /// `ServiceClient.batch(_:path:maxAttempts:sleep:)` for the ordering of `dependsOn` chains across calls and the
    /// per-step retry of 429, 503 and 504.
    ///
    /// ```swift
    /// let answers = try await graph.batch([
    ///     BatchStep(id: "me", graph.me.request().request),
    ///     BatchStep(id: "inbox", graph.me.mailFolders("inbox").request().request, dependsOn: ["me"]),
    /// ])
    /// let me = try answers[0].decode(User.self)
    /// ```
    public func batch(_ steps: [BatchStep], maxAttempts: Int = 4) async throws(BinderyError) -> [BatchAnswer] {
        try await client.batch(steps, maxAttempts: maxAttempts)
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
