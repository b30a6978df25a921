import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("CSDL reader: Microsoft Graph v1.0")
struct CSDLGraphTests {
    @Test("reads all of Graph v1.0")
    func readsGraph() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: csdlGraphPath)))
        let clock = ContinuousClock()
        var result: (spec: ServiceSpec?, diagnostics: [Diagnostic])?
        let elapsed = clock.measure { result = CSDLReader().read(bytes: bytes, path: "graph-v1.0.csdl.xml") }
        print("CSDL reader: Graph v1.0 (\(bytes.count) bytes) read in \(elapsed)")
        let diagnostics = result?.diagnostics ?? []
        #expect(csdlErrors(diagnostics).isEmpty, "\(csdlErrors(diagnostics).prefix(10))")
        let spec = try #require(result?.spec)
        #expect(spec.primaryNamespace == "microsoft.graph")
        #expect(spec.structures.filter { $0.kind == .entity }.count == 1_182)
        #expect(spec.structures.filter { $0.kind == .complex }.count == 1_781)
        #expect(spec.enums.count == 861)
        let root = try #require(spec.resource(qualified: spec.rootResource.description))
        #expect(spec.rootResource == QualifiedName("microsoft.graph.GraphService"))
        #expect(root.children.count == 70)
        let me = try #require(root.children.first { $0.name == "me" })
        #expect(me.target == QualifiedName("microsoft.graph.user"))
        #expect(!me.isCollection)
        let driveItem = try #require(spec.resource(qualified: "microsoft.graph.driveItem"))
        #expect(driveItem.children.contains { $0.name == "children" && $0.isCollection })
        // Graph binds driveItem's delta to one item (`/drives/{id}/root/delta`), not to the collection;
        // Collection(user) has one, inherited delta overloads on Collection(directoryObject) aside.
        let itemDelta = driveItem.operations.filter { $0.pathSuffix == ["microsoft.graph.delta"] }
        #expect(itemDelta.map { $0.parameters.map(\.name) } == [[], ["token"]])
        #expect(itemDelta.allSatisfy { $0.response?.delta == .odata(tokenParameter: "token") })
        let copy = try #require(driveItem.operations.first { $0.name == "copy" })
        #expect(copy.parameters.map(\.isRequired) == [true, true, false, false])
        let user = try #require(spec.resource(qualified: "microsoft.graph.user"))
        let userDelta = try #require(user.collectionOperations.first { $0.pathSuffix == ["microsoft.graph.delta"] })
        #expect(userDelta.response?.type == .collection(.named(QualifiedName("microsoft.graph.user"))))
        #expect(userDelta.response?.delta == .odata(tokenParameter: "token"))
        // self.alert in the security schema resolves to its full name.
        #expect(
            spec.structure(qualified: "microsoft.graph.security.alert")?.baseType
                == QualifiedName("microsoft.graph.entity"))
    }
}
