import BinderyRuntime
import Foundation
import Graph
import Inbox
import OneDrive
import OneNote
import Spark

/// The five services Bindery ships, each from its generated route table and conventions.
extension MockService {
    public static let oneDrive = MockService(
        name: "OneDrive", routes: OneDriveRoutes.table, conventions: OneDriveClient.conventions,
        basePath: basePath(OneDriveClient.defaultBaseURL), deletionMarker: .deletedFacet,
        operations: [
            "microsoft.graph.driveItem/delta": .odataDelta,
            "microsoft.graph.driveItem/copy": .copy,
            "microsoft.graph.driveItem/createUploadSession": .uploadSession,
        ])

    public static let oneNote = MockService(
        name: "OneNote", routes: OneNoteRoutes.table, conventions: OneNoteClient.conventions,
        basePath: basePath(OneNoteClient.defaultBaseURL))

    public static let graph = MockService(
        name: "Graph", routes: GraphRoutes.table, conventions: GraphClient.conventions,
        basePath: basePath(GraphClient.defaultBaseURL),
        operations: [
            "microsoft.graph.user/sendMail": .sendMail,
            "microsoft.graph.message/delta": .odataDelta,
            "microsoft.graph.mailFolder/delta": .odataDelta,
            "microsoft.graph.message/send": .accepted(),
            "microsoft.graph.message/reply": .accepted(),
        ])

    public static let spark = MockService(
        name: "Spark", routes: SparkRoutes.table, conventions: SparkClient.conventions,
        basePath: basePath(SparkClient.defaultBaseURL), idMember: "Id", pageSize: 25,
        operations: [
            "spark.oauth2/grantToken": .sparkGrant,
            "spark.Service/createSession": .sparkSession,
        ])

    public static let inbox = MockService(
        name: "Inbox", routes: InboxRoutes.table, conventions: InboxClient.conventions,
        basePath: basePath(InboxClient.defaultBaseURL),
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
        ])

    public static let all: [MockService] = [oneDrive, oneNote, graph, spark, inbox]

    /// `onedrive`, `OneNote`… (case-insensitive).
    public static func named(_ name: String) -> MockService? { all.first { $0.name.lowercased() == name.lowercased() } }

    private static func basePath(_ url: URL) -> [String] { url.pathComponents.filter { $0 != "/" } }
}

extension ConformanceCalls {
    /// The generated calls of the five services, by `MockService.name`.
    public static let byService: [String: [String: ConformanceCall]] = [
        "OneDrive": oneDrive, "OneNote": oneNote, "Graph": graph, "Spark": spark, "Inbox": inbox,
    ]
}
