import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneDrive
import Testing

/// Every request is sent with `send()`: an entity's read, a collection's first page, a typed selection, an action.
/// Code generic over `SendingRequest` therefore sends any of them, and a call site keeps its verb when a spec
/// turns an operation into a pageable list.
@Suite struct OneVerbTests {
    /// What generic code can do with any request: send it, and say what went out.
    static func sent<Request: SendingRequest>(_ request: Request) async throws -> (Request.Answer, String) {
        (try await request.send(), request.request.method.rawValue + " " + request.request.path.description)
    }

    @Test func anEntityACollectionASelectionAndAnActionAreAllSent() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 1]], at: ["drive", "root"])
        mock.store.insert(
            ["name": "notes.txt", "size": 5, "file": ["mimeType": "text/plain"]], into: ["drive", "root", "children"],
            key: "N1")
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        let (item, read) = try await Self.sent(client.drive.items("N1").request())
        #expect(item.name == "notes.txt" && read == "GET /drive/items/N1")

        let (page, listed) = try await Self.sent(client.drive.root.children.request())
        #expect(page.value.map(\.id) == ["N1"] && listed == "GET /drive/root/children")

        let (selected, _) = try await Self.sent(client.drive.root.children.request().select(\.name, \.size))
        #expect(selected.value.map(\.values.0) == ["notes.txt"] && selected.value.first?.values.1 == 5)

        var reference = ItemReference()
        reference.id = "root"
        let (_, copied) = try await Self.sent(
            client.drive.items("N1").copy(parentReference: reference, name: "copy.txt"))
        #expect(copied == "POST /drive/items/N1/copy")
        let names = try await client.drive.root.children.request().send().value.compactMap(\.name).sorted()
        #expect(names == ["copy.txt", "notes.txt"])
    }
}
