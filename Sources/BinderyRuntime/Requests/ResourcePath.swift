import Foundation
import HTTPTypes

/// A path under a service's base URL, built one segment at a time, each segment percent-encoded.
///
/// Encoding happens here and only here, so an ID such as `../../x`, `a/b` or `a'b` can never change which
/// resource a request addresses: `/`, `?`, `#`, `%` and dot-only segments are always escaped.
public struct ResourcePath: Hashable, Sendable, CustomStringConvertible {
    /// Segments, already percent-encoded.
    public private(set) var encodedSegments: [String]
    /// Methods the service refuses at this URL, as the spec's capability restrictions say (`POST /drives`):
    /// the generic writes check it and fail with `BinderyError.Kind.refused` without sending anything.
    public private(set) var refusedMethods: Set<HTTPRequest.Method> = []
    /// What the items of this collection refuse: it becomes `refusedMethods` of the next segment (the key).
    private var refusedByItems: Set<HTTPRequest.Method> = []

    public init() { encodedSegments = [] }

    public init(_ segments: String...) {
        encodedSegments = segments.map(PercentEncoding.segment)
    }

    /// Appends one segment (a navigation property, an entity set, a key), encoding it.
    /// A typed value as it is written inside a path segment (`png` for an enum, `3` for a number); the segment
    /// it goes into is encoded as a whole.
    public static func text(of value: some JSONConvertible) -> String { APIRequest.text(of: value.json) }

    public func appending(_ segment: String) -> ResourcePath {
        var copy = self
        copy.encodedSegments.append(PercentEncoding.segment(segment))
        copy.refusedMethods = refusedByItems
        copy.refusedByItems = []
        return copy
    }

    /// Appends a step the service restricts: `refusing` applies at its URL (a collection's POST, a single
    /// entity's PATCH or DELETE), `itemsRefusing` at the URL of each item below a collection.
    public func appending(
        _ segment: String, refusing: Set<HTTPRequest.Method> = [], itemsRefusing: Set<HTTPRequest.Method> = []
    ) -> ResourcePath {
        var copy = appending(segment)
        copy.refusedMethods = refusing
        copy.refusedByItems = itemsRefusing
        return copy
    }

    /// Appends an OData function call segment: `name(p1='x',p2=3)`, values as OData literals.
    public func appending(function name: String, parameters: [(String, ODataLiteral)]) -> ResourcePath {
        let arguments = parameters.map { "\($0.0)=\($0.1.text)" }.joined(separator: ",")
        var copy = self
        copy.encodedSegments.append(PercentEncoding.segment(name) + "(" + PercentEncoding.segment(arguments) + ")")
        copy.refusedMethods = []
        copy.refusedByItems = []
        return copy
    }

    /// Addresses an item by its path below the last segment, the OneDrive way: `root` + `Docs/a b.txt` gives
    /// `root:/Docs/a%20b.txt:`. Each path component is encoded on its own, so only the `/` between components
    /// separates; empty, `.` and `..` components are dropped rather than allowed to climb out of the folder.
    public func appending(pathBelow relativePath: String) -> ResourcePath {
        let components = relativePath.split(separator: "/").map(String.init).filter { $0 != "." && $0 != ".." }
        var copy = self
        copy.refusedMethods = []
        copy.refusedByItems = []
        let last = copy.encodedSegments.popLast() ?? ""
        guard !components.isEmpty else {
            copy.encodedSegments.append(last)
            return copy
        }
        let encoded = components.map(PercentEncoding.pathComponent).joined(separator: "/")
        // `root:/a:` + `b` is `root:/a/b:`: an address is extended, not nested.
        if last.hasSuffix(":"), last.contains(":/") {
            copy.encodedSegments.append(String(last.dropLast()) + "/" + encoded + ":")
        } else {
            copy.encodedSegments.append(last + ":/" + encoded + ":")
        }
        return copy
    }

    /// `/me/drive/items/a%2Fb`
    public var description: String { "/" + encodedSegments.joined(separator: "/") }

    /// The same path with its last segment replaced by `segment`, encoded.
    func replacingLast(with segment: String) -> ResourcePath {
        var copy = self
        if !copy.encodedSegments.isEmpty { copy.encodedSegments.removeLast() }
        copy.encodedSegments.append(PercentEncoding.segment(segment))
        return copy
    }

    /// Throws `refused` when the spec says the service refuses `method` here.
    func checkAllowed(_ method: HTTPRequest.Method) throws(BinderyError) {
        guard refusedMethods.contains(method) else { return }
        throw BinderyError(
            kind: .refused,
            message: "the service refuses \(method.rawValue) at \(description) (the spec's capability restrictions)")
    }
}

/// A value written into a URL the OData way: strings single-quoted with quotes doubled.
public struct ODataLiteral: Sendable {
    public let text: String

    public init(_ string: String) { text = "'" + string.replacingOccurrences(of: "'", with: "''") + "'" }
    public init(_ bool: Bool) { text = bool ? "true" : "false" }
    public init(_ integer: some BinaryInteger) { text = String(integer) }
    public init(_ double: Double) { text = JSONNumber(double).text }
    private init(text: String) { self.text = text }
    public init<Values>(_ value: OpenEnum<Values>) { self.init(value.rawValue) }
    /// Dates and other JSON-convertible values: their JSON text, unquoted for numbers and booleans.
    public init(json value: some JSONConvertible) {
        switch value.json {
        case .string(let string): self.init(string)
        case .number(let number): self.init(text: number.text)
        case .bool(let bool): self.init(bool)
        case .null: self.init(text: "null")
        case let other: self.init(text: other.jsonText)
        }
    }
}

/// Percent-encoding for path segments, query values and forms (RFC 3986), shared with the mock server.
public enum PercentEncoding {
    private static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))
    /// Characters a path segment may carry unescaped: enough for readable OData syntax (`f(a='x',b=1)`), but
    /// not `&` or `+`, which some servers read specially even in paths.
    private static let segmentSafe: Set<UInt8> = unreserved.union(Array("!$'()*,;=:@".utf8))
    /// Characters a query value may carry unescaped: no `&`, `=`, `+`, `#` or `%`.
    private static let querySafe: Set<UInt8> = unreserved.union(Array("!$'()*,;:@/?".utf8))

    public static func segment(_ text: String) -> String {
        // "." and ".." would be removed or resolved by URL normalization.
        if text == "." || text == ".." { return text.replacingOccurrences(of: ".", with: "%2E") }
        return encode(text, keeping: segmentSafe)
    }

    public static func query(_ text: String) -> String { encode(text, keeping: querySafe) }

    /// A component of a `root:/a/b:` path address: `:` is escaped too, since it ends the address.
    static func pathComponent(_ text: String) -> String {
        text == "." || text == ".." ? segment(text) : encode(text, keeping: pathSafe)
    }
    private static let pathSafe: Set<UInt8> = segmentSafe.subtracting([UInt8(ascii: ":")])

    /// A form or OAuth parameter: everything but the unreserved characters is escaped.
    public static func form(_ text: String) -> String { encode(text, keeping: unreserved) }

    /// `a=1&b=two+words` read back as pairs, in order: `+` is a space, as forms and browsers write it.
    public static func formValues(_ query: some StringProtocol) -> [(String, String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part in
                let text = part.replacingOccurrences(of: "+", with: " ")
                return text.removingPercentEncoding ?? text
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    private static func encode(_ text: String, keeping safe: Set<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if safe.contains(byte) {
                output.append(byte)
            } else {
                output.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
