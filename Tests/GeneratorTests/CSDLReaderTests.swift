import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

/// The package root, found from this file's place in `Tests/GeneratorTests`.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let samplePath = packageRoot.appendingPathComponent("Tests/Golden/OData/spec.csdl.xml").path
/// All of Graph v1.0 as the repository keeps it: Microsoft's metadata with facts only, plus Bindery's schema of
/// copy monitors (`monitors.asyncJobStatus`, the one complex type beyond Microsoft's 1,780).
private let graphPath = packageRoot.appendingPathComponent("Specs/Graph/Graph.csdl.xml").path

private func readSample() throws -> ServiceSpec {
    let result = SpecReader.read(path: samplePath, displayPath: "spec.csdl.xml")
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    return try #require(result.spec)
}

/// Wraps schema members (written without indentation, one element per line) in a document whose schema
/// `test` (alias `t`) starts on line 3, so the first member is on line 4.
private func readInline(_ members: String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
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

private func errors(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .error }.map(\.description)
}

extension ServiceSpec {
    fileprivate func structure(qualified name: String) -> StructureSpec? {
        structures.first { $0.name.description == name }
    }

    fileprivate func resource(qualified name: String) -> ResourceSpec? {
        resources.first { $0.name.description == name }
    }
}

@Suite("CSDL reader: sample service")
struct CSDLSampleTests {
    @Test func readsTheServiceShape() throws {
        let spec = try readSample()
        #expect(spec.source == "spec.csdl.xml")
        #expect(spec.primaryNamespace == "sample.drive")
        #expect(spec.conventions == .odata)
        #expect(spec.rootResource == QualifiedName(namespace: "sample.drive", name: "DriveService"))
        #expect(spec.enums.map(\.name.name) == ["importance", "sharingCapabilities", "onenoteUserRole"])
        #expect(spec.structures.filter { $0.kind == .complex }.count == 13)
        #expect(spec.structures.filter { $0.kind == .entity }.count == 16)
        // One resource per entity type plus the root.
        #expect(spec.resources.count == 17)
        #expect(spec.resources.last?.name == spec.rootResource)
    }

    @Test func readsEnums() throws {
        let spec = try readSample()
        let sharing = try #require(spec.enums.first { $0.name.name == "sharingCapabilities" })
        #expect(sharing.isFlags)
        #expect(sharing.members.map(\.value) == [0, 1, 2, 4])
        let role = try #require(spec.enums.first { $0.name.name == "onenoteUserRole" })
        #expect(!role.isFlags)
        #expect(role.members.first?.value == -1)
        let importance = try #require(spec.enums.first { $0.name.name == "importance" })
        #expect(importance.members.last?.doc.summary == "Needs attention soon.")
    }

