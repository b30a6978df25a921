import BinderyRuntime
import Foundation
import GoldenOData
import Testing

/// Decoding and encoding with models generated from Tests/Golden/OData/spec.csdl.xml, on payloads shaped
/// like the real services' (../shared/notes/anchors.md).
@Suite struct GeneratedModelTests {
    /// A driveItem as Graph sends it: annotations, an Int64 beyond 32 bits, 7 fractional digits, a date
    /// without offset, an empty-object flag, and members the spec does not declare.
    static let driveItemJSON = """
        {"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#drives('b!x')/items/$entity",\
        "@microsoft.graph.downloadUrl":"https://public.bn.files.1drv.com/y4m","id":"01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K",\
        "name":"Budget 2017.xlsx","size":1099511627776,"createdDateTime":"2017-04-21T10:00:00.1234567Z",\
        "lastModifiedDateTime":"2017-04-21T10:00:00.0000000","folder":{},"takenDate":"2017-04-20",\
        "parentReference":{"driveId":"b!x","path":"/drive/root:","unknownNested":[1,2.50,{"a":null}]},\
        "sharingCapabilities":"read,write","shared":{"scope":"users"},"cTag":null}
        """

    @Test func decodesEveryFieldKind() throws {
        let item = try DriveItem(jsonBytes: Array(Self.driveItemJSON.utf8))
        #expect(item.name == "Budget 2017.xlsx")
        #expect(item.size == 1_099_511_627_776)
        #expect(item.folder != nil)
        #expect(item.folder?.childCount == nil)
        #expect(item.parentReference?.driveId == "b!x")
        #expect(item.takenDate == CalendarDate(year: 2017, month: 4, day: 20))
        let created = try #require(item.createdDateTime)
        #expect(abs(created.timeIntervalSince1970 - 1_492_768_800.1234567) < 0.000_001)
        // No offset: read as UTC.
        #expect(item.lastModifiedDateTime == Date(timeIntervalSince1970: 1_492_768_800))
        #expect(item.cTag == nil)
    }

    @Test func unknownMembersSurviveARoundTripByteForByte() throws {
        let item = try DriveItem(jsonBytes: Array(Self.driveItemJSON.utf8))
        #expect(item.additionalData.keys == ["@odata.context", "@microsoft.graph.downloadUrl", "shared"])
        let encoded = try JSONEncoder().encode(item)
        let reparsed = try JSONValue.parse(Array(encoded))
        #expect(reparsed == (try json(Self.driveItemJSON)))
        // The runtime's own writer keeps member order and number text exactly.
        #expect(JSONValue.object(item.storage).jsonText == Self.driveItemJSON)
    }

