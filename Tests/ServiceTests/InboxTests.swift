import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Inbox
import Testing

/// The Inbox module: namespaces, thread filters, drafts with versions, sending, files, cursor delta and the
/// four forms of an event's `when`.
@Suite struct InboxTests {
    func client(_ replies: [CapturingTransport.Reply] = []) -> (InboxClient, CapturingTransport) {
        let transport = CapturingTransport(replies)
        return (InboxClient(auth: InboxSignIn.auth(token: "tok"), transport: transport, middleware: []), transport)
    }

    @Test func listsThreadsWithFiltersAndOffsetPaging() async throws {
        let (inbox, transport) = client([
            .init(
                body:
                    #"[{"id":"t1","object":"thread","namespace_id":"ns","subject":"Hi","tags":[{"id":"inbox","name":"inbox"},{"id":"unread","name":"unread","readonly":"true"}],"last_message_timestamp":1398291521,"x_new_field":1}]"#
            )
        ])
        let threads = inbox.namespaces("ns").threads.list(to: "ben@example.com", tag: "unread", limit: 50)
        let page = try await threads.get()
        let sent = try #require(transport.last)
        #expect(sent.url == "https://api.inboxapp.com/n/ns/threads")
        let query = sent.head.path?.split(separator: "?").last.map(String.init) ?? ""
        #expect(query.contains("to=ben@example.com") && query.contains("tag=unread") && query.contains("limit=50"))
        // The token is the Basic user name with an empty password.
        #expect(sent.head.headerFields[.authorization] == "Basic " + Data("tok:".utf8).base64EncodedString())
        let thread = try #require(page.value.first)
        // Tags era: unread is a tag, and system tags are read-only (older servers send "true").
        #expect(thread.tags?.map(\.id) == ["inbox", "unread"])
        #expect(thread.tags?.last?.readonly == true)
        #expect(thread.lastMessageTimestamp == 1_398_291_521)
        #expect(thread.additionalData["x_new_field"] != nil)
        // A short page ends the sequence.
        #expect(page.nextRequest == nil)
    }

