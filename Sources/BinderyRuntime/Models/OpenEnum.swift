import Foundation

/// Every generated enumeration: `public typealias Importance = OpenEnum<ImportanceValues>`.
///
/// Services add members over time (Graph's `unknownFutureValue` says as much), so an enumeration is a struct
/// over its raw string: an unknown value decodes, compares and re-encodes like any other. Known members are
/// static properties in an extension of the alias (`Importance.high`), and `Values` lists them.
public struct OpenEnum<Values: EnumValues>: RawRepresentable, JSONConvertible, Codable, Hashable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The members the spec declares, in its order.
    public static var knownValues: [Self] { Values.known.map(Self.init(rawValue:)) }

    /// Whether the spec declares this value.
    public var isKnown: Bool { Values.known.contains(rawValue) }

    public var description: String { rawValue }

    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self.init(rawValue: text)
    }

    public var json: JSONValue { .string(rawValue) }

    public static var fieldKind: FieldKind { .enumeration }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The raw values an enumeration's spec declares.
public protocol EnumValues: Sendable {
    static var known: [String] { get }
}

/// An OData `IsFlags` enumeration: the wire value is a comma-separated list of members (`"read,write"`).
public protocol FlagValues: EnumValues {}

extension OpenEnum where Values: FlagValues {
    public init(_ members: [Self]) {
        self.init(rawValue: members.map(\.rawValue).joined(separator: ","))
    }

    /// The members that are set, in wire order.
    public var members: [Self] {
        rawValue.split(separator: ",").map { Self(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
    }

    public func contains(_ member: Self) -> Bool { members.contains(member) }
}
