import BinderyJSON
import Testing

/// The parser accepts exactly RFC 8259 JSON, keeps numbers as written, and says where a document went wrong.
@Suite struct JSONParserTests {
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue { try JSONValue.parse(text) }

    static func failure(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue.parse(text)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Accepted

    @Test func everyKindOfValue() throws {
        let value = try Self.parse(#"{"s":"x","n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,[]],"o":{}}"#)
        #expect(value["s"] == .string("x"))
        #expect(value["n"]?.numberValue?.text == "-1.5e3")
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["z"] == .null)
        #expect(value["a"] == .array([.number(JSONNumber(1)), .array([])]))
        #expect(value["o"] == .object(JSONObject()))
    }

    @Test(arguments: [
        ("0", JSONValue.number(JSONNumber(0))), ("\"\"", .string("")), ("true", .bool(true)), ("null", .null),
        ("[]", .array([])), ("{}", .object(JSONObject())), (" \t\r\n[ 1 ,\n2 ] \n", .array([1, 2])),
    ])
    func topLevelScalarsAndWhitespace(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test func aByteOrderMarkIsTolerated() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([1]))
    }

    // MARK: Rejected, with the reason

    @Test(arguments: [
        ("[1,]", "expected a value"),
        ("{\"a\":1,}", "expected a member name in quotes"),
        ("[01]", "leading zeros"),
        ("['a']", "expected a value"),
        ("[\"a\u{01}\"]", "control character"),
        ("[\"\\ud800\"]", "unpaired UTF-16 surrogate"),
        ("[\"\\udc00\"]", "unpaired UTF-16 surrogate"),
        ("[\"\\ud800\\u0041\"]", "invalid UTF-16 surrogate pair"),
        ("[\"\\x41\"]", "invalid escape"),
        ("[\"\\u12g4\"]", "invalid hex digit"),
        ("[\"\\u12", "incomplete \\u escape"),
        ("[1", "end of input inside an array"),
        ("{\"a\":1", "end of input inside an object"),
        ("\"abc", "unterminated string"),
        ("[1] x", "after the JSON value"),
        ("[NaN]", "expected a value"),
        ("[Infinity]", "expected a value"),
        ("[-]", "expected a digit"),
        ("[1.]", "expected a digit after '.'"),
        ("[1e]", "expected a digit in an exponent"),
        ("[tru]", "invalid literal"),
        ("{\"a\" 1}", "expected ':'"),
        ("[1 2]", "expected ',' or ']'"),
        ("", "unexpected end of input"),
        ("[+1]", "expected a value"),
    ])
    func malformedDocumentsAreRejected(text: String, reason: String) {
        let failure = Self.failure(text)
        #expect(failure != nil, "accepted \(text.debugDescription)")
        #expect(failure?.message.contains(reason) == true, "\(String(describing: failure))")
    }

