import BinderyRuntime
import Foundation
import HTTPTypes

extension DriveItemRequestBuilder {
    /// Downloads this file to `destination` a range at a time: `GET …/content` with `Range`, which OneDrive
    /// answers with a 302 to a pre-authenticated URL that the client follows without credentials (a new URL for
    /// every range, so a long download never holds one past its expiry).
    ///
    /// The bytes go to `destination.partial` and one range at a time is in memory. A partial file left by an
    /// earlier call (in this process or another) is carried on from its end. The finished file is checked
    /// against the item (its size, and `quickXorHash` when the service reports one) and only then renamed to
    /// `destination`, so nothing incomplete ever has the final name. A resumed file that fails the check is
    /// downloaded once more from byte 0 (`events` says so with `.restarted`). A range that fails on the way (a
    /// dropped connection, a cut or 5xx answer) is asked for again, up to `maxFailuresInARow` times in a row.
    public func download(
        to destination: String, chunkSize: Int = 10 << 20, maxFailuresInARow: Int = 5,
        events: @escaping @Sendable (TransferEvent) -> Void = { _ in }
    ) async throws(BinderyError) -> DriveItem {
        let item = try await request().get()
        guard item.folder == nil, let size = item.size else {
            throw BinderyError.invalidResponse("\(item.name ?? "the item") is not a file", response: nil)
        }
        let download = RangedDownload(
            content: path.appending("content"), client: client, size: size,
            expectedHash: item.file?.hashes?.quickXorHash,
            destination: destination, chunkSize: max(chunkSize, 1), maxFailuresInARow: maxFailuresInARow,
            events: events)
        try await typedAsStorage { try await download.run() }
        return item
    }
}

/// Runs a transfer, passing its `BinderyError`s on and reporting anything else (a file system error) as `.storage`.
func typedAsStorage<T>(_ body: () async throws -> T) async throws(BinderyError) -> T {
    do {
        return try await body()
    } catch let error as BinderyError {
        throw error
    } catch {
        throw BinderyError(kind: .storage, message: "\(error)", underlying: error)
    }
}

/// One call of `download(to:…)`.
private struct RangedDownload {
    let content: ResourcePath
    let client: ServiceClient
    let size: Int64
    let expectedHash: String?
    let destination: String
    let chunkSize: Int
    let maxFailuresInARow: Int
    let events: @Sendable (TransferEvent) -> Void

    var partial: String { destination + ".partial" }

    func run() async throws {
        let resumed = Self.fileSize(partial).map { $0 > 0 && $0 <= size } ?? false
        if !resumed { try? FileManager.default.removeItem(atPath: partial) }
        try await fetch(resuming: resumed)
        if let problem = try check() {
            guard resumed else {
                try? FileManager.default.removeItem(atPath: partial)
                throw BinderyError.invalidResponse(problem, response: nil)
            }
            events(.restarted(reason: "the partial file did not match: \(problem)"))
            try FileManager.default.removeItem(atPath: partial)
            try await fetch(resuming: false)
            if let problem = try check() {
                try? FileManager.default.removeItem(atPath: partial)
                throw BinderyError.invalidResponse(problem, response: nil)
            }
        }
        // rename(2) replaces an existing file at once: a reader sees the old file or the new one, never half.
        guard rename(partial, destination) == 0 else {
            throw BinderyError(kind: .storage, message: "cannot move the download to \(destination): errno \(errno)")
        }
    }

    /// Appends ranges to the partial file until it has `size` bytes.
    private func fetch(resuming: Bool) async throws {
        if !FileManager.default.fileExists(atPath: partial) {
            guard FileManager.default.createFile(atPath: partial, contents: nil) else {
                throw BinderyError(kind: .storage, message: "cannot create \(partial)")
            }
        }
        guard let file = FileHandle(forWritingAtPath: partial) else {
            throw BinderyError(kind: .storage, message: "cannot write \(partial)")
        }
        defer { try? file.close() }
        var offset = Int64(try file.seekToEnd())
        events(resuming ? .resumed(done: offset, total: size) : .started(total: size))
        var failures = 0
        while offset < size {
            try Task.checkCancellation()
            let last = min(offset + Int64(chunkSize), size) - 1
            do {
                let bytes = try await range(offset...last)
                try file.write(contentsOf: bytes)
                offset += Int64(bytes.count)
                failures = 0
                events(.progress(done: offset, total: size))
            } catch let error as BinderyError where error.kind != .cancelled && Self.isTransient(error) {
                failures += 1
                guard failures < maxFailuresInARow else { throw error }
                events(.recovered(nextByte: offset, after: error.message))
                try await Task.sleep(for: .milliseconds(100 * failures))
            }
        }
    }

    /// The bytes of one range. A 200 (a server that ignores `Range`) is accepted only for the whole file from 0.
    private func range(_ bounds: ClosedRange<Int64>) async throws(BinderyError) -> [UInt8] {
        var request = APIRequest(method: .get, path: content)
        request.headers[.range] = "bytes=\(bounds.lowerBound)-\(bounds.upperBound)"
        let response = try await client.send(request)
        let expected = Int(bounds.upperBound - bounds.lowerBound + 1)
        switch response.status.code {
        case 206:
            let sent = response.headers[.contentRange] ?? ""
            guard sent.hasPrefix("bytes \(bounds.lowerBound)-"), response.body.count <= expected,
                !response.body.isEmpty
            else {
                throw BinderyError.invalidResponse(
                    "asked for bytes \(bounds.lowerBound)-\(bounds.upperBound), got \(response.body.count) bytes as \"\(sent)\"",
                    response: response)
            }
            return response.body
        case 200 where bounds.lowerBound == 0 && Int64(response.body.count) == size:
            return response.body
        default:
            throw BinderyError.invalidResponse(
                "expected 206 Partial Content for bytes \(bounds.lowerBound)-\(bounds.upperBound), got \(response.status.code)",
                response: response)
        }
    }

    /// Why the partial file is not the item, or nil when it is.
    private func check() throws -> String? {
        let written = Self.fileSize(partial) ?? -1
        guard written == size else { return "the file has \(written) bytes, the item \(size)" }
        guard let expectedHash else { return nil }
        let local = try QuickXorHash.ofFile(atPath: partial)
        return local == expectedHash ? nil : "its quickXorHash is \(local), the item's \(expectedHash)"
    }

    /// What may pass if asked again: no connection, a cut body, a timeout, a 5xx or 429 the retry middleware gave up on.
    static func isTransient(_ error: BinderyError) -> Bool {
        [.connection, .timeout].contains(error.kind) || error.status.map { $0 >= 500 || $0 == 429 } ?? false
    }

    static func fileSize(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size].flatMap { ($0 as? NSNumber)?.int64Value }
    }
}
