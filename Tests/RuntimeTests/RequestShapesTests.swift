import BinderyRuntime
import Foundation
import GoldenOData
import GoldenOpenAPI
import Testing

/// Request shapes beyond plain paths: nested `$expand`, path-addressed items, stream content, multipart forms,
/// and payloads told apart by a discriminator member.
@Suite struct RequestShapesTests {
    let base = URL(string: "https://graph.example.com/v1.0")!

    func url(_ request: APIRequest) -> String { request.url(relativeTo: base).absoluteString }

    @Test func nestedExpandWritesOptionsInParenthesesSeparatedBySemicolons() {
        let graph = GoldenODataClient(baseURL: base, transport: ScriptedTransport([]))
        // The OneNote picker's one-call request (anchors.md).
        let notebooks = graph.me.onenote.notebooks.request().expand(
            "sections",
            Expansion("sectionGroups").expand("sections", Expansion("sectionGroups").allLevels().expand("sections")))
        #expect(
            notebooks.request.queryValue("$expand")
                == "sections,sectionGroups($expand=sections,sectionGroups($levels=max;$expand=sections))")
        // In the URL, `=` inside the value is escaped like every query value's.
        #expect(
            url(notebooks.request).hasSuffix(
                "notebooks?$expand=sections,sectionGroups($expand%3Dsections,sectionGroups($levels%3Dmax;$expand%3Dsections))"
            ))
        // Setting an option again replaces it instead of repeating it.
        #expect(Expansion("children").top(5).select("id").top(2).description == "children($select=id;$top=2)")
    }

    @Test func itemsAddressedByPathEncodeEachComponentAndCannotClimbOut() {
        let root = ResourcePath("me", "drive", "root")
        #expect(root.appending(pathBelow: "Docs/Q1 report.txt").description == "/me/drive/root:/Docs/Q1%20report.txt:")
        #expect(root.appending(pathBelow: "/a:b/../c?d#e/").description == "/me/drive/root:/a%3Ab/c%3Fd%23e:")
        #expect(root.appending(pathBelow: "").description == "/me/drive/root")
        #expect(root.appending(pathBelow: "a/b").appending("children").description == "/me/drive/root:/a/b:/children")
    }

    @Test func streamContentDownloadsAndUploadsAtItsOwnURL() async throws {
        let transport = ScriptedTransport([
            .init(status: 200, body: "hello"),
            .init(status: 201, body: #"{"id":"f1","name":"a.txt","size":5}"#),
        ])
        let graph = GoldenODataClient(baseURL: base, transport: transport)
        let content = graph.drive.items("f1").content
        #expect(url(content.downloadRequest) == "https://graph.example.com/v1.0/drive/items/f1/content")
        #expect(try await content.download() == Array("hello".utf8))
        let stored = try await content.upload(.bytes(Array("hello".utf8)), contentType: "text/plain")
        #expect(stored?.size == 5)
        #expect(transport.requests.last?.method == .put)
        #expect(transport.requests.last?.headerFields[.contentType] == "text/plain")
        #expect(transport.bodies.last == "hello")
    }

    @Test func multipartFormsKeepNamesOnTheirLine() throws {
        let form = MultipartForm(
            [
                .field(name: "note", value: "hi"),
                .file(name: "file", filename: "a\"b\r\n.txt", contentType: "text/plain", bytes: Array("xyz".utf8)),
            ],
            boundary: "B")
        let text = String(decoding: form.encoded(), as: UTF8.self)
        #expect(
            text == "--B\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n"
                + "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a%22b%0D%0A.txt\"\r\nContent-Type: text/plain\r\n\r\nxyz\r\n"
                + "--B--\r\n")
        var request = APIRequest(method: .post, path: ResourcePath("files"))
        request.setMultipartBody(form)
        #expect(request.headers[.contentType] == "multipart/form-data; boundary=B")
        // A line break followed by a combining mark is one `Character` with the mark; it is encoded all the same
        // (the multipart fuzzer found it).
        let marked = MultipartForm([.field(name: "n\n\u{34D}\r\u{301}", value: "")], boundary: "B")
        #expect(
            String(decoding: marked.encoded(), as: UTF8.self)
                == "--B\r\nContent-Disposition: form-data; name=\"n%0A\u{34D}%0D\u{301}\"\r\n\r\n\r\n--B--\r\n")
    }

    @Test func aDiscriminatorMemberPicksTheDerivedType() throws {
        // Inbox tells `when` forms apart by `object`, not by `@odata.type`.
        let event = try GoldenOpenAPI.Event(
            jsonBytes: Array(#"{"id":"e1","when":{"object":"timespan","start_time":1,"end_time":2}}"#.utf8))
        let when = try #require(event.when)
        #expect(when.typeTag == "timespan")
        #expect(when.resolved is Timespan)
        #expect(when.downcast(to: Timespan.self)?.endTime == 2)
        #expect(when.downcast(to: Time.self) == nil)
        // The derived schema validates: a timespan with a non-integer start fails with its path.
        #expect(throws: ModelDecodingError.self) {
            try GoldenOpenAPI.Event(jsonBytes: Array(#"{"when":{"object":"timespan","start_time":"soon"}}"#.utf8))
        }
        // An unknown form stays a plain `When`, nothing lost.
        let other = try When(jsonBytes: Array(#"{"object":"date","date":"2014-06-01"}"#.utf8))
        #expect(other.resolved is When)
        #expect(other.additionalData["date"] == .string("2014-06-01"))
    }

    @Test func looseStringsAcceptNumbersAndKeepTheirText() throws {
        #expect(String(looseJSON: try json("12345678901234567890123456")) == "12345678901234567890123456")
        #expect(String(looseJSON: try json("true")) == "true")
        #expect(String(json: try json("12")) == nil)
    }
}
