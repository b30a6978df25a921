import BinderyMock
import Foundation
import Graph

/// Graph as the mock speaks for it: its generated descriptor, with what its dialect does differently and the
/// operations that do more than answer their fixture. A test that mocks Graph depends on this module alone.
extension MockService {
    public static let graph = {
        var graph = MockService(
            GraphService.descriptor,
            operations: [
                "microsoft.graph.user/sendMail": .sendMail,
                "microsoft.graph.message/delta": .odataDelta,
                "microsoft.graph.mailFolder/delta": .odataDelta,
                "microsoft.graph.message/send": .sendDraft,
                "microsoft.graph.message/move": .moveMessage,
                "microsoft.graph.message/reply": .accepted(),
            ],
            // `GET /me/messages` lists the messages of every folder, Drafts and Sent Items included.
            gatheringCollections: [["me", "messages"]])
        // A message created at `POST /me/messages` is a draft, kept in Drafts until it is sent.
        graph.createPlacements[["me", "messages"]] = .init(
            collection: ["me", "mailFolders", "drafts", "messages"], setting: ["isDraft": true])
        return graph
    }()
}

extension MockSample {
    /// The hand-written sample `bindery mock` serves for Graph by default (`Samples/Graph.json`, compiled in).
    public static func graph() throws -> MockSample { try MockSample(json: PackageResources.Graph_json) }
}
