import BinderyJSON
import BinderyRuntime
import Foundation
import GoldenOData
import Testing

/// `BinderyJSONDecoder` must read an app's own types exactly as Foundation's `JSONDecoder` does, and hand the models
/// and JSON values inside them their part of the document as it was written.
@Suite struct BinderyJSONDecoderTests {
    enum Colour: String, Codable, Equatable { case red, green }
    enum Level: Int, Codable, Equatable {
        case low = 1
        case high = 2
    }

    struct Inner: Codable, Equatable {
        var name: String
        var tags: [String]
    }

    struct Everything: Codable, Equatable {
        var flag: Bool
        var text: String
        var double: Double
        var float: Float
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var absent: String?
        var null: Int?
        var present: Double?
        var colour: Colour
        var level: Level
        var inner: Inner
        var inners: [Inner?]
        var matrix: [[Int]]
        var counts: [String: Int]
        var url: URL
        var data: Data
        var decimal: Decimal
        var date: Date
    }

    static let everything = """
        {"flag":true,"text":"é \\"quoted\\"","double":-2.5e3,"float":0.25,"int":-7,"int8":-128,"int16":300,\
        "int32":70000,"int64":9007199254740993,"uint":7,"uint8":255,"uint16":65535,"uint32":4294967295,\
        "uint64":18446744073709551615,"null":null,"present":1,"colour":"green","level":2,\
        "inner":{"name":"a","tags":["x","y"]},"inners":[{"name":"b","tags":[]},null],"matrix":[[1,2],[],[3]],\
        "counts":{"one":1,"two":2},"url":"https://example.com/a?b=c","data":"aGVsbG8=","decimal":12.345,\
        "date":1700000000.5,"unknown":{"ignored":[1,2]}}
        """

    @Test func decodesEveryKindAsFoundationDoes() throws {
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .secondsSince1970
        var bindery = BinderyJSONDecoder()
        bindery.dateDecodingStrategy = .secondsSince1970
        let data = Data(Self.everything.utf8)
        let expected = try foundation.decode(Everything.self, from: data)
        let decoded = try bindery.decode(Everything.self, from: data)
        #expect(decoded == expected)
        #expect(decoded.int64 == 9_007_199_254_740_993, "integers are read from their text, not through a double")
        #expect(decoded.uint64 == .max)
        #expect(decoded.absent == nil && decoded.null == nil && decoded.present == 1)
    }

