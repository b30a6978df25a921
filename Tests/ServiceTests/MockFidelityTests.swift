import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import OneDrive
import Testing

/// The mock does what the services' documentation says for the calls users make first, over HTTP through the
/// generated clients: uploads by path create the file and the folders on the way, `conflictBehavior` decides a
/// create that meets a name already taken (and is never stored), and Graph's `me/messages` is every folder's mail.
@Suite struct MockFidelityTests {
    static func oneDrive(_ mock: MockServer) -> OneDriveClient {
        OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
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
        let graph = GraphClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        for (key, subject, isRead) in [("m1", "Quarterly report", false), ("m2", "Lunch?", true)] {
            mock.store.insert(
                ["subject": .string(subject), "isRead": .bool(isRead)],
                into: ["me", "mailFolders", "inbox", "messages"],
                key: key)
        }
        var message = Message()
        message.subject = "Hello from Bindery"
        var recipient = Recipient()
        var address = EmailAddress()
        address.address = "adele@contoso.example"
        recipient.emailAddress = address
        message.toRecipients = [recipient]
        try await graph.me.sendMail(message: message, saveToSentItems: true).execute()

        let all = try await graph.me.messages.request().get().value.compactMap(\.subject).sorted()
        #expect(all == ["Hello from Bindery", "Lunch?", "Quarterly report"])
        let unread = try await graph.me.messages.request().filter("isRead eq false").get().value.compactMap(\.subject)
        #expect(unread == ["Quarterly report"])
        // One of them by id, wherever it is stored.
        let one = try await graph.me.messages("m1").request().get()
        #expect(one.subject == "Quarterly report")
    }
}
