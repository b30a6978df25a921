import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneNote
import OneNotePicker
import Testing

/// A OneNote mock on 127.0.0.1 seeded with `notebooks`, as the headless tests and the terminal tests use it.
func oneNoteMock(_ notebooks: [OneNoteMockFolder], legacy: Bool = false) async throws -> MockServer {
    let mock = try await MockServer(.oneNote)
    mock.seedOneNote(notebooks, legacy: legacy)
    return mock
}

/// A client of `mock` with a token it accepts and the default middleware (retries included).
func oneNoteClient(_ mock: MockServer, middleware: [any HTTPMiddleware] = .defaults) -> OneNoteClient {
    OneNoteClient(
        baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken), middleware: middleware)
}

/// `count` section names: `Section 001`, `Section 002`…
func sectionNames(_ count: Int, prefix: String = "Section") -> [String] {
    (1...count).map { "\(prefix) \(String(format: "%03d", $0))" }
}

extension OneNotePicker {
    /// The first state that satisfies `condition`, waiting for the picker's states as they come. A picker that
    /// never gets there fails the test after a minute rather than hanging the suite.
    func state(
        where condition: @escaping @Sendable (OneNotePickerState) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> OneNotePickerState {
        let states = self.states()
        let found = try await withThrowingTaskGroup(of: OneNotePickerState?.self) { group in
            group.addTask {
                for await state in states where condition(state) { return state }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        return try #require(
            found, "the picker never reached the state; it is at \(current)", sourceLocation: sourceLocation)
    }

    /// Waits for a failure and returns it.
    func failure() async throws -> OneNotePickerError {
        let failed = try await state { if case .failed = $0.phase { true } else { false } }
        guard case .failed(let error) = failed.phase else { throw CancellationError() }
        return error
    }

    /// Waits for the open level to be loaded whole.
    func browsing() async throws -> OneNotePickerState {
        try await state { $0.phase == .browsing }
    }

    /// Selects the row called `name` and opens it (a notebook or group) or picks it (a section).
    func open(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let index = try #require(
            current.rows.firstIndex { $0.name == name }, "no row \(name) in \(current.rows.map(\.name))",
            sourceLocation: sourceLocation)
        send(.select(index))
        send(.open)
    }
}
