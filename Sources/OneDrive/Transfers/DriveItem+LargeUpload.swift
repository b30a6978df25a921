import BinderyRuntime
import Foundation

extension OneDriveClient {
    /// Cancels the upload a state file describes: DELETE to its session URL, and the state file is removed.
    public func cancelUpload(stateFile: String) async throws(BinderyError) {
        guard let state = UploadState.load(from: stateFile) else { return }
        try await SessionStatus.delete(state.uploadURL, client: client)
        try? FileManager.default.removeItem(atPath: stateFile)
    }
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
        events: @escaping @Sendable (TransferEvent) -> Void = { _ in }
    ) async throws(BinderyError) -> DriveItem {
        let upload = LargeUpload(
            destination: item(atPath: relativePath), file: path,
            name: relativePath.split(separator: "/").last.map(String.init) ?? relativePath,
            conflictBehavior: conflictBehavior, chunkSize: ChunkedUploader.validChunkSize(chunkSize),
            stateFile: stateFile, events: events)
        return try await typedAsStorage { try await upload.run() }
    }
}

/// One call of `upload(file:to:…)`: picks up or creates the session, sends the ranges, starts over when the
/// session is gone (at most twice), and checks the result.
private struct LargeUpload {
    let destination: DriveItemRequestBuilder
    let file: String
    let name: String
    let conflictBehavior: ConflictBehavior?
    let chunkSize: Int
    let stateFile: String?
    let events: @Sendable (TransferEvent) -> Void

    func run() async throws -> DriveItem {
        let uploader = ChunkedUploader(client: destination.client, stateFile: stateFile, events: events)
        var state: UploadState
        if let saved = try await savedSession() { state = saved } else { state = try await newSession() }
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
                state = try await newSession()
            } catch {
                guard Task.isCancelled else { throw error }
                // Nobody can resume a session whose state was not saved: give its bytes back.
                if stateFile == nil { await Self.abandon(state.uploadURL, client: destination.client) }
                throw BinderyError(kind: .cancelled, message: "the upload was cancelled")
            }
        }
    }

    /// What the session says of itself; nil when it no longer exists.
    private static func status(of url: URL, client: ServiceClient) async throws -> SessionStatus? {
        do {
            return try await SessionStatus.fetch(url, client: client)
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }

    /// Deletes a session from a task of its own, as the caller's is cancelled.
    private static func abandon(_ url: URL, client: ServiceClient) async {
        await Task { try? await SessionStatus.delete(url, client: client) }.value
    }

    /// The saved session, when it still fits the file and the service still has it.
    private func savedSession() async throws -> UploadState? {
        guard let stateFile, let loaded = UploadState.load(from: stateFile), loaded.filePath == file else { return nil }
        var saved = loaded
        guard saved.matchesFile() else {
            events(.restarted(reason: "\(file) changed since its upload started"))
            return nil
        }
        guard !saved.isExpired() else {
            events(.restarted(reason: "the saved upload session expired"))
            return nil
        }
        // The process that saved the state may have died after a range was acknowledged but before saving: ask
        // the session rather than send that range again.
        guard let status = try await Self.status(of: saved.uploadURL, client: destination.client) else {
            events(.restarted(reason: "the saved upload session no longer exists"))
            return nil
        }
        if let next = status.nextByte { saved.nextByte = next }
        if let expiration = status.expiration { saved.expiration = expiration }
        events(.resumed(done: saved.nextByte, total: saved.fileSize))
        return saved
    }

    private func newSession() async throws -> UploadState {
        let identity = try FileIdentity(path: file)
        var properties = DriveItemUploadableProperties()
        properties.name = name
        properties.conflictBehavior = conflictBehavior
        let session: UploadSession = try await destination.createUploadSession(item: properties).send()
        guard let text = session.uploadUrl, let url = URL(string: text) else {
            throw BinderyError.invalidResponse("the upload session has no uploadUrl", response: nil)
        }
        let state = UploadState(
            uploadURL: url, expiration: session.expirationDateTime, filePath: file, fileSize: identity.size,
            fileModified: identity.modified, chunkSize: chunkSize, nextByte: 0)
        if let stateFile { try state.save(to: stateFile) }
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
