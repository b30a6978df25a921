import Foundation

/// A value that is one of several types: a generated enum for an OpenAPI `oneOf` or `anyOf`.
///
/// ```swift
/// switch entry {
/// case .file(let file): print(file.name ?? "")
/// case .folder(let folder): print(folder.itemCount ?? 0)
/// case .other(let json): print("a kind this client does not know:", json)
/// }
/// ```
///
/// Reading picks the member the discriminator names when the choice has one; otherwise the members are tried in
/// order and the first that accepts the value wins, except that among object members the one declaring the most of
/// the payload's members wins (so `{"id", "name", "size"}` reads as a file, not as any object with an `id`).
/// A discriminator value no member has reads as `.other`, keeping the JSON, so a newer server's kinds survive a
/// round trip. Members are models or JSON values, so re-encoding gives back what was read.
public protocol JSONChoice: JSONConvertible, Codable, Hashable, AnyJSONChoice {
    /// The members, in the spec's order, and the discriminator.
    static var choiceSchema: ChoiceSchema<Self> { get }
    /// A value whose discriminator names none of the members, as sent.
    static func other(_ json: JSONValue) -> Self
}

/// A choice type with its member type erased, for schema tables (`FieldKind.choice`).
public protocol AnyJSONChoice: Sendable {
    /// Throws where `value` is no member of the choice (the error points into the member it was read as).
    static func validateChoice(_ value: JSONValue, path: [JSONPathComponent]) throws(ModelDecodingError)
    /// The spec's name for the choice and its members, for messages.
    static var choiceDescription: String { get }
    /// The spec's name for the choice alone.
    static var choiceName: String { get }
}

/// What a generated choice declares: its discriminator and how each member is read.
public struct ChoiceSchema<Choice: Sendable>: Sendable {
    public struct Member: Sendable {
        /// Discriminator values naming this member.
        let tags: [String]
        let kind: FieldKind
        let read: @Sendable (JSONValue) -> Choice?

        /// One member: its type, the discriminator values naming it, and the enum case that holds it.
        @_spi(Generated)
        public static func member<Value: JSONConvertible>(
            _ type: Value.Type, tags: [String] = [], _ wrap: @escaping @Sendable (Value) -> Choice
        ) -> Self {
            // Nothing here may read a choice's `choiceSchema`: a choice that contains itself (`[ErrorDetails]`)
            // would wait on its own static initializer.
            Self(tags: tags, kind: Value.fieldKind, read: { json in Value(json: json).map(wrap) })
        }
    }

    public let typeName: String
    /// The object member that names the payload's member type, if the choice has one.
    public let discriminator: String?
    let members: [Member]

    @_spi(Generated)
    public init(_ typeName: String, discriminator: String? = nil, members: [Member]) {
        self.typeName = typeName
        self.discriminator = discriminator
        self.members = members
    }

    /// The member a value reads as (`checked` when it was chosen because the value passed its check, not by
    /// its tag), `.unknownTag` when the discriminator names no member, `.none` when no member accepts the value.
    enum Selection {
        case member(Member, checked: Bool)
        case unknownTag
        case none
    }

    func select(_ value: JSONValue) -> Selection {
        if let discriminator, case .object(let object) = value, let tag = object[discriminator]?.stringValue {
            guard let member = members.first(where: { $0.tags.contains(tag) }) else { return .unknownTag }
            return .member(member, checked: false)
        }
        // Non-objects take the first member that accepts them.
        guard case .object = value else {
            return members.first { Self.accepts(value, $0.kind) }.map { .member($0, checked: true) } ?? .none
        }
        // Objects: the member declaring most of the payload's members among those that accept it. Scores are
        // counted first and only then is the value checked, best first: checking every member would check each
        // level of a recursive choice once per member, and that multiplies with depth.
        let ranked = members.enumerated()
            .map {
                (position: $0.offset, member: $0.element, score: Self.declaredCount(of: value, in: $0.element.kind))
            }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.position < $1.position }
        return ranked.first { Self.accepts(value, $0.member.kind) }.map { .member($0.member, checked: true) } ?? .none
    }

    private static func accepts(_ value: JSONValue, _ kind: FieldKind) -> Bool {
        do {
            try ModelSchema.check(value, kind, loose: false)
            return true
        } catch {
            return false
        }
    }

    /// How many of an object's members a model member declares.
    private static func declaredCount(of value: JSONValue, in kind: FieldKind) -> Int {
        guard case .object(let object) = value, case .model(let type) = kind else { return 0 }
        let declared = type.schema.fieldIndex
        return object.reduce(0) { count, member in declared[member.key] != nil ? count + 1 : count }
    }
}

extension JSONChoice {
    public static var fieldKind: FieldKind { .choice(Self.self) }

    public static var choiceName: String { choiceSchema.typeName }

    public static var choiceDescription: String {
        let members = choiceSchema.members.map { PayloadValidator.name(of: $0.kind, expandingChoices: false) }
        return "\(choiceSchema.typeName) (one of \(members.joined(separator: ", ")))"
    }

    public init?(json: JSONValue) {
        switch Self.choiceSchema.select(json) {
        case .member(let member, _):
            guard let value = member.read(json) else { return nil }
            self = value
        case .unknownTag: self = .other(json)
        case .none: return nil
        }
    }

    public static func validateChoice(_ value: JSONValue, path: [JSONPathComponent]) throws(ModelDecodingError) {
        switch choiceSchema.select(value) {
        // A member chosen by its check is not checked again: a choice that recurses through its members would
        // check each level twice as often as the one above it (2^depth).
        case .member(_, checked: true): return
        case .member(let member, checked: false): try ModelSchema.check(value, member.kind, loose: false, path: path)
        case .unknownTag: return
        case .none:
            throw ModelDecodingError(
                path: path, message: "expected \(choiceDescription), found \(value.kindName) that is none of them")
        }
    }

    // MARK: Codable, through the JSON value

    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do {
            try Self.validateChoice(json, path: [])
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
        guard let value = Self(json: json) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected \(Self.choiceDescription)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// A JSON object read as a map from member names to values of one type (OpenAPI `additionalProperties`).
extension Dictionary: JSONConvertible where Key == String, Value: JSONConvertible {
    public static var fieldKind: FieldKind { .dictionary(Value.fieldKind) }

    /// Reads an object whose every member is a `Value`; one bad member makes the whole read fail.
    public init?(json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        for member in object {
            guard let value = Value(json: member.value) else { return nil }
            result[member.key] = value
        }
        self = result
    }

    /// Members in name order, so that encoding is deterministic.
    public var json: JSONValue {
        .object(JSONObject(sorted { $0.key < $1.key }.map { JSONObject.Member(key: $0.key, value: $0.value.json) }))
    }
}
