import Foundation
import Testing

/// Every checked-in generated file reads within 120 columns: the renderer breaks what it can. Only a doc line that
/// is one word (a reference page's URL) may be longer.
@Suite struct GeneratedLineWidthTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `Sources/<Service>/Generated`, the conformance calls in `Sources/ServiceMocks/<Service>/Generated` and the golden
    /// modules.
    static func generatedFiles() -> [URL] {
        let fileManager = FileManager.default
        var folders: [URL] = []
        for parent in ["Sources", "Sources/ServiceMocks", "Tests/Golden"] {
            let url = packageRoot.appendingPathComponent(parent)
            for child in (try? fileManager.contentsOfDirectory(atPath: url.path)) ?? [] {
                let generated = url.appendingPathComponent(child).appendingPathComponent("Generated")
                if fileManager.fileExists(atPath: generated.path) { folders.append(generated) }
            }
        }
        return folders.flatMap { folder in
            (fileManager.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".swift") }.map { folder.appendingPathComponent($0) }
        }
    }

    @Test func noGeneratedLineIsWiderThan120Columns() throws {
        let files = Self.generatedFiles()
        #expect(files.count > 100)
        var wide: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.count > 120 && !Self.isOneUnbreakableDocToken(line) {
                wide.append(
                    "\(file.path.dropFirst(Self.packageRoot.path.count + 1)):\(number + 1): \(line.count) columns")
            }
        }
        #expect(wide.isEmpty, "\(wide.joined(separator: "\n"))")
    }

    /// A doc comment line that holds one word, such as a reference page's URL: no width can break it.
    static func isOneUnbreakableDocToken(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " }
        guard trimmed.hasPrefix("///") else { return false }
        var words = trimmed.dropFirst(3).split(separator: " ")
        if words.first == "-", words.count > 1 { words.removeFirst(2) }  // `- SeeAlso: <url>`
        return words.count == 1
    }
}
