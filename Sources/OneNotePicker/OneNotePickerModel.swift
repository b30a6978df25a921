import Observation
import OneNote

/// The picker for a SwiftUI view: an `@Observable` model on the main actor whose `state` follows the picker's, so a
/// view that reads it redraws when it changes.
///
/// Start it with `.task { await model.run() }`; buttons call `send(_:)`, which keeps the order actions were sent in.
/// `run()` returns once a section is picked or the picker is cancelled (`state.phase` says which).
@MainActor @Observable
public final class OneNotePickerModel {
    /// What the picker shows now.
    public private(set) var state: OneNotePickerState
    @ObservationIgnored public let picker: OneNotePicker
    @ObservationIgnored private let actions: AsyncStream<OneNotePickerAction>
    @ObservationIgnored private let queue: AsyncStream<OneNotePickerAction>.Continuation

    public init(picker: OneNotePicker, instructions: String? = nil) {
        self.picker = picker
        state = OneNotePickerState(
            phase: .loading, path: [], entries: [], search: nil, selection: 0, instructions: instructions)
        (actions, queue) = AsyncStream.makeStream(of: OneNotePickerAction.self)
    }

    /// A model over a new picker; the arguments are `OneNotePicker`'s.
    public convenience init(client: OneNoteClient, pageSize: Int? = nil, instructions: String? = nil) {
        self.init(
            picker: OneNotePicker(client: client, pageSize: pageSize, instructions: instructions),
            instructions: instructions)
    }

    /// Queues an action for the picker; actions reach it in the order they were sent.
    public func send(_ action: OneNotePickerAction) { queue.yield(action) }

    /// Follows the picker's states and hands it the queued actions, until a section is picked or the picker is
    /// cancelled, or the calling task is cancelled.
    public func run() async {
        let picker = picker
        let actions = actions
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await action in actions { await picker.send(action) }
            }
            for await state in await picker.states() { self.state = state }
            group.cancelAll()
        }
    }
}
