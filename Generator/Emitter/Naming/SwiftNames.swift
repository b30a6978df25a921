import Synchronization

/// Turns spec names into Swift names: casing, keywords, OData's `@`/`$`/`.` spellings, digits, collisions.
///
/// Every rule lives here so that a table test can pin it down (`NamingTests`).
public enum SwiftNames {
    /// `driveItem` → `DriveItem`, `microsoft.graph.security.alert` (in namespace `security`) → `SecurityAlert`.
    public static func typeName(_ name: String) -> String {
        var result: String
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = Array(name.utf8)
            let words = asciiWordRanges(bytes)
            guard !words.isEmpty else { return "Unnamed" }
            var capitalized: [UInt8] = []
            capitalized.reserveCapacity(bytes.count)
            appendCapitalized(words[...], of: bytes, to: &capitalized)
            result = String(decoding: capitalized, as: UTF8.self)
        } else {
            let words = splitWordsUnicode(name)
            guard !words.isEmpty else { return "Unnamed" }
            result = words.map(capitalized).joined()
        }
        if let first = result.unicodeScalars.first, !isIdentifierStart(first) { result = "_" + result }
        if typeNamesToAvoid.contains(result) { result += "Model" }
        return result
    }

    /// `@odata.nextLink` → `nextLink`, `$top` → `top`, `Last-Modified` → `lastModified`, `class` → `` `class` ``.
    public static func memberName(_ name: String) -> String {
        if let plain = alreadyAMemberName(name) { return plain }
        // The same few thousand names recur across a large spec (every inherited property, every parameter).
        if let cached = memberNameCache.withLock({ $0[name] }) { return cached }
        let result = escapeKeyword(identifier(name))
        memberNameCache.withLock { $0[name] = result }
        return result
    }

    private static let memberNameCache = Mutex<[String: String]>([:])

    /// Most spec names are already lower camel case (`createdDateTime`, `eTag`, `x2Value`): `identifier` would
    /// give them back unchanged, and no keyword starts with a lowercase letter and holds a capital or a digit.
    /// Answering those from their bytes spares the shared cache's lock, which both cores wanted at once.
    private static func alreadyAMemberName(_ name: String) -> String? {
        var bytes = name.utf8.makeIterator()
        guard let first = bytes.next(), isLowerByte(first) else { return nil }
        var hasCapitalOrDigit = false
        while let byte = bytes.next() {
            if isUpperByte(byte) || isDigitByte(byte) {
                hasCapitalOrDigit = true
            } else if !isLowerByte(byte) {
                return nil
            }
        }
        return hasCapitalOrDigit ? name : escapeKeyword(name)
    }

    /// The name `preferred` gets in a scope where `used` are taken, recorded there: a `reserved` name (one the
    /// scope's own code uses) gets `Value` first; a name still taken gets the first free number from 2
    /// (`pageSize`, `pageSize2`), and a keyword loses its backticks once a number makes it an ordinary identifier.
    /// Every member, case and parameter of generated code is named through this one rule.
    public static func unique(_ preferred: String, reserved: Set<String> = [], in used: inout Set<String>) -> String {
        var name = preferred
        if reserved.contains(name) { name += "Value" }
        // Inserted at once: a name is nearly always free, and then one lookup decides it.
        guard !used.insert(name).inserted else { return name }
        let base = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
        var counter = 2
        while used.contains("\(base)\(counter)") { counter += 1 }
        name = "\(base)\(counter)"
        used.insert(name)
        return name
    }

    /// A wire name whose comparison operators carry meaning (`DateSent<`, `Price>=`) with the operators spelled as
    /// words, so that each filter gets a name of its own: `dateSentBefore`, `dateSentAfter` for a date or time,
    /// `priceAtLeast`, `priceLessThan` for anything else. Other names are returned as they are.
    public static func spellingComparisons(in name: String, temporal: Bool) -> String {
        guard name.contains(where: { $0 == "<" || $0 == ">" || $0 == "!" }) else { return name }
        let words: [(String, String)] =
            temporal
            ? [("<=", " OnOrBefore "), (">=", " OnOrAfter "), ("!=", " Not "), ("<", " Before "), (">", " After ")]
            : [("<=", " AtMost "), (">=", " AtLeast "), ("!=", " Not "), ("<", " LessThan "), (">", " GreaterThan ")]
        var spelled = name
        for (operatorText, word) in words { spelled = spelled.replacing(operatorText, with: word) }
        return spelled
    }

    /// The identifier without keyword escaping (for composing names such as `\(name)Property`).
    public static func identifier(_ name: String) -> String {
        var stripped = Substring(name)
        // OData instance annotations carry their vocabulary: `@odata.nextLink`, `@microsoft.graph.downloadUrl`.
        if stripped.hasPrefix("@") {
            stripped = stripped.dropFirst()
            if let lastDot = stripped.lastIndex(of: ".") { stripped = stripped[stripped.index(after: lastDot)...] }
        }
        while stripped.hasPrefix("$") { stripped = stripped.dropFirst() }
        if stripped.utf8.allSatisfy({ $0 < 0x80 }) { return asciiIdentifier(Array(stripped.utf8)) }
        let words = splitWords(String(stripped))
        guard let first = words.first else { return "value" }
        var result = lowercasedFirstWord(first) + words.dropFirst().map(capitalized).joined()
        if let scalar = result.unicodeScalars.first, !isIdentifierStart(scalar) { result = "_" + result }
        return result
    }

    /// `identifier` of ASCII text, composed byte by byte: the same words and casing without a `String` per word.
    private static func asciiIdentifier(_ bytes: [UInt8]) -> String {
        let words = asciiWordRanges(bytes)
        guard let first = words.first else { return "value" }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 1)
        // A first word that starts with a digit cannot start an identifier.
        if isDigitByte(bytes[first.lowerBound]) { result.append(UInt8(ascii: "_")) }
        // `URL` → `url`, `Drive` → `drive`, `iOS` stays `iOS`.
        let lowersAll = bytes[first].allSatisfy { isUpperByte($0) || isDigitByte($0) }
        for index in first {
            let byte = bytes[index]
            result.append(index == first.lowerBound || lowersAll ? lowercased(byte) : byte)
        }
        appendCapitalized(words.dropFirst(), of: bytes, to: &result)
        return String(decoding: result, as: UTF8.self)
    }

    /// Each word with its first letter upper-cased, run together: `drive`, `item` → `DriveItem`.
    private static func appendCapitalized(_ words: ArraySlice<Range<Int>>, of bytes: [UInt8], to result: inout [UInt8])
    {
        for word in words {
            result.append(uppercased(bytes[word.lowerBound]))
            result.append(contentsOf: bytes[(word.lowerBound + 1)..<word.upperBound])
        }
    }

    private static func isUpperByte(_ byte: UInt8) -> Bool { byte >= 65 && byte <= 90 }
    private static func isLowerByte(_ byte: UInt8) -> Bool { byte >= 97 && byte <= 122 }
    private static func isDigitByte(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    private static func lowercased(_ byte: UInt8) -> UInt8 { isUpperByte(byte) ? byte + 32 : byte }
    private static func uppercased(_ byte: UInt8) -> UInt8 { isLowerByte(byte) ? byte - 32 : byte }

    /// The words of ASCII text as byte ranges (see `splitWords`).
    private static func asciiWordRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var words: [Range<Int>] = []
        var start = -1
        for index in bytes.indices {
            let byte = bytes[index]
            guard isUpperByte(byte) || isLowerByte(byte) || isDigitByte(byte) else {
                if start >= 0 {
                    words.append(start..<index)
                    start = -1
                }
                continue
            }
            if start >= 0 {
                let previous = bytes[index - 1]
                let nextIsLower = index + 1 < bytes.count && isLowerByte(bytes[index + 1])
                // aB → a|B;  ABc → A|Bc (end of an acronym)
                if isUpperByte(byte) && (!isUpperByte(previous) || nextIsLower) {
                    words.append(start..<index)
                    start = index
                }
            } else {
                start = index
            }
        }
        if start >= 0 { words.append(start..<bytes.count) }
        return words
    }

    /// Backticks where Swift allows them; a few words cannot be escaped as members and get a suffix.
    public static func escapeKeyword(_ identifier: String) -> String {
        if unescapableMembers.contains(identifier) { return identifier + "Value" }
        return keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// Splits `driveItem`, `drive_item`, `drive-item`, `DriveItem`, `HTMLContent`, `ODataType`, `x2Value`
    /// into words, keeping acronyms together (`HTML`, `Content`).
    static func splitWords(_ text: String) -> [String] {
        // Spec names are ASCII in practice; classify bytes directly instead of asking Unicode properties.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return splitWordsUnicode(text) }
        let bytes = Array(text.utf8)
        return asciiWordRanges(bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    private static func splitWordsUnicode(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            // Anything but letters and digits (`_`, `-`, `.`, spaces) separates words.
            guard scalar.properties.isAlphabetic || isDigit(scalar) else {
                if !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                continue
            }
            if !current.isEmpty, let previous = current.unicodeScalars.last {
                let isUpper = isUppercase(scalar)
                let nextIsLower = index + 1 < scalars.count && isLowercase(scalars[index + 1])
                if isUpper && (!isUppercase(previous) || nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.unicodeScalars.append(scalar)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// `URL` → `url`, `Drive` → `drive`, `iOS` stays `iOS`.
    private static func lowercasedFirstWord(_ word: String) -> String {
        if word.unicodeScalars.allSatisfy({ isUppercase($0) || isDigit($0) }) { return word.lowercased() }
        guard let first = word.first else { return word }
        return first.lowercased() + word.dropFirst()
    }

    private static func isUppercase(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isUppercase }
    private static func isLowercase(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isLowercase }
    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    /// Swift keywords that need backticks when used as names.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "as", "false", "is", "nil", "super", "throws", "true", "try", "Any", "Protocol",
        "await",
    ]

    /// Names that backticks cannot rescue as members (`x.self`, `x.Type`, `init`).
    static let unescapableMembers: Set<String> = ["self", "Self", "Type", "init", "Protocol"]

    /// Type names that would shadow the standard library, Foundation or the runtime in generated code.
    static let typeNamesToAvoid: Set<String> = [
        "Any", "AnyObject", "Array", "Bool", "Character", "Data", "Date", "Decimal", "Dictionary", "Double", "Error",
        "Float", "Int", "Int16", "Int32", "Int64", "Int8", "Never", "Optional", "Protocol", "Result", "Self", "Set",
        "String", "Type", "UInt8", "URL", "UUID", "Void", "Task", "Sendable", "Codable", "Hashable", "Equatable",
        // The runtime's types that generated code names (a test keeps this list in step with the runtime).
        "JSONValue", "JSONObject", "JSONModel", "ModelSchema", "FieldKind", "ResourcePath", "ServiceClient",
        "APIRequest", "APIResponse", "Page", "CollectionRequest", "EntityRequest", "OperationRequest",
        "CollectionRequestBuilder", "RequestBuilder", "ModelRequestBuilder", "CalendarDate", "TimeOfDay",
        "OpenEnum", "OpenFlags", "BinderyError", "RouteTable", "ResourceRoute", "Foundation", "BinderyRuntime",
        "JSONChoice", "ChoiceSchema", "AuthMiddleware", "AuthProvider", "DefaultTransport", "EnumValues",
        "FlagValues", "HTTPMiddleware", "HTTPTransport", "MultipartFile", "MultipartForm", "ODataLiteral",
        "OperationMonitor", "PercentEncoding", "RequestBody", "ResponseDecoder", "ServiceConventions",
        "ServiceDescriptor", "StorageRoute", "StreamRequestBuilder",
        // `CollectionRequestBuilder`'s parameter, which its generated extensions name (`where ItemBuilder == …`).
        "ItemBuilder",
        // A builder's entity type (`ModelRequestBuilder.Resource`), which its methods would otherwise mean.
        "Resource",
        // Inside a generated `XFields`, `Table` is the table's own type (`FieldSet.Table`).
        "Model", "Field", "FieldSet", "Table",
    ]
}
