import BinderyRuntime
import Foundation
import Graph
import Inbox
import OneDrive
import OneNote
import Spark

/// The five generated modules as the command line sees them: a route table, wire conventions and the bases a
/// captured URL may start with.
struct Service {
    let name: String
    let routes: RouteTable
    let conventions: ServiceConventions
    let baseURLs: [URL]

    static let all: [Service] = [
        Service(
            name: "onedrive", routes: OneDriveRoutes.table, conventions: OneDriveClient.conventions,
            baseURLs: [OneDriveClient.defaultBaseURL, OneDriveClient.consumerBaseURL]),
        Service(
            name: "onenote", routes: OneNoteRoutes.table, conventions: OneNoteClient.conventions,
            baseURLs: [OneNoteClient.defaultBaseURL, OneNoteClient.legacyBaseURL]),
        Service(
            name: "graph", routes: GraphRoutes.table, conventions: GraphClient.conventions,
            baseURLs: [GraphClient.defaultBaseURL]),
        Service(
            name: "spark", routes: SparkRoutes.table, conventions: SparkClient.conventions,
            baseURLs: [SparkClient.defaultBaseURL]),
        Service(
            name: "inbox", routes: InboxRoutes.table, conventions: InboxClient.conventions,
            baseURLs: [InboxClient.defaultBaseURL]),
    ]

    static func named(_ name: String) -> Service? { all.first { $0.name == name.lowercased() } }

    /// The path of `url` below the service root (see `PayloadValidator.path(of:below:)`).
    func path(of url: String) -> String { PayloadValidator.path(of: url, below: baseURLs) }
}
