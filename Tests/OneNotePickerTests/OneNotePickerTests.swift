import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import MicrosoftIdentity
import OneNote
import OneNotePicker
import Synchronization
import TestSupport
import Testing

/// The headless picker over real HTTP against the OneNote mock on 127.0.0.1.
@Suite struct OneNotePickerTests {
    @Test func pagesThroughTwoHundredFiftySectionsAndPicksTheLast() async throws {
        let names = sectionNames(250)
        let mock = try await oneNoteMock([
            OneNoteMockFolder(id: "nb-big", name: "Big", sections: names),
            OneNoteMockFolder(id: "nb-small", name: "Small", sections: ["Only"]),
        ])
        defer { Task { await mock.stop() } }
        let picker = OneNotePicker(client: oneNoteClient(mock))
        let root = try await picker.browsing()
        #expect(root.entries.map(\.name) == ["Big", "Small"])
        #expect(root.entries.allSatisfy { $0.kind == .notebook })

        // Record every state of the level as it arrives: the pages must show up one by one.
        let counts = Mutex<[Int]>([])
        let states = await picker.states()
        let recorder = Task {
            for await state in states where state.path.map(\.name) == ["Big"] {
                counts.withLock { $0.append(state.entries.count) }
                if state.phase == .browsing { return }
            }
        }
        try await picker.open("Big")
        let level = try await picker.browsing()
        await recorder.value
        #expect(level.entries.map(\.name) == names)
        #expect(Set(level.entries.map(\.id)).count == 250)
        #expect(counts.withLock { $0 }.contains(100), "the first page is shown before the rest arrives")
        let sectionPages = mock.requests.filter { $0.path.hasSuffix("/notebooks/nb-big/sections") }
        #expect(sectionPages.count == 3, "100 + 100 + 50, following @odata.nextLink")
        #expect(sectionPages.dropFirst().allSatisfy { $0.queryValue("$skiptoken") != nil })

        await picker.send(.select(249))
        await picker.send(.pick)
        let picked = try await picker.state { $0.isFinished }
        let section = try #require(picked.phaseSection)
        #expect(section.id == "nb-big-s250")
        #expect(section.name == "Section 250")
        #expect(section.pagesURL == mock.serviceURL.appendingPathComponent("sections/nb-big-s250/pages"))
        #expect(section.createdTime == ISO8601.parseDateTime("2026-10-01T08:00:00Z"))
        #expect(section.modifiedTime == ISO8601.parseDateTime("2026-11-21T17:45:00Z"))
        #expect(section.lastModifiedBy == "Adele Vance")
        #expect(section.path == ["Big"])
    }

    @Test func opensSectionGroupsThreeDeepWithPagedChildrenAndKeepsWhatItLoaded() async throws {
        let quarter = OneNoteMockFolder(
            id: "g-q4", name: "Q4", sections: sectionNames(7, prefix: "Week"),
            groups: [
                OneNoteMockFolder(id: "g-oct", name: "October"), OneNoteMockFolder(id: "g-nov", name: "November"),
                OneNoteMockFolder(id: "g-dec", name: "December"),
            ])
        let year = OneNoteMockFolder(id: "g-2026", name: "2026", sections: ["Plan"], groups: [quarter])
        let projects = OneNoteMockFolder(id: "g-projects", name: "Projects", sections: ["Ideas"], groups: [year])
        let mock = try await oneNoteMock([
            OneNoteMockFolder(id: "nb-work", name: "Work", sections: ["Meetings"], groups: [projects])
        ])
        defer { Task { await mock.stop() } }
        // Two items a page: every level of three or more items comes in pages.
        let picker = OneNotePicker(client: oneNoteClient(mock), pageSize: 2)
        _ = try await picker.browsing()
        try await picker.open("Work")
        #expect(try await picker.browsing().entries.map(\.name) == ["Projects", "Meetings"])
        try await picker.open("Projects")
        #expect(try await picker.browsing().entries.map(\.name) == ["2026", "Ideas"])
        try await picker.open("2026")
        #expect(try await picker.browsing().entries.map(\.name) == ["Q4", "Plan"])
        try await picker.open("Q4")
        let deepest = try await picker.browsing()
        #expect(deepest.path.map(\.name) == ["Work", "Projects", "2026", "Q4"])
        #expect(
            deepest.entries.map(\.name) == ["October", "November", "December"] + sectionNames(7, prefix: "Week"))
        #expect(deepest.entries.prefix(3).allSatisfy { $0.kind == .sectionGroup })
        let groupPages = mock.requests.filter { $0.path.hasSuffix("/sectionGroups/g-q4/sectionGroups") }
        let sectionPages = mock.requests.filter { $0.path.hasSuffix("/sectionGroups/g-q4/sections") }
        #expect(groupPages.count == 2 && sectionPages.count == 4, "3 groups and 7 sections, two a page")
        #expect(deepest.entries.last?.section?.path == ["Work", "Projects", "2026", "Q4"])

