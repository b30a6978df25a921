import BinderyMock
import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import Testing

/// One filter, two answers: the service's listing for the filter's query parameters and the cache's SQL for the
/// same filter must name the same threads in the same order.
@Suite struct FilterTests {
    @Test func cacheAndServerAgreeOnRandomFilters() async throws {
        try await Self.agreeOnRandomFilters(threads: 120, seed: 7, filterSeed: 42) { filter, fixture in
            let server = try await Self.serverAnswer(filter.request(in: fixture.namespace), limited: filter)
            let cache = try fixture.store.threads(namespace: OfflineFixture.namespace, matching: filter)
            return (server, cache.compactMap(\.id))
        }
    }

    /// The same for messages: a message's own subject, addresses and files, its thread's tags and times.
    @Test func cacheAndServerAgreeOnRandomMessageFilters() async throws {
        try await Self.agreeOnRandomFilters(threads: 80, seed: 13, filterSeed: 43) { filter, fixture in
            let server = try await Self.serverAnswer(filter.messagesRequest(in: fixture.namespace), limited: filter)
            let cache = try fixture.store.messages(namespace: OfflineFixture.namespace, matching: filter)
            return (server, cache.compactMap(\.id))
        }
    }

    /// The filter's fields and the API's rules are the same set: every rule can be set and comes back as its
    /// parameter, so no rule is missing from the cache's SQL.
    @Test func everyRuleIsAFilterField() throws {
        for rule in InboxFilterRule.all {
            let filter = try InboxFilter(parameters: [(rule.parameter, "1")])
            #expect(filter.parameters.map(\.name) == [rule.parameter])
            #expect(
                filter.sql(namespace: "ns").sql.filter { $0 == "?" }.count == 2,
                "\(rule.parameter): the namespace and its value")
        }
        #expect(InboxFilter.parameterNames.count == InboxFilterRule.all.count + 2)
    }

    /// Seeds the mock, syncs, then compares the server's and the cache's ids for 150 random filters.
    static func agreeOnRandomFilters(
        threads: Int, seed: UInt64, filterSeed: UInt64,
        answers: (InboxFilter, OfflineFixture) async throws -> (server: [String], cache: [String])
    ) async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        Mailbox.seed(fixture, threads: threads, seed: seed)
        try await fixture.sync.sync()
        let threadIDs = try fixture.store.ids(of: .thread)
        #expect(try fixture.store.ids(of: .message).count > threadIDs.count)
        var random = SeededRandom(seed: filterSeed)
        var matchedSomething = 0
        for round in 0..<150 {
            let filter = Self.randomFilter(&random, threadIDs: threadIDs)
            let (server, cache) = try await answers(filter, fixture)
            #expect(cache == server, "round \(round): \(filter)")
            if !server.isEmpty { matchedSomething += 1 }
        }
        // The generator is useful only if filters match something often (and miss sometimes).
        #expect(matchedSomething > 40 && matchedSomething < 150)
    }

    @Test func aFilterIsTheAPIsQuery() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let filter = InboxFilter(
            anyEmail: "a@b.c", from: "x@y.z", tag: "unread", filename: "a.pdf", lastMessageAfter: 10, limit: 5)
        _ = try await filter.request(in: fixture.client.namespaces("ns")).get()
        let sent = try #require(fixture.mock.requests.last)
        #expect(sent.queryValue("any_email") == "a@b.c" && sent.queryValue("from") == "x@y.z")
        #expect(sent.queryValue("tag") == "unread" && sent.queryValue("filename") == "a.pdf")
        #expect(sent.queryValue("last_message_after") == "10" && sent.queryValue("limit") == "5")
        #expect(sent.queryValue("subject") == nil)
    }

    /// The ids of everything the service lists for a filter's request: one page when the filter has a limit, else
    /// all pages.
    static func serverAnswer<Listed: JSONModel>(_ request: CollectionRequest<Listed>, limited filter: InboxFilter)
        async throws -> [String]
    {
        if filter.limit != nil { return try await request.get().value.compactMap { $0.storage["id"]?.scalarText } }
        var ids: [String] = []
        for try await item in request.all() { ids.append(item.storage["id"]?.scalarText ?? "") }
        return ids
    }

    /// One to three conditions drawn from the seeded vocabularies, sometimes with a limit and an offset.
    static func randomFilter(_ random: inout SeededRandom, threadIDs: [String]) -> InboxFilter {
        var filter = InboxFilter()
        func person() -> String {
            // Sometimes in another case: the service compares addresses without case.
            let email = Mailbox.people.randomElement(using: &random)!
            return Bool.random(using: &random) ? email.uppercased() : email
        }
        func time() -> Int64 { Mailbox.baseTime + Int64.random(in: 0..<110_000, using: &random) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<14, using: &random) {
            case 0: filter.subject = Mailbox.subjects.randomElement(using: &random)
            case 1: filter.anyEmail = person()
            case 2: filter.to = person()
            case 3: filter.from = person()
            case 4: filter.cc = person()
            case 5: filter.bcc = person()
            case 6, 7: filter.tag = Mailbox.tags.randomElement(using: &random)
            case 8: filter.threadID = threadIDs.randomElement(using: &random)
            case 9: filter.filename = Mailbox.filenames.randomElement(using: &random)
            case 10: filter.lastMessageBefore = time()
            case 11: filter.lastMessageAfter = time()
            case 12: filter.startedBefore = time()
            default: filter.startedAfter = time()
            }
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            filter.limit = Int.random(in: 1...20, using: &random)
            filter.offset = Int.random(in: 0...10, using: &random)
        }
        return filter
    }
}
