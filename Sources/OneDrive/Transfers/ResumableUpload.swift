import BinderyRuntime
import Foundation
import HTTPTypes

/// What a resumable upload keeps on disk, so that a later process can carry on where this one stopped: the
/// session's URL and expiry, which file it is for (path, size and modification time), and the first byte the
/// service has not acknowledged yet.
public struct UploadState: Codable, Sendable, Equatable {
    public var uploadURL: URL
    public var expiration: Date?
    public var filePath: String
    public var fileSize: Int64
    public var fileModified: Date
    public var chunkSize: Int
    /// The first byte the service still expects (the start of its first `nextExpectedRanges`).
    public var nextByte: Int64

    public init(
        uploadURL: URL, expiration: Date?, filePath: String, fileSize: Int64, fileModified: Date, chunkSize: Int,
        nextByte: Int64
    ) {
        self.uploadURL = uploadURL
        self.expiration = expiration
        self.filePath = filePath
        self.fileSize = fileSize
        self.fileModified = fileModified
        self.chunkSize = chunkSize
        self.nextByte = nextByte
    }

    /// Whether the file on disk is still the one the session was started for.
    public func matchesFile() -> Bool {
        guard let identity = try? FileIdentity(path: filePath) else { return false }
        return identity.size == fileSize && identity.modified == fileModified
    }

    public func isExpired(now: Date = Date()) -> Bool { expiration.map { $0 <= now } ?? false }

    public static func load(from path: String) -> UploadState? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder.uploadState.decode(UploadState.self, from: data)
    }

    /// Written to a temporary file and renamed, so that a process killed mid-write leaves the old state whole.
    public func save(to path: String) throws {
        let data = try JSONEncoder.uploadState.encode(self)
        let temporary = path + ".tmp"
        try data.write(to: URL(fileURLWithPath: temporary))
        // `rename` replaces the old state in one step: there is no moment without a state file to resume from.
        guard rename(temporary, path) == 0 else {
            let error = CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            unlink(temporary)
            throw error
        }
    }
}

/// A file's size and modification time, to tell whether it changed since a session started.
struct FileIdentity {
    let size: Int64
    let modified: Date

