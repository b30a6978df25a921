import Foundation

/// One change in a cursor delta round (Inbox): what changed, how, and its state after the change.
public struct DeltaEvent: Sendable {
    /// The type of the object (`message`, `thread`, `contact`...).
    public var object: String
    /// `create`, `modify` or `delete`.
    public var event: String
    public var id: String
    /// The cursor just after this change: save it to resume from here.
    public var cursor: String?
    /// The object as it is now; absent for deletions.
    public var attributes: JSONObject?
    /// The event as received, for fields this type does not name.
    public var raw: JSONObject

    public var isDeletion: Bool { event == "delete" }

    /// The object decoded as a model; nil for a deletion.
    public func decode<Decoded: JSONModel>(_ type: Decoded.Type) throws(ModelDecodingError) -> Decoded? {
        guard let attributes else { return nil }
        return try Decoded(validating: attributes)
    }
}

/// One round of a cursor delta: the events between `cursorStart` and `cursorEnd`.
public struct DeltaRound: Sendable {
    public var cursorStart: String
    public var cursorEnd: String
    public var events: [DeltaEvent]
    /// True when the service has nothing after this round (`cursor_start == cursor_end`).
    public var isLast: Bool { cursorStart == cursorEnd }
}

extension OperationRequest {
    /// Cursor delta (Inbox): every round after the request's cursor, fetched as the sequence is
    /// iterated, until the service reports `cursor_start == cursor_end`. Resume later from the last
    /// round's `cursorEnd` (or the last handled event's `cursor`).
    public func deltaRounds() -> DeltaRoundSequence { DeltaRoundSequence(client: client, first: request) }
}

/// The rounds of a cursor delta, fetched lazily; a cursor that does not advance ends it with an error.
public struct DeltaRoundSequence: AsyncSequence, Sendable {
    public typealias Element = DeltaRound
    let client: ServiceClient
    let first: APIRequest

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(client: client, next: first) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: ServiceClient
        var next: APIRequest?
        var seenCursors: Set<String> = []

        public mutating func next() async throws -> DeltaRound? {
            guard let request = next else { return nil }
            next = nil
            guard case .cursor(let parameter, let startField, let endField, let eventsField) = client.conventions.delta
            else {
                throw BinderyError(kind: .invalidResponse, message: "this service has no cursor delta")
            }
            let response = try await client.send(request)
            let root = try response.json()
            guard let start = root[startField]?.scalarText, let end = root[endField]?.scalarText,
                case .array(let elements)? = root[eventsField]
            else {
                throw BinderyError.invalidResponse(
                    "expected \"\(startField)\", \"\(endField)\" and a \"\(eventsField)\" array", response: response)
            }
            var events: [DeltaEvent] = []
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element, let id = object["id"]?.scalarText,
                    let kind = object["event"]?.stringValue
                else {
                    throw BinderyError.decoding(
                        ModelDecodingError(
                            path: [.key(eventsField), .index(index)],
                            message: "expected an event with \"id\" and \"event\""),
                        response: response)
                }
                events.append(
                    DeltaEvent(
                        object: object["object"]?.stringValue ?? "", event: kind, id: id,
                        cursor: object["cursor"]?.scalarText, attributes: object["attributes"]?.objectValue, raw: object
                    ))
            }
            let round = DeltaRound(cursorStart: start, cursorEnd: end, events: events)
            if !round.isLast {
                guard seenCursors.insert(end).inserted else {
                    throw BinderyError(kind: .pagingLoop, message: "the delta cursor \(end) came back again")
                }
                var following = request
                following.setQuery(parameter, end)
                next = following
            }
            return round
        }
    }
}
