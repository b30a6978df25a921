import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

private func readSample() throws -> ServiceSpec {
    let result = SpecReader.read(path: csdlSamplePath, displayPath: "spec.csdl.xml")
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    return try #require(result.spec)
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
