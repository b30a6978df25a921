import BinderyJSON
import BinderyMock
import Foundation

extension MockOperation {
    /// Graph `sendMail`: the message lands in Sent Items unless `saveToSentItems` is false; 202. Like the service,
    /// it matches parameter names without regard to case: the documentation writes `message` and `saveToSentItems`,
    /// `$metadata` (and so the generated client) `Message` and `SaveToSentItems`.
    static let sendMail = MockOperation { call in
        guard case .object(let message)? = call.parameter("message") else {
            return call.server.errorResponse(400, code: "ErrorInvalidRequest", message: "the body needs a message")
        }
        if call.parameter("saveToSentItems") != .bool(false) {
            call.store.insert(sent(message), into: ["me", "mailFolders", "sentitems", "messages"])
        }
        return .empty(202)
    }

    /// `POST …/messages/{id}/send`: the draft leaves its folder for Sent Items, no longer a draft, with the time it
    /// left; 202. A message that is not a draft any more cannot be sent again.
    static let sendDraft = MockOperation { call in
        guard let (path, message) = call.storedMessage() else { return call.messageNotFound() }
        guard message["isDraft"] != .bool(false) else {
            return call.server.errorResponse(
                400, code: "ErrorInvalidOperation", message: "only a draft can be sent")
        }
        _ = call.store.remove(at: path)
        call.store.insert(sent(message), into: call.mailFolder("sentitems"), key: path.last)
        return .empty(202)
    }

    /// `POST …/messages/{id}/move {"destinationId": …}`: the message moves to the folder (an id, or a well-known
    /// name such as `deleteditems`) and, as in Exchange, gets a new id there; 201 with the moved message.
    static let moveMessage = MockOperation { call in
        guard let (path, message) = call.storedMessage() else { return call.messageNotFound() }
        guard let destination = call.parameter("destinationId")?.stringValue, !destination.isEmpty else {
            return call.server.errorResponse(
                400, code: "ErrorInvalidRequest", message: "the body needs a destinationId")
        }
        // Well-known names are case-insensitive (`DeletedItems`); folder ids are not.
        let wellKnown = ["inbox", "drafts", "sentitems", "deleteditems", "archive", "junkemail", "outbox"]
        let name = wellKnown.contains(destination.lowercased()) ? destination.lowercased() : destination
        let folder = call.mailFolder(name)
        guard wellKnown.contains(name) || call.store.object(at: Array(folder.dropLast())) != nil else {
            return call.server.errorResponse(404, code: "ErrorItemNotFound", message: "no folder \(destination)")
        }
        var moved = message
        moved["id"] = nil
        _ = call.store.remove(at: path)
        let stored = call.store.insert(moved, into: folder)
        return call.server.single(stored.object, status: 201)
    }
}

/// A message as the service keeps it once sent: read, not a draft, with the time it left.
private func sent(_ message: JSONObject) -> JSONObject {
    var sent = message
    sent["isRead"] = true
    sent["isDraft"] = false
    sent["sentDateTime"] = .string(MockServer.isoDate(Date()))
    return sent
}

extension MockCall {
    /// A parameter of the action's body, its name matched without regard to case: the documentation writes
    /// `saveToSentItems`, `$metadata` (and so the generated client) `SaveToSentItems`.
    fileprivate func parameter(_ name: String) -> JSONValue? {
        body?.objectValue?.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    /// The message the action is bound to, wherever its mailbox keeps it, and where that is.
    fileprivate func storedMessage() -> ([String], JSONObject)? {
        let path = store.locate(resourcePath)
        return store.object(at: path).map { (path, $0) }
    }

    fileprivate func messageNotFound() -> MockResponse {
        server.errorResponse(
            404, code: "ErrorItemNotFound", message: "no message at /\(resourcePath.joined(separator: "/"))")
    }

    /// The messages of a folder of the mailbox that owns the action's message (`me`, or `users/{id}`).
    fileprivate func mailFolder(_ folder: String) -> [String] {
        let owner = resourcePath.prefix { $0 != "messages" && $0 != "mailFolders" }
        return Array(owner) + ["mailFolders", folder, "messages"]
    }
}
