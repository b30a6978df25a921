import BinderyJSON

/// Reads a model's JSON through another library's `Decoder`: Foundation's `JSONDecoder` when models sit inside an
/// app's own `Codable` type (a cache record, a database row, a state file).
///
/// Such a decoder cannot say what kind of value a member holds; `JSONValue(from:)` has to try one kind after
/// another, and every wrong guess throws an error that the decoder builds with its coding path and a message. The
/// schema knows each declared field's kind, so the bridge asks for that kind first and a well-formed payload
/// decodes without a single failed attempt. Members the type does not declare still go the guessing way.
enum CodableBridge {
    /// The object `decoder` holds, its members read as `schema` declares them; not validated.
    static func object(from decoder: any Decoder, schema: ModelSchema) throws -> JSONObject {
        try model(decoder.container(keyedBy: JSONMemberKey.self), schema)
    }

    private static func object(
        _ container: KeyedDecodingContainer<JSONMemberKey>, kindOf: (String) -> FieldKind
    ) throws -> JSONObject {
        try JSONObject(container) { try value(container, $0, kindOf($0.stringValue)) }
    }

    /// An object of model type `schema`, or of the derived type its discriminator names.
    private static func model(_ container: KeyedDecodingContainer<JSONMemberKey>, _ schema: ModelSchema) throws
        -> JSONObject
    {
        var schema = schema
        let tagKey = JSONMemberKey(schema.discriminatorMember)
        if container.contains(tagKey), let tag = try? container.decodeIfPresent(String.self, forKey: tagKey),
            let derived = schema.descendant(named: tag)
        {
            schema = derived.schema
        }
        return try object(container) { schema.fieldKind($0) }
    }

    private static func value(
        _ container: KeyedDecodingContainer<JSONMemberKey>, _ key: JSONMemberKey, _ kind: FieldKind
    ) throws -> JSONValue {
        // `decodeIfPresent` reads `null` as nil, so a null costs no failed attempt either.
        // Each kind through its own overload: the generic `decodeIfPresent<T>` makes Foundation's decoder test
        // the type against its special cases (dates, URLs, dictionaries) on every member.
        switch kind {
        case .string, .enumeration, .dateTime, .date, .timeOfDay, .binary:
            if let value = attempt({ try container.decodeIfPresent(String.self, forKey: key).map(JSONValue.string) }) {
                return value
            }
        case .boolean:
            if let value = attempt({ try container.decodeIfPresent(Bool.self, forKey: key).map(JSONValue.bool) }) {
                return value
            }
        case .integer, .byte:
            if let value = attempt({
                try container.decodeIfPresent(Int64.self, forKey: key).map { .number(JSONNumber($0)) }
            }) {
                return value
            }
        case .number:
            // A double-precision field: reading it as one loses nothing the field can hold.
            if let value = attempt({
                try container.decodeIfPresent(Double.self, forKey: key).map { .number(JSONNumber($0)) }
            }) {
                return value
            }
        case .model(let type):
            if try container.decodeNil(forKey: key) { return .null }
            if let nested = try? container.nestedContainer(keyedBy: JSONMemberKey.self, forKey: key) {
                return .object(try model(nested, type.schema))
            }
        case .dictionary(let valueKind):
            if try container.decodeNil(forKey: key) { return .null }
            if let nested = try? container.nestedContainer(keyedBy: JSONMemberKey.self, forKey: key) {
                return .object(try object(nested) { _ in valueKind })
            }
        case .collection(let elementKind):
            if try container.decodeNil(forKey: key) { return .null }
            if var nested = try? container.nestedUnkeyedContainer(forKey: key) {
                return .array(try elements(&nested, elementKind))
            }
        case .decimal, .choice, .any:
            // Decimals keep the generic way (integer first, then double); choices and `any` can be anything.
            break
        }
        // Not the declared kind (validation will say so), or a kind that cannot be known in advance.
        return try container.decode(JSONValue.self, forKey: key)
    }

    /// The member as `read` reads it (`null`, which it reads as nil, as `.null`), or nil when it is something else.
    private static func attempt(_ read: () throws -> JSONValue?) -> JSONValue? {
        do {
            return try read() ?? .null
        } catch {
            return nil
        }
    }

    /// An array's elements. Only elements that are models are read by kind: a decoder moves past an element only
    /// when it was read, but a failed attempt in an unkeyed container is not guaranteed to leave it in place.
    private static func elements(_ container: inout any UnkeyedDecodingContainer, _ kind: FieldKind) throws
        -> [JSONValue]
    {
        var elements: [JSONValue] = []
        if let count = container.count { elements.reserveCapacity(count) }
        guard case .model(let type) = kind else {
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            return elements
        }
        while !container.isAtEnd { elements.append(try element(&container, of: type)) }
        return elements
    }

    private static func element<Decoded: JSONModel>(_ container: inout any UnkeyedDecodingContainer, of: Decoded.Type)
        throws -> JSONValue
    {
        try container.decode(GuidedElement<Decoded>.self).value
    }

    /// One array element of model type `Decoded`, read as the bridge reads a member of that type.
    private struct GuidedElement<Decoded: JSONModel>: Decodable {
        let value: JSONValue

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let container = try? decoder.container(keyedBy: JSONMemberKey.self) {
                value = .object(try CodableBridge.model(container, Decoded.schema))
            } else {
                value = try JSONValue(from: decoder)
            }
        }
    }
}

extension ModelSchema {
    /// The kind of the field a member name declares; `.any` for members the type does not declare.
    func fieldKind(_ name: String) -> FieldKind {
        guard let position = fieldIndex[name] else { return .any }
        return fieldKinds[position]
    }
}
