import BinderyRuntime
import Foundation

// Handwritten beside the generated code: drafts' optimistic concurrency, and the four forms of an event's `when`.

extension NamespaceRequestBuilder {
    /// Sends a saved draft; `version` must be the draft's latest, or the service refuses with a conflict.
    public func send(draftID: String, version: Int32) -> OperationRequest<Message> {
        var outgoing = Outgoing()
        outgoing.draftId = draftID
        outgoing.version = version
        return send(outgoing)
    }
}

extension DraftRequestBuilder {
    /// Deletes the draft at this `version` (the latest one, or the service refuses).
    public func delete(version: Int32) -> OperationRequest<Void> {
        var body = DraftVersion()
        body.version = version
        return deleteDraft(body)
    }
}

/// The four forms an event's `when` takes, told apart by its `object` member.
public enum EventTime: Sendable, Hashable {
    case time(Time)
    case timespan(Timespan)
    case date(CalendarDay)
    case datespan(Datespan)
    /// A form this module does not know; nothing is lost.
    case other(When)
}

extension When {
    /// Which of the four forms this is.
    public var form: EventTime {
        switch resolved {
        case let value as Time: return .time(value)
        case let value as Timespan: return .timespan(value)
        case let value as CalendarDay: return .date(value)
        case let value as Datespan: return .datespan(value)
        default: return .other(self)
        }
    }
}
