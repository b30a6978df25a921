import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import HTTPTypes
import OneDrive
import Spark
import Testing

/// The mock does what the services' documentation says for the calls users make first, over HTTP through the
/// generated clients: uploads by path create the file and the folders on the way, `conflictBehavior` decides a
/// create that meets a name already taken (and is never stored), a create below a parent by id lands in that
/// folder; Graph's `me/messages` is every folder's mail, a message created there is a draft in Drafts until it is
/// sent, a move changes its folder and its id, a change made through `me/messages` is the folder's message
/// changed, and `$select` trims a single message. A page-number page says where it is, the service's way.
@Suite struct MockFidelityTests {
    static func oneDrive(_ mock: MockServer) -> OneDriveClient {
        OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
    }

    static func graph(_ mock: MockServer) -> GraphClient {
        GraphClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
    }

    /// Two messages in the inbox: `m1` unread, `m2` read.
    static func seedInbox(_ mock: MockServer) {
        for (key, subject, isRead) in [("m1", "Quarterly report", false), ("m2", "Lunch?", true)] {
            mock.store.insert(
                ["subject": .string(subject), "isRead": .bool(isRead), "isDraft": false],
                into: ["me", "mailFolders", "inbox", "messages"], key: key)
        }
    }

    static func subjects(in folder: String, _ graph: GraphClient) async throws -> [String] {
        try await graph.me.mailFolders(folder).messages.request().get().value.compactMap(\.subject).sorted()
    }

    /// The names in the root folder, in order.
    static func rootNames(_ client: OneDriveClient) async throws -> [String] {
        try await client.me.drive.root.children.request().get().value.compactMap(\.name).sorted()
    }