    @Test func dateStrategiesMatchFoundations() throws {
        struct Stamp: Codable, Equatable { var at: Date }
        let cases: [(JSONDecoder.DateDecodingStrategy, String)] = [
            (.deferredToDate, #"{"at":721692800.25}"#),
            (.secondsSince1970, #"{"at":1700000000}"#),
            (.millisecondsSince1970, #"{"at":1700000000250}"#),
            (.iso8601, #"{"at":"2026-11-25T12:00:00Z"}"#),
            (
                .custom({ decoder in
                    let days = try decoder.singleValueContainer().decode(Int.self)
                    return Date(timeIntervalSince1970: Double(days) * 86_400)
                }), #"{"at":20000}"#
            ),
        ]
        for (strategy, text) in cases {
            let foundation = JSONDecoder()
            foundation.dateDecodingStrategy = strategy
            var bindery = BinderyJSONDecoder()
            bindery.dateDecodingStrategy = strategy
            let data = Data(text.utf8)
            #expect(try bindery.decode(Stamp.self, from: data) == foundation.decode(Stamp.self, from: data), "\(text)")
        }
    }

    struct CacheRecord: Codable {
        var savedAt: Date
        var items: [DriveItem]
        var extra: JSONValue
    }

    @Test func modelsAndJSONValuesKeepTheirMembersAsWritten() throws {
        let item = GeneratedModelTests.driveItemJSON
        let text = #"{"savedAt":0,"items":[\#(item),{"id":"2","name":"b"}],"extra":{"z":1.50,"a":[true,null]}}"#
        let record = try BinderyJSONDecoder().decode(CacheRecord.self, from: Data(text.utf8))
        let direct = try DriveItem(jsonBytes: Array(item.utf8))
        #expect(record.items.count == 2)
        #expect(record.items[0] == direct)
        // Member order and number text as written: the decoder's parse is the model's storage.
        #expect(JSONValue.object(record.items[0].storage).jsonText == item)
        #expect(record.extra.jsonText == #"{"z":1.50,"a":[true,null]}"#)
        #expect(record.items[1].name == "b")
        // Foundation reads the same models, with members sorted.
        let foundation = try JSONDecoder().decode(CacheRecord.self, from: Data(text.utf8))
        #expect(foundation.items == record.items)
    }

    /// The coding path of a decoding error, as text: `items[1].name`.
    private func path(of error: any Error) -> String {
        let context: DecodingError.Context? =
            switch error as? DecodingError {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                .dataCorrupted(let context):
                context
            default: nil
            }
        return (context?.codingPath ?? []).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    private func caseName(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch: "typeMismatch"
        case .valueNotFound: "valueNotFound"
        case .keyNotFound: "keyNotFound"
        case .dataCorrupted: "dataCorrupted"
        @unknown default: "unknown"
        }
    }

    @Test(arguments: [
        (#"{"savedAt":0,"items":[{"id":"1"},{"id":2}],"extra":null}"#, "dataCorrupted", ".items[1]"),
        (#"{"savedAt":0,"items":[{"id":"1"},"x"],"extra":null}"#, "typeMismatch", ".items[1]"),
        (#"{"savedAt":"now","items":[],"extra":null}"#, "typeMismatch", ".savedAt"),
        (#"{"savedAt":0,"extra":null}"#, "keyNotFound", ""),
        (#"{"savedAt":null,"items":[],"extra":null}"#, "valueNotFound", ".savedAt"),
    ])
    func errorsNameTheirKindAndPath(text: String, kind: String, expectedPath: String) throws {
        do {
            _ = try BinderyJSONDecoder().decode(CacheRecord.self, from: Data(text.utf8))
            Issue.record("\(text) must not decode")
        } catch let error as DecodingError {
            #expect(caseName(of: error) == kind, "\(error)")
            #expect(path(of: error) == expectedPath)
        }
    }

    class Base: Decodable {
        let id: String
        private enum Keys: CodingKey { case id }
        required init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
        }
    }

    final class Derived: Base {
        let extra: Int
        private enum Keys: CodingKey { case extra }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            extra = try container.decode(Int.self, forKey: .extra)
            try super.init(from: container.superDecoder())
        }
    }

    @Test func superDecodersAndNestedArraysBehaveAsFoundations() throws {
        let data = Data(#"{"extra":3,"super":{"id":"x"}}"#.utf8)
        let derived = try BinderyJSONDecoder().decode(Derived.self, from: data)
        let expected = try JSONDecoder().decode(Derived.self, from: data)
        #expect(derived.id == expected.id && derived.extra == expected.extra)
        let nested = Data(#"[[1,2],[3,"x"]]"#.utf8)
        do {
            _ = try BinderyJSONDecoder().decode([[Int]].self, from: nested)
            Issue.record("a string among integers must not decode")
        } catch let error as DecodingError {
            #expect(caseName(of: error) == "typeMismatch")
            #expect(path(of: error) == "[1][1]")
        }
        #expect(try BinderyJSONDecoder().decode([[Int]].self, from: Data("[[1,2],[]]".utf8)) == [[1, 2], []])
    }

    @Test func largeObjectsAreReadByName() throws {
        // Over 16 members a container looks members up by an index instead of searching them.
        let entries = (0..<1_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let data = Data("{\(entries),\"k7\":-1}".utf8)
        let decoded = try BinderyJSONDecoder().decode([String: Int].self, from: data)
        #expect(decoded.count == 1_000)
        #expect(decoded["k999"] == 999)
        // A repeated name reads as the parsed object itself reads it.
        let parsed = try JSONValue.parse(Array(data))
        #expect(decoded["k7"] == parsed["k7"]?.numberValue?.intValue)
        let everything = try BinderyJSONDecoder().decode(
            Everything.self,
            from: Data(Self.everything.replacingOccurrences(of: "\"flag\":true", with: "\"flag\":false").utf8))
        #expect(everything.flag == false && everything.uint8 == 255 && everything.counts == ["one": 1, "two": 2])
    }

    @Test func numbersThatDoNotFitAndMalformedJSONAreTypedErrors() throws {
        struct Small: Codable { var value: UInt8 }
        #expect(throws: DecodingError.self) {
            try BinderyJSONDecoder().decode(Small.self, from: Data(#"{"value":256}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try BinderyJSONDecoder().decode(Small.self, from: Data(#"{"value":-1}"#.utf8))
        }
        #expect(try BinderyJSONDecoder().decode(Small.self, from: Data(#"{"value":2.0}"#.utf8)).value == 2)
        struct Real: Codable { var value: Float }
        #expect(throws: DecodingError.self) {
            try BinderyJSONDecoder().decode(Real.self, from: Data(#"{"value":1e39}"#.utf8))
        }
        #expect(try BinderyJSONDecoder().decode(Real.self, from: Data(#"{"value":-1.5e38}"#.utf8)).value == -1.5e38)
        do {
            _ = try BinderyJSONDecoder().decode(Small.self, from: Data(#"{"value": 1"#.utf8))
            Issue.record("truncated JSON must not decode")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.underlyingError is JSONParseError)
        }
    }
}