    @Test func readsPropertiesWithTypesAndNullability() throws {
        let spec = try readSample()
        let quota = try #require(spec.structure(qualified: "sample.drive.quota"))
        #expect(quota.property("total")?.type == .primitive(.int64))
        #expect(quota.property("total")?.isNullable == false)
        #expect(quota.property("remaining")?.isNullable == true)
        #expect(quota.property("used")?.isReadOnly == false)

        let driveItem = try #require(spec.structure(qualified: "sample.drive.driveItem"))
        #expect(
            driveItem.properties.map(\.name) == [
                "size", "cTag", "folder", "file", "deleted", "parentReference", "sharingCapabilities", "takenDate",
                "content",
            ])
        #expect(driveItem.property("folder")?.type == .named(QualifiedName("sample.drive.folder")))
        #expect(driveItem.property("takenDate")?.type == .primitive(.date))
        #expect(driveItem.property("content")?.type == .primitive(.stream))
        #expect(
            driveItem.property("sharingCapabilities")?.type == .named(QualifiedName("sample.drive.sharingCapabilities"))
        )

        let workingHours = try #require(spec.structure(qualified: "sample.drive.workingHours"))
        #expect(workingHours.property("startTime")?.type == .primitive(.timeOfDay))
        #expect(workingHours.property("daysOfWeek")?.type == .collection(.primitive(.string)))

        let fileAttachment = try #require(spec.structure(qualified: "sample.drive.fileAttachment"))
        #expect(fileAttachment.property("contentBytes")?.type == .primitive(.binary))
        let message = try #require(spec.structure(qualified: "sample.drive.message"))
        #expect(message.property("categories")?.isNullable == false)
        #expect(message.property("importance")?.type == .named(QualifiedName("sample.drive.importance")))
    }

    @Test func readsInheritanceAndTypeFlags() throws {
        let spec = try readSample()
        let entity = try #require(spec.structure(qualified: "sample.drive.entity"))
        #expect(entity.isAbstract)
        #expect(entity.baseType == nil)
        #expect(entity.key == ["id"])
        let baseItem = try #require(spec.structure(qualified: "sample.drive.baseItem"))
        #expect(baseItem.baseType == QualifiedName("sample.drive.entity"))
        #expect(baseItem.key.isEmpty)
        let driveItem = try #require(spec.structure(qualified: "sample.drive.driveItem"))
        #expect(driveItem.baseType == QualifiedName("sample.drive.baseItem"))
        #expect(driveItem.hasStream)
        #expect(!driveItem.isAbstract)
        #expect(driveItem.navigationProperties.map(\.name) == ["children", "thumbnails"])
        #expect(driveItem.navigationProperties.first?.containsTarget == true)
        #expect(
            driveItem.navigationProperties.first?.type == .collection(.named(QualifiedName("sample.drive.driveItem"))))
        #expect(spec.structure(qualified: "sample.drive.identity")?.isOpen == true)
        #expect(spec.structure(qualified: "sample.drive.identitySet")?.isOpen == false)
        #expect(spec.structure(qualified: "sample.drive.user")?.isOpen == true)
        #expect(
            spec.structure(qualified: "sample.drive.onenoteSection")?.baseType
                == QualifiedName("sample.drive.onenoteEntityHierarchyModel"))
        #expect(
            spec.structure(qualified: "sample.drive.onenoteEntityHierarchyModel")?.baseType
                == QualifiedName("sample.drive.onenoteEntityBaseModel"))
    }

    @Test func appliesInlineAndOutOfLineAnnotations() throws {
        let spec = try readSample()
        let baseItem = try #require(spec.structure(qualified: "sample.drive.baseItem"))
        #expect(baseItem.property("description")?.doc.summary == "Provides a user-visible description of the item.")
        #expect(baseItem.property("name")?.doc.isEmpty == true)

        let driveItem = try #require(spec.structure(qualified: "sample.drive.driveItem"))
        // `&amp;` is decoded, and the description inside the ChangeTracking record does not leak out.
        #expect(driveItem.doc.summary == "Files & folders stored in a drive.")
        #expect(driveItem.doc.details == "Every file system object in OneDrive is returned as a driveItem.")
        #expect(driveItem.property("cTag")?.isReadOnly == true)
        #expect(driveItem.property("cTag")?.doc.summary == "An eTag for the content of the item.")
        #expect(driveItem.property("size")?.isReadOnly == false)
        // `Core.Immutable` without `Bool` means true.
        #expect(spec.structure(qualified: "sample.drive.entity")?.property("id")?.isReadOnly == true)
    }

    @Test func recordsSourceLocations() throws {
        let spec = try readSample()
        let quota = try #require(spec.structure(qualified: "sample.drive.quota"))
        #expect(quota.location == SourceLocation(file: "spec.csdl.xml", line: 57, column: 7))
        #expect(quota.property("total")?.location == SourceLocation(file: "spec.csdl.xml", line: 58, column: 9))
    }

    @Test func buildsEntityResourcesWithInheritedNavigation() throws {
        let spec = try readSample()
        let driveItem = try #require(spec.resource(qualified: "sample.drive.driveItem"))
        #expect(driveItem.model == .named(QualifiedName("sample.drive.driveItem")))
        // `createdByUser` comes from baseItem.
        #expect(driveItem.children.map(\.name) == ["createdByUser", "children", "thumbnails"])
        let createdByUser = try #require(driveItem.children.first)
        #expect(createdByUser.target == QualifiedName("sample.drive.user"))
        #expect(!createdByUser.isCollection)
        let thumbnails = try #require(driveItem.children.last)
        #expect(thumbnails.segment == "thumbnails")
        #expect(thumbnails.target == QualifiedName("sample.drive.thumbnailSet"))
        #expect(thumbnails.isCollection)
        #expect(thumbnails.keyName == "thumbnailSet-id")

        let sectionGroup = try #require(spec.resource(qualified: "sample.drive.sectionGroup"))
        #expect(sectionGroup.children.map(\.name) == ["sections", "parentNotebook"])
        #expect(spec.resource(qualified: "sample.drive.itemAttachment")?.children.map(\.name) == ["item"])
        #expect(spec.resource(qualified: "sample.drive.quota") == nil)
    }

    @Test func buildsCrudAndBoundOperations() throws {
        let spec = try readSample()
        let driveItem = try #require(spec.resource(qualified: "sample.drive.driveItem"))
        let model = TypeRef.named(QualifiedName("sample.drive.driveItem"))
        #expect(
            driveItem.operations.map(\.name) == ["get", "update", "delete", "search", "copy", "createUploadSession"])
        let update = try #require(driveItem.operations.first { $0.kind == .update })
        #expect(update.method == .patch)
        #expect(update.requestBody?.type == model)
        let delete = try #require(driveItem.operations.first { $0.kind == .delete })
        #expect(delete.response?.type == nil)
        #expect(delete.response?.successCodes == [204])

        let search = try #require(driveItem.operations.first { $0.name == "search" })
        #expect(search.kind == .function)
        #expect(search.method == .get)
        #expect(search.pathSuffix == ["sample.drive.search"])
        #expect(search.isComposable)
        #expect(search.parameters.map(\.name) == ["q"])
        #expect(search.parameters.first?.location == .function)
        #expect(search.parameters.first?.isRequired == true)
        #expect(search.response?.type == .collection(model))

        let copy = try #require(driveItem.operations.first { $0.name == "copy" })
        #expect(copy.kind == .action)
        #expect(copy.method == .post)
        #expect(copy.pathSuffix == ["sample.drive.copy"])
        #expect(copy.parameters.map(\.location) == [.body, .body])
        #expect(copy.parameters.map(\.isRequired) == [true, false])
        // Its answer is a monitor (Bindery.Monitor, see readsCapabilityRestrictionsAndAliases); other actions
        // answer their return type with any of the success codes Graph uses.
        #expect(copy.response?.type == nil)
        #expect(
            driveItem.operations.first { $0.name == "createUploadSession" }?.response?.successCodes == [
                200, 201, 202, 204,
            ])

        let upload = try #require(driveItem.operations.first { $0.name == "createUploadSession" })
        #expect(upload.parameters.first?.isRequired == false)
        #expect(upload.response?.type == .named(QualifiedName("sample.drive.uploadSession")))

        let send = try #require(
            spec.resource(qualified: "sample.drive.message")?.operations.first { $0.name == "send" })
        #expect(send.parameters.isEmpty)
        #expect(send.response?.type == nil)
        #expect(
            spec.resource(qualified: "sample.drive.drive")?.operations.map(\.name) == [
                "get", "update", "delete", "recent",
            ])
    }

    @Test func readsCapabilityRestrictionsAndAliases() throws {
        let spec = try readSample()
        // Bindery.Alias: another name of a type, another URL segment of an operation.
        #expect(spec.structure(qualified: "sample.drive.driveItem")?.aliases == ["oneDrive.item"])
        // Bindery.StorageOperation: requests to the URL a payload carries, with what they answer.
        let storage = spec.structure(qualified: "sample.drive.uploadSession")?.storageOperations ?? []
        #expect(storage.map(\.name) == ["uploadRange", "uploadLastRange", "cancelUpload"])
        #expect(storage.map(\.method) == [.put, .put, .delete])
        #expect(storage.first?.urlMember == "uploadUrl")
        #expect(
            storage.map(\.response) == [
                .named(QualifiedName("sample.drive.uploadSession")), .named(QualifiedName("sample.drive.driveItem")),
                nil,
            ])
        let copy = try #require(
            spec.resource(qualified: "sample.drive.driveItem")?.operations.first { $0.name == "copy" })
        #expect(copy.segmentAliases == ["action.copy"])
        // An <Annotations> block may target an action overload, by its binding parameter's type.
        #expect(copy.doc.summary == "Copies the item; an overload is named by its parameter types.")
        // Bindery.Monitor: accepted with a Location to poll, whose answers are the status type.
        #expect(copy.response?.monitor == .named(QualifiedName("sample.drive.asyncJobStatus")))
        #expect(copy.response?.successCodes == [202] && copy.response?.type == nil)
        // An entity set that refuses inserts; an explicit `true` leaves updates allowed.
        let root = try #require(spec.resource(qualified: "sample.drive.DriveService"))
        let drives = try #require(root.children.first { $0.name == "drives" })
        #expect(drives.restrictions == Restrictions(insertable: false))
        // A navigation property's own restriction, inline.
        let thumbnails = try #require(
            spec.resource(qualified: "sample.drive.driveItem")?.children.first { $0.name == "thumbnails" })
        #expect(thumbnails.restrictions == Restrictions(insertable: false))
        // A type's restriction holds on every step that reaches it; a record member that is not the
        // restriction's own (`Description`) changes nothing.
        #expect(spec.structure(qualified: "sample.drive.notebook")?.restrictions == Restrictions(deletable: false))
        let toNotebook = spec.resources.flatMap(\.children).filter {
            $0.target == QualifiedName("sample.drive.notebook")
        }
        #expect(toNotebook.count >= 2)
        #expect(toNotebook.allSatisfy { $0.restrictions == Restrictions(deletable: false) })
        // Refused on every step that leads there: not an operation of the service.
        let notebook = try #require(spec.resource(qualified: "sample.drive.notebook"))
        #expect(notebook.operations.map(\.name).contains("delete") == false)
        #expect(notebook.operations.map(\.name).contains("update"))
        // `drives` is the only collection of drives, `thumbnails` the only one of thumbnail sets.
        #expect(
            spec.resource(qualified: "sample.drive.drive")?.collectionOperations.map(\.name).contains("create") == false
        )
        #expect(
            spec.resource(qualified: "sample.drive.thumbnailSet")?.collectionOperations.map(\.name).contains("create")
                == false)
        #expect(
            spec.resource(qualified: "sample.drive.driveItem")?.collectionOperations.map(\.name).contains("create")
                == true)
    }

    @Test func buildsCollectionOperationsWithDeltaAndOverloads() throws {
        let spec = try readSample()
        let driveItem = try #require(spec.resource(qualified: "sample.drive.driveItem"))
        let model = TypeRef.named(QualifiedName("sample.drive.driveItem"))
        // Three delta declarations reach driveItem; the inherited one repeats `delta()` and is dropped, and
        // the overload with fewer parameters comes first.
        #expect(driveItem.collectionOperations.map(\.name) == ["list", "create", "delta", "delta"])
        #expect(driveItem.collectionOperations.map { $0.parameters.map(\.name) } == [[], [], [], ["token"]])
        try #require(driveItem.collectionOperations.count == 4)
        let list = driveItem.collectionOperations[0]
        #expect(list.kind == .list)
        #expect(list.response?.type == .collection(model))
        let create = driveItem.collectionOperations[1]
        #expect(create.method == .post)
        #expect(create.response?.successCodes == [201])
        let delta = driveItem.collectionOperations[2]
        #expect(delta.pathSuffix == ["sample.drive.delta"])
        #expect(delta.response?.delta == .odata(tokenParameter: "token"))
        #expect(delta.response?.type == .collection(model))

        // The drive inherits only the delta bound to baseItem (and `drives`, its only collection, refuses inserts).
        let drive = try #require(spec.resource(qualified: "sample.drive.drive"))
        #expect(drive.collectionOperations.map(\.name) == ["list", "delta"])
        #expect(
            drive.collectionOperations.last?.response?.type
                == .collection(.named(QualifiedName("sample.drive.baseItem"))))
        #expect(spec.resource(qualified: "sample.drive.user")?.collectionOperations.map(\.name) == ["list", "create"])
    }

    @Test func buildsTheRootResource() throws {
        let spec = try readSample()
        let root = try #require(spec.resource(qualified: "sample.drive.DriveService"))
        #expect(root.model == nil)
        #expect(root.children.map(\.name) == ["drives", "users", "me", "drive"])
        #expect(root.children.map(\.isCollection) == [true, true, false, false])
        #expect(root.children.map(\.target.name) == ["drive", "user", "user", "drive"])
        try #require(root.children.count == 4)
        #expect(root.children[0].keyName == "drive-id")
        #expect(root.children[2].keyName == nil)
        #expect(root.children[2].segment == "me")
        #expect(root.children[2].doc.summary == "The signed-in user.")

        #expect(root.operations.map(\.name) == ["resolveShareLink", "sendFeedback"])
        try #require(root.operations.count == 2)
        let resolve = root.operations[0]
        #expect(resolve.method == .get)
        #expect(resolve.pathSuffix == ["resolveShareLink"])
        #expect(resolve.parameters.map(\.location) == [.function])
        let feedback = root.operations[1]
        #expect(feedback.method == .post)
        #expect(feedback.kind == .action)
        #expect(feedback.parameters.map(\.isRequired) == [true, false])
    }
}

