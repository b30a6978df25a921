import BinderyJSON
import BinderyRuntime
import Foundation
import GoldenOData
import Testing

/// `BinderyJSONEncoder` must write an app's own types as Foundation's `JSONEncoder` does (the same values when read
/// back), and the models and JSON values inside them exactly as they were read.
@Suite struct BinderyJSONEncoderTests {
    typealias Everything = BinderyJSONDecoderTests.Everything

    /// Reads `data` back with Foundation, so that both encoders' output is compared as values.
    private func readBack<T: Decodable>(_ type: T.Type, _ data: Data, dates: JSONDecoder.DateDecodingStrategy) throws
        -> T
    {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dates
        return try decoder.decode(type, from: data)
    }

    @Test func encodesEveryKindAsFoundationDoes() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let value = try decoder.decode(Everything.self, from: Data(BinderyJSONDecoderTests.everything.utf8))
        var bindery = BinderyJSONEncoder()
        bindery.dateEncodingStrategy = .secondsSince1970
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .secondsSince1970
        let ours = try readBack(Everything.self, bindery.encode(value), dates: .secondsSince1970)
        let theirs = try readBack(Everything.self, foundation.encode(value), dates: .secondsSince1970)
        #expect(ours == value)
        #expect(theirs == value)
        // Members in the order they were encoded; absent optionals left out, as `JSONEncoder` does.
        let text = String(decoding: try bindery.encode(value), as: UTF8.self)
        #expect(text.hasPrefix(#"{"flag":true,"text":"é \"quoted\"","double":-2500,"float":0.25,"int":-7,"#))
        #expect(!text.contains("absent"))
        #expect(text.contains(#""uint64":18446744073709551615"#))
    }

    @Test func barePrimitivesArraysAndDateStrategies() throws {
        let encoder = BinderyJSONEncoder()
        #expect(try encoder.encodeJSONValue(5) == 5)
        #expect(try encoder.encodeJSONValue([1, 2, 3]).jsonText == "[1,2,3]")
        #expect(try encoder.encodeJSONValue([[Int8(1)], []]).jsonText == "[[1],[]]")
        #expect(try encoder.encodeJSONValue(["a": UInt16(7)]).jsonText == #"{"a":7}"#)
        #expect(try encoder.encodeJSONValue([Float(0.1), 2]).jsonText == "[0.1,2]")
        #expect(try encoder.encodeJSONValue(Optional<String>.none).jsonText == "null")
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let cases: [(JSONEncoder.DateEncodingStrategy, String)] = [
            (.secondsSince1970, "1700000000.25"),
            (.millisecondsSince1970, "1700000000250"),
            (.iso8601, #""2023-11-14T22:13:20Z""#),
            (
                .custom({ date, encoder in
                    var single = encoder.singleValueContainer()
                    try single.encode(Int(date.timeIntervalSince1970) / 86_400)
                }), "19675"
            ),
        ]
        for (strategy, expected) in cases {
            var ours = BinderyJSONEncoder()
            ours.dateEncodingStrategy = strategy
            #expect(try ours.encodeJSONValue(date).jsonText == expected)
            let theirs = JSONEncoder()
            theirs.dateEncodingStrategy = strategy
            #expect(try JSONValue.parse(Array(theirs.encode(date))) == JSONValue.parse(expected))
        }
    }

    @Test func aRecordReadAndWrittenAgainIsTheSameJSON() throws {
        let text = """
            {"savedAt":0,"items":[\(GeneratedModelTests.driveItemJSON),{"id":"2","size":12}],\
            "extra":{"z":1.50,"big":12345678901234567890123.5,"a":[true,null,-0.0]}}
            """
        let record = try BinderyJSONDecoder().decode(BinderyJSONDecoderTests.CacheRecord.self, from: Data(text.utf8))
        let written = try BinderyJSONEncoder().encode(record)
        #expect(String(decoding: written, as: UTF8.self) == text)
        // Foundation's encoder writes the numbers through Int64 and Double instead.
        let foundation = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(!foundation.contains("1.50") && !foundation.contains("12345678901234567890123.5"))
    }

    @Test func aKeyEncodedAgainReplacesItsValueInPlace() throws {
        struct Twice: Encodable {
            enum Keys: CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                try container.encode("x", forKey: .b)
                var nested = container.nestedUnkeyedContainer(forKey: .a)
                try nested.encode(true)
            }
        }
        #expect(try BinderyJSONEncoder().encodeJSONValue(Twice()).jsonText == #"{"a":[true],"b":"x"}"#)
        let many = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("k\($0)", $0) })
        let decoded = try JSONDecoder().decode([String: Int].self, from: BinderyJSONEncoder().encode(many))
        #expect(decoded == many)
    }

    @Test func invalidNumbersAreEncodingErrorsWithTheirPath() throws {
        struct Reading: Encodable { var values: [Double] }
        do {
            _ = try BinderyJSONEncoder().encode(Reading(values: [1, .nan]))
            Issue.record("NaN has no JSON form")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["values", "1"])
        }
        #expect(throws: EncodingError.self) { try BinderyJSONEncoder().encode(["x": Float.infinity]) }
    }
}
