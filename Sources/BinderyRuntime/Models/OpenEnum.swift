import Foundation

/// A generated enumeration that tolerates values it does not know.
///
/// Services add members over time (Graph's `unknownFutureValue` says as much), so a generated enum is a
/// struct over its raw string with one static member per known value: an unknown value decodes, compares
/// and re-encodes like any other.
public protocol OpenEnum: RawRepresentable, JSONConvertible, Codable, Hashable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible where RawValue == String
{
    init(rawValue: String)
    /// The members the spec declares, in its order.
    static var knownValues: [Self] { get }
}

extension OpenEnum {
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// Whether the spec declares this value.
    public var isKnown: Bool { Self.knownValues.contains(self) }

    public var description: String { rawValue }

    public static var fieldKind: FieldKind { .enumeration }

    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self.init(rawValue: text)
    }

    public var json: JSONValue { .string(rawValue) }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// An OData `IsFlags` enumeration: the wire value is a comma-separated list of members (`"read,write"`).
public protocol OpenFlags: OpenEnum {}

extension OpenFlags {
    public init(_ members: [Self]) {
        self.init(rawValue: members.map(\.rawValue).joined(separator: ","))
    }

    /// The members that are set, in wire order.
    public var members: [Self] {
        rawValue.split(separator: ",").map { Self(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    public func contains(_ member: Self) -> Bool { members.contains(member) }
}
