import BinderyMock
import BinderyServiceMocks
import Observation
import OneNotePicker
import Synchronization
import Testing

/// `OneNotePickerModel`, as a SwiftUI view uses it, over real HTTP against the OneNote mock: Observation tells the
/// view when `state` changes, and actions sent from buttons reach the picker in order.
@MainActor @Suite struct OneNotePickerModelTests {
    // The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
    // wait a minute or more for a thread before its first line runs.
    @Test(.timeLimit(.minutes(5))) func aViewSeesEachChangeAndPicksASectionThroughTheModel() async throws {
        let mock = try await oneNoteMock([
            OneNoteMockFolder(id: "nb-work", name: "Work", sections: ["Meetings", "Plans"]),
            OneNoteMockFolder(id: "nb-home", name: "Home", sections: ["Recipes"]),
        ])
        defer { Task { await mock.stop() } }
        let model = OneNotePickerModel(client: oneNoteClient(mock), instructions: "Choose a section")
        #expect(model.state.phase == .loading)
        #expect(model.state.instructions == "Choose a section")

        // What a view's body reads is tracked; a change to it must be announced.
        let changes = Changes()
        func track() {
            withObservationTracking {
                _ = model.state
            } onChange: {
                changes.count.withLock { $0 += 1 }
            }
        }
        track()
        let running = Task { await model.run() }
        try await until { model.state.phase == .browsing && model.state.entries.map(\.name) == ["Work", "Home"] }
        #expect(changes.count.withLock { $0 } == 1, "the first change is announced")

        // Open Work; then two taps at once, which must arrive in order: down one row, pick.
        track()
        model.send(.open)
        try await until { model.state.path.map(\.name) == ["Work"] && model.state.phase == .browsing }
        model.send(.move(by: 1))
        model.send(.pick)
        await running.value
        #expect(changes.count.withLock { $0 } == 2)
        guard case .picked(let section) = model.state.phase else {
            Issue.record("not picked: \(model.state.phase)")
            return
        }
        #expect(section.name == "Plans")
        #expect(section.path == ["Work"])
    }

    final class Changes: Sendable {
        let count = Mutex(0)
    }

    /// Waits, yielding the main actor, until `condition` holds; a minute at most.
    func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("the condition never held", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
