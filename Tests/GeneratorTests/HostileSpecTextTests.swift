import BinderyEmitter
import Foundation
import TestSupport
import Testing

/// Spec text is anyone's text: every string that reaches generated code goes through one path for doc comments and
/// one for string literals, and hostile text (line breaks of every kind, `*/`, `"""`, backslashes, `#`, control
/// characters) stays inside them.
@Suite struct HostileSpecTextTests {
    static let hostile =
        "first line\nsecond\r\nthird\rfourth\u{2028}fifth\u{2029}sixth\u{85}seventh */ \"\"\" \\ #\"x\"# \u{0}\u{7}end"

    @Test func everyLineOfADocCommentStaysACommentLine() {
        let rendered = RendererTests.render(
            BinderyEmitter.Expression.string(Self.hostile),
            doc: [Self.hostile, "- Parameters:", "  - a: " + Self.hostile])
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let body = lines.dropFirst().dropLast(2)  // `public enum Box {` … `}` and the final newline
        let code = body.filter { !$0.hasPrefix("    ///") }
        #expect(code.count == 1, "\(code)")
        #expect(code.first?.hasPrefix("    public static let name = \"") == true)
        #expect(body.contains("    /// second"))
        #expect(body.contains("    /// seventh */ \"\"\" \\ #\"x\"#   end"))
        #expect(body.contains("    ///   - a: first line"))
        // No raw line separator or control character is left anywhere in the file.
        #expect(
            !rendered.unicodeScalars.contains {
                ($0.value < 0x20 && $0 != "\n") || [0x7F, 0x85, 0x2028, 0x2029].contains($0.value)
            })
    }

    @Test func aStringLiteralEscapesWhatWouldEndOrBreakIt() {
        let rendered = RendererTests.render(BinderyEmitter.Expression.string(Self.hostile))
        #expect(
            rendered.contains(
                ##"= "first line\nsecond\r\nthird\rfourth\u{2028}fifth\u{2029}sixth\u{85}seventh */ \"\"\" \\ #\"x\"# \u{0}\u{7}end""##
            ))
    }

    /// The proof that matters: the toolchain parses the file, so no spec text became code.
    @Test func theToolchainParsesIt() async throws {
        let rendered = RendererTests.render(BinderyEmitter.Expression.string(Self.hostile), doc: [Self.hostile])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-hostile-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Box.swift")
        try rendered.write(to: file, atomically: true, encoding: .utf8)
        let swiftc = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["swiftc", "-parse", file.path])
        #expect(swiftc.ending == .exited(0), "\(swiftc.errors)")
    }
}