    @Test func codableDecodingValidatesAndReportsThePath() throws {
        let bad = Self.driveItemJSON.replacingOccurrences(of: "\"driveId\":\"b!x\"", with: "\"driveId\":42")
        #expect {
            _ = try JSONDecoder().decode(DriveItem.self, from: Data(bad.utf8))
        } throws: { error in
            "\(error)".contains("$.parentReference.driveId: expected a string, found a number")
        }
        do {
            _ = try DriveItem(jsonBytes: Array(bad.utf8))
            Issue.record("a number where the spec says string must not decode")
        } catch {
            #expect(error.jsonPath == "$.parentReference.driveId")
        }
    }

    @Test func rejectsValuesOutOfRangeAndMalformedDates() throws {
        #expect(throws: ModelDecodingError.self) { try Folder(validating: object(#"{"childCount": 2147483648}"#)) }
        #expect(throws: ModelDecodingError.self) {
            try DriveItem(validating: object(#"{"createdDateTime": "yesterday"}"#))
        }
        #expect(throws: ModelDecodingError.self) { try DriveItem(validating: object(#"{"takenDate": "2017-13-01"}"#)) }
        #expect(throws: ModelDecodingError.self) { try DriveItem(jsonBytes: Array(#"{"name": "trunc"#.utf8)) }
        // Explicit nulls are fine anywhere.
        let nulls = try DriveItem(validating: object(#"{"size": null, "folder": null}"#))
        #expect(nulls.size == nil)
    }

    @Test func polymorphicCollectionsResolveTheMostDerivedType() throws {
        let message = try Message(
            jsonBytes: Array(
                """
                {"id":"m1","attachments":[
                  {"@odata.type":"#sample.drive.fileAttachment","id":"a1","name":"a.txt","size":3,"isInline":false,"contentBytes":"YWJj"},
                  {"@odata.type":"#sample.drive.itemAttachment","id":"a2","name":"fwd","size":10,"isInline":false,"item":{"id":"m0","subject":"Hi"}},
                  {"@odata.type":"#sample.drive.referenceAttachment","id":"a3","name":"link","size":0,"isInline":false,"sourceUrl":"https://x"}
                ]}
                """.utf8))
        let attachments = try #require(message.attachments)
        #expect(attachments.count == 3)
        let file = try #require(attachments[0].downcast(to: FileAttachment.self))
        #expect(file.contentBytes == Data("abc".utf8))
        #expect(attachments[0].resolved is FileAttachment)
        #expect(attachments[1].resolved is ItemAttachment)
        #expect(attachments[1].downcast(to: ItemAttachment.self)?.item?.subject == "Hi")
        #expect(attachments[0].downcast(to: ItemAttachment.self) == nil)
        // An unknown derived type still decodes as the base and keeps its data.
        #expect(attachments[2].resolved is GoldenOData.Attachment)
        #expect(attachments[2].name == "link")
        #expect(attachments[2].additionalData["sourceUrl"] == "https://x")
    }

    @Test func derivedFieldsAreValidatedUsingTheDerivedSchema() throws {
        let bad =
            ##"{"id":"m1","attachments":[{"@odata.type":"#sample.drive.fileAttachment","id":"a1","contentBytes":17}]}"##
        do {
            _ = try Message(jsonBytes: Array(bad.utf8))
            Issue.record("contentBytes must be base64 text")
        } catch {
            #expect(error.jsonPath == "$.attachments[0].contentBytes")
        }
    }

    @Test func enumsTolerateUnknownValuesAndFlagsSplit() throws {
        let message = try Message(validating: object(#"{"importance": "urgent"}"#))
        #expect(message.importance == Importance(rawValue: "urgent"))
        #expect(message.importance?.isKnown == false)
        #expect(Importance.high.isKnown)
        let item = try DriveItem(jsonBytes: Array(Self.driveItemJSON.utf8))
        let capabilities = try #require(item.sharingCapabilities)
        #expect(capabilities.members.count == 2)
        #expect(capabilities.contains(SharingCapabilities(rawValue: "write")))
    }

    @Test func aNewModelSendsOnlyWhatWasSetIncludingExplicitNull() throws {
        var changes = DriveItem()
        changes.name = "Renamed.xlsx"
        changes.description = nil
        changes.parentReference = {
            var reference = ItemReference()
            reference.id = "folder-2"
            return reference
        }()
        #expect(
            JSONValue.object(changes.storage).jsonText
                == #"{"name":"Renamed.xlsx","description":null,"parentReference":{"id":"folder-2"}}"#)
    }

    @Test func changesSinceAnOriginalAreThePatchBody() throws {
        let original = try DriveItem(jsonBytes: Array(Self.driveItemJSON.utf8))
        var edited = original
        edited.name = "New name"
        edited.storage.removeValue(forKey: "cTag")
        let patch = edited.changes(since: original)
        #expect(JSONValue.object(patch.storage).jsonText == #"{"name":"New name","cTag":null}"#)
    }

    @Test func timeOfDayAndCollectionsOfPrimitives() throws {
        let user = try User(
            validating: object(
                #"{"workingHours":{"daysOfWeek":["monday","friday"],"startTime":"08:00:00.0000000","endTime":"17:30:00"}}"#
            ))
        #expect(user.workingHours?.daysOfWeek == ["monday", "friday"])
        #expect(user.workingHours?.startTime == TimeOfDay(hour: 8, minute: 0, second: 0, fraction: "0000000"))
        #expect(user.workingHours?.endTime?.description == "17:30:00")
    }
}
