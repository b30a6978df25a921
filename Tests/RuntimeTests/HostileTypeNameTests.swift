import Foundation
import GoldenOData
import Testing

@testable import BinderyRuntime

/// `@odata.type` values come from the server: 100,000 distinct names a hostile server makes up leave the type
/// resolution cache at its bound, while the names that find a type still resolve.
@Suite struct HostileTypeNameTests {
    @Test func madeUpTypeNamesDoNotGrowTheResolutionCache() throws {
        for index in 0..<100_000 {
            let json = ##"{"@odata.type":"#sample.drive.madeUp\##(index)","id":"a\##(index)","name":"n"}"##
            let attachment = try GoldenOData.Attachment(jsonBytes: Array(json.utf8))
            // Read as the declared type, data kept.
            #expect(attachment.resolved is GoldenOData.Attachment)
            if index == 99_999 { #expect(attachment.name == "n") }
        }
        // Other tests share the process's cache; the made-up names alone fill it to its bound and no further.
        #expect(ModelSchema.cachedUnknownNames == ModelSchema.maximumUnknownNames)
        let file = try GoldenOData.Attachment(
            jsonBytes: Array(##"{"@odata.type":"#sample.drive.fileAttachment","id":"f"}"##.utf8))
        #expect(file.resolved is FileAttachment)
    }
}
