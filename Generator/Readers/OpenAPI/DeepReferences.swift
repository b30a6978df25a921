import BinderyJSON

/// `$ref`s into the inside of a document (`#/components/schemas/Tag/allOf/0`,
/// `#/components/parameters/limit/schema`, `#/paths/~1pets/get/...`) are replaced by a copy of what they point at,
/// before anything is read: such a reference means "this is that schema", and a copy is read like any inline schema,
/// named after where it is used. References to a whole component (`#/components/schemas/Tag`) stay references, as
/// they name a type.
///
/// A copy can hold deep references of its own, which are copied in turn up to `maxExpansions` levels and
/// `maxCopies` in all; a reference met again inside its own copy (a recursive schema under `$defs`, say) is left as
/// it is and reported where it is read: such a schema needs a name, as a component.
enum DeepReferences {
    static let maxExpansions = 8

    /// The document with its deep references copied in.
    static func inline(_ document: JSONValue) -> JSONValue {
        var expander = Expander(root: document)
        return expander.expanded(document, following: []) ?? document
    }

    /// How many copies one document may make: copies of copies multiply (ten references to a schema with ten
    /// references, eight levels deep). Past it, references stay as they are and are reported where they are read.
    static let maxCopies = 10_000

    /// Whether a `$ref` text points inside this document at something other than a whole component.
    static func isDeep(_ reference: String) -> Bool {
        guard reference.hasPrefix("#/") else { return false }
        let tokens = reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false)
        return !(tokens.count == 3 && tokens[0] == "components")
    }

    private struct Expander {
        let root: JSONValue
        var copies = 0

        /// The value with its deep references copied in, or nil when it has none (most of a document: nothing is
        /// rebuilt there). `following`: the references being copied on the way here, to stop at one that
        /// contains itself.
        mutating func expanded(_ value: JSONValue, following: [String]) -> JSONValue? {
            switch value {
            case .object(let object):
                if let reference = object["$ref"]?.stringValue, isDeep(reference),
                    following.count < maxExpansions, !following.contains(reference), copies < maxCopies,
                    let target = Self.value(at: reference, in: root)?.objectValue
                {
                    copies += 1
                    // The copy's own members, then any the reference carried beside it (3.1 allows `description`).
                    var merged = target
                    for member in object where member.key != "$ref" { merged[member.key] = member.value }
                    return expanded(.object(merged), following: following + [reference]) ?? .object(merged)
                }
                var members = object.members
                var changed = false
                for index in members.indices {
                    guard let copy = expanded(members[index].value, following: following) else { continue }
                    members[index].value = copy
                    changed = true
                }
                return changed ? .object(JSONObject(members)) : nil
            case .array(var elements):
                var changed = false
                for index in elements.indices {
                    guard let copy = expanded(elements[index], following: following) else { continue }
                    elements[index] = copy
                    changed = true
                }
                return changed ? .array(elements) : nil
            default:
                return nil
            }
        }

        /// The value a local JSON Pointer (`#/a/b~1c/0`) names, or nil.
        static func value(at reference: String, in root: JSONValue) -> JSONValue? {
            var current = root
            for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
                let key = OpenAPIReferences.unescape(String(token).removingPercentEncodingIfAny)
                switch current {
                case .object(let object):
                    guard let next = object[key] else { return nil }
                    current = next
                case .array(let elements):
                    guard let index = Int(key), elements.indices.contains(index) else { return nil }
                    current = elements[index]
                default:
                    return nil
                }
            }
            return current
        }
    }
}

extension String {
    /// A URI fragment's `%7B` and `%7D` (some tools escape the braces of `/pets/{id}` in references).
    fileprivate var removingPercentEncodingIfAny: String {
        guard contains("%") else { return self }
        let bytes = Array(utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                decoded.append(value)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
