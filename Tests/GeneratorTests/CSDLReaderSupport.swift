import BinderySpec
import Foundation

@testable import BinderyReaders

/// The package root, found from this file's place in `Tests/GeneratorTests`.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let csdlSamplePath = packageRoot.appendingPathComponent("Tests/Golden/OData/spec.csdl.xml").path
/// All of Graph v1.0 as the repository keeps it: Microsoft's metadata with facts only, plus Bindery's schema of
/// copy monitors (`monitors.asyncJobStatus`, the one complex type beyond Microsoft's 1,780).
let csdlGraphPath = packageRoot.appendingPathComponent("Specs/Graph/Graph.csdl.xml").path

/// Wraps schema members (written without indentation, one element per line) in a document whose schema
/// `test` (alias `t`) starts on line 3, so the first member is on line 4.
func readInlineCSDL(_ members: String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
    let document = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:DataServices>
        <Schema Namespace="test" Alias="t" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        \(members)
        </Schema>
        </edmx:DataServices>
        </edmx:Edmx>
        """
    return CSDLReader().read(bytes: Array(document.utf8), path: "inline.xml")
}

func csdlErrors(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .error }.map(\.description)
}