    @Test func invalidUTF8InAStringIsRejected() {
        #expect(throws: JSONParseError.self) {
            try JSONValue.parse(Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8))
        }
    }

    // MARK: Numbers: exactly as written

    @Test(arguments: [
        "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890", "0.1", "1e400",
        "-0", "2.50", "1E+2", "6.02214076e-23",
    ])
    func numbersKeepTheirText(text: String) throws {
        let value = try Self.parse("[\(text)]")
        #expect(value.arrayValue?.first?.numberValue?.text == text)
        #expect(value.jsonText == "[\(text)]")
    }

    @Test func numbersCompareByValueButKeepTheirText() {
        #expect(JSONNumber(unchecked: "2.50") == JSONNumber(unchecked: "2.5"))
        #expect(JSONNumber(unchecked: "1e2") == JSONNumber(100))
        #expect(JSONNumber(unchecked: "1") != JSONNumber(unchecked: "2"))
        #expect(JSONNumber(validating: "01") == nil)
        #expect(JSONNumber(validating: "1.5e-3")?.text == "1.5e-3")
        #expect(JSONNumber(unchecked: "1099511627776").int64Value == 1_099_511_627_776)
    }

    // MARK: Strings

    @Test func escapesAreDecoded() throws {
        let value = try Self.parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\u4e2d", "\ud83d\ude00", "caf\u00C9"]"#)
        #expect(value == .array(["\"\\/\u{08}\u{0C}\n\r\t", "é中", "😀", "cafÉ"]))
    }

    @Test func rawUTF8PassesThrough() throws {
        #expect(try Self.parse("[\"żółw 🐢\"]") == .array(["żółw 🐢"]))
    }

    // MARK: Depth

    @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.failure(deep)?.message.contains("nesting deeper than 512 levels") == true)
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(Self.failure(atLimit) == nil)
        let objects = String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(Self.failure(objects)?.message.contains("nesting") == true)
    }

    @Test func theLimitCanBeChosen() throws {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[[[1]]]".utf8), maxDepth: 2) }
        #expect(try JSONValue.parse(Array("[[1]]".utf8), maxDepth: 2) == .array([.array([1])]))
    }

    // MARK: Positions

    @Test func errorsSayLineAndColumn() {
        let failure = Self.failure("{\n  \"a\": 1,\n  \"b\": tru\n}")
        #expect(failure?.position.line == 3)
        #expect(failure?.position.column == 8)
        #expect(failure?.description.hasPrefix("3:8: invalid literal") == true)
    }

    @Test func columnsCountBytesAfterMultibyteText() {
        // "é" is two bytes: the column is a byte column, as the type's documentation says.
        let failure = Self.failure("[\"é\", x]")
        #expect(failure?.position.line == 1)
        #expect(failure?.position.column == 8)
        #expect(failure?.position.offset == 7)
    }

    @Test func locationsPointAtEveryValue() throws {
        let text = "{\n  \"paths\": {\n    \"/me\": [true, {\"a/b~c\": null}]\n  }\n}"
        let (_, locations) = try JSONValue.parseWithLocations(Array(text.utf8))
        #expect(locations.position(of: "")?.description == "1:1")
        #expect(locations.position(of: "/paths")?.description == "2:12")
        #expect(locations.position(of: "/paths/~1me")?.description == "3:12")
        #expect(locations.position(of: "/paths/~1me/1")?.description == "3:19")
        #expect(locations.position(of: "/paths/~1me/1/a~1b~0c")?.description == "3:29")
        #expect(locations.position(of: "/missing") == nil)
        #expect(JSONLocations.escape("a/b~c") == "a~1b~0c")
    }

    // MARK: Objects

    @Test func membersKeepTheirOrder() throws {
        let value = try Self.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.jsonText == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test func aDuplicateNameKeepsItsFirstPlaceAndItsLastValue() throws {
        let value = try Self.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
    }

    @Test func nestedContainersKeepTheirOwnMembers() throws {
        // Objects and arrays are built on shared stacks while open: each must end with exactly its own members.
        let text =
            #"{"a":[{"b":[1,[2,3],{}],"c":{"d":[]}},[],{"e":{"f":{"g":[4]}}}],"h":{"i":"j","a":[5]},"k":[[[]]]}"#
        let value = try Self.parse(text)
        #expect(value.jsonText == text)
        #expect(value["a"]?.arrayValue?.count == 3)
        #expect(value["h"]?.objectValue?.keys == ["i", "a"])
        let duplicates = try Self.parse(#"{"x":{"y":1,"y":{"z":[1,{"y":2,"y":3}]}},"y":4}"#)
        #expect(duplicates.jsonText == #"{"x":{"y":{"z":[1,{"y":3}]}},"y":4}"#)
    }

    @Test func longMemberNamesAreSharedAndStillCompareByText() throws {
        // Names over 15 bytes are kept once per document; their values stay apart.
        let name = "lastModifiedDateTime"
        let value = try Self.parse(#"[{"\#(name)":"1","\#(name)x":"2"},{"\#(name)":"3"}]"#)
        #expect(value.arrayValue?.map { $0[name] } == ["1", "3"])
        #expect(value.arrayValue?.first?["\(name)x"] == "2")
        #expect(value.arrayValue?.first?.objectValue?.keys == [name, name + "x"])
    }

    @Test func asciiAndOtherTextDecodeAlikeAndBadUTF8IsRefused() throws {
        #expect(
            try Self.parse(#"["plain","caf\u00e9","café","日本語","a\"b"]"#).jsonText
                == #"["plain","café","café","日本語","a\"b"]"#)
        // A lone continuation byte after ASCII text, in a value and in a name.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("[\"abc".utf8) + [0x80] + Array("\"]".utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array("{\"k".utf8) + [0xFF] + Array("\":1}".utf8)) }
    }

    @Test func objectEqualityIgnoresOrder() throws {
        #expect(try Self.parse(#"{"a":1,"b":2}"#) == Self.parse(#"{"b":2,"a":1}"#))
        #expect(try Self.parse(#"{"a":1,"b":2}"#).hashValue == Self.parse(#"{"b":2,"a":1}"#).hashValue)
        #expect(try Self.parse(#"{"a":1}"#) != Self.parse(#"{"a":1,"b":2}"#))
    }
}