@Suite("CSDL reader: bad input")
struct CSDLBadInputTests {
    @Test func malformedXML() {
        let result = readInline(
            """
            <EntityType Name="a">
            <Property Name="x" Type="Edm.String">
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:6:14: error: malformed XML: Opening and ending tag mismatch: Property line 5 and EntityType"
            ])
    }

    @Test func unknownType() {
        let result = readInline(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="t.missing" />
            </ComplexType>
            """)
        #expect(result.spec == nil)
        #expect(errors(result.diagnostics) == ["inline.xml:5:3: error: unknown type 't.missing'"])
    }

    @Test func unknownTypeInsideCollectionAndOnOneLine() {
        // Two same-named tags on one line keep their own columns.
        let result = readInline(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="Collection(t.gone)" /><Property Name="y" Type="test.lost" />
            </ComplexType>
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:5:3: error: unknown type 't.gone'",
                "inline.xml:5:50: error: unknown type 'test.lost'",
            ])
    }

    @Test func baseTypeCycle() {
        let result = readInline(
            """
            <EntityType Name="a" BaseType="t.b" />
            <EntityType Name="b" BaseType="test.a" />
            <EntityType Name="c" BaseType="t.c" />
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:4:1: error: base type cycle: test.a → test.b → test.a",
                "inline.xml:6:1: error: base type cycle: test.c → test.c",
            ])
    }

    @Test func duplicateTypeName() {
        let result = readInline(
            """
            <ComplexType Name="a">
              <Property Name="x" Type="Edm.String" />
            </ComplexType>
            <EnumType Name="a" />
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:7:1: error: duplicate type name 'test.a' (first declared at line 4)"
            ])
    }

    @Test func duplicatePropertyName() {
        let result = readInline(
            """
            <EntityType Name="a">
              <Property Name="x" Type="Edm.String" />
              <NavigationProperty Name="x" Type="t.a" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:6:3: error: duplicate property name 'x' in 'test.a' (first declared at line 5)"
            ])
    }

    @Test func badStorageOperations() {
        let result = readInline(
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
            errors(result.diagnostics) == [
                "inline.xml:6:3: error: Bindery.StorageOperation on 'test.session' needs the members Name, Method and URL",
                "inline.xml:9:3: error: Bindery.StorageOperation 'b' on 'test.session': 'FETCH' is not an HTTP method",
                "inline.xml:13:3: error: Bindery.StorageOperation on 'test.session': unknown member Verb (expected Name, Method, URL, Returns)",
                "inline.xml:16:3: error: unknown type 't.missing'",
            ])
    }

    @Test func missingName() {
        let result = readInline(
            """
            <EntityType
              BaseType="t.b">
              <Property Name="x" Type="Edm.String" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        // Reported where the multi-line start tag begins.
        #expect(
            errors(result.diagnostics) == ["inline.xml:4:1: error: EntityType is missing the required attribute 'Name'"]
        )
    }

    @Test func navigationToComplexType() {
        let result = readInline(
            """
            <ComplexType Name="c" />
            <EntityType Name="e">
              <NavigationProperty Name="n" Type="t.c" />
            </EntityType>
            """)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.xml:6:3: error: navigation property 'n' of 'test.e' must target an entity type, not 't.c'"
            ])
    }

    @Test func notCSDL() {
        let result = CSDLReader().read(bytes: Array("<html>\n<body/>\n</html>".utf8), path: "page.xml")
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "page.xml:1:1: error: not a CSDL document: the root element is 'html', expected 'edmx:Edmx'"
            ])
        #expect(CSDLReader().read(bytes: [], path: "empty.xml").spec == nil)
    }

    @Test func unsupportedConstructsWarnAndStillRead() throws {
        let result = readInline(
            """
            <TypeDefinition Name="email" UnderlyingType="Edm.String" />
            <Term Name="downloadUrl" Type="Edm.String" />
            <ComplexType Name="contact">
              <Property Name="address" Type="t.email" />
              <Property Name="location" Type="Edm.GeographyPoint" />
            </ComplexType>
            <Frobnicate />
            """)
        #expect(errors(result.diagnostics).isEmpty)
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
        let result = readInline(types.joined(separator: "\n"))
        let unsupported = result.diagnostics.filter { $0.message.hasPrefix("unsupported primitive type") }
        #expect(
            unsupported.map(\.description) == [
                "inline.xml:5:3: warning: unsupported primitive type 'Edm.GeographyPoint' is read as Edm.Untyped"
            ])
        // Type `cN` starts on line 4 + 4N, one line later for each `bad` property above it.
        #expect(
            errors(result.diagnostics)
                == [(7, 0), (107, 1), (207, 2)].map { index, above in
                    "inline.xml:\(4 + 4 * index + above + 3):3: error: unknown type 't.missing'"
                })
    }

    /// Start tags arrive in batches of 512: a skipped subtree that spans batches is passed over as a whole, and
    /// libxml2's error after many batches still arrives, at its line.
    @Test func tagsAcrossBatchesReadAsOneStream() throws {
        let skipped = (0..<1_200).map { "  <Annotation Term=\"t.note\" String=\"\($0)\" />" }.joined(separator: "\n")
        let result = readInline(
            """
            <Term Name="big" Type="Edm.String">
            \(skipped)
            </Term>
            <ComplexType Name="after"><Property Name="kept" Type="Edm.String" /></ComplexType>
            """)
        let spec = try #require(result.spec)
        #expect(spec.structure(qualified: "test.after")?.properties.map(\.name) == ["kept"])

        let broken = readInline(skipped + "\n<ComplexType Name=\"x\">\n</Broken>")
        #expect(broken.spec == nil)
        #expect(
            errors(broken.diagnostics) == [
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

@Suite("CSDL reader: SpecReader dispatch")
struct CSDLSpecReaderTests {
    @Test func readsCSDLByExtension() throws {
        let result = SpecReader.read(path: samplePath)
        #expect(result.spec?.source == samplePath)
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
            errors(result.diagnostics) == [
                "error: cannot tell the spec format from '.toml' in 'spec.toml'; expected .xml, .csdl or .edmx (CSDL) or .json, .yaml or .yml (OpenAPI)"
            ])
    }
}

@Suite("CSDL reader: Microsoft Graph v1.0")
struct CSDLGraphTests {
    @Test("reads all of Graph v1.0")
    func readsGraph() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: graphPath)))
        let clock = ContinuousClock()
        var result: (spec: ServiceSpec?, diagnostics: [Diagnostic])?
        let elapsed = clock.measure { result = CSDLReader().read(bytes: bytes, path: "graph-v1.0.csdl.xml") }
        print("CSDL reader: Graph v1.0 (\(bytes.count) bytes) read in \(elapsed)")
        let diagnostics = result?.diagnostics ?? []
        #expect(errors(diagnostics).isEmpty, "\(errors(diagnostics).prefix(10))")
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