    @Test func aSimpleUploadByPathCreatesTheFileAndItsFolders() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        let client = Self.oneDrive(mock)
        let root = client.me.drive.root
        let created = try #require(
            try await root.item(atPath: "AppTest/Notes/hello.txt").content.upload(.bytes(Array("hello".utf8))))
        #expect(created.name == "hello.txt" && created.size == 5)
        let upload = try #require(mock.requests.last { $0.path.hasSuffix("/content") })
        #expect(upload.method == "PUT")
        #expect(try await Self.rootNames(client) == ["AppTest"])
        let notes = try await root.item(atPath: "AppTest/Notes").request().get()
        #expect(notes.isFolder)
        let bytes = try await root.item(atPath: "AppTest/Notes/hello.txt").content.download()
        #expect(bytes == Array("hello".utf8))
        // Again: the same item, replaced.
        let replaced = try await root.item(atPath: "AppTest/Notes/hello.txt").content.upload(.bytes(Array("hi".utf8)))
        #expect(replaced?.id == created.id && replaced?.size == 2)
    }

    @Test func anUploadSessionToAFolderThatDoesNotExistCreatesIt() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        let client = Self.oneDrive(mock)
        let file = try TestFile(bytes: 700 * 1024)
        let item = try await client.me.drive.root.upload(file: file.path, to: "Videos/2026/clip.mp4")
        #expect(item.name == "clip.mp4" && item.size == Int64(700 * 1024))
        let folder = try await client.me.drive.root.item(atPath: "Videos/2026").request().get()
        #expect(folder.isFolder)
    }

    @Test func conflictBehaviorDecidesACreateAndIsNeverStored() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        let client = Self.oneDrive(mock)
        let children = client.me.drive.root.children.request()
        let first = try await children.add(.folder(named: "AppTest", onConflict: .fail))

        let refused = await #expect(throws: BinderyError.self) {
            _ = try await children.add(.folder(named: "AppTest", onConflict: .fail))
        }
        #expect(refused?.status == 409 && refused?.serviceCode == "nameAlreadyExists")

        let renamed = try await children.add(.folder(named: "AppTest", onConflict: .rename))
        #expect(renamed.name == "AppTest 1")
        let renamedAgain = try await children.add(.folder(named: "AppTest", onConflict: .rename))
        #expect(renamedAgain.name == "AppTest 2")

        let replacement = try await children.add(.folder(named: "AppTest", onConflict: .replace))
        #expect(replacement.id != first.id)
        #expect(try await Self.rootNames(client) == ["AppTest", "AppTest 1", "AppTest 2"])

        // The instruction is not a property: no answer and no stored item carries it, selected or not.
        for item in [first, renamed, replacement] { #expect(item.conflictBehavior == nil) }
        let selected = try await client.me.drive.root.children.request().select("name").get().value
        #expect(selected.allSatisfy { $0.conflictBehavior == nil } && selected.count == 3)
        let stored = mock.store.allItems(below: []).filter { $0.object["@microsoft.graph.conflictBehavior"] != nil }
        #expect(stored.isEmpty)
    }

    /// `GET /me/messages` lists the mailbox, every folder; a sent message is in it.
    @Test func meMessagesIsEveryFolderAndHoldsWhatWasSent() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        let graph = Self.graph(mock)
        Self.seedInbox(mock)
        var message = Message()
        message.subject = "Hello from Bindery"
        var recipient = Recipient()
        var address = EmailAddress()
        address.address = "adele@contoso.example"
        recipient.emailAddress = address
        message.toRecipients = [recipient]
        try await graph.me.sendMail(message: message, saveToSentItems: true).send()

        let all = try await graph.me.messages.request().get().value.compactMap(\.subject).sorted()
        #expect(all == ["Hello from Bindery", "Lunch?", "Quarterly report"])
        let unread = try await graph.me.messages.request().filter("isRead eq false").get().value.compactMap(\.subject)
        #expect(unread == ["Quarterly report"])
        // One of them by id, wherever it is stored.
        let one = try await graph.me.messages("m1").request().get()
        #expect(one.subject == "Quarterly report")
    }

    /// `POST /me/messages` creates a draft in Drafts; `send` moves it to Sent Items, no longer a draft, under the
    /// same id; a message that is not a draft cannot be sent.
    @Test func aMessageCreatedInTheMailboxIsADraftUntilItIsSent() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        let graph = Self.graph(mock)
        var message = Message()
        message.subject = "Minutes"
        let draft = try await graph.me.messages.request().add(message)
        let id = try #require(draft.id)
        #expect(draft.isDraft == true)
        #expect(try await Self.subjects(in: "drafts", graph) == ["Minutes"])
        #expect(try await graph.me.messages.request().get().value.map(\.id) == [id])

        try await graph.me.messages(id).send().send()
        #expect(try await Self.subjects(in: "drafts", graph) == [])
        let sent = try #require(try await graph.me.mailFolders("sentitems").messages.request().get().value.first)
        #expect(sent.id == id && sent.isDraft == false && sent.sentDateTime != nil)

        let again = await #expect(throws: BinderyError.self) { try await graph.me.messages(id).send().send() }
        #expect(again?.status == 400 && again?.serviceCode == "ErrorInvalidOperation")
    }

    /// `move` takes a message to a folder named by id or well-known name (in any case) and gives it a new id; the
    /// old id is gone, and a folder that does not exist is a 404.
    @Test func movingAMessageChangesItsFolderAndItsId() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        let graph = Self.graph(mock)
        Self.seedInbox(mock)
        let moved = try await graph.me.messages("m1").move(destinationId: "DeletedItems").send()
        #expect(moved.subject == "Quarterly report" && moved.id != nil && moved.id != "m1")
        #expect(try await Self.subjects(in: "inbox", graph) == ["Lunch?"])
        #expect(try await Self.subjects(in: "deleteditems", graph) == ["Quarterly report"])
        let gone = await #expect(throws: BinderyError.self) { _ = try await graph.me.messages("m1").request().get() }
        #expect(gone?.status == 404)

        let nowhere = await #expect(throws: BinderyError.self) {
            _ = try await graph.me.messages("m2").move(destinationId: "no-such-folder").send()
        }
        #expect(nowhere?.status == 404 && nowhere?.serviceCode == "ErrorItemNotFound")
        #expect(try await Self.subjects(in: "inbox", graph) == ["Lunch?"])
    }

    /// Marking a message read through `me/messages/{id}` changes the message its folder lists, and `$select`
    /// answers the selected members and the id, nothing else.
    @Test func aChangeThroughMeMessagesIsTheFoldersMessageAndSelectTrimsIt() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        let graph = Self.graph(mock)
        Self.seedInbox(mock)
        var changes = Message()
        changes.isRead = true
        _ = try await graph.me.messages("m1").request().update(changes)
        let inbox = try await graph.me.mailFolders("inbox").messages.request().get().value
        #expect(inbox.allSatisfy { $0.isRead == true } && inbox.count == 2)

        let selected = try await graph.me.messages("m1").request().select("subject").get()
        #expect(selected.subject == "Quarterly report" && selected.id == "m1")
        #expect(selected.isRead == nil && selected.isDraft == nil)
    }

    /// A folder created below a parent addressed by id is that folder's child, found by path.
    @Test func aCreateBelowAParentByIdLandsInThatFolder() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        let client = Self.oneDrive(mock)
        let parent = try await client.me.drive.root.children.request().add(.folder(named: "Projects"))
        let parentID = try #require(parent.id)
        let child = try await client.me.drive.items(parentID).children.request().add(.folder(named: "Bindery"))
        let found = try await client.me.drive.root.item(atPath: "Projects/Bindery").request().get()
        #expect(found.id == child.id && found.isFolder)
        #expect(try await Self.rootNames(client) == ["Projects"])
    }

    /// A page-number page says where it is: Spark's own `Pagination` beside `"Success": true`, or, for a service
    /// that gives the mock no summary, only the count of pages where the conventions read it; the typed client
    /// pages to the end either way.
    @Test(arguments: [true, false])
    func aPageNumberPageSaysWhereItIs(withSummary: Bool) async throws {
        var service = MockService.spark
        if !withSummary { service.pageSummary = nil }
        let mock = try await MockServer(service)
        defer { Task { await mock.stop() } }
        for index in 1...7 {
            mock.store.insert(
                ["StandardFields": ["ListPrice": .number(JSONNumber(index))]], into: ["listings"], idMember: "Id")
        }
        let client = SparkClient(
            userAgent: "Bindery tests", baseURL: mock.serviceURL,
            auth: StaticTokenAuth(mock.identity.acceptedToken, scheme: .oauth))

        var prices: [Double] = []
        for try await listing in client.listings.list(orderby: "ListPrice", limit: 3).all() {
            prices.append(try #require(listing.standardFields?.listPrice))
        }
        #expect(prices == [1, 2, 3, 4, 5, 6, 7])
        #expect(mock.requests.count == 3, "three pages, and no request past the last")

        let second = try #require(await Self.rawGet(mock, "listings?_limit=3&_page=2"))
        #expect(second["D"]?["Success"] == true)
        #expect(second["D"]?["Results"]?.arrayValue?.count == 3)
        let expected: JSONValue =
            withSummary
            ? ["TotalRows": 7, "PageSize": 3, "TotalPages": 3, "CurrentPage": 2] : ["TotalPages": 3]
        #expect(second["D"]?["Pagination"] == expected)
    }

    /// The body of a GET as the wire has it, over the runtime's own transport.
    static func rawGet(_ mock: MockServer, _ path: String, scheme: String = "OAuth") async throws -> JSONValue? {
        let url = try #require(URL(string: mock.serviceURL.absoluteString + "/" + path))
        var head = HTTPRequest(method: .get, url: url)
        head.headerFields[.authorization] = "\(scheme) \(mock.identity.acceptedToken)"
        let response = try await DefaultTransport.shared.send(TransportRequest(head))
        return try JSONValue.parse(response.body)
    }
}
