import BinderyRuntime
import Foundation
import HTTPTypes

// Handwritten beside the generated code: what the spec cannot say (instance annotations, path addressing,
// the copy monitor). Everything here is built from the generated builders and models.

extension OneDriveClient {
    /// The scopes to ask for when signing in (`MicrosoftIdentity.configuration`): read and write files, and a
    /// refresh token so that the session renews silently.
    public static let scopes = ["Files.ReadWrite", "offline_access"]
}

/// What the service does when an item with the same name already exists.
public enum ConflictBehavior: String, Sendable {
    case fail, replace, rename
}

extension DriveItem {
    /// A new folder to `add` to a `children` collection.
    public static func folder(named name: String, onConflict behavior: ConflictBehavior? = nil) -> DriveItem {
        var item = DriveItem()
        item.name = name
        item.folder = Folder()
        item.conflictBehavior = behavior
        return item
    }

    /// A short-lived, pre-authenticated URL for the item's bytes: Graph's `@microsoft.graph.downloadUrl`, or the
    /// consumer API's `@content.downloadUrl`. Fetch it without credentials; it expires within the hour.
    public var downloadURL: URL? {
        let text = storage["@microsoft.graph.downloadUrl"]?.stringValue ?? storage["@content.downloadUrl"]?.stringValue
        return text.flatMap(URL.init(string:))
    }

    /// `@microsoft.graph.conflictBehavior`, sent with a new item.
    public var conflictBehavior: ConflictBehavior? {
        get { storage.conflictBehavior }
        set { storage.conflictBehavior = newValue }
    }

    public var isFolder: Bool { storage["folder"]?.objectValue != nil }

    /// Deleted, as a delta page reports it: Graph's `@removed` or the consumer API's `deleted` facet.
    public var isDeleted: Bool { isDeletedInDelta || storage["deleted"]?.objectValue != nil }
}

extension DriveItemUploadableProperties {
    /// `@microsoft.graph.conflictBehavior` for the file the upload session creates.
    public var conflictBehavior: ConflictBehavior? {
        get { storage.conflictBehavior }
        set { storage.conflictBehavior = newValue }
    }
}

extension JSONObject {
    /// The instance annotation both a new item and an upload session's properties carry; nil removes it.
    fileprivate var conflictBehavior: ConflictBehavior? {
        get { self["@microsoft.graph.conflictBehavior"]?.stringValue.flatMap(ConflictBehavior.init(rawValue:)) }
        set { self["@microsoft.graph.conflictBehavior"] = newValue.map { .string($0.rawValue) } }
    }
}

extension DriveItemRequestBuilder {
    /// The item at a path below this one, as OneDrive addresses it: `root.item(atPath: "Docs/a.txt")` is
    /// `root:/Docs/a.txt:`. Each component is percent-encoded; `..` cannot climb out. Chain on as usual:
    /// `.children`, `.content.upload(_:)` (a small upload that creates the file).
    public func item(atPath relativePath: String) -> DriveItemRequestBuilder {
        DriveItemRequestBuilder(client: client, path: path.appending(pathBelow: relativePath))
    }

    /// Starts a server-side copy. The service answers 202 with a monitor URL rather than the copy, so this returns
    /// a `CopyMonitor` to poll; the generated `copy(parentReference:name:)` builds the same request.
    public func startCopy(to parent: ItemReference, name: String? = nil) async throws(BinderyError) -> CopyMonitor {
        let response = try await client.send(copy(parentReference: parent, name: name).request)
        guard let location = response.headers[.location], let url = URL(string: location) else {
            throw BinderyError.invalidResponse(
                "the copy was accepted without a Location monitor URL", response: response)
        }
        return CopyMonitor(client: client, url: url)
    }
}

/// Polls an asynchronous copy. The monitor URL is pre-authenticated and on another host, so no credentials
/// are sent to it (the client's trusted hosts decide that).
public struct CopyMonitor: Sendable {
    public let client: ServiceClient
    public let url: URL

    public init(client: ServiceClient, url: URL) {
        self.client = client
        self.url = url
    }

    /// The job's state now: `status` is `notStarted`, `inProgress`, `completed` or `failed`; `resourceId` names
    /// the new item once it is complete.
    public func status() async throws(BinderyError) -> AsyncJobStatus {
        var request = APIRequest(method: .get, path: ResourcePath())
        request.absoluteURL = url
        let response = try await client.send(request)
        do {
            return try AsyncJobStatus(jsonBytes: response.body)
        } catch {
            throw BinderyError.decoding(error, response: response)
        }
    }

    /// Polls until the copy completes and returns the new item's id. A failed, cancelled or unreadable job is an
    /// error, and so is one still running after `timeout`; polls are at least 100 ms apart.
    public func waitForCompletion(
        pollingEvery interval: Duration = .seconds(1), timeout: Duration = .seconds(600)
    ) async throws(BinderyError) -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let pause = max(interval, .milliseconds(100))
        while true {
            let job = try await status()
            switch job.status {
            case "completed":
                guard let id = job.resourceId else {
                    throw BinderyError.invalidResponse("the completed copy names no resourceId", response: nil)
                }
                return id
            case "notStarted", "inProgress", "waiting":
                guard clock.now + pause < deadline else {
                    throw BinderyError(
                        kind: .timeout, message: "the copy was still \(job.status ?? "") after \(timeout)")
                }
                do { try await Task.sleep(for: pause) } catch {
                    throw BinderyError(kind: .cancelled, message: "the wait for the copy was cancelled")
                }
            case let other:
                throw BinderyError.invalidResponse(
                    "the copy ended as \(other ?? "no status"): \(job.statusDescription ?? "no description")",
                    response: nil)
            }
        }
    }
}
