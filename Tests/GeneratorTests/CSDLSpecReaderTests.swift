import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("CSDL reader: SpecReader dispatch")
struct CSDLSpecReaderTests {
    @Test func readsCSDLByExtension() throws {
        let result = SpecReader.read(path: csdlSamplePath)
        #expect(result.spec?.source == csdlSamplePath)
        #expect(result.spec?.primaryNamespace == "sample.drive")
    }

    @Test func reportsAnUnreadableFile() {
        let result = SpecReader.read(path: "/nonexistent/bindery/spec.csdl.xml", displayPath: "missing.csdl.xml")
        #expect(result.spec == nil)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.severity == .error)
        #expect(result.diagnostics.first?.description.hasPrefix("error: cannot read 'missing.csdl.xml'") == true)
    }

    @Test func reportsAFolderNamedLikeASpec() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bindery-\(UUID().uuidString).csdl.xml")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = SpecReader.read(path: folder.path, displayPath: "folder.csdl.xml")
        #expect(result.spec == nil)
        #expect(result.diagnostics.map(\.description) == ["error: cannot read 'folder.csdl.xml': Is a directory"])
    }

    @Test func rejectsAnUnknownExtension() {
        let result = SpecReader.read(path: "/nonexistent/spec.toml", displayPath: "spec.toml")
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "error: cannot tell the spec format from '.toml' in 'spec.toml'; expected .xml, .csdl or .edmx (CSDL) or .json, .yaml or .yml (OpenAPI)"
            ])
    }
}
