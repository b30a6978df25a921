import BinderySpec
import Testing

/// The spec model's one ancestor walk and one base-type cycle check, which both readers and the emitter use.
@Suite struct StructureIndexTests {
    static func structure(_ name: String, base: String? = nil) -> StructureSpec {
        StructureSpec(
            name: QualifiedName(namespace: "t", name: name), kind: .complex,
            baseType: base.map { QualifiedName(namespace: "t", name: $0) })
    }

    @Test func theWalkFollowsBasesUntilOneIsMissingOrRepeats() {
        let bases = ["c": "b", "b": "a", "x": "y", "y": "x"]
        #expect(BaseTypes.chain(from: "c") { bases[$0] } == ["c", "b", "a"])
        #expect(BaseTypes.chain(from: "x") { bases[$0] } == ["x", "y"])
        let index = StructureIndex([
            Self.structure("a"), Self.structure("b", base: "a"), Self.structure("c", base: "b"),
        ])
        #expect(index.lineage(of: index.structures[2]).map(\.name.name) == ["a", "b", "c"])
        #expect(index.ancestors(of: index.structures[2]).map(\.name.name) == ["b", "a"])
    }

    @Test func eachCycleIsFoundOnceFromItsMemberDeclaredFirst() {
        // `lead` only leads into the second cycle; `self` is its own base.
        let index = StructureIndex([
            Self.structure("lead", base: "q"), Self.structure("b", base: "a"), Self.structure("a", base: "b"),
            Self.structure("p", base: "q"), Self.structure("q", base: "p"), Self.structure("self", base: "self"),
            Self.structure("plain", base: "missing"),
        ])
        #expect(index.baseTypeCycles().map { $0.map(\.name.name) } == [["b", "a"], ["p", "q"], ["self"]])
    }
}
