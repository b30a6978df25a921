import BinderyRuntime
import Foundation

extension OneDriveClient {
    /// Cancels the upload a state file describes: DELETE to its session URL, and the state file is removed.
    public func cancelUpload(stateFile: String) async throws(BinderyError) {
        guard let state = UploadState.load(from: stateFile) else { return }
        try await deleteUploadSession(state.uploadURL, client: client)
        try? FileManager.default.removeItem(atPath: stateFile)
    }
}

private func deleteUploadSession(_ url: URL, client: ServiceClient) async throws(BinderyError) {
    var request = APIRequest(method: .delete, path: ResourcePath())
    request.absoluteURL = url
    _ = try await client.withoutCredentials.send(request)
}

extension DriveItemRequestBuilder {
    /// Uploads a file of any size to `relativePath` below this folder through an upload session: ranges of
    /// `chunkSize` bytes (rounded down to a multiple of 320 KiB; 10 MiB by default), one in memory at a time, sent
    /// to the session's URL without credentials.
    ///
    /// With a `stateFile`, the session is saved after every acknowledged range, and a later call with the same
    /// file and state file (in this process or another) carries on from the bytes the service still expects. A
    /// saved session that expired, or whose file changed, starts over (`events` says so with `.restarted`). A
    /// range that fails is not guessed at: the session is asked which bytes it still needs. The created item is
    /// checked against the file (size, and `quickXorHash` when the service reports one) and the state file is
    /// removed. Cancelling the task without a state file deletes the session; with one, it is kept for later.
    public func upload(
        file path: String, to relativePath: String, conflictBehavior: ConflictBehavior? = nil,
        chunkSize: Int = 10 << 20, stateFile: String? = nil,
        events: @escaping @Sendable (UploadEvent) -> Void = { _ in }
    ) async throws(BinderyError) -> DriveItem {
        let destination = item(atPath: relativePath)
        let uploader = ChunkedUploader(client: client, stateFile: stateFile, events: events)
        do {
            var state = try await startOrResume(
                file: path, at: destination, name: relativePath, conflictBehavior: conflictBehavior,
                chunkSize: ChunkedUploader.validChunkSize(chunkSize), stateFile: stateFile, events: events)
            var restarts = 0
            while true {
                do {
                    let item = try await uploader.run(&state)
                    try verify(item, against: state)
                    if let stateFile { try? FileManager.default.removeItem(atPath: stateFile) }
                    return item
                } catch let gone as UploadSessionGone {
                    restarts += 1
                    guard restarts <= 2 else { throw BinderyError(kind: .api, message: gone.reason, status: 404) }
                    events(.restarted(reason: gone.reason))
                    state = try await newSession(
                        file: path, at: destination, name: relativePath, conflictBehavior: conflictBehavior,
                        chunkSize: state.chunkSize, stateFile: stateFile, events: events)
                } catch {
                    guard Task.isCancelled else { throw error }
                    // Nobody can resume a session whose state was not saved: give its bytes back (from a task
                    // of its own, as this one is cancelled).
                    if stateFile == nil {
                        let (url, client) = (state.uploadURL, client)
                        await Task { try? await deleteUploadSession(url, client: client) }.value
                    }
                    throw BinderyError(kind: .cancelled, message: "the upload was cancelled")
                }
            }
        } catch let error as BinderyError {
            throw error
        } catch {
            throw BinderyError(kind: .storage, message: "\(error)", underlying: error)
        }
    }

    /// The saved session when it still fits the file and the service still has it; otherwise a new one.
    private func startOrResume(
        file path: String, at destination: DriveItemRequestBuilder, name: String,
        conflictBehavior: ConflictBehavior?, chunkSize: Int, stateFile: String?,
        events: @escaping @Sendable (UploadEvent) -> Void
    ) async throws -> UploadState {
        let start = { () async throws -> UploadState in
            try await self.newSession(
                file: path, at: destination, name: name, conflictBehavior: conflictBehavior, chunkSize: chunkSize,
                stateFile: stateFile, events: events)
        }
        guard let stateFile, var saved = UploadState.load(from: stateFile), saved.filePath == path else {
            return try await start()
        }
        guard saved.matchesFile() else {
            events(.restarted(reason: "\(path) changed since its upload started"))
            return try await start()
        }
        guard !saved.isExpired() else {
            events(.restarted(reason: "the saved upload session expired"))
            return try await start()
        }
        // The process that saved the state may have died after a range was acknowledged but before saving:
        // ask the session rather than send that range again.
        do {
            let status = try await SessionStatus.fetch(saved.uploadURL, client: client)
            if let next = status.nextByte { saved.nextByte = next }
            if let expiration = status.expiration { saved.expiration = expiration }
        } catch let error as BinderyError where error.status == 404 {
            events(.restarted(reason: "the saved upload session no longer exists"))
            return try await start()
        }
        events(.resumed(acknowledged: saved.nextByte, total: saved.fileSize))
        return saved
    }

    private func newSession(
        file path: String, at destination: DriveItemRequestBuilder, name: String,
        conflictBehavior: ConflictBehavior?, chunkSize: Int, stateFile: String?,
        events: @escaping @Sendable (UploadEvent) -> Void
    ) async throws -> UploadState {
        let identity = try FileIdentity(path: path)
        var properties = DriveItemUploadableProperties()
        properties.name = name.split(separator: "/").last.map(String.init)
        properties.conflictBehavior = conflictBehavior
        let session = try await destination.createUploadSession(item: properties).execute()
        guard let text = session.uploadUrl, let url = URL(string: text) else {
            throw BinderyError.invalidResponse("the upload session has no uploadUrl", response: nil)
        }
        let state = UploadState(
            uploadURL: url, expiration: session.expirationDateTime, filePath: path, fileSize: identity.size,
            fileModified: identity.modified, chunkSize: chunkSize, nextByte: 0)
        try stateFile.map { try state.save(to: $0) }
        events(.started(total: identity.size))
        return state
    }

    /// The item the service created must be the file: its size, and its content hash when the service gives one.
    private func verify(_ item: DriveItem, against state: UploadState) throws {
        guard let size = item.size, size == state.fileSize else {
            let reported = item.size.map { "\($0) bytes" } ?? "no size"
            throw BinderyError.invalidResponse(
                "the uploaded item has \(reported), the file \(state.fileSize) bytes", response: nil)
        }
        guard let remote = item.file?.hashes?.quickXorHash else { return }
        let local = try QuickXorHash.ofFile(atPath: state.filePath)
        guard remote == local else {
            throw BinderyError.invalidResponse(
                "the uploaded item's quickXorHash \(remote) differs from the file's \(local)", response: nil)
        }
    }
}