        // Back to the notebook, with the group we came from selected, and down again: nothing is fetched twice.
        let fetched = mock.requests.count
        for _ in 0..<3 { await picker.send(.back) }
        let work = await picker.current
        #expect(work.path.map(\.name) == ["Work"])
        #expect(work.selected?.name == "Projects")
        try await picker.open("Projects")
        #expect(try await picker.browsing().entries.map(\.name) == ["2026", "Ideas"])
        #expect(mock.requests.count == fetched)
    }

    @Test func searchFindsSectionsAcrossTheTreeWithTheirPaths() async throws {
        let mock = try await oneNoteMock([
            OneNoteMockFolder(
                id: "nb-work", name: "Work", sections: ["Meetings", "Budget"],
                groups: [
                    OneNoteMockFolder(
                        id: "g-projects", name: "Projects",
                        groups: [OneNoteMockFolder(id: "g-2026", name: "2026", sections: ["Meeting notes", "Plan"])])
                ]),
            OneNoteMockFolder(id: "nb-home", name: "Home", sections: ["Recipes", "Team meet-up"]),
        ])
        defer { Task { await mock.stop() } }
        let picker = OneNotePicker(client: oneNoteClient(mock), pageSize: 1)
        _ = try await picker.browsing()
        await picker.send(.search("MEET"))
        let found = try await picker.state { $0.search?.isComplete == true }
        #expect(found.phase == .searching)
        let hits = try #require(found.search?.hits)
        #expect(hits.map(\.name) == ["Meetings", "Meeting notes", "Team meet-up"])
        #expect(hits.map { $0.section?.path ?? [] } == [["Work"], ["Work", "Projects", "2026"], ["Home"]])

        // Another query reuses the levels the first one loaded.
        let fetched = mock.requests.count
        await picker.send(.search("plan"))
        let plan = try await picker.state { $0.search?.query == "plan" && $0.search?.isComplete == true }
        #expect(plan.search?.hits.map(\.name) == ["Plan"])
        #expect(mock.requests.count == fetched)

        // Ending the search shows the level again; searching and picking a hit returns it with its path.
        await picker.send(.search(""))
        #expect(try await picker.browsing().rows.map(\.name) == ["Work", "Home"])
        await picker.send(.search("notes"))
        _ = try await picker.state { $0.search?.isComplete == true }
        await picker.send(.open)
        let picked = try await picker.state { $0.isFinished }
        #expect(picked.phaseSection?.name == "Meeting notes")
        #expect(picked.phaseSection?.path == ["Work", "Projects", "2026"])
    }

    @Test func renewsAnExpiredSessionOnceMidLoadWithoutShowingIt() async throws {
        let mock = try await oneNoteMock([workWithArchive(sections: 9)])
        defer { Task { await mock.stop() } }
        let oauth = OAuth2Client(
            MicrosoftIdentity.configuration(
                clientID: "picker-tests", scopes: OneNoteClient.scopes, authority: mock.baseURL))
        let session = oauth.session(account: "me", store: MemoryTokenStore([mock.identity.issueToken(account: "me")]))
        let picker = OneNotePicker(
            client: OneNoteClient(baseURL: mock.serviceURL, auth: session), pageSize: 4)
        _ = try await picker.browsing()

        // The level's groups load, then its first page of sections is refused: the token has expired.
        mock.inject(.expiredToken, count: 1, pathContains: "/notebooks/nb-work/sections")
        let phases = Mutex<[OneNotePickerState.Phase]>([])
        let states = await picker.states()
        let recorder = Task {
            for await state in states {
                phases.withLock { $0.append(state.phase) }
                if state.phase == .browsing, state.path.count == 1 { return }
            }
        }
        try await picker.open("Work")
        let level = try await picker.browsing()
        await recorder.value
        #expect(level.entries.map(\.name) == ["Archive"] + sectionNames(9))
        #expect(mock.identity.refreshCount == 1, "renewed once")
        #expect(await session.refreshCount == 1)
        #expect(!phases.withLock { $0 }.contains { if case .failed = $0 { true } else { false } })
        let refused = mock.requests.filter { $0.path.hasSuffix("/notebooks/nb-work/sections") }
        #expect(refused.count == 4, "three pages of sections, the first of them sent twice")
    }

    @Test func aFailedPageIsRetriedFromWhereItFailed() async throws {
        let mock = try await oneNoteMock([workWithArchive(sections: 5)])
        defer { Task { await mock.stop() } }
        let picker = OneNotePicker(client: oneNoteClient(mock), pageSize: 2)
        _ = try await picker.browsing()
        // Unavailable for as long as the client retries on its own (4 attempts), then the picker shows it.
        mock.inject(.status(503, retryAfter: 0), count: 4, pathContains: "/notebooks/nb-work/sections")
        try await picker.open("Work")
        let error = try await picker.failure()
        #expect(error == .injected(503, code: "ServiceUnavailable", requestID: error.requestID))
        #expect(await picker.current.entries.map(\.name) == ["Archive"], "what loaded before the failure stays shown")

        let groupRequests = mock.requests.filter { $0.path.hasSuffix("/sectionGroups") }.count
        await picker.send(.retry)
        let level = try await picker.browsing()
        #expect(level.entries.map(\.name) == ["Archive"] + sectionNames(5))
        #expect(mock.requests.filter { $0.path.hasSuffix("/sectionGroups") }.count == groupRequests)
    }

    @Test func anAPIErrorAndARefusedConnectionAreTwoKindsOfError() async throws {
        let mock = try await oneNoteMock([OneNoteMockFolder(id: "nb-work", name: "Work")])
        defer { Task { await mock.stop() } }
        mock.inject(.status(403), count: 1, pathContains: "/notebooks")
        let refusedByAPI = OneNotePicker(client: oneNoteClient(mock))
        let api = try await refusedByAPI.failure()
        #expect(api.isAPIError)
        #expect(api == .injected(403, code: "accessDenied", requestID: api.requestID))
        #expect(api.requestID != nil)

        // Nothing listens on the port: the connection is refused before any API answers.
        let refusing = try RefusingPort()
        let client = OneNoteClient(
            baseURL: refusing.url.appendingPathComponent("v1.0"), auth: StaticTokenAuth("unused"),
            middleware: [HeadersMiddleware()])
        let offline = OneNotePicker(client: client)
        let system = try await offline.failure()
        withExtendedLifetime(refusing) {}
        #expect(!system.isAPIError)
        guard case .system(let cause) = system else { return }
        #expect(cause.kind == .connection)
    }

    @Test func cancelEndsTheStatesAndIgnoresWhatFollows() async throws {
        let mock = try await oneNoteMock([OneNoteMockFolder(id: "nb-work", name: "Work", sections: ["Meetings"])])
        defer { Task { await mock.stop() } }
        let picker = OneNotePicker(client: oneNoteClient(mock), instructions: "Choose a section")
        let first = try await picker.browsing()
        #expect(first.instructions == "Choose a section")
        // Refresh forgets what was loaded: the notebooks are fetched again.
        let fetched = mock.requests.count
        await picker.send(.refresh)
        #expect(try await picker.browsing().entries.map(\.name) == ["Work"])
        #expect(mock.requests.count == fetched + 1)
        let states = await picker.states()
        let last = Task {
            var last: OneNotePickerState?
            for await state in states { last = state }
            return last
        }
        await picker.send(.cancel)
        #expect(await last.value?.phase == .cancelled, "the sequence ends with the cancellation")
        await picker.send(.open)
        #expect(await picker.current.phase == .cancelled)
        var late = await picker.states().makeAsyncIterator()
        #expect(await late.next()?.phase == .cancelled)
        #expect(await late.next() == nil)
    }

    @Test func readsTheLegacyAPIsFieldNames() async throws {
        let mock = try await oneNoteMock(
            [OneNoteMockFolder(id: "nb-old", name: "Personal", sections: ["Quick Notes"])], legacy: true)
        defer { Task { await mock.stop() } }
        let picker = OneNotePicker(client: oneNoteClient(mock))
        #expect(try await picker.browsing().entries.map(\.name) == ["Personal"])
        try await picker.open("Personal")
        _ = try await picker.browsing()
        try await picker.open("Quick Notes")
        let section = try #require(try await picker.state { $0.isFinished }.phaseSection)
        #expect(section.name == "Quick Notes")
        #expect(section.lastModifiedBy == "Alex Darrow")
        #expect(section.createdTime == ISO8601.parseDateTime("2014-04-29T23:49:49.003Z"))
        #expect(section.modifiedTime == ISO8601.parseDateTime("2014-05-07T17:11:56.533Z"))
    }
}

/// A notebook "Work" that lists a group "Archive", then `sections` sections: two kinds of page in one level.
func workWithArchive(sections: Int) -> OneNoteMockFolder {
    OneNoteMockFolder(
        id: "nb-work", name: "Work", sections: sectionNames(sections),
        groups: [OneNoteMockFolder(id: "g-archive", name: "Archive")])
}

extension OneNotePickerError {
    /// The API error of a fault the mock was told to inject.
    static func injected(_ status: Int, code: String, requestID: String?) -> OneNotePickerError {
        .api(.init(status: status, code: code, message: "injected fault: HTTP \(status)", requestID: requestID))
    }

    var requestID: String? {
        if case .api(let failure) = self { return failure.requestID }
        return nil
    }
}

extension OneNotePickerState {
    /// The picked section, when the phase is `picked`.
    var phaseSection: PickedSection? {
        if case .picked(let section) = phase { return section }
        return nil
    }
}
