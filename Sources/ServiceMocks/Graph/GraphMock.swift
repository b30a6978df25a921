import BinderyJSON
import BinderyMock
import Foundation

extension MockOperation {
    /// Graph `sendMail`: the message lands in Sent Items unless `saveToSentItems` is false; 202. Like the service,
    /// it matches parameter names without regard to case: the documentation writes `message` and `saveToSentItems`,
    /// `$metadata` (and so the generated client) `Message` and `SaveToSentItems`.
    static let sendMail = MockOperation { call in
        func parameter(_ name: String) -> JSONValue? {
            call.body?.objectValue?.first { $0.key.lowercased() == name.lowercased() }?.value
        }
        guard case .object(var message)? = parameter("message") else {
            return call.server.errorResponse(400, code: "ErrorInvalidRequest", message: "the body needs a message")
        }
        // As the service keeps a sent message: read, not a draft, with the time it left.
        message["isRead"] = true
        message["isDraft"] = false
        message["sentDateTime"] = .string(ISO8601DateFormatter().string(from: Date()))
        if parameter("saveToSentItems") != .bool(false) {
            call.store.insert(message, into: ["me", "mailFolders", "sentitems", "messages"])
        }
        return .empty(202)
    }
}
