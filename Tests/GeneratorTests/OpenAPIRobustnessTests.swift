import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("OpenAPI reader: mutated documents")
struct OpenAPIRobustnessTests {
    /// A string literal of the sample: its byte range, and whether it is a member name.
    private struct Literal {
        var range: Range<Int>
        var isKey: Bool
    }

    private static func literals(in bytes: [UInt8]) -> [Literal] {
        var result: [Literal] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            var next = end + 1
            while next < bytes.count, bytes[next] == UInt8(ascii: " ") { next += 1 }
            result.append(
                Literal(
                    range: index..<min(end + 1, bytes.count),
                    isKey: next < bytes.count && bytes[next] == UInt8(ascii: ":")))
            index = end + 1
        }
        return result
    }

    private static let valueReplacements = [
        "null", "{}", "[]", "0", "true", "\"object\"", "\"array\"", "\"#/components/schemas/Thread\"",
        "\"#/components/schemas/Nope\"", "{\"$ref\": \"#/components/schemas/Draft\"}",
        "{\"allOf\": [{\"$ref\": \"#/components/schemas/Draft\"}, {\"$ref\": \"#/components/schemas/Draft\"}]}",
        "{\"oneOf\": [{\"$ref\": \"#/components/schemas/Time\"}, {\"type\": \"null\"}]}", "[\"a\", 1]",
    ]
    private static let keyReplacements = [
        "allOf", "oneOf", "anyOf", "items", "properties", "$ref", "type", "enum", "required", "parameters", "responses",
        "content", "schema", "x-bindery-key", "x-bindery-loose", "x-bindery-resource", "x-bindery-delta",
        "x-bindery-paging",
        "additionalProperties", "/n/{other}", "{x}",
    ]

    /// Replaces a few literals at a time, hundreds of times: the reader must never crash, must return a spec
    /// exactly when it reported no error, and must place every diagnostic inside the file.
    @Test func neverCrashesOnMutatedSamples() throws {
        let bytes = Array(try openAPISampleText().utf8)
        let literals = Self.literals(in: bytes)
        let lineCount = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<200 {
            var picks: [(Literal, String)] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let literal = literals[Int.random(in: 0..<literals.count, using: &generator)]
                let replacement =
                    literal.isKey
                    ? "\"\(Self.keyReplacements[Int.random(in: 0..<Self.keyReplacements.count, using: &generator)])\""
                    : Self.valueReplacements[Int.random(in: 0..<Self.valueReplacements.count, using: &generator)]
                if !picks.contains(where: { $0.0.range.overlaps(literal.range) }) {
                    picks.append((literal, replacement))
                }
            }
            var mutated = bytes
            for (literal, replacement) in picks.sorted(by: { $0.0.range.lowerBound > $1.0.range.lowerBound }) {
                mutated.replaceSubrange(literal.range, with: Array(replacement.utf8))
            }
            let result = OpenAPIReader().read(bytes: mutated, path: "mutated.json")
            let hasErrors = result.diagnostics.contains { $0.severity == .error }
            #expect((result.spec == nil) == hasErrors, "\(String(decoding: mutated, as: UTF8.self))")
            for diagnostic in result.diagnostics {
                let line = diagnostic.location?.line ?? 0
                #expect(line >= 1 && line <= lineCount, "\(diagnostic)")
            }
        }
    }
}

/// A small seeded generator, so the mutations are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
