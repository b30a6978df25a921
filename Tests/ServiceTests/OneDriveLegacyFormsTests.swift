import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneDrive
import Testing

/// api.onedrive.com's own URL forms, over HTTP against the mock, which answers both: a consumer client asks
/// `view.delta?token=…`, `action.copy` and `view.search?q=…` where a Graph client asks `delta(token='…')`, `copy`
/// and `search(q='…')`, through the same builders and with the same answers.
@Suite struct OneDriveLegacyFormsTests {
    static func seeded() async throws -> MockServer {
        let mock = try await MockServer(.oneDrive)
        mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 2]], at: ["drive", "root"])
        for (key, name) in [("N1", "notes.txt"), ("R1", "it's a report.docx")] {
            mock.store.insert(
                ["name": .string(name), "size": 5, "file": ["mimeType": "text/plain"]],
                into: ["drive", "root", "children"], key: key)
        }
        return mock
    }

    /// The last request the mock saw: its path below the service root and its query.
    static func sent(_ mock: MockServer) throws -> (path: String, query: [String: String]) {
        let request = try #require(mock.requests.last)
        let path = String(request.path.dropFirst(mock.serviceURL.path.count))
        return (path, Dictionary(request.query.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
    }

    @Test func aConsumerClientAsksInApiOneDrivesOwnForms() async throws {
        let mock = try await Self.seeded()
        defer { Task { await mock.stop() } }
        let client = OneDriveClient.consumer(
            baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        // A delta round, then the next one from its token.
        var token: String?
        var names: [String] = []
        for try await page in client.drive.root.delta().pages() {
            names += page.value.compactMap(\.name)
            token = page.deltaToken ?? token
        }
        #expect(names.sorted() == ["it's a report.docx", "notes.txt"])
        #expect(try Self.sent(mock).path == "/drive/root/view.delta")
        try await client.drive.items("N1").request().delete()
        let changes = try await client.drive.root.delta(token: try #require(token)).send()
        #expect(try Self.sent(mock).path == "/drive/root/view.delta")
        #expect(try Self.sent(mock).query["token"] == token)
        #expect(changes.value.contains { $0.id == "N1" && $0.isDeletedInDelta })

        // An action, and a function whose argument holds a quote.
        var parent = ItemReference()
        parent.id = "root"
        _ = try await client.drive.items("R1").copy(parentReference: parent, name: "copy.docx").send()
        #expect(try Self.sent(mock).path == "/drive/items/R1/action.copy")
        let found = try await client.drive.root.search(q: "it's").send()
        #expect(try Self.sent(mock).path == "/drive/root/view.search")
        #expect(try Self.sent(mock).query["q"] == "it's")
        #expect(found.value.contains { $0.name == "it's a report.docx" })
        let listed = try await client.drive.root.children.request().send().value.compactMap(\.name).sorted()
        #expect(listed == ["copy.docx", "it's a report.docx"])
    }

    /// An app still written for `view.changes`, which `view.delta` superseded: the mock serves it as delta, its
    /// answer (the same items, with `@changes.*` annotations) validates as delta's, and the client sends `view.delta`.
    @Test func oldChangesRequestsAreServedAndTheirAnswersValidate() async throws {
        let mock = try await Self.seeded()
        defer { Task { await mock.stop() } }
        let served = try #require(try await MockFidelityTests.rawGet(mock, "drive/root/view.changes", scheme: "Bearer"))
        let names = served["value"]?.arrayValue?.compactMap { $0["name"]?.stringValue }.sorted()
        #expect(names == ["it's a report.docx", "notes.txt"])

        let validator = PayloadValidator(OneDriveService.descriptor)
        let changes = Array(
            #"{"value": [{"id": "N1", "deleted": {}}], "@changes.hasMoreChanges": false, "@changes.token": "t2"}"#.utf8)
        let path = PayloadValidator.path(
            of: "https://api.onedrive.com/v1.0/drive/items/R1/view.changes?token=t1",
            below: [URL(string: "https://api.onedrive.com/v1.0")!])
        let shape = try #require(validator.response(method: .get, path: path))
        let report = try #require(validator.validate(changes, as: shape))
        #expect(report.isValid && report.itemCount == 1, "\(report)")
        #expect(report.unknownFields.isEmpty, "\(report.unknownFields)")

        let client = OneDriveClient.consumer(
            baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        _ = try await client.drive.root.delta().send()
        #expect(try Self.sent(mock).path == "/drive/root/view.delta")
    }

    @Test func aGraphClientAsksTheSameInGraphsForms() async throws {
        let mock = try await Self.seeded()
        defer { Task { await mock.stop() } }
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        _ = try await client.drive.root.delta(token: "0").send()
        #expect(try Self.sent(mock).path == "/drive/root/delta(token='0')")
        let found = try await client.drive.root.search(q: "it's").send()
        #expect(try Self.sent(mock).path == "/drive/root/search(q='it''s')")
        #expect(found.value.contains { $0.name == "it's a report.docx" })
    }
}
