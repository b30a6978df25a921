import BinderySpec
import Testing

/// `ServiceSpec.documented(from:)`, what `descriptions` in bindery.json does: every kind of declaration takes the
/// other document's documentation by name where it has none, and nothing else changes.
@Suite struct BorrowedDocumentationTests {
    static func members(documented: Bool) -> String {
        func doc(_ text: String) -> String {
            documented ? #"<Annotation Term="Org.OData.Core.V1.Description" String="\#(text)"/>"# : ""
        }
        return """
            <EnumType Name="color">\(doc("A paint colour."))<Member Name="red">\(doc("Like a fire engine."))</Member><Member Name="blue"/></EnumType>
            <EntityType Name="part"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.String"/></EntityType>
            <EntityType Name="thing"><Key><PropertyRef Name="id"/></Key>\(doc("A thing."))
            <Property Name="id" Type="Edm.String"/>
            <Property Name="color" Type="t.color">\(doc("Its colour."))</Property>
            <NavigationProperty Name="parts" Type="Collection(t.part)" ContainsTarget="true">\(doc("What it is made of."))</NavigationProperty>
            </EntityType>
            <Action Name="paint" IsBound="true"><Parameter Name="bindingParameter" Type="t.thing"/><Parameter Name="color" Type="t.color"/>\(doc("Paints the thing."))</Action>
            <EntityContainer Name="c"><EntitySet Name="things" EntityType="t.thing"/></EntityContainer>
            """
    }

    @Test func everyKindOfDeclarationIsDocumentedByName() throws {
        let facts = try #require(readInlineCSDL(Self.members(documented: false)).spec)
        let described = try #require(readInlineCSDL(Self.members(documented: true)).spec)
        let thing = try #require(described.structure("thing"))
        #expect(thing.doc.summary == "A thing.")
        #expect(thing.property("color")?.doc.summary == "Its colour.")
        #expect(thing.navigationProperties.first?.doc.summary == "What it is made of.")

        let (merged, filled) = facts.documented(from: described)
        #expect(merged.structure("thing")?.doc == thing.doc)
        #expect(merged.structure("thing")?.property("color")?.doc == thing.property("color")?.doc)
        #expect(merged.structure("thing")?.navigationProperties.first?.doc.summary == "What it is made of.")
        #expect(merged.enumeration("color")?.doc.summary == "A paint colour.")
        #expect(merged.enumeration("color")?.members.first?.doc.summary == "Like a fire engine.")
        #expect(merged.enumeration("color")?.members.last?.doc.isEmpty == true)
        let paint = try #require(described.resource("thing")?.operations.first { $0.name.hasSuffix("paint") })
        #expect(paint.doc.summary == "Paints the thing.")
        #expect(merged.resource("thing")?.operations.first { $0.name == paint.name }?.doc == paint.doc)
        #expect(filled >= 6)

        // Nothing to borrow from a document without documentation.
        #expect(described.documented(from: facts).filled == 0)
        #expect(facts.documented(from: facts) == (facts, 0))
    }

    @Test func theSpecsOwnDocumentationWins() throws {
        let own = try #require(readInlineCSDL(Self.members(documented: true)).spec)
        var other = own
        other.structures = other.structures.map { structure in
            var changed = structure
            changed.doc = Documentation(summary: "Someone else's words.")
            return changed
        }
        let (merged, filled) = own.documented(from: other)
        #expect(merged.structure("thing")?.doc.summary == "A thing.")
        // `part` had no words of its own: it is the one that takes the other document's.
        #expect(merged.structure("part")?.doc.summary == "Someone else's words.")
        #expect(filled == 1)
    }
}
