import BinderyRuntime
import Foundation
import Graph
import Testing

/// The Graph module: mail, calendar and `$batch` requests, and Outlook payloads with their quirks.
@Suite struct GraphTests {
    func client(_ replies: [CapturingTransport.Reply] = []) -> (GraphClient, CapturingTransport) {
        let transport = CapturingTransport(replies)
        return (GraphClient(transport: transport, middleware: []), transport)
    }

    @Test func sendMailPostsTheMessageAndSaveFlagAndAccepts202() async throws {
        let (graph, transport) = client([.init(status: 202)])
        var message = Message()
        var body = ItemBody()
        body.contentType = .html
        body.content = "<p>Hi</p>"
        message.subject = "Welcome"
        message.body = body
        var to = Recipient()
        var address = EmailAddress()
        address.address = "alex@contoso.com"
        to.emailAddress = address
        message.toRecipients = [to]
        try await graph.me.sendMail(message: message, saveToSentItems: true).send()
        let sent = try #require(transport.last)
        #expect(sent.head.method == .post)
        #expect(sent.url == "https://graph.microsoft.com/v1.0/me/sendMail")
        #expect(sent.head.headerFields[.contentType] == "application/json")
        // Parameter names as $metadata declares them; the documentation's `message` and `saveToSentItems` are the
        // same parameters, since Graph matches action parameters without regard to case.
        #expect(
            sent.bodyJSON
                == (try json(
                    #"""
                    {"Message":{"subject":"Welcome","body":{"contentType":"html","content":"<p>Hi</p>"},
                     "toRecipients":[{"emailAddress":{"address":"alex@contoso.com"}}]},"SaveToSentItems":true}
                    """#)))
    }

    @Test func buildsMailFolderMessageAndEventRequests() {
        let (graph, _) = client()
        let base = GraphClient.defaultBaseURL
        func url(_ request: APIRequest) -> String { request.url(relativeTo: base).absoluteString }
        #expect(
            url(
                graph.me.mailFolders("inbox").messages.request().filter("isRead eq false").orderBy(
                    "receivedDateTime desc"
                ).top(10).request)
                == "https://graph.microsoft.com/v1.0/me/mailFolders/inbox/messages?$filter=isRead%20eq%20false&$orderby=receivedDateTime%20desc&$top=10"
        )
        #expect(
            url(graph.me.mailFolders("inbox").messages.delta().request)
                == "https://graph.microsoft.com/v1.0/me/mailFolders/inbox/messages/delta()")
        #expect(
            url(graph.users("a@b.com").messages("AAMk=").request().select("subject").request)
                == "https://graph.microsoft.com/v1.0/users/a@b.com/messages/AAMk=?$select=subject")
        #expect(url(graph.me.events.request().request) == "https://graph.microsoft.com/v1.0/me/events")
        #expect(
            url(graph.me.calendar.events("E1").request().request)
                == "https://graph.microsoft.com/v1.0/me/calendar/events/E1")
        #expect(url(graph.me.messages("M1").send().request) == "https://graph.microsoft.com/v1.0/me/messages/M1/send")
    }

    @Test func messagesDecodeWithPolymorphicAttachmentsAndUnknownFields() throws {
        let wire = #"""
            {"@odata.etag":"W/\"CQAAABYAAAB\"","id":"AAMkAGI2","subject":"Q3 numbers","importance":"high",
             "receivedDateTime":"2017-04-21T10:00:00.1234567Z","isRead":false,"categories":[],"flag":{"flagStatus":"notFlagged"},
             "from":{"emailAddress":{"name":"Megan","address":"megan@contoso.com"}},"bodyPreview":null,
             "attachments":[
               {"@odata.type":"#microsoft.graph.fileAttachment","id":"A1","name":"q3.xlsx","size":12,"isInline":false,"contentBytes":"SGVsbG8="},
               {"@odata.type":"#microsoft.graph.itemAttachment","id":"A2","name":"fwd","size":300,"isInline":false}],
             "propertyGraphMayAddLater":"focused"}
            """#
        let message = try Message(jsonBytes: bytes(wire))
        #expect(message.importance == .high)
        #expect(message.from?.emailAddress?.address == "megan@contoso.com")
        #expect(message.receivedDateTime?.timeIntervalSince1970 == 1_492_768_800.1234567)
        let attachments = try #require(message.attachments)
        #expect(attachments[0].resolved is FileAttachment)
        #expect(attachments[0].downcast(to: FileAttachment.self)?.contentBytes == Data("Hello".utf8))
        #expect(attachments[1].resolved is ItemAttachment)
        #expect(message.additionalData["propertyGraphMayAddLater"] == .string("focused"))
        #expect(try roundTrips(message, wire))
        // A file attachment whose bytes are not base64 fails where it is.
        #expect(throws: ModelDecodingError.self) {
            try Message(
                jsonBytes: bytes(
                    ##"{"attachments":[{"@odata.type":"#microsoft.graph.fileAttachment","contentBytes":"%%%"}]}"##))
        }
    }

    @Test func eventTimesWithoutAnOffsetUseTheirZone() throws {
        let event = try Event(
            jsonBytes: bytes(
                #"""
                {"id":"E1","subject":"Standup","start":{"dateTime":"2017-04-21T10:00:00.0000000","timeZone":"UTC"},
                 "end":{"dateTime":"2017-04-21T10:30:00.5000000","timeZone":"America/Los_Angeles"},"isAllDay":false}
                """#))
        #expect(event.start?.date == Date(timeIntervalSince1970: 1_492_768_800))
        // 10:30:00.5 in Los Angeles (UTC-7 in April) is 17:30:00.5 UTC.
        #expect(event.end?.date == Date(timeIntervalSince1970: 1_492_795_800.5))
        var windows = DateTimeTimeZone()
        windows.dateTime = "2017-04-21T10:00:00"
        windows.timeZone = "Pacific Standard Time"
        #expect(windows.date == nil)
        for broken in ["", ".", "2017-04-21", "T::"] {
            var value = DateTimeTimeZone()
            value.dateTime = broken
            #expect(value.date == nil)
        }
        var withOffset = DateTimeTimeZone()
        withOffset.dateTime = "2017-04-21T10:00:00Z"
        withOffset.timeZone = "Pacific Standard Time"
        #expect(withOffset.date == Date(timeIntervalSince1970: 1_492_768_800))
    }

    @Test func mailDeltaMarksRemovedMessagesAndKeepsTheDeltaLink() async throws {
        let (graph, _) = client([
            .init(
                body: #"""
                    {"value":[{"id":"M1","subject":"hi"},{"id":"M2","@removed":{"reason":"deleted"}}],
                     "@odata.deltaLink":"https://graph.microsoft.com/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=abc"}
                    """#)
        ])
        let page = try await graph.me.mailFolders("inbox").messages.delta().get()
        #expect(page.value.map(\.isDeletedInDelta) == [false, true])
        #expect(
            page.deltaLink?.absoluteString
                == "https://graph.microsoft.com/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=abc")
    }

    @Test func aBatchStepThatFollowsALinkIsAddressedBelowTheVersion() async throws {
        let (graph, transport) = client([.init(body: #"{"responses":[{"id":"1","status":200,"body":{}}]}"#)])
        let link = try #require(
            URL(string: "https://graph.microsoft.com/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=abc"))
        let resumed = graph.me.mailFolders("inbox").messages.delta().following(link)
        _ = try await graph.batch([BatchStep(id: "1", resumed.request)])
        let step = try #require(transport.sent.first?.bodyJSON?["requests"]?.arrayValue?.first)
        #expect(step["url"] == "/me/mailFolders/inbox/messages/delta?$deltatoken=abc")
    }

    @Test func batchSendsAtMostTwentyStepsPerCall() async throws {
        let answer = { (ids: any Sequence<Int>) in
            CapturingTransport.Reply(
                body: #"{"responses":["#
                    + ids.map { #"{"id":"\#($0)","status":200,"body":{"id":"u\#($0)"}}"# }.joined(separator: ",") + "]}"
            )
        }
        let (graph, transport) = client([answer(0..<20), answer((20..<25).reversed())])
        let steps = (0..<25).map {
            BatchStep(id: String($0), graph.users("u\($0)").request().select("id").request)
        }
        let answers = try await graph.batch(steps)
        #expect(transport.sent.count == 2)
        #expect(transport.sent[0].url == "https://graph.microsoft.com/v1.0/$batch")
        let first = try #require(transport.sent[0].bodyJSON?["requests"]?.arrayValue)
        #expect(first.count == 20)
        #expect(first[3] == (try json(#"{"id":"3","method":"GET","url":"/users/u3?$select=id"}"#)))
        #expect(transport.sent[1].bodyJSON?["requests"]?.arrayValue?.count == 5)
        #expect(answers.count == 25 && answers.allSatisfy(\.succeeded))
        // Answers come back in the order of the steps, whatever order the service used.
        #expect(answers.map(\.id) == (0..<25).map { String($0) })
        #expect(try answers[24].decode(User.self).id == "u24")
    }

    @Test func batchAnswersCarryingBytesAreDecodedAndAMissingAnswerIsAnError() async throws {
        let photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x01]
        let bytes = CapturingTransport.Reply(
            body: #"{"responses":[{"id":"p","status":200,"headers":{"Content-Type":"image/jpeg"},"body":""#
                + Data(photo).base64EncodedString() + #""}]}"#)
        let (graph, transport) = client([bytes, CapturingTransport.Reply(body: #"{"responses":[]}"#)])
        let step = BatchStep(id: "p", graph.me.request().request)
        let answers = try await graph.batch([step])
        #expect(answers[0].response.body == photo)
        #expect(answers[0].response.headers[.contentType] == "image/jpeg")
        await #expect(throws: BinderyError.self) { try await graph.batch([step]) }
        #expect(transport.sent.count == 2)
    }
}
