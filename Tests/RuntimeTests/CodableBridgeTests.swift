import BinderyRuntime
import Foundation
import GoldenOData
import GoldenOpenAPI
import GoldenRealWorld
import Testing

/// Models read through Foundation's `JSONDecoder` (inside an app's own `Codable` type) go through a bridge that
/// asks the decoder for each declared field's kind. Whatever it asks, the model must hold what the runtime's own
/// parser reads from the same bytes, and a value of the wrong kind must fail with the same path.
@Suite struct CodableBridgeTests {
    /// Decodes `text` both ways and checks the two models hold the same members.
    private func expectSameModel<M: JSONModel>(_ type: M.Type, _ text: String) throws {
        let direct = try M(jsonBytes: Array(text.utf8))
        let bridged = try JSONDecoder().decode(M.self, from: Data(text.utf8))
        #expect(bridged.storage == direct.storage, "\(text)")
        #expect(bridged.storage.keys == direct.storage.keys.sorted(), "members sorted by name")
    }

    @Test func declaredUndeclaredAndNullMembersReadAsTheParserReadsThem() throws {
        try expectSameModel(GoldenOData.DriveItem.self, GeneratedModelTests.driveItemJSON)
        // Every declared kind as null, and an empty object where a model is declared.
        try expectSameModel(
            GoldenOData.DriveItem.self,
            #"{"id":null,"size":null,"createdDateTime":null,"folder":null,"parentReference":{},"takenDate":null}"#)
    }

    @Test func derivedTypesAreReadWithTheirOwnFields() throws {
        let text = """
            {"id":"m1","attachments":[
              {"@odata.type":"#sample.drive.fileAttachment","id":"a1","size":3,"isInline":false,"contentBytes":"YWJj"},
              {"@odata.type":"#sample.drive.itemAttachment","id":"a2","item":{"id":"m0","subject":"Hi"}},
              {"@odata.type":"#sample.drive.unknownAttachment","id":"a3","sourceUrl":"https://x","size":0}
            ]}
            """
        try expectSameModel(GoldenOData.Message.self, text)
        try expectSameModel(GoldenOData.Message.self, #"{"attachments":[null,{"id":"a0"}]}"#)
        let message = try JSONDecoder().decode(GoldenOData.Message.self, from: Data(text.utf8))
        let attachments = try #require(message.attachments)
        #expect(attachments[0].downcast(to: FileAttachment.self)?.contentBytes == Data("abc".utf8))
        #expect(attachments[1].downcast(to: ItemAttachment.self)?.item?.subject == "Hi")
    }

    @Test func looseFieldsAndMapsKeepTheirValues() throws {
        // `unread` is loose: a string where the spec says boolean is read as the parser reads it.
        try expectSameModel(GoldenOpenAPI.Thread.self, #"{"id":"t1","unread":"true","last_message_timestamp":7}"#)
        try expectSameModel(GoldenOpenAPI.Thread.self, #"{"id":"t1","unread":false,"participants":[]}"#)
        // A double-precision field, integral or not, and a string where it should be a number.
        try expectSameModel(GoldenOData.AsyncJobStatus.self, #"{"percentageComplete":12.75,"status":"x"}"#)
        try expectSameModel(GoldenOData.AsyncJobStatus.self, #"{"percentageComplete":100}"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                GoldenOData.AsyncJobStatus.self, from: Data(#"{"percentageComplete":"half"}"#.utf8))
        }
        try expectSameModel(
            GoldenRealWorld.File.self, #"{"id":"1","size":12,"metadata":{"a":"x","b":null},"sha1":"ab"}"#)
    }

    @Test(arguments: [
        (#"{"name":5}"#, "$.name"),
        (#"{"size":"big"}"#, "$.size"),
        (#"{"size":1.5}"#, "$.size"),
        (#"{"parentReference":"root"}"#, "$.parentReference"),
        (#"{"parentReference":{"driveId":[1]}}"#, "$.parentReference.driveId"),
        (#"{"createdDateTime":"yesterday"}"#, "$.createdDateTime"),
    ])
    func aValueOfTheWrongKindFailsWithItsPath(text: String, path: String) throws {
        do {
            _ = try GoldenOData.DriveItem(jsonBytes: Array(text.utf8))
            Issue.record("\(text) must not decode")
        } catch {
            #expect(error.jsonPath == path)
        }
        #expect {
            _ = try JSONDecoder().decode(GoldenOData.DriveItem.self, from: Data(text.utf8))
        } throws: { error in
            "\(error)".contains("\(path):")
        }
    }

    @Test func aCollectionOfTheWrongShapeFailsWithItsPath() throws {
        let text = #"{"id":"m1","attachments":[{"id":"a1"},"not an attachment"]}"#
        #expect {
            _ = try JSONDecoder().decode(GoldenOData.Message.self, from: Data(text.utf8))
        } throws: { error in
            "\(error)".contains("$.attachments[1]:")
        }
    }
}