    init(path: String) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        // Whole seconds: the state file's JSON round-trips them exactly.
        let date = attributes[.modificationDate] as? Date ?? .distantPast
        modified = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension JSONEncoder {
    fileprivate static var uploadState: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    fileprivate static var uploadState: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

/// What an upload or a download reports as it goes. `done` counts the bytes the other side holds: for an upload,
/// what the service acknowledged; for a download, what is written to the local file.
public enum TransferEvent: Sendable, Equatable {
    /// A new upload session or download began.
    case started(total: Int64)
    /// A saved session or a partial file was picked up with `done` bytes already transferred.
    case resumed(done: Int64, total: Int64)
    /// What was saved could not be used (the session expired, the file changed, a partial file did not match):
    /// the transfer starts again from byte 0.
    case restarted(reason: String)
    /// `done` bytes of `total` are transferred.
    case progress(done: Int64, total: Int64)
    /// A range failed; the transfer carries on at `nextByte` (for an upload, the byte the service asked for).
    case recovered(nextByte: Int64, after: String)
}

/// Sends a file to an upload session's URL a chunk at a time: one chunk in memory, read from the file as it goes.
/// The upload URL is pre-authenticated on a storage host, so no request to it carries credentials, whatever the
/// client trusts. After each acknowledged chunk the state is saved (when a state file is given).
struct ChunkedUploader {
    /// Graph's rule: every range but the last is a multiple of 320 KiB, and each request stays under 60 MiB.
    static let chunkUnit = 327_680
    static let maxChunk = 60 * 1024 * 1024

    let storage: ServiceClient
    let stateFile: String?
    let events: @Sendable (TransferEvent) -> Void
    /// Failed attempts in a row (without a byte of progress) before giving up.
    var maxFailuresInARow = 6

    init(client: ServiceClient, stateFile: String?, events: @escaping @Sendable (TransferEvent) -> Void) {
        self.storage = client.withoutCredentials
        self.stateFile = stateFile
        self.events = events
    }

    /// A chunk size the service accepts: a positive multiple of 320 KiB, under 60 MiB.
    static func validChunkSize(_ requested: Int) -> Int {
        let units = min(max(requested / chunkUnit, 1), maxChunk / chunkUnit - 1)
        return units * chunkUnit
    }

    /// Uploads from `state.nextByte` to the end and returns the item the last range created. Throws
    /// `UploadSessionGone` when the session has expired or no longer exists.
    func run(_ state: inout UploadState) async throws -> DriveItem {
        guard let file = FileHandle(forReadingAtPath: state.filePath) else {
            throw BinderyError(kind: .storage, message: "cannot read \(state.filePath)")
        }
        defer { try? file.close() }
        var failures = 0
        // One buffer for every range: a new array per range would leave each freed one to the allocator, whose
        // per-thread arenas keep them resident (3 chunks measured instead of 1).
        var chunk: [UInt8] = []
        while true {
            try Task.checkCancellation()
            if state.isExpired() { throw UploadSessionGone(reason: "the upload session expired") }
            let first = state.nextByte
            let length = Int(min(Int64(state.chunkSize), state.fileSize - first))
            try Self.read(length, at: first, from: file, into: &chunk)
            guard chunk.count == length, length > 0 else {
                throw BinderyError(kind: .storage, message: "\(state.filePath) changed while it was being uploaded")
            }
            do {
                let response = try await put(chunk, at: first, of: state)
                if response.status.code == 200 || response.status.code == 201 {
                    let item = try storage.decodeModel(DriveItem.self, from: response)
                    events(.progress(done: state.fileSize, total: state.fileSize))
                    return item
                }
                let answer = try SessionStatus(response)
                state.nextByte = answer.nextByte ?? first + Int64(length)
                if let expiration = answer.expiration { state.expiration = expiration }
                if let stateFile { try state.save(to: stateFile) }
                failures = 0
                events(.progress(done: state.nextByte, total: state.fileSize))
            } catch let error as BinderyError {
                if error.status == 404 { throw UploadSessionGone(reason: "the upload session no longer exists") }
                failures += 1
                guard failures < maxFailuresInARow, error.kind != .cancelled else { throw error }
                // A dropped connection or a cut answer may still have delivered the range: ask, never guess.
                try await recover(&state, after: error)
            }
        }
    }

    /// Reads a range straight into the array the request sends (reused: the last request has let go of it), so
    /// the chunk is in memory once. `bytes` ends up shorter than `length` when the file was cut.
    private static func read(_ length: Int, at offset: Int64, from file: FileHandle, into bytes: inout [UInt8]) throws {
        if bytes.count < length { bytes.append(contentsOf: repeatElement(0, count: length - bytes.count)) }
        if bytes.count > length { bytes.removeLast(bytes.count - length) }
        let descriptor = file.fileDescriptor
        var count = 0
        var failure: Int32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            while count < length {
                let read = pread(descriptor, buffer.baseAddress! + count, length - count, off_t(offset) + off_t(count))
                if read > 0 {
                    count += read
                } else if read == 0 || errno != EINTR {
                    failure = read == 0 ? 0 : errno
                    break
                }
            }
        }
        if failure != 0 {
            throw BinderyError(kind: .storage, message: "cannot read the file: \(String(cString: strerror(failure)))")
        }
        if count < length { bytes.removeLast(length - count) }
    }

    private func put(_ chunk: [UInt8], at first: Int64, of state: UploadState) async throws(BinderyError) -> APIResponse
    {
        var request = APIRequest(method: .put, path: ResourcePath())
        request.absoluteURL = state.uploadURL
        request.body = .bytes(chunk)
        request.headers[HTTPField.Name("Content-Range")!] =
            "bytes \(first)-\(first + Int64(chunk.count) - 1)/\(state.fileSize)"
        return try await storage.send(request)
    }

    /// Asks the session which bytes it still needs and carries on from there.
    private func recover(_ state: inout UploadState, after error: BinderyError) async throws {
        let answer: SessionStatus
        do {
            answer = try await SessionStatus.fetch(state.uploadURL, client: storage)
        } catch let statusError {
            if statusError.status == 404 { throw UploadSessionGone(reason: "the upload session no longer exists") }
            return  // Counted as one more failure by the caller's next attempt.
        }
        if let next = answer.nextByte { state.nextByte = next }
        if let expiration = answer.expiration { state.expiration = expiration }
        if let stateFile { try state.save(to: stateFile) }
        events(.recovered(nextByte: state.nextByte, after: error.message))
    }
}

/// The session expired or was deleted: the bytes sent so far are lost and the upload must start over.
public struct UploadSessionGone: Error, Sendable {
    public let reason: String
}

/// `{"expirationDateTime": "…", "nextExpectedRanges": ["327680-"]}`: what a session answers a range or a GET.
struct SessionStatus {
    let nextByte: Int64?
    let expiration: Date?

    init(_ response: APIResponse) throws(BinderyError) {
        let session: UploadSession
        do {
            session = try UploadSession(jsonBytes: response.body)
        } catch {
            throw BinderyError.decoding(error, response: response)
        }
        nextByte = session.nextExpectedRanges?.first.flatMap { range in
            range.split(separator: "-", omittingEmptySubsequences: false).first.flatMap { Int64($0) }
        }
        expiration = session.expirationDateTime
    }

    /// Cancels the session (a DELETE of its URL, without credentials).
    static func delete(_ url: URL, client: ServiceClient) async throws(BinderyError) {
        var request = APIRequest(method: .delete, path: ResourcePath())
        request.absoluteURL = url
        _ = try await client.withoutCredentials.send(request)
    }

    /// Asks the session (a GET of its URL, without credentials).
    static func fetch(_ url: URL, client: ServiceClient) async throws(BinderyError) -> SessionStatus {
        var request = APIRequest(method: .get, path: ResourcePath())
        request.absoluteURL = url
        return try SessionStatus(try await client.withoutCredentials.send(request))
    }
}

extension ServiceClient {
    /// The same client trusting no host: an upload URL is its own credential, and a storage host must never see
    /// the API's token, whatever hosts the client was told to trust.
    var withoutCredentials: ServiceClient {
        var copy = self
        copy.trustedHosts = []
        return copy
    }
}