    /// `view=count`, `view=ids` and `view=expanded` over HTTP against the mock: each variant is its own typed call,
    /// and the three agree with the plain listing.
    @Test func viewsCountAndListIdsOfTheSameFilter() async throws {
        let mock = try await MockServer(.inbox)
        let threads = ["n", "ns", "threads"]
        for (index, unread) in [true, false, true, true, false].enumerated() {
            var tags: [JSONValue] = [["id": "inbox", "name": "inbox"]]
            if unread { tags.append(["id": "unread", "name": "unread"]) }
            mock.store.insert(
                ["object": "thread", "subject": .string("thread \(index)"), "tags": .array(tags)], into: threads,
                logged: false)
        }
        let inbox = InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken))
        let space = inbox.namespaces("ns")
        let listed = try await space.threads.list(tag: "unread").all().reduce(into: []) { $0.append($1.id) }
        let count = try await space.threads.count(tag: "unread").send()
        let ids = try await space.threads.ids(tag: "unread").send()
        let expanded = try await space.threads.expanded(tag: "unread").get()
        await mock.stop()
        #expect(listed.count == 3)
        #expect(count.count == 3)
        #expect(ids == listed.compactMap { $0 })
        #expect(expanded.value.map(\.id) == listed)
        let views = mock.requests.compactMap { $0.queryValue("view") }
        #expect(views == ["count", "ids", "expanded"])
    }

    @Test func changesTagsAndSendsADraftWithItsVersion() async throws {
        let (inbox, transport) = client([
            .init(body: #"{"id":"t1","object":"thread","subject":"Hi"}"#),
            .init(body: #"{"id":"m1","object":"message","subject":"Hi"}"#),
            .init(body: "{}"),
        ])
        var changes = TagChanges()
        changes.addTags = ["important"]
        changes.removeTags = ["unread"]
        _ = try await inbox.namespaces("ns").threads("t1").updateTags(changes).send()
        #expect(transport.sent[0].head.method == .put)
        #expect(transport.sent[0].url == "https://api.inboxapp.com/n/ns/threads/t1")
        #expect(transport.sent[0].bodyJSON == (try json(#"{"add_tags":["important"],"remove_tags":["unread"]}"#)))
        let sent = try await inbox.namespaces("ns").send(draftID: "d1", version: 2).send()
        #expect(transport.sent[1].url == "https://api.inboxapp.com/n/ns/send")
        #expect(transport.sent[1].bodyJSON == (try json(#"{"draft_id":"d1","version":2}"#)))
        #expect(sent.id == "m1")
        try await inbox.namespaces("ns").drafts("d1").delete(version: 3).send()
        #expect(transport.sent[2].head.method == .delete)
        #expect(transport.sent[2].url == "https://api.inboxapp.com/n/ns/drafts/d1")
        #expect(transport.sent[2].bodyJSON == (try json(#"{"version":3}"#)))
    }

    @Test func uploadsFilesAsMultipartAndDownloadsBytes() async throws {
        let (inbox, transport) = client([
            .init(body: #"[{"id":"f1","object":"file","filename":"a.txt","size":3,"content_type":"text/plain"}]"#),
            .init(body: "abc"),
        ])
        let files = try await inbox.namespaces("ns").files.upload(
            .file(bytes("abc"), filename: "a.txt", contentType: "text/plain")
        ).send()
        let upload = try #require(transport.sent.first)
        #expect(upload.head.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(upload.bodyText?.contains("name=\"file\"; filename=\"a.txt\"") == true)
        #expect(files.first?.size == 3)
        #expect(try await inbox.namespaces("ns").files("f1").download().send() == bytes("abc"))
        #expect(transport.sent[1].url == "https://api.inboxapp.com/n/ns/files/f1/download")
    }

    @Test func cursorDeltaRunsUntilStartEqualsEnd() async throws {
        let (inbox, transport) = client([
            .init(body: #"{"cursor":"c0"}"#),
            .init(
                body:
                    #"{"cursor_start":"c0","cursor_end":"c2","deltas":[{"object":"thread","event":"modify","id":"t1","cursor":"c1","attributes":{"id":"t1","object":"thread","subject":"Re: Hi"}},{"object":"message","event":"delete","id":"m9","cursor":"c2"}]}"#
            ),
            .init(body: #"{"cursor_start":"c2","cursor_end":"c2","deltas":[]}"#),
        ])
        var start = CursorStart()
        start.start = 1_398_291_521
        let cursor = try await inbox.namespaces("ns").delta.generateCursor(start).send()
        #expect(transport.sent[0].url == "https://api.inboxapp.com/n/ns/delta/generate_cursor")
        var events: [DeltaEvent] = []
        for try await round in inbox.namespaces("ns").delta.listChanges(
            cursor: try #require(cursor.cursor), excludeTypes: "contact"
        ).deltaRounds() {
            events += round.events
        }
        #expect(events.map(\.id) == ["t1", "m9"])
        #expect(events[1].isDeletion)
        #expect(try events[0].decode(MailThread.self)?.subject == "Re: Hi")
        #expect(transport.sent.count == 3)
        #expect(transport.sent[2].head.path?.contains("cursor=c2") == true)
    }

    @Test func eventTimesComeInFourForms() throws {
        let forms = [
            #"{"object":"time","time":1408875644}"#,
            #"{"object":"timespan","start_time":1409594400,"end_time":1409598000}"#,
            #"{"object":"date","date":"1912-06-23"}"#,
            #"{"object":"datespan","start_date":"1815-12-10","end_date":"1852-11-27"}"#,
        ]
        var kinds: [String] = []
        for form in forms {
            let event = try Inbox.Event(
                jsonBytes: bytes(#"{"id":"e","object":"event","title":"T","when":"# + form + "}"))
            switch try #require(event.when).form {
            case .time(let time): kinds.append("time \(time.time ?? 0)")
            case .timespan(let span): kinds.append("timespan \((span.endTime ?? 0) - (span.startTime ?? 0))")
            case .date(let day): kinds.append("date \(day.date?.year ?? 0)")
            case .datespan(let span): kinds.append("datespan \(span.endDate?.year ?? 0)")
            case .other: kinds.append("other")
            }
        }
        #expect(kinds == ["time 1408875644", "timespan 3600", "date 1912", "datespan 1852"])
        // A date that is not a date fails against the derived type's schema, with its path.
        do {
            _ = try Inbox.Event(jsonBytes: bytes(#"{"when":{"object":"date","date":"June"}}"#))
            Issue.record("a bad date must fail")
        } catch {
            #expect(error.jsonPath == "$.when.date")
        }
    }

    @Test func errorsAreTyped() async throws {
        let (inbox, _) = client([
            .init(status: 409, body: #"{"type":"invalid_request_error","message":"Draft version is stale"}"#)
        ])
        do {
            _ = try await inbox.namespaces("ns").send(draftID: "d1", version: 1).send()
            Issue.record("a 409 must throw")
        } catch {
            #expect(error.status == 409 && error.serviceCode == "invalid_request_error")
            #expect(error.message == "Draft version is stale")
        }
    }
}
