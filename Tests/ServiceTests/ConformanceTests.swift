import BinderyJSON
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import Inbox
import MicrosoftIdentity
import OneDrive
import Spark
import Testing

/// Every fixture of every service, end to end over HTTP on 127.0.0.1 (`CurlTransport` → `MockServer`),
/// and the scenarios a client lives through: long lists, delta after changes, sessions that expire
/// mid-sequence, throttling and broken connections.
@Suite struct ConformanceTests {
    @Test(arguments: MockService.all.map(\.name))
    func everyFixturePassesEndToEnd(service name: String) async throws {
        let service = try #require(MockService.named(name))
        let fixtures = try MockFixture.load(from: FixtureTests.root.appendingPathComponent(name))
        let calls = ConformanceCalls.byService[name] ?? [:]
        let outcomes = try await ConformanceRun(service, fixtures: fixtures, calls: calls).run()
        for outcome in outcomes where !outcome.passed {
            Issue.record("\(name) \(outcome.fixture): \(outcome.problems.joined(separator: "; "))")
        }
        let coverage = ConformanceRun.coverage(outcomes)
        #expect(
            coverage.total >= 10 && coverage.passed == coverage.total, "\(name): \(coverage.passed)/\(coverage.total)")
    }

    @Test(arguments: MockService.all.map(\.name))
    func everyFixtureHasAGeneratedCall(service name: String) throws {
        let fixtures = try MockFixture.load(from: FixtureTests.root.appendingPathComponent(name))
        let calls = try #require(ConformanceCalls.byService[name])
        #expect(Set(calls.keys) == Set(fixtures.map(\.name)))
    }

    /// The suite proves the builders: a call that builds a different request, or none, does not pass.
    @Test func aCallThatBuildsAnotherRequestFails() async throws {
        let fixtures = try MockFixture.load(from: FixtureTests.root.appendingPathComponent("OneDrive"))
            .filter { ["driveItem/copy", "driveItem/get", "driveItem/search", "drive/get"].contains($0.name) }
        let calls: [String: ConformanceCall] = [
            // Leaves out the `name` the fixture's body carries.
            "driveItem/copy": { client, arguments in
                _ = try await OneDriveClient(client: client).drives("drive-id-1").root
                    .copy(parentReference: arguments.bodyMember("parentReference")).send()
            },
            // Adds a query option the fixture does not have.
            "driveItem/search": { client, arguments in
                _ = try await OneDriveClient(client: client).drives("drive-id-1").root.search(q: arguments("q")).top(5)
                    .get()
            },
            // Reads the drive, not its root.
            "driveItem/get": { client, _ in
                _ = try await OneDriveClient(client: client).drives("drive-id-1").request().get()
            },
        ]
        let outcomes = try await ConformanceRun(.oneDrive, fixtures: fixtures, calls: calls).run()
        let problems = Dictionary(
            uniqueKeysWithValues: outcomes.map { ($0.fixture, $0.problems.joined(separator: "; ")) })
        #expect(problems["driveItem/copy"]?.contains("the body differs") == true)
        #expect(
            problems["driveItem/get"]?.contains("path /v1.0/drives/drive-id-1, expected /drives/drive-id-1/root")
                == true)
        #expect(problems["driveItem/search"]?.contains("query $top=5, expected") == true)
        #expect(problems["drive/get"]?.contains("no generated call") == true)
        #expect(ConformanceRun.coverage(outcomes).passed == 0)
    }

    // MARK: Scenarios

    @Test func oneDrivePagesThroughAThousandItemsAndSeesDeltaChanges() async throws {
        let mock = try await MockServer(.oneDrive)
        defer { Task { await mock.stop() } }
        let children = ["drive", "root", "children"]
        mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 0]], at: ["drive", "root"])
        for index in 1...1000 { mock.store.insert(["name": .string("file \(index).txt"), "size": 10], into: children) }
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        var names: [String] = []
        for try await item in client.drive.root.children.request().all() { names.append(item.name ?? "") }
        #expect(names.count == 1000 && Set(names).count == 1000)
        #expect(mock.requests.count == 10, "100 a page: \(mock.requests.count) requests")

        // Delta: the first round lists everything and ends with a token; later rounds only what changed.
        var firstRound = 0
        var token: String?
        for try await page in client.drive.root.delta().pages() {
            firstRound += page.value.count
            token = page.deltaToken ?? token
        }
        #expect(firstRound == 1000)
        let since = try #require(token)
        let added = try await client.drive.root.children.request().add(DriveItem.folder(named: "Reports"))
        let first = mock.store.items(in: children)[0].key
        try await client.drive.items(first).request().delete()
        let changes = try await client.drive.root.delta(token: since).get()
        #expect(changes.value.contains { $0.id == added.id && $0.name == "Reports" && $0.isFolder })
        #expect(changes.value.contains { $0.id == first && $0.isDeleted })
        #expect(changes.value.count == 2)
        #expect(changes.deltaToken != nil && changes.deltaToken != since)
    }

    @Test func retriesAfter429And503ThenTypedErrorsForBrokenConnections() async throws {
        let mock = try await MockServer(.graph)
        defer { Task { await mock.stop() } }
        mock.store.insert(["subject": "Hello"], into: ["me", "messages"])
        let client = GraphClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        mock.inject(.status(429, retryAfter: 1), count: 1)
        mock.inject(.status(503), count: 1)
        let page = try await client.me.messages.request().get()
        #expect(page.value.map(\.subject) == ["Hello"])
        #expect(mock.requests.count == 3, "one 429, one 503, then the answer")

        for fault in [MockFault.truncated, .reset] {
            mock.inject(fault, count: 5)
            await #expect(throws: BinderyError.self) { _ = try await client.me.messages.request().get() }
        }
    }

    /// The Spark mock with `count` listings in Fargo, and a client on an API-key session it accepts.
    static func sparkWithListings(_ count: Int) async throws -> (MockServer, SparkClient) {
        let mock = try await MockServer(.spark)
        mock.identity.registerSparkAPIKey("key-1", secret: "secret-1")
        for index in 1...count {
            mock.store.insert(
                ["StandardFields": ["ListPrice": .number(JSONNumber(100_000 + index)), "City": "Fargo"]],
                into: ["listings"], idMember: "Id")
        }
        let session = SparkAPIKeySession(
            apiKey: "key-1", secret: "secret-1", apiBase: mock.baseURL, userAgent: "Bindery tests")
        return (mock, SparkClient(userAgent: "Bindery tests", baseURL: mock.serviceURL, auth: session))
    }

    /// `_pagination=count` against the mock: the counts of the listing the filter selects, without its results.
    @Test func sparkCountsListingsOverHTTP() async throws {
        let (mock, client) = try await Self.sparkWithListings(60)
        defer { Task { await mock.stop() } }
        let counts = try await client.listings.count(filter: "City Eq 'Fargo'").send()
        #expect(counts.totalRows == 60 && counts.totalPages == 3 && counts.pageSize == 25)
        let none = try await client.listings.count(filter: "City Eq 'Minot'").send()
        #expect(none.totalRows == 0)
    }

    /// Notifications and messages answer `_pagination=count` too; unread notifications are the ones not `Read`.
    @Test func sparkCountsNotificationsAndMessagesOverHTTP() async throws {
        let (mock, client) = try await Self.sparkWithListings(1)
        defer { Task { await mock.stop() } }
        for (index, read) in [true, false, false].enumerated() {
            mock.store.insert(
                ["Type": "Message", "Message": .string("note \(index)"), "Read": .bool(read)], into: ["notifications"],
                idMember: "Id")
        }
        for index in 1...4 {
            mock.store.insert(["Subject": .string("message \(index)")], into: ["messages"], idMember: "Id")
        }
        #expect(try await client.notifications.count().send().totalRows == 3)
        #expect(try await client.notifications.countUnread().send().totalRows == 2)
        let unread = try await client.notifications.listUnreadNotifications().send()
        #expect(unread.value.map(\.message) == ["note 1", "note 2"])
        #expect(try await client.messages.count().send().totalRows == 4)
        let asked = mock.requests.filter { $0.queryValue("_pagination") == "count" }.map(\.path)
        #expect(
            asked.map {
                $0.hasSuffix("/notifications") || $0.hasSuffix("/notifications/unread") || $0.hasSuffix("/messages")
            } == [true, true, true])
    }

    @Test func sparkSessionExpiresMidSequenceAndIsRenewedOnce() async throws {
        let (mock, client) = try await Self.sparkWithListings(60)
        defer { Task { await mock.stop() } }

        var seen = 0
        for try await _ in client.listings.list(limit: 25).all() {
            seen += 1
            if seen == 30 { mock.identity.expireAllTokens() }  // the session dies between page 2 and page 3
        }
        #expect(seen == 60)
        let sessions = mock.requests.filter { $0.path.hasSuffix("/session") }.count
        #expect(sessions == 2, "one session, then one renewal after 1020")
        let refused = mock.requests.count - sessions - 3
        #expect(refused == 1, "one request answered 1020 and replayed")
    }

    /// 100 requests at once over a session the server has just ended: each is refused with 1020, and the
    /// renewal happens once for all of them; every request is replayed and answered.
    @Test func aHundredConcurrentRequestsOverAnExpiredSparkSessionRenewItOnce() async throws {
        let (mock, client) = try await Self.sparkWithListings(5)
        defer { Task { await mock.stop() } }
        _ = try await client.listings.list(limit: 5).get()
        mock.identity.expireAllTokens()

        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await client.listings.list(limit: 5).get().value.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answered.count == 100 && answered.allSatisfy { $0 == 5 })
        let sessions = mock.requests.filter { $0.path.hasSuffix("/session") }.count
        #expect(sessions == 2, "the first session, then one renewal for all 100 requests")
    }

    /// A spec's own response example becomes the fixture, seeds the mock and comes back typed, quirks and all.
    @Test func sparkListingsFromTheSpecExampleDecodeTheirLooseValues() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        try mock.seed(fixturesIn: FixtureTests.root.appendingPathComponent("Spark"))
        let client = SparkClient(
            userAgent: "Bindery tests", baseURL: mock.serviceURL,
            auth: StaticTokenAuth(mock.identity.acceptedToken, scheme: .oauth))

        let page = try await client.listings.list().get()
        let byID = Dictionary(
            uniqueKeysWithValues: page.value.compactMap { listing in listing.id.map { ($0, listing) } })
        let bungalow = try #require(byID["20060412165917817933000000"])
        let fields = try #require(bungalow.standardFields)
        #expect(fields.longitude == -96.7945)  // " -96.7945" on the wire
        #expect(fields.bedsTotal == 4)  // "4"
        #expect(fields.listPrice == 355000)
        #expect(fields.additionalData["Supplement"] == "********")  // undeclared, kept
        let second = try #require(byID["20100815153524571646000000"]?.standardFields)
        #expect(second.listPrice == 189900)  // "189900"
        #expect(second.bedsTotal == 3)
    }

    @Test func inboxCursorDeltaSeesADraftSentAndLongpollWakesUp() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let namespace = ["n", "ns-1"]
        mock.store.set(["id": "ns-1", "object": "namespace"], at: namespace)
        let client = InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken))
        let cursor = try await client.namespaces("ns-1").delta.getLatestCursor().send()

        mock.store.insert(
            ["object": "draft", "subject": "Quarterly numbers", "version": 0], into: namespace + ["drafts"], key: "d-1")
        _ = try await client.namespaces("ns-1").send(draftID: "d-1", version: 0).send()

        var events: [String] = []
        for try await round in client.namespaces("ns-1").delta.listChanges(cursor: try #require(cursor.cursor))
            .deltaRounds()
        {
            events += round.events.map { "\($0.event) \($0.object)" }
        }
        #expect(events == ["create draft", "delete draft", "create message"])

        // A longpoll returns as soon as something changes.
        let latest = try #require(try await client.namespaces("ns-1").delta.getLatestCursor().send().cursor)
        Task {
            try await Task.sleep(for: .milliseconds(300))
            mock.store.insert(["object": "tag", "name": "urgent"], into: namespace + ["tags"])
        }
        let woke = try await client.namespaces("ns-1").delta.longpoll.waitForChanges(cursor: latest, timeout: 10)
            .send()
        #expect(woke.deltas?.map { $0.object } == ["tag"])
    }
}
