import HTTPTypes

/// A stream property such as a drive item's `content` or a OneNote page's `content`: its bytes, read or replaced.
///
/// Downloads may be redirected to a pre-authenticated URL on another host (OneDrive does this); the redirect
/// middleware follows it without credentials.
public struct StreamRequestBuilder<Owner: JSONModel>: Sendable {
    public let client: ServiceClient
    public let path: ResourcePath

    public init(client: ServiceClient, path: ResourcePath) {
        self.client = client
        self.path = path
    }

    /// The request a download sends, for inspection or adjustment.
    public var downloadRequest: APIRequest { APIRequest(method: .get, path: path) }

    /// The bytes, in memory.
    public func download() async throws(BinderyError) -> [UInt8] {
        try await client.send(downloadRequest).body
    }

    /// The bytes, streamed to a file (written to a temporary file and moved there only when complete).
    public func download(
        to filePath: String, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(BinderyError) {
        _ = try await client.send(downloadRequest, options: TransferOptions(downloadPath: filePath, progress: progress))
    }

    /// Changes the content with a JSON PATCH of the stream's URL, sent when the request is executed: OneNote
    /// edits a page's HTML with a list of commands (`pages(id).content.patch([command])`, each a target, an
    /// action, a position and content). The service answers 204 No Content.
    public func patch(_ changes: some JSONConvertible) -> OperationRequest<Void> {
        var request = APIRequest(method: .patch, path: path)
        request.setJSONBody(changes.json)
        return OperationRequest(client: client, request: request, decoder: .empty)
    }

    /// Replaces the bytes with a PUT (OneDrive's simple upload, for files up to 250 MB; larger ones need an
    /// upload session). Returns the owner as the service stored it, or nil when it answers without a body.
    @discardableResult
    public func upload(
        _ body: RequestBody, contentType: String = "application/octet-stream",
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(BinderyError) -> Owner? {
        var request = APIRequest(method: .put, path: path, body: body)
        request.headers[.contentType] = contentType
        let response = try await client.send(request, options: TransferOptions(progress: progress))
        if response.body.isEmpty { return nil }
        return try client.decodeModel(Owner.self, from: response)
    }
}
