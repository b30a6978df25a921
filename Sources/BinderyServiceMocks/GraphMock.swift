import BinderyJSON
import BinderyMock
import Foundation

extension MockOperation {
    /// Graph `sendMail`: the message lands in Sent Items unless `saveToSentItems` is false; 202.
    static let sendMail = MockOperation { call in
        guard case .object(let message)? = call.body?["message"] else {
            return call.server.errorResponse(400, code: "ErrorInvalidRequest", message: "the body needs a message")
        }
        if call.body?["saveToSentItems"] != .bool(false) {
            call.store.insert(message, into: ["me", "mailFolders", "sentitems", "messages"])
        }
        return .empty(202)
    }
}
