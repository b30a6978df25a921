import BinderyRuntime
import Foundation
import HTTPTypes

// Handwritten beside the generated code: what the spec cannot say (instance annotations, path addressing,
// the copy monitor). Everything here is built from the generated builders and models.

extension OneDriveClient {
    /// The scopes to ask for when signing in (`MicrosoftIdentity.configuration`): read and write files, and a
    /// refresh token so that the session renews silently.
    public static let scopes = ["Files.ReadWrite", "offline_access"]

    /// A client of the consumer API at api.onedrive.com that asks in its own URL forms: `action.copy`,
    /// `action.createLink`, `upload.createSession`, `view.delta?token=…`, `view.search?q=…` where Graph says `copy`,
    /// `createLink`, `createUploadSession`, `delta(token='…')`, `search(q='…')`. Builders are the same.
    public static func consumer(
        baseURL: URL = consumerBaseURL, auth: (any AuthProvider)? = nil,
        transport: any HTTPTransport = DefaultTransport.shared, middleware: [any HTTPMiddleware] = .defaults,
        headers: HTTPFields = [:]
    ) -> OneDriveClient {
        var client = OneDriveClient(
            baseURL: baseURL, auth: auth, transport: transport, middleware: middleware, headers: headers
        ).client
        client.legacySegments = OneDriveService.descriptor.routes.legacySegments
        return OneDriveClient(client: client)
    }
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

extension OneDriveClient {
    /// Sends any number of requests through `$batch` (Graph's; the consumer API has none), 20 per call, and
    /// answers each step typed: see `ServiceClient.batch(_:path:maxAttempts:sleep:)` for the ordering of
    /// `dependsOn` chains across calls and the per-step retry of 429, 503 and 504.
    public func batch(_ steps: [BatchStep], maxAttempts: Int = 4) async throws(BinderyError) -> [BatchAnswer] {
        try await client.batch(steps, maxAttempts: maxAttempts)
    }
}

extension DriveItemRequestBuilder {
    /// The item at a path below this one, as OneDrive addresses it: `root.item(atPath: "Docs/a.txt")` is
    /// `root:/Docs/a.txt:`. Each component is percent-encoded; `..` cannot climb out. Chain on as usual:
    /// `.children`, `.content.upload(_:)` (a small upload that creates the file).
    public func item(atPath relativePath: String) -> DriveItemRequestBuilder {
        DriveItemRequestBuilder(client: client, path: path.appending(pathBelow: relativePath))
    }

    /// Starts a server-side copy and returns the monitor to poll: the generated `copy(parentReference:name:)`
    /// (the spec marks it `Bindery.Monitor`), sent.
    public func startCopy(to parent: ItemReference, name: String? = nil) async throws(BinderyError) -> CopyMonitor {
        try await copy(parentReference: parent, name: name).send()
    }
}

/// Polls an asynchronous copy: the monitor URL is pre-authenticated and on another host, so no credentials are
/// sent to it (the client's trusted hosts decide that).
public typealias CopyMonitor = OperationMonitor<AsyncJobStatus>

extension OperationMonitor where Status == AsyncJobStatus {
    /// Polls until the copy completes and returns the new item's id (see `waitForCompletion(pollingEvery:timeout:)`
    /// for the errors).
    public func newItemID(
        pollingEvery interval: Duration = .seconds(1), timeout: Duration = .seconds(600)
    ) async throws(BinderyError) -> String {
        let job = try await waitForCompletion(pollingEvery: interval, timeout: timeout)
        guard let id = job.resourceId else {
            throw BinderyError.invalidResponse("the completed copy names no resourceId", response: nil)
        }
        return id
    }
}
