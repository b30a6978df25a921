import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("CSDL reader: bad input")
struct CSDLBadInputTests {
    @Test func malformedXML() {
        let result = readInlineCSDL(
            """
            <EntityType Name="a">
            <Property Name="x" Type="Edm.String">
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:6:14: error: malformed XML: Opening and ending tag mismatch: Property line 5 and EntityType"
            ])
    }

    @Test func unknownType() {
        let result = readInlineCSDL(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="t.missing" />
            </ComplexType>
            """)
        #expect(result.spec == nil)
        #expect(csdlErrors(result.diagnostics) == ["inline.xml:5:3: error: unknown type 't.missing'"])
    }

    @Test func unknownTypeInsideCollectionAndOnOneLine() {
        // Two same-named tags on one line keep their own columns.
        let result = readInlineCSDL(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="Collection(t.gone)" /><Property Name="y" Type="test.lost" />
            </ComplexType>
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:5:3: error: unknown type 't.gone'",
                "inline.xml:5:50: error: unknown type 'test.lost'",
            ])
    }

    @Test func baseTypeCycle() {
        let result = readInlineCSDL(
            """
            <EntityType Name="a" BaseType="t.b" />
            <EntityType Name="b" BaseType="test.a" />
            <EntityType Name="c" BaseType="t.c" />
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:4:1: error: base type cycle: test.a → test.b → test.a",
                "inline.xml:6:1: error: base type cycle: test.c → test.c",
            ])
    }

    @Test func duplicateTypeName() {
        let result = readInlineCSDL(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="Edm.String" />
            </ComplexType>
            <EnumType Name="a" />
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:7:1: error: duplicate type name 'test.a' (first declared at line 4)"
            ])
    }

    @Test func duplicatePropertyName() {
        let result = readInlineCSDL(
            """
            <EntityType Name="a">
              <Property Name="x" Type="Edm.String" />
              <NavigationProperty Name="x" Type="t.a" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:6:3: error: duplicate property name 'x' in 'test.a' (first declared at line 5)"
            ])
    }

    @Test func badStorageOperations() {
        let result = readInlineCSDL(
            """
            <ComplexType Name="session">
              <Property Name="uploadUrl" Type="Edm.String" />
              <Annotation Term="Bindery.V1.StorageOperation">
                <Record><PropertyValue Property="Name" String="a" /><PropertyValue Property="Method" String="PUT" /></Record>
              </Annotation>
              <Annotation Term="Bindery.V1.StorageOperation">
                <Record><PropertyValue Property="Name" String="b" /><PropertyValue Property="Method" String="FETCH" />
                  <PropertyValue Property="URL" String="uploadUrl" /></Record>
              </Annotation>
              <Annotation Term="Bindery.V1.StorageOperation">
                <Record><PropertyValue Property="Name" String="c" /><PropertyValue Property="Verb" String="PUT" /></Record>
              </Annotation>
              <Annotation Term="Bindery.V1.StorageOperation">
                <Record><PropertyValue Property="Name" String="d" /><PropertyValue Property="Method" String="PUT" />
                  <PropertyValue Property="URL" String="uploadUrl" /><PropertyValue Property="Returns" String="t.missing" />
                </Record>
              </Annotation>
            </ComplexType>
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:6:3: error: Bindery.StorageOperation on 'test.session' needs the members Name, Method and URL",
                "inline.xml:9:3: error: Bindery.StorageOperation 'b' on 'test.session': 'FETCH' is not an HTTP method",
                "inline.xml:13:3: error: Bindery.StorageOperation on 'test.session': unknown member Verb (expected Name, Method, URL, Returns)",
                "inline.xml:16:3: error: unknown type 't.missing'",
            ])
    }

    @Test func missingName() {
        let result = readInlineCSDL(
            """
            <EntityType
              BaseType="t.b">
              <Property Name="x" Type="Edm.String" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        // Reported where the multi-line start tag begins.
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:4:1: error: EntityType is missing the required attribute 'Name'"
            ]
        )
    }

    @Test func navigationToComplexType() {
        let result = readInlineCSDL(
            """
            <ComplexType Name="c" />
            <EntityType Name="e">
              <NavigationProperty Name="n" Type="t.c" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "inline.xml:6:3: error: navigation property 'n' of 'test.e' must target an entity type, not 't.c'"
            ])
    }

    @Test func notCSDL() {
        let result = CSDLReader().read(bytes: Array("<html>\n<body/>\n</html>".utf8), path: "page.xml")
        #expect(result.spec == nil)
        #expect(
            csdlErrors(result.diagnostics) == [
                "page.xml:1:1: error: not a CSDL document: the root element is 'html', expected 'edmx:Edmx'"
            ])
        #expect(CSDLReader().read(bytes: [], path: "empty.xml").spec == nil)
    }

    @Test func unsupportedConstructsWarnAndStillRead() throws {
        let result = readInlineCSDL(
            """
            <TypeDefinition Name="email" UnderlyingType="Edm.String" />
            <Term Name="downloadUrl" Type="Edm.String" />
            <ComplexType Name="contact">
              <Property Name="address" Type="t.email" />
              <Property Name="location" Type="Edm.GeographyPoint" />
            </ComplexType>
            <Frobnicate />
            """)
        #expect(csdlErrors(result.diagnostics).isEmpty)
        #expect(
            result.diagnostics.map(\.description) == [
                "inline.xml:4:1: warning: TypeDefinition 'test.email' is not supported; its uses read as Edm.String",
                "inline.xml:10:1: warning: unsupported element 'Frobnicate' in Schema skipped",
                "inline.xml:5:1: note: skipped 1 Term declaration: custom annotation terms are not generated",
                "inline.xml:8:3: warning: unsupported primitive type 'Edm.GeographyPoint' is read as Edm.Untyped",
                "inline.xml:3:1: warning: the document declares no EntityContainer; the root resource 'test.Service' is empty",
            ])
        let spec = try #require(result.spec)
        let contact = try #require(spec.structure(qualified: "test.contact"))
        #expect(contact.properties.map(\.type) == [.primitive(.string), .primitive(.untyped)])
        #expect(spec.rootResource == QualifiedName("test.Service"))
        #expect(spec.resources.map(\.name) == [QualifiedName("test.Service")])
    }

    /// Structures are resolved in parallel runs (of at least 64): the diagnostics must still be those of one pass in
    /// document order, an unsupported primitive reported at its first use only, an unknown type at every use.
    @Test func manyStructuresReportAsOnePassWould() throws {
        let types = (0..<300).map { index in
            """
            <ComplexType Name="c\(index)">
              <Property Name="place" Type="Edm.GeographyPoint" />
              <Property Name="ok" Type="Edm.String" />\(index % 100 == 7 ? "\n  <Property Name=\"bad\" Type=\"t.missing\" />" : "")
            </ComplexType>
            """
        }
        let result = readInlineCSDL(types.joined(separator: "\n"))
        let unsupported = result.diagnostics.filter { $0.message.hasPrefix("unsupported primitive type") }
        #expect(
            unsupported.map(\.description) == [
                "inline.xml:5:3: warning: unsupported primitive type 'Edm.GeographyPoint' is read as Edm.Untyped"
            ])
        // Type `cN` starts on line 4 + 4N, one line later for each `bad` property above it.
        #expect(
            csdlErrors(result.diagnostics)
                == [(7, 0), (107, 1), (207, 2)].map { index, above in
                    "inline.xml:\(4 + 4 * index + above + 3):3: error: unknown type 't.missing'"
                })
    }

    /// Start tags arrive in batches of 512: a skipped subtree that spans batches is passed over as a whole, and
    /// libxml2's error after many batches still arrives, at its line.
    @Test func tagsAcrossBatchesReadAsOneStream() throws {
        let skipped = (0..<1_200).map { "  <Annotation Term=\"t.note\" String=\"\($0)\" />" }.joined(separator: "\n")
        let result = readInlineCSDL(
            """
            <Term Name="big" Type="Edm.String">
            \(skipped)
            </Term>
            <ComplexType Name="after"><Property Name="kept" Type="Edm.String" /></ComplexType>
            """)
        let spec = try #require(result.spec)
        #expect(spec.structure(qualified: "test.after")?.properties.map(\.name) == ["kept"])

        let broken = readInlineCSDL(skipped + "\n<ComplexType Name=\"x\">\n</Broken>")
        #expect(broken.spec == nil)
        #expect(
            csdlErrors(broken.diagnostics) == [
                "inline.xml:1205:10: error: malformed XML: Opening and ending tag mismatch: ComplexType line 1204 and Broken"
            ])
    }

    /// A named pipe is read to its end through the descriptor opened for it.
    @Test func readsASpecFromANamedPipe() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-\(UUID().uuidString).xml")
            .path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="pipe" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <ComplexType Name="c"><Property Name="p" Type="Edm.String" /></ComplexType>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        // The writer opens, writes and closes while the reader reads: a second open would wait forever.
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.write(Data(document.utf8))
            try? handle.close()
        }
        writer.start()
        let result = SpecReader.read(path: path, displayPath: "pipe.xml")
        #expect(result.spec?.primaryNamespace == "pipe")
    }

    @Test func resolvesAliasesAcrossSchemas() throws {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:Reference Uri="https://example.com/core.xml"><edmx:Include Namespace="Org.OData.Core.V1" Alias="Vocabulary"/></edmx:Reference>
            <edmx:DataServices>
            <Schema Namespace="one.main" Alias="main" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="root"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.String"><Annotation Term="Vocabulary.Description" String="Key."/></Property></EntityType>
            <EntityType Name="alert" BaseType="main.root"><NavigationProperty Name="other" Type="self.incident"/></EntityType>
            <EntityContainer Name="Service"><Singleton Name="security" Type="one.main.alert"/></EntityContainer>
            </Schema>
            <Schema Namespace="one.main.security" Alias="self" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <EntityType Name="incident" BaseType="main.root"><Property Name="alerts" Type="Collection(main.alert)"/></EntityType>
            <Function Name="delta" IsBound="true"><Parameter Name="b" Type="Collection(self.incident)"/><ReturnType Type="Collection(self.incident)"/></Function>
            </Schema>
            </edmx:DataServices>
            </edmx:Edmx>
            """
        let result = CSDLReader().read(bytes: Array(document.utf8), path: "two.xml")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(spec.primaryNamespace == "one.main")
        // `Vocabulary` is the document's own alias of Org.OData.Core.V1.
        #expect(spec.structure(qualified: "one.main.root")?.property("id")?.doc.summary == "Key.")
        #expect(spec.rootResource == QualifiedName("one.main.Service"))
        #expect(
            spec.structure(qualified: "one.main.security.incident")?.property("alerts")?.type
                == .collection(.named(QualifiedName("one.main.alert"))))
        #expect(
            spec.resource(qualified: "one.main.alert")?.children.first?.target
                == QualifiedName("one.main.security.incident"))
        let incident = try #require(spec.resource(qualified: "one.main.security.incident"))
        #expect(incident.collectionOperations.last?.pathSuffix == ["one.main.security.delta"])
    }
}
