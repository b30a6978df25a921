import Foundation
import HTTPTypes

// An API that renamed its operations may still answer, and be asked in, its older forms: api.onedrive.com's
// `action.copy`, `upload.createSession` and `view.delta?token=…` are Graph's `copy`, `createUploadSession` and
// `delta(token='…')`. The spec records each older form as an alias of the operation (CSDL `Bindery.Alias`).

extension RouteTable {
    /// The older last segment of every operation that has one, by method and current name: `"POST copy"` →
    /// `action.copy`, `"GET delta"` → `view.delta`. Give it to `ServiceClient.legacySegments`.
    public var legacySegments: [String: String] {
        var segments: [String: String] = [:]
        for resource in resources.values {
            for operation in resource.operations {
                guard let alias = operation.aliases.first, let name = operation.segments.last else { continue }
                segments["\(operation.method.rawValue) \(name)"] = alias
            }
        }
        return segments
    }
}

extension APIRequest {
    /// Sends the request's last segment in its older form when `segments` has one, a function's arguments
    /// moving to the query (`search(q='it''s')` → `view.search?q=it's`).
    mutating func useLegacySegment(_ segments: [String: String]) {
        guard let last = path.encodedSegments.last else { return }
        let call = FunctionSegment(last.removingPercentEncoding ?? last)
        guard let alias = segments["\(method.rawValue) \(call.name)"] else { return }
        path = path.replacingLast(with: alias)
        query.insert(contentsOf: call.arguments.map { QueryItem($0.name, $0.value) }, at: 0)
    }
}

/// A path segment (percent-decoded) read as an OData function call: `delta(token='a''b',top=5)` is `delta` with
/// `token` = `a'b` and `top` = `5`; a segment without parentheses is a name without arguments.
public struct FunctionSegment: Sendable {
    public var name: String
    /// In order, string literals unquoted; other literals (`5`, `true`) as written.
    public var arguments: [(name: String, value: String)]

    public init(_ segment: String) {
        guard segment.hasSuffix(")"), let open = segment.firstIndex(of: "(") else {
            (name, arguments) = (segment, [])
            return
        }
        name = String(segment[..<open])
        arguments = Self.arguments(segment[segment.index(after: open)..<segment.index(before: segment.endIndex)])
    }

    /// The value of the argument called `name`.
    public subscript(name: String) -> String? { arguments.first { $0.name == name }?.value }

    /// `a='x,y',b=2`: split at commas outside quotes; a quoted value loses its quotes and its doubled quotes.
    private static func arguments(_ text: Substring) -> [(name: String, value: String)] {
        var arguments: [(name: String, value: String)] = []
        var current = ""
        var quoted = false
        func finish() {
            guard let equals = current.firstIndex(of: "=") else { return }
            var value = String(current[current.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
            }
            arguments.append((String(current[..<equals]), value))
            current = ""
        }
        for character in text {
            if character == "'" { quoted.toggle() }
            if character == ",", !quoted { finish() } else { current.append(character) }
        }
        finish()
        return arguments
    }
}
