import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneNote
import Testing

/// The OneNote module: the notebook → section group → section hierarchy, on Graph and on the legacy API.
@Suite struct OneNoteTests {
    /// A port already taken is an error of its own, given at once: the mock waits up to a minute for a slow start,
    /// but never for a bind that failed.
    @Test func aTakenPortIsTheBindError() async throws {
        let first = try await MockServer(.oneNote)
        let error = await #expect(throws: (any Error).self) { _ = try await MockServer(.oneNote, port: first.port) }
        #expect(!String(describing: error).contains("notListening"), "\(String(describing: error))")
        #expect(!String(describing: error).contains("timed out"), "\(String(describing: error))")
        await first.stop()
    }

    func client(_ replies: [CapturingTransport.Reply] = [], base: URL = OneNoteClient.defaultBaseURL)
        -> (OneNoteClient, CapturingTransport)
    {
        let transport = CapturingTransport(replies)
        return (OneNoteClient(baseURL: base, transport: transport, middleware: []), transport)
    }

    /// `PATCH pages/{id}/content` with a list of commands, over HTTP against the mock, which applies them.
    @Test func patchesAPageWithCommands() async throws {
        let mock = try await MockServer(.oneNote)
        mock.store.insert(["title": "Offer"], into: ["pages"], key: "p1", logged: false)
        mock.store.setBlob(Array("<p>First</p>".utf8), at: ["pages", "p1", "content"])
        let onenote = OneNoteClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        let commands: JSONValue = [
            ["target": "body", "action": "append", "content": "<p>Second</p>"],
            ["target": "body", "action": "prepend", "content": "<h1>Offer</h1>"],
        ]
        try await onenote.pages("p1").content.patch(commands).send()
        let html = String(decoding: try await onenote.pages("p1").content.download(), as: UTF8.self)
        // A command the mock cannot apply is an API error, not a silent success.
        await #expect(throws: BinderyError.self) {
            try await onenote.pages("p1").content.patch(JSONValue.array([["target": "#p:{1}", "action": "replace"]]))
                .send()
        }
        let sent = mock.requests.first { $0.method == "PATCH" }
        await mock.stop()
        #expect(html == "<h1>Offer</h1><p>First</p><p>Second</p>")
        #expect(sent?.path.hasSuffix("/pages/p1/content") == true)
        #expect(sent?.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test func navigatesTheHierarchyOnGraphAndLegacyBases() {
        let (onenote, _) = client()
        let sections = onenote.notebooks("nb-1").sectionGroups("sg-2").sections.request().orderBy("displayName")
        #expect(
            sections.request.url(relativeTo: OneNoteClient.defaultBaseURL).absoluteString
                == "https://graph.microsoft.com/v1.0/me/onenote/notebooks/nb-1/sectionGroups/sg-2/sections?$orderby=displayName"
        )
        #expect(
            onenote.sections("s-1").pages.request().request.url(relativeTo: OneNoteClient.legacyBaseURL).absoluteString
                == "https://www.onenote.com/api/v1.0/me/notes/sections/s-1/pages")
    }

    @Test func thePickersOneCallRequest() async throws {
        let (onenote, transport) = client([.init(body: #"{"value":[]}"#)], base: OneNoteClient.legacyBaseURL)
        _ = try await onenote.notebooksWithSections().get()
        let query = try #require(transport.last?.head.path?.split(separator: "?", maxSplits: 1).last)
        #expect(
            query.removingPercentEncoding
                == "$expand=sections,sectionGroups($expand=sections,sectionGroups($levels=max;$expand=sections))")
        #expect(transport.last?.url.hasPrefix("https://www.onenote.com/api/v1.0/me/notes/notebooks") == true)
    }

    @Test func readsLegacyAndGraphSectionsAlike() throws {
        // The legacy API as the iOS picker saw it: `name`, `createdTime`, `lastModifiedTime`, a string modifier.
        let legacy = try OnenoteSection(
            jsonBytes: bytes(
                #"""
                {"isDefault":false,"pagesUrl":"https://www.onenote.com/api/v1.0/me/notes/sections/0-A!1/pages",
                 "name":"Quick Notes","createdBy":"Alex Darrow","lastModifiedBy":"Alex Darrow",
                 "lastModifiedTime":"2014-05-07T17:11:56.533Z","id":"0-A!1",
                 "self":"https://www.onenote.com/api/v1.0/me/notes/sections/0-A!1","createdTime":"2014-04-29T23:49:49.003Z"}
                """#))
        #expect(legacy.title == "Quick Notes")
        #expect(legacy.lastModifiedByName == "Alex Darrow")
        #expect(legacy.created == ISO8601.parseDateTime("2014-04-29T23:49:49.003Z"))
        #expect(legacy.lastModified == ISO8601.parseDateTime("2014-05-07T17:11:56.533Z"))
        #expect(legacy.pagesUrl?.hasSuffix("/pages") == true)
        #expect(legacy.selfValue?.hasSuffix("0-A!1") == true)

        let graph = try OnenoteSection(
            jsonBytes: bytes(
                #"""
                {"id":"1-B","displayName":"Work","createdDateTime":"2020-01-01T00:00:00Z","lastModifiedDateTime":"2020-01-02T00:00:00Z",
                 "lastModifiedBy":{"user":{"id":"u","displayName":"Megan Bowen"}},"pagesUrl":"https://graph.microsoft.com/v1.0/me/onenote/sections/1-B/pages",
                 "parentNotebook@odata.context":"https://graph.microsoft.com/v1.0/$metadata#me/onenote/sections('1-B')/parentNotebook/$entity",
                 "parentNotebook":{"id":"nb","displayName":"Notebook"}}
                """#))
        #expect(graph.title == "Work")
        #expect(graph.lastModifiedByName == "Megan Bowen")
        #expect(graph.parentNotebook?.title == "Notebook")
        #expect(graph.additionalData["parentNotebook@odata.context"] != nil)
    }

    @Test func nestedExpansionDecodesToAnyDepth() throws {
        let notebook = try Notebook(
            jsonBytes: bytes(
                #"""
                {"id":"nb","name":"Work","sections":[{"id":"s1","name":"Top"}],
                 "sectionGroups":[{"id":"g1","name":"Group","sections":[],"sectionGroups":[
                    {"id":"g2","name":"Inner","sections":[{"id":"s2","name":"Deep","pagesUrl":"https://x/pages"}],"sectionGroups":[]}]}]}
                """#))
        #expect(notebook.sections?.map(\.title) == ["Top"])
        #expect(notebook.sectionGroups?.first?.sectionGroups?.first?.sections?.first?.title == "Deep")
    }

    @Test func createsAPageFromHTML() async throws {
        let (onenote, transport) = client([
            .init(status: 201, body: #"{"id":"p1","title":"Lunch","contentUrl":"https://x/content"}"#)
        ])
        let page = try await onenote.sections("s-1").pages.create(
            html: "<html><head><title>Lunch</title></head><body/></html>")
        #expect(transport.last?.head.method == .post)
        #expect(transport.last?.url == "https://graph.microsoft.com/v1.0/me/onenote/sections/s-1/pages")
        #expect(transport.last?.head.headerFields[.contentType] == "text/html")
        #expect(transport.last?.bodyText?.contains("<title>Lunch</title>") == true)
        #expect(page.title == "Lunch")
    }

    @Test func copiesAndPollsTheOperation() async throws {
        let (onenote, transport) = client([
            .init(
                status: 202, headers: [.location: "https://graph.microsoft.com/v1.0/me/onenote/operations/op-1"],
                body: #"{"id":"op-1","status":"Running","createdDateTime":"2026-11-24T10:00:00Z"}"#),
            .init(
                body:
                    #"{"id":"op-1","status":"Completed","percentComplete":"100","resourceId":"s-2","resourceLocation":"https://graph.microsoft.com/v1.0/me/onenote/sections/s-2"}"#
            ),
        ])
        // The copy is accepted (Bindery.Monitor): the call returns the monitor of its Location.
        let monitor = try await onenote.sections("s-1").copyToNotebook(id: "nb-2", renameAs: "Copy").send()
        #expect(transport.sent[0].url == "https://graph.microsoft.com/v1.0/me/onenote/sections/s-1/copyToNotebook")
        #expect(transport.sent[0].bodyJSON == (try json(#"{"id":"nb-2","renameAs":"Copy"}"#)))
        #expect(monitor.url.absoluteString == "https://graph.microsoft.com/v1.0/me/onenote/operations/op-1")
        let done = try await monitor.waitForCompletion(pollingEvery: .zero)
        #expect(transport.sent[1].url == "https://graph.microsoft.com/v1.0/me/onenote/operations/op-1")
        #expect(done.status == .completed && done.resourceId == "s-2")
    }

    @Test func recentNotebooksPreviewsResourcesAndOtherOwners() throws {
        let (onenote, _) = client()
        #expect(
            onenote.notebooks.getRecentNotebooks(includePersonalNotebooks: true).request.path.description
                == "/notebooks/getRecentNotebooks(includePersonalNotebooks=true)")
        #expect(onenote.pages("p-1").preview().request.path.description == "/pages/p-1/preview()")
        #expect(onenote.resources("r-1").content.path.description == "/resources/r-1/content")
        #expect(
            OneNoteClient.graphBaseURL(for: .group("g 1/2")).absoluteString
                == "https://graph.microsoft.com/v1.0/groups/g%201%2F2/onenote")
        #expect(OneNoteClient.graphBaseURL(for: .me) == OneNoteClient.defaultBaseURL)
        let preview = try OnenotePagePreview(
            jsonBytes: bytes(
                #"{"previewText":"Lunch with Alex","links":{"previewImageUrl":{"href":"https://x/resources/r-1/content"}}}"#
            ))
        #expect(preview.links?.previewImageUrl?.href?.hasSuffix("/content") == true)
        var command = OnenotePatchContentCommand()
        command.target = "#list"
        command.action = .append
        command.content = "<li>Milk</li>"
        #expect(command.json == (try json(##"{"target":"#list","action":"append","content":"<li>Milk</li>"}"##)))
    }

    @Test func notebooksSectionsAndPagesRefuseWhatTheServiceRefuses() async throws {
        let (onenote, transport) = client()
        await #expect(throws: BinderyError.self) { try await onenote.notebooks("nb").request().delete() }
        await #expect(throws: BinderyError.self) { try await onenote.sections("s").request().delete() }
        await #expect(throws: BinderyError.self) { try await onenote.sections.request().add(OnenoteSection()) }
        await #expect(throws: BinderyError.self) { try await onenote.pages("p").request().update(OnenotePage()) }
        #expect(transport.sent.isEmpty)
    }

    @Test func legacyErrorsKeepTheirCodeAndHelpURL() async throws {
        let (onenote, _) = client([
            .init(
                status: 404,
                body:
                    #"{"error":{"code":"10004","message":"Not found","@api.url":"http://aka.ms/onenote-errors#C10004"}}"#
            )
        ])
        do {
            _ = try await onenote.sections("x").request().get()
            Issue.record("a 404 must throw")
        } catch {
            #expect(error.isAPIError && error.serviceCode == "10004")
            #expect(error.helpURL == "http://aka.ms/onenote-errors#C10004")
        }
    }
}
