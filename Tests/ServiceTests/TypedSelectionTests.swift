import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import OneDrive
import Spark
import Testing

/// A typed `select` over HTTP against the mock, which trims every answer to what was selected: the wire names go
/// out as the service's select parameter, every page of a list and a delta round comes back as rows of exactly the
/// fields asked for, and what the service adds anyway (the key, the etag, a delta's removals) stays reachable.
@Suite struct TypedSelectionTests {
    static func graph(_ mock: MockServer) -> GraphClient {
        GraphClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
    }

    /// Three inbox messages, each with more members than the tests select.
    static func seedMail(_ mock: MockServer) {
        let messages: [(String, String, String, String)] = [
            ("m1", "Quarterly report", "ada@example.com", "2026-11-01T09:00:00Z"),
            ("m2", "Lunch?", "grace@example.com", "2026-11-02T12:30:00Z"),
            ("m3", "Build is green", "linus@example.com", "2026-11-03T17:15:00Z"),
        ]
        for (key, subject, address, received) in messages {
            mock.store.insert(
                [
                    "subject": .string(subject), "isRead": false, "importance": "normal",
                    "from": ["emailAddress": ["address": .string(address)]],
                    "receivedDateTime": .string(received), "bodyPreview": "…",
                    "@odata.etag": .string("W/\"\(key)\""),
                ],
                into: ["me", "mailFolders", "inbox", "messages"], key: key)
        }
    }

    @Test func aSelectedListSendsTheWireNamesAndReadsRowsOnEveryPage() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        Self.seedMail(mock)
        let request = Self.graph(mock).me.messages.request()
            .select(\.subject, \.from, \.receivedDateTime).orderBy("receivedDateTime").top(2)

        var rows: [(String, String, Date)] = []
        for try await (subject, from, received) in request.all() {
            rows.append(
                (try #require(subject), try #require(from?.emailAddress?.address), try #require(received)))
        }
        #expect(rows.map(\.0) == ["Quarterly report", "Lunch?", "Build is green"])
        #expect(rows.map(\.1) == ["ada@example.com", "grace@example.com", "linus@example.com"])
        #expect(rows.first?.2 == ISO8601DateFormatter().date(from: "2026-11-01T09:00:00Z"))

        // Two pages, both asked with the selection; the mock trimmed what went over the wire.
        let listed = mock.requests.filter { $0.path.hasSuffix("/me/messages") }
        #expect(listed.count == 2)
        for sent in listed {
            #expect(sent.query.first { $0.name == "$select" }?.value == "subject,from,receivedDateTime")
        }
        let untyped = try await Self.graph(mock).me.messages.request().select("subject").get()
        #expect(untyped.value.count == 3)
        #expect(untyped.value.allSatisfy { $0.subject != nil && $0.isRead == nil })
    }

    @Test func aSelectedPageKeepsTheKeyTheETagAndTheNextRequest() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        Self.seedMail(mock)
        let page = try await Self.graph(mock).me.mailFolders("inbox").messages.request()
            .select(\.subject, \.isRead).orderBy("receivedDateTime").top(2).get()
        #expect(page.value.map(\.id) == ["m1", "m2"])
        #expect(page.value.map(\.etag) == [#"W/"m1""#, #"W/"m2""#])
        let (subject, isRead) = try #require(page.value.first).values
        #expect(subject == "Quarterly report" && isRead == false)

        let next = try #require(page.nextRequest)
        let rest = try await next.get()
        #expect(rest.value.map(\.values.0) == ["Build is green"])
        #expect(rest.nextRequest == nil)
    }

