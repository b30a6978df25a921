import BinderySpec
import Foundation

@testable import BinderyReaders

/// The package root, found from this file's place in `Tests/GeneratorTests`.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let samplePath = packageRoot.appendingPathComponent("Tests/Golden/OpenAPI/spec.json").path

func openAPISampleText() throws -> String {
    try String(contentsOfFile: samplePath, encoding: .utf8)
}

/// An OpenAPI 3.1 document whose first three lines are fixed, so `members` starts on line 4.
func openAPIDocument(_ members: String, version: String = "3.1.0") -> String {
    """
    {
    "openapi": "\(version)",
    "info": {"title": "Inline Test", "version": "1"},
    \(members)
    }
    """
}

func readOpenAPI(_ text: String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
    OpenAPIReader().read(bytes: Array(text.utf8), path: "inline.json")
}

func openAPIErrors(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .error }.map(\.description)
}

func openAPIWarnings(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .warning }.map(\.description)
}

/// Where `needle` first occurs (after `anchor`), as `line:column` (1-based, columns in bytes): computed here
/// from the text, independently of the parser, to check the positions that diagnostics report.
func openAPIPosition(of needle: String, after anchor: String? = nil, in text: String) -> String {
    let bytes = Array(text.utf8)
    func find(_ pattern: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
    let start = anchor.flatMap { find(Array($0.utf8), from: 0) } ?? 0
    guard let offset = find(Array(needle.utf8), from: start) else { return "not found" }
    return lineAndColumn(of: offset, in: bytes)
}

/// Where the value of the first `"key":` (after `anchor`) starts, as `line:column`.
func openAPIValuePosition(ofKey key: String, after anchor: String? = nil, in text: String) -> String {
    let bytes = Array(text.utf8)
    let pattern = Array("\"\(key)\":".utf8)
    var index = 0
    if let anchor {
        let anchorBytes = Array(anchor.utf8)
        while index + anchorBytes.count <= bytes.count,
            !bytes[index..<index + anchorBytes.count].elementsEqual(anchorBytes)
        {
            index += 1
        }
    }
    while index + pattern.count <= bytes.count, !bytes[index..<index + pattern.count].elementsEqual(pattern) {
        index += 1
    }
    guard index + pattern.count <= bytes.count else { return "not found" }
    index += pattern.count
    while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n") { index += 1 }
    return lineAndColumn(of: index, in: bytes)
}

private func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> String {
    var line = 1
    var lineStart = 0
    for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
        line += 1
        lineStart = index + 1
    }
    return "\(line):\(offset - lineStart + 1)"
}

func openAPINamed(_ name: String, in namespace: String = "sample.mail") -> TypeRef {
    .named(QualifiedName(namespace: namespace, name: name))
}
