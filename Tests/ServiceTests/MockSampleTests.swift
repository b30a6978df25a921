import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import HTTPTypes
import Inbox
import OneDrive
import OneNote
import Spark
import Testing

/// The hand-written samples `bindery mock` serves by default, read over HTTP through the generated clients: what
/// the banner promises is there, and the pieces agree with each other (ids, paths, counts, hashes).
@Suite struct MockSampleTests {
    /// A mock of `service` with its sample and nothing else.
    static func mock(_ service: MockService) async throws -> MockServer {
        let mock = try await MockServer(service)
        mock.seed(try #require(try MockSample.of(service), "\(service.name) has a sample"))
        return mock
    }

    @Test func oneDriveIsAFolderTreeReachableFromMeByIdAndByPath() async throws {
        let mock = try await Self.mock(.oneDrive)
        defer { Task { await mock.stop() } }
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        let drive = try await client.me.drive.request().get()
        #expect(drive.id == "sample-drive")
        let root = try await client.me.drive.root.children.request().get().value
        #expect(root.map(\.name) == ["Documents", "Photos", "Welcome.txt"])
        #expect(root.map(\.isFolder) == [true, true, false])
        let documents = try #require(root.first)
        let listed = try await client.me.drive.items(try #require(documents.id)).children.request().get().value
        #expect(listed.map(\.name) == ["notes.txt", "budget-2026.csv", "Recipes"])
        #expect(documents.folder?.childCount == 3)
        // The same folder by path, and the same drive by its id.
        let byPath = try await client.me.drive.root.item(atPath: "Documents").children.request().get().value
        #expect(byPath.map(\.id) == listed.map(\.id))
        let deep = try await client.me.drive.root.item(atPath: "Documents/Recipes/pancakes.md").request().get()
        #expect(deep.id == "sample-pancakes")
        let photos = try await client.drives("sample-drive").items("sample-photos").children.request().get().value
        #expect(photos.map(\.name) == ["sunrise.svg", "lighthouse.svg"])

        // A file carries its size and quickXorHash, and its content downloads and matches both.
        let notes = try await client.me.drive.root.item(atPath: "Documents/notes.txt").request().get()
        #expect((notes.size ?? 0) > 0)
        #expect(notes.file?.hashes?.quickXorHash != nil)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID()).txt").path
        defer { try? FileManager.default.removeItem(atPath: destination) }
        _ = try await client.me.drive.items("sample-notes").download(to: destination)
        let text = try String(contentsOfFile: destination, encoding: .utf8)
        #expect(text.hasPrefix("Ideas for the garden"))
        #expect(text.utf8.count == Int(notes.size ?? -1))

        // The sample is part of the seeded state: a reset brings a deleted file back.
        try await client.me.drive.items("sample-welcome").request().delete()
        #expect(try await client.me.drive.root.children.request().get().value.count == 2)
        mock.reset()
        #expect(try await client.me.drive.root.children.request().get().value.count == 3)
    }

    @Test func oneNoteWalksNotebooksSectionGroupsSectionsAndPages() async throws {
        let mock = try await Self.mock(.oneNote)
        defer { Task { await mock.stop() } }
        let onenote = OneNoteClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        let notebooks = try await onenote.notebooks.request().get().value
        #expect(notebooks.map(\.displayName) == ["Kitchen", "Travel"])
        let kitchen = try #require(notebooks.first?.id)
        let sections = try await onenote.notebooks(kitchen).sections.request().get().value
        #expect(sections.map(\.title) == ["Recipes", "Shopping"])
        let groups = try await onenote.notebooks(kitchen).sectionGroups.request().get().value
        #expect(groups.map(\.displayName) == ["Baking"])
        let baking = try await onenote.sectionGroups(try #require(groups.first?.id)).sections.request().get().value
        #expect(baking.map(\.title) == ["Bread", "Cakes"])
        let pages = try await onenote.sections(try #require(sections.first?.id)).pages.request().get().value
        #expect(pages.map(\.title) == ["Lentil soup", "Pancakes"])
        let html = String(
            decoding: try await onenote.pages(try #require(pages.first?.id)).content.download(), as: UTF8.self)
        #expect(html.contains("Red lentils"))
        // A page by id, wherever it is listed.
        let starter = try await onenote.pages("sample-page-starter").request().get()
        #expect(starter.title == "Feeding the starter")

        // The picker's one call finds the same tree nested.
        let tree = try await onenote.notebooksWithSections().get().value
        let travel = try #require(tree.last)
        #expect(travel.sections?.map(\.title) == ["Plans"])
        #expect(travel.sectionGroups?.first?.sections?.map(\.title) == ["Spring 2026"])
    }

    @Test func sparkHasTheAccountAndListingsThatPageAndFilter() async throws {
        let mock = try await Self.mock(.spark)
        defer { Task { await mock.stop() } }
        let client = SparkClient(
            userAgent: "Bindery tests", baseURL: mock.serviceURL,
            auth: StaticTokenAuth(mock.identity.acceptedToken, scheme: .oauth))

        let account = try await client.my.getAccount().get().value
        #expect(account.map(\.name) == ["Robin Ash"])
        let first = try await client.listings.list(limit: 2).get()
        #expect(first.value.count == 2)
        #expect(first.nextRequest != nil)
        var all: [Listing] = []
        for try await listing in client.listings.list(limit: 2).all() { all.append(listing) }
        #expect(all.count == 5)
        #expect(Set(all.compactMap(\.id)).count == 5)
        // Filtered and sorted on StandardFields: the sample lists the dearer Fargo house first.
        let fargo = try await client.listings.list(filter: "City Eq 'Fargo'", orderby: "ListPrice").get().value
        #expect(fargo.compactMap { $0.standardFields?.listPrice } == [159500, 249900])
        let dearest = try await client.listings.list(orderby: "-ListPrice", limit: 1).get().value
        #expect(dearest.compactMap { $0.standardFields?.city } == ["West Fargo"])
        let withPhotos = try await client.listings(try #require(all.first?.id)).photos.request().get().value
        #expect(withPhotos.map(\.name) == ["Front", "Kitchen"])
    }

    @Test func inboxHasThreadsWithMessagesTagsContactsAndADraftThatSends() async throws {
        let mock = try await Self.mock(.inbox)
        defer { Task { await mock.stop() } }
        let inbox = InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken))

        let namespaces = try await inbox.namespaces.request().get().value
        #expect(namespaces.map(\.id) == ["sample-ns"])
        let space = inbox.namespaces("sample-ns")
        let threads = try await space.threads.list().get().value
        #expect(threads.map(\.subject) == ["Dinner on Friday?", "Seed order", "Plot allocations for spring"])
        #expect(try await space.threads.list(tag: "unread").get().value.count == 2)
        #expect(try await space.threads.list(tag: "garden").get().value.count == 2)
        let dinner = try await space.messages.list(threadId: "sample-thread-dinner").get().value
        #expect(dinner.count == threads.first?.messageIds?.count)
        #expect(try await space.tags.list().get().value.contains { $0.name == "garden" })
        #expect(try await space.contacts.list().get().value.count == 3)
        let attachment = try await space.files("sample-file-seeds").download().send()
        #expect(String(decoding: attachment, as: UTF8.self).contains("sweet peas"))

        let drafts = try await space.drafts.list().get().value
        let draft = try #require(drafts.first)
        #expect(drafts.count == 1)
        let sent = try await space.send(draftID: try #require(draft.id), version: try #require(draft.version))
            .send()
        #expect(sent.threadId == "sample-thread-seeds")
        #expect(try await space.drafts.list().get().value.isEmpty)
        #expect(try await space.messages.list(threadId: "sample-thread-seeds").get().value.count == 2)
    }

    @Test func graphHasMeMailInWellKnownFoldersAndEvents() async throws {
        let mock = try await Self.mock(.graph)
        defer { Task { await mock.stop() } }
        let client = GraphClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        #expect(try await client.me.request().get().displayName == "Robin Ash")
        let folders = try await client.me.mailFolders.request().get().value
        #expect(folders.map(\.displayName) == ["Inbox", "Sent Items", "Drafts"])
        let inboxMessages = try await client.me.mailFolders("inbox").messages.request().get().value
        #expect(inboxMessages.count == folders.first?.totalItemCount.map(Int.init))
        let unread = try await client.me.mailFolders("inbox").messages.request().filter("isRead eq false").get().value
        #expect(unread.count == folders.first?.unreadItemCount.map(Int.init))
        #expect(
            try await client.me.messages("sample-msg-review").request().get().subject
                == "Design review moved to Thursday")
        let events = try await client.me.events.request().get().value
        #expect(events.map(\.subject) == ["Design review", "Team stand-up", "Dentist"])

        // Sent mail lands in the sample's Sent Items, found by its well-known name.
        var message = Message()
        message.subject = "Agenda attached"
        try await client.me.sendMail(message: message, saveToSentItems: true).send()
        let sentItems = try await client.me.mailFolders("sentitems").messages.request().get().value
        #expect(sentItems.map(\.subject) == ["Re: Quarterly figures", "Agenda attached"])
    }

    /// Every path a banner shows answers, and not with an empty list: the issue's 404 and `[]` cannot come back.
    @Test(arguments: MockService.all.map(\.name))
    func everyPathTheBannerShowsAnswersWithSomething(_ name: String) async throws {
        let service = try #require(MockService.named(name))
        let mock = try await Self.mock(service)
        defer { Task { await mock.stop() } }
        let sample = try #require(try MockSample.of(service))
        #expect(sample.tours.count >= 4)
        let transport = DefaultTransport.shared
        for tour in sample.tours {
            var head = try Self.get(mock.serviceURL.absoluteString + "/" + tour.path)
            head.headerFields[.authorization] =
                service.name == "Inbox"
                ? "Basic " + Data("\(mock.identity.acceptedToken):".utf8).base64EncodedString()
                : "Bearer \(mock.identity.acceptedToken)"
            let response = try await transport.send(TransportRequest(head))
            let answer = response.status.code == 302 ? try await Self.follow(response, transport) : response
            #expect(answer.status.code == 200, "\(tour.path): \(answer.status.code)")
            #expect(Self.holdsSomething(answer.body), "\(tour.path) answered nothing")
        }
    }

    /// OneDrive's content answers 302 to the storage host, which takes no credentials.
    static func follow(_ response: APIResponse, _ transport: any HTTPTransport) async throws -> APIResponse {
        return try await transport.send(TransportRequest(try get(try #require(response.headers[.location]))))
    }

    static func get(_ address: String) throws -> HTTPRequest {
        let url = try #require(URLComponents(string: address), "\(address)")
        let path = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        return HTTPRequest(
            method: .get, scheme: url.scheme, authority: "\(url.host ?? ""):\(url.port ?? 80)", path: path)
    }

    /// A non-empty body that is not an empty list in any service's shape.
    static func holdsSomething(_ body: [UInt8]) -> Bool {
        guard !body.isEmpty else { return false }
        guard let json = try? JSONValue.parse(body) else { return true }  // bytes: a file's content
        let list = json["value"]?.arrayValue ?? json["D"]?["Results"]?.arrayValue ?? json.arrayValue
        return list.map { !$0.isEmpty } ?? true
    }
}