    @Test func aSelectedEntityReadsOnlyWhatWasAsked() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        Self.seedMail(mock)
        let message = try await Self.graph(mock).me.messages("m2").request().select(\.subject, \.importance).get()
        let (subject, importance) = message.values
        #expect(subject == "Lunch?" && importance == .normal)
        #expect(message.id == "m2")
        let sent = try #require(mock.requests.last)
        #expect(sent.query.first { $0.name == "$select" }?.value == "subject,importance")
    }

    @Test func deltaAndAnExpansionWithItsOwnSelectKeepWorking() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 1]], at: ["drive", "root"])
        mock.store.insert(
            ["name": "Reports", "folder": ["childCount": 1], "size": 0], into: ["drive", "root", "children"],
            key: "F1")
        mock.store.insert(
            ["name": "q3.xlsx", "size": 2048, "file": ["mimeType": "application/vnd.ms-excel"]],
            into: ["drive", "root", "children", "F1", "children"], key: "Q3")
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        // The folder's children come inline, trimmed by the expansion's own `$select`.
        let folders = try await client.drive.root.children.request()
            .select(\.name, \.children).expand(Expansion("children").select("name")).get()
        let (name, children) = try #require(folders.value.first).values
        #expect(name == "Reports")
        #expect(children?.map(\.name) == ["q3.xlsx"])
        #expect(children?.first?.size == nil)
        let sent = try #require(mock.requests.last)
        #expect(sent.query.first { $0.name == "$expand" }?.value == "children($select=name)")

        // A delta round of rows, with its token, over pages of one item each.
        var token: String?
        var rows: [(String?, Int64?)] = []
        for try await page in client.drive.root.delta().select(\.name, \.size).top(1).pages() {
            rows += page.value.map(\.values)
            token = page.deltaToken ?? token
        }
        #expect(rows.map(\.0) == ["Reports", "q3.xlsx"])
        #expect(rows.last?.1 == 2048)
        // Every page asked for the selection, and for the `deleted` facet that marks a removal, which the mock
        // trims like any member that was not selected.
        let rounds = mock.requests.filter { $0.path.hasSuffix("/delta()") }
        #expect(rounds.count == 2)
        #expect(rounds.allSatisfy { $0.query.contains { $0.name == "$select" && $0.value == "name,size,deleted" } })

        // The next round reports the removal as an item that says so, beside its key.
        try await client.drive.items("F1").request().delete()
        var changes: [Selected<String?>] = []
        for try await item in client.drive.root.delta(token: try #require(token)).select(\.name).items() {
            changes.append(item)
        }
        #expect(changes.count == 1)
        #expect(changes.first?.id == "F1" && changes.first?.isDeletedInDelta == true)
        #expect(changes.first?.values == nil)

        // A function that only starts like delta is no delta round: it gets the selection as asked.
        let summary = CollectionRequest<OneDrive.DriveItem>(
            client: client.client,
            request: APIRequest(
                method: .get, path: ResourcePath("drive", "root").appending(function: "deltaSummary", parameters: [])))
        #expect(summary.select(\.name).request.queryValue("$select") == "name")
    }

    @Test func sparkSelectsAListingsStandardFieldsWithItsOwnParameter() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        for (price, city, street) in [(250_000, "Fargo", "Elm"), (310_000, "Moorhead", "Oak")] {
            mock.store.insert(
                [
                    "StandardFields": [
                        "ListPrice": .number(JSONNumber(price)), "City": .string(city), "StreetName": .string(street),
                    ]
                ],
                into: ["listings"], idMember: "Id")
        }
        let client = SparkClient(
            userAgent: "Bindery tests", baseURL: mock.serviceURL,
            auth: StaticTokenAuth(mock.identity.acceptedToken, scheme: .oauth))

        let request = client.listings.list(limit: 1).select(\.listPrice, \.city, in: \.standardFields)
        var rows: [(Double?, String?)] = []
        for try await (price, city) in request.all() { rows.append((price, city)) }
        #expect(rows.map(\.0) == [250_000, 310_000])
        #expect(rows.map(\.1) == ["Fargo", "Moorhead"])
        let listed = mock.requests.filter { $0.path.hasSuffix("/listings") }
        #expect(listed.count >= 2)
        #expect(listed.allSatisfy { $0.query.contains { $0.name == "_select" && $0.value == "ListPrice,City" } })

        // The mock trimmed the record; the listing's own key still came.
        let page = try await request.get()
        #expect(page.value.first?.id?.isEmpty == false)
        let untyped = try await client.listings.list(select: "ListPrice").get()
        #expect(untyped.value.count == 2)
        #expect(
            untyped.value.allSatisfy { $0.standardFields?.streetName == nil && $0.standardFields?.listPrice != nil })

        // The untyped `select` on any request speaks the service's parameter too.
        let city = try await client.listings.list().select("City").get()
        #expect(city.value.map { $0.standardFields?.city } == ["Fargo", "Moorhead"])
        #expect(city.value.allSatisfy { $0.standardFields?.listPrice == nil })
        #expect(mock.requests.last?.query.contains { $0.name == "_select" && $0.value == "City" } == true)
    }
}
