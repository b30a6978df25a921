import BinderyMock
import BinderyRuntime
import Foundation
import Graph
import Inbox
import OneDrive
import OneNote
import Spark

/// The services Bindery ships, as the mock speaks for them: each from its generated descriptor, with what its
/// dialect does differently and the operations that do more than answer their fixture.
///
/// `all` is the one list of services in Swift; the CLI, the conformance suite and the tests read it.
extension MockService {
    public static let oneDrive = MockService(
        OneDriveService.descriptor, deletionMarker: .deletedFacet,
        operations: [
            "microsoft.graph.driveItem/delta": .odataDelta,
            "microsoft.graph.driveItem/copy": .copy,
            "microsoft.graph.driveItem/createUploadSession": .uploadSession,
        ],
        uploadedFileFacet: { bytes in
            var hash = QuickXorHash()
            hash.update(bytes)
            return ["mimeType": "application/octet-stream", "hashes": ["quickXorHash": .string(hash.base64)]]
        }, redirectsContent: true)

    public static let oneNote = MockService(OneNoteService.descriptor)

    public static let graph = MockService(
        GraphService.descriptor,
        operations: [
            "microsoft.graph.user/sendMail": .sendMail,
            "microsoft.graph.message/delta": .odataDelta,
            "microsoft.graph.mailFolder/delta": .odataDelta,
            "microsoft.graph.message/send": .accepted(),
            "microsoft.graph.message/reply": .accepted(),
        ],
        // `GET /me/messages` lists the messages of every folder, Sent Items included.
        gatheringCollections: [["me", "messages"]])

    public static let spark = MockService(
        SparkService.descriptor, idMember: "Id", pageSize: 25,
        operations: [
            "spark.oauth2/grantToken": .sparkGrant,
            "spark.Service/createSession": .sparkSession,
            "spark.Notification/markNotificationsRead": .sparkMarkNotificationsRead,
            "spark.my/getAccount": .readStored,
            "spark.my/updateAccount": .updateStored,
        ],
        signIn: SparkSignInMock())

    public static let inbox = MockService(
        InboxService.descriptor,
        operations: [
            "inbox.Namespace/send": .inboxSend,
            "inbox.Draft/deleteDraft": .inboxDeleteDraft,
            "inbox.Thread/updateTags": .inboxUpdateTags,
            "inbox.File/upload": .inboxUpload,
            "inbox.File/download": .inboxDownload,
            "inbox.delta/generateCursor": .generateCursor,
            "inbox.delta/getLatestCursor": .latestCursor,
            "inbox.delta/listChanges": .cursorDelta,
            "inbox.longpoll/waitForChanges": .longpoll,
        ], versionMembers: ["inbox.Draft": "version"])

    /// Every service, with the generated calls that prove it: the one list of services.
    fileprivate static let catalogue: [(service: MockService, calls: [String: ConformanceCall])] = [
        (oneDrive, ConformanceCalls.oneDrive), (oneNote, ConformanceCalls.oneNote), (graph, ConformanceCalls.graph),
        (spark, ConformanceCalls.spark), (inbox, ConformanceCalls.inbox),
    ]

    public static let all: [MockService] = catalogue.map(\.service)

    /// `onedrive`, `OneNote`… (case-insensitive).
    public static func named(_ name: String) -> MockService? { all.first { $0.name.lowercased() == name.lowercased() } }
}

extension ConformanceCalls {
    /// The generated calls of every service, by `MockService.name`.
    public static let byService: [String: [String: ConformanceCall]] = Dictionary(
        uniqueKeysWithValues: MockService.catalogue.map { ($0.service.name, $0.calls) })
}
