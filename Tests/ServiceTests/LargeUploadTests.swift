import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneDrive
import Synchronization
import TestSupport
import Testing

/// Resumable upload sessions over HTTP against the mock, through the real transport. The mock serves upload URLs on
/// a second port under another host name (`localhost`) and refuses any request there that carries credentials.
@Suite struct LargeUploadTests {
    static let unit = 327_680

    /// Published vectors (rclone's quickxorhash tests, which OneDrive's own hashes agree with): base64 input, hash.
    static let vectors: [(input: String, hash: String)] = [
        ("", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        ("Sg==", "SgAAAAAAAAAAAAAAAQAAAAAAAAA="),
        ("tbQ=", "taAFAAAAAAAAAAAAAgAAAAAAAAA="),
        ("0pZP", "0rDEEwAAAAAAAAAAAwAAAAAAAAA="),
        ("/aNzzCFPS/A=", "/RjFHJgRgicsAR4ACAAAAAAAAAA="),
        ("T6LYJIfDh81JrAK309H2JMJTXis=", "zBTHrspn3mEcohlJdIUAbjGNaNg="),
        (
            "PfxMcUd0vIW6VbHG/uj/Y0W6qEoKmyBD0nYebEKazKaKG+UaDqBEcmQjbfQeVnVLuodMoPp7P7TR"
                + "1htX5n2VnkHh22xDyoJ8C/ZQKiSNqQfXvh83judf4RVr9exJCud8Uvgip6aVZTaPrJHVjQhMCp/d"
                + "EnGvqg0oN5OVkM2qqAXvA0teKUDhgNM71sDBVBCGXxNOR2bpbD1iM4dnuT0ey4L+loXEHTL0fqMe"
                + "UcEi2asgImnlNakwenDzz0x57aBwyq3AspCFGB1ncX4yYCr/OaCcS5OKi/00WH+wNQU3",
            "QX/YEpG0gDsmhEpCdWhsxDzsfVE="
        ),
    ]

    @Test func quickXorHashMatchesPublishedVectorsInAnyBlocks() throws {
        for vector in Self.vectors {
            let input = Array(try #require(Data(base64Encoded: vector.input)))
            for blockSize in [1, 7, 64, 160, 161, 1000] {
                var hash = QuickXorHash()
                var offset = 0
                repeat {
                    let end = min(offset + blockSize, input.count)
                    hash.update(input[offset..<end])
                    offset = end
                } while offset < input.count
                #expect(hash.base64 == vector.hash, "\(input.count) bytes in blocks of \(blockSize)")
            }
        }
    }

    /// The same hash computed the slow way, bit by bit as Microsoft describes it, over random data in random blocks:
    /// the folding shortcut must not change the answer.
    @Test func quickXorHashAgreesWithABitByBitReading() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 19, 20, 159, 160, 161, 1000, 4096 + 17] {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var register = [UInt8](repeating: 0, count: 20)
            for (offset, byte) in input.enumerated() {
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    let position = (offset * 11 + bit) % 160
                    register[position / 8] ^= 1 << (position % 8)
                }
            }
            var total = UInt64(length)
            for index in 12..<20 {
                register[index] ^= UInt8(truncatingIfNeeded: total)
                total >>= 8
            }
            var hash = QuickXorHash()
            var offset = 0
            while offset < length {
                let end = min(length, offset + Int.random(in: 1...300, using: &generator))
                hash.update(input[offset..<end])
                offset = end
            }
            #expect(hash.digest == register, "\(length) bytes")
        }
    }

    /// 100 MiB in 10 MiB ranges; a connection reset, a 503 and a cut answer are played on ranges along the way.
    @Test func aLargeUploadSurvivesAResetA503AndACutAnswer() async throws {
        let mock = try await MockServer(.oneDrive)
        let file = try TestFile(bytes: 100 << 20 + 4321)
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        let faults = Mutex<[MockFault]>([.reset, .status(503, retryAfter: 0), .truncated])
        let events = Mutex<[TransferEvent]>([])
        _ = try await client.me.drive.root.children.request().add(.folder(named: "Videos"))
        let item = try await client.me.drive.root.upload(file: file.path, to: "Videos/big.bin", stateFile: file.state) {
            event in
            events.withLock { $0.append(event) }
            // After each acknowledged range from the third on, the next range meets the next fault.
            guard case .progress(let acknowledged, _) = event, acknowledged >= 20 << 20 else { return }
            if let fault = faults.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                mock.inject(fault, pathContains: "/_upload/")
            }
        }
        let stored = mock.store.allItems(below: []).first { $0.key == item.id }
        let blob = stored.flatMap { mock.store.blob(at: $0.collection + [$0.key, "content"]) }
        let storageRequests = mock.storageRequests
        let apiRequests = mock.requests
        await mock.stop()

        #expect(item.size == Int64(file.bytes.count))
        #expect(blob == file.bytes, "the stored bytes are the file's")
        #expect(item.file?.hashes?.quickXorHash == file.quickXorHash)
        #expect(faults.withLock { $0.isEmpty }, "every fault was played")
        #expect(events.withLock { $0.contains { if case .recovered = $0 { true } else { false } } })
        #expect(!FileManager.default.fileExists(atPath: file.state), "the state file is gone once the item exists")
        // Credentials went to the API host and never to the storage host.
        #expect(apiRequests.contains { $0.path.hasSuffix("/createUploadSession") && $0.header("Authorization") != nil })
        #expect(!storageRequests.isEmpty)
        #expect(storageRequests.allSatisfy { $0.header("Authorization") == nil })
        // Every range but the last is a multiple of 320 KiB, the default 10 MiB.
        let ranges = storageRequests.filter { $0.method == "PUT" }.compactMap {
            Range(header: $0.header("Content-Range"))
        }
        #expect(ranges.dropLast().allSatisfy { $0.count == 10 << 20 })
        #expect(ranges.last?.upperBound == file.bytes.count)
    }

    /// `bindery onedrive upload` is killed with SIGKILL mid-way; a new upload with the same state file asks the
    /// session where to go on and sends only the bytes the service does not hold.
    @Test
    func aKilledUploadResumesWithoutResendingAcknowledgedRanges() async throws {
        try #require(MockCommandTests.tool != nil, "bindery must be built beside the tests")
        let mock = try await MockServer(.oneDrive)
        let file = try TestFile(bytes: 24 * Self.unit + 99)
        // Slow ranges, so that the process is still uploading when it is killed.
        mock.inject(.slow(.milliseconds(100)), count: 10_000, pathContains: "/_upload/")
        let tool = try #require(MockCommandTests.tool)
        let process = try ChildProcess(
            tool,
            [
                "onedrive", "upload", file.path, "--to", "clip.bin", "--state", file.state, "--chunk-size",
                String(Self.unit), "--base-url", mock.serviceURL.absoluteString, "--token",
                mock.identity.acceptedToken,
            ])
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, (UploadState.load(from: file.state)?.nextByte ?? 0) < 3 * Self.unit {
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        #expect(await process.ended() == .signalled(SIGKILL))
        mock.clearFaults()

        let saved = try #require(UploadState.load(from: file.state))
        #expect(saved.nextByte >= 3 * Int64(Self.unit), "killed mid-way: \(saved.nextByte) bytes saved")
        #expect(saved.nextByte < Int64(file.bytes.count), "killed before the end")
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))

        mock.clearRequests()
        let events = Mutex<[TransferEvent]>([])
        let item = try await client.me.drive.root.upload(
            file: file.path, to: "clip.bin", chunkSize: Self.unit, stateFile: file.state
        ) { event in events.withLock { $0.append(event) } }
        let stored = mock.store.allItems(below: []).first { $0.key == item.id }
        let blob = stored.flatMap { mock.store.blob(at: $0.collection + [$0.key, "content"]) }
        let starts = mock.storageRequests.filter { $0.method == "PUT" }.compactMap {
            Range(header: $0.header("Content-Range"))?.lowerBound
        }
        let newSessions = mock.requests.filter { $0.path.hasSuffix("/createUploadSession") }
        await mock.stop()

        // What the session held when the upload resumed: at least what was saved, more when a range in flight as
        // the process died landed afterwards (the mock plays its delay out). The upload goes on from exactly there.
        guard case .resumed(let held, let total)? = events.withLock({ $0.first }) else {
            Issue.record("the upload did not start by resuming: \(events.withLock { $0 })")
            return
        }
        #expect(held >= saved.nextByte && total == Int64(file.bytes.count))
        #expect(newSessions.isEmpty, "the saved session was used")
        #expect(starts.first.map(Int64.init) == held)
        #expect(starts.allSatisfy { Int64($0) >= held }, "no acknowledged byte was sent again: \(starts)")
        #expect(blob == file.bytes)
        #expect(item.size == Int64(file.bytes.count))
    }

    /// A session that expires mid-way starts over, and says so; so does a saved session past its expiry.
    @Test func anExpiredSessionStartsOverAndSaysSo() async throws {
        let mock = try await MockServer(.oneDrive)
        let file = try TestFile(bytes: 6 * Self.unit + 5)
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        let expired = Mutex(false)
        let events = Mutex<[TransferEvent]>([])
        let item = try await client.me.drive.root.upload(
            file: file.path, to: "a.bin", chunkSize: Self.unit, stateFile: file.state
        ) { event in
            events.withLock { $0.append(event) }
            if case .progress(let acknowledged, _) = event, acknowledged == Int64(2 * Self.unit),
                expired.withLock({ state in
                    defer { state = true }
                    return !state
                })
            {
                mock.expireUploadSessions()
            }
        }
        let sessions = mock.requests.filter { $0.path.hasSuffix("/createUploadSession") }.count
        #expect(item.size == Int64(file.bytes.count))
        #expect(sessions == 2)
        #expect(events.withLock { $0.contains(.restarted(reason: "the upload session no longer exists")) })

        // A saved session whose expiry has passed is not even asked.
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let modified = try #require(attributes[.modificationDate] as? Date)
        let stale = UploadState(
            uploadURL: URL(string: mock.storageURL.absoluteString + "/_upload/stale")!,
            expiration: Date(timeIntervalSinceNow: -60), filePath: file.path, fileSize: Int64(file.bytes.count),
            fileModified: Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down)),
            chunkSize: Self.unit, nextByte: Int64(Self.unit))
        try stale.save(to: file.state)
        events.withLock { $0.removeAll() }
        mock.clearRequests()
        _ = try await client.me.drive.root.upload(
            file: file.path, to: "b.bin", chunkSize: Self.unit, stateFile: file.state
        ) { event in events.withLock { $0.append(event) } }
        let askedStale = mock.storageRequests.contains { $0.path.hasSuffix("/stale") }
        await mock.stop()
        #expect(events.withLock { $0.first } == .restarted(reason: "the saved upload session expired"))
        #expect(!askedStale)
    }

    /// Saving replaces the state in one step: a reader watching the path while it is saved again and again never
    /// finds it missing or half-written (with remove-then-move it did, between the two).
    @Test func savingTheStateNeverLeavesAMomentWithoutIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("upload.state").path
        func state(_ next: Int64) -> UploadState {
            UploadState(
                uploadURL: URL(string: "http://127.0.0.1/_upload/1")!, expiration: nil, filePath: "/tmp/file",
                fileSize: 1 << 30, fileModified: Date(timeIntervalSince1970: 0), chunkSize: 320 * 1024, nextByte: next)
        }
        try state(0).save(to: path)
        let saving = Atomic<Bool>(true)
        let watcher = Task.detached {
            var misses = 0
            while saving.load(ordering: .relaxed) {
                if UploadState.load(from: path) == nil { misses += 1 }
            }
            return misses
        }
        for next in 1...3_000 { try state(Int64(next)).save(to: path) }
        saving.store(false, ordering: .relaxed)
        #expect(await watcher.value == 0)
        #expect(UploadState.load(from: path)?.nextByte == 3_000)
    }

    /// Cancelling the task keeps the saved session for later; `cancelUpload` sends DELETE to the upload URL.
    @Test func cancelDeletesTheSession() async throws {
        let mock = try await MockServer(.oneDrive)
        let file = try TestFile(bytes: 12 * Self.unit)
        let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
        mock.inject(.slow(.milliseconds(100)), count: 10_000, pathContains: "/_upload/")
        let upload = Task {
            try await client.me.drive.root.upload(
                file: file.path, to: "c.bin", chunkSize: Self.unit, stateFile: file.state)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, (UploadState.load(from: file.state)?.nextByte ?? 0) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        upload.cancel()
        let outcome = await upload.result
        #expect((try? outcome.get()) == nil, "the cancelled upload did not finish")
        mock.clearFaults()
        let saved = try #require(UploadState.load(from: file.state), "the session is kept after a cancelled task")

        try await client.cancelUpload(stateFile: file.state)
        let deletes = mock.storageRequests.filter { $0.method == "DELETE" && $0.path.hasSuffix(saved.uploadURL.path) }
        var probe = APIRequest(method: .get, path: ResourcePath())
        probe.absoluteURL = saved.uploadURL
        let gone = await #expect(throws: BinderyError.self) { try await client.client.send(probe) }
        await mock.stop()
        #expect(deletes.count == 1)
        #expect(gone?.status == 404)
        #expect(!FileManager.default.fileExists(atPath: file.state))
    }

    /// A client told to trust the storage host still sends it no credentials (the mock would refuse them).
    @Test func theStorageHostNeverSeesCredentialsEvenWhenTrusted() async throws {
        let mock = try await MockServer(.oneDrive)
        let file = try TestFile(bytes: 3 * Self.unit + 1)
        var service = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
            .client
        service.trustedHosts.insert("localhost")
        let item = try await OneDriveClient(client: service).me.drive.root.upload(
            file: file.path, to: "d.bin", chunkSize: Self.unit)
        let storageRequests = mock.storageRequests
        await mock.stop()
        #expect(item.size == Int64(file.bytes.count))
        #expect(storageRequests.count == 4)
        #expect(storageRequests.allSatisfy { $0.header("Authorization") == nil })
    }
}

/// A file of pseudo-random bytes in a fresh temporary folder, and a state file path beside it. The folder, with
/// whatever a test wrote into it, is removed when the last reference goes (files reach 100 MiB).
final class TestFile: Sendable {
    let folder: URL
    let path: String
    let state: String
    let bytes: [UInt8]

    init(bytes count: Int) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("file.bin").path
        state = folder.appendingPathComponent("file.bin.bindery-upload").path
        var bytes = [UInt8](repeating: 0, count: count)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        bytes.withUnsafeMutableBytes { raw in
            for index in stride(from: 0, to: raw.count, by: 8) {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                withUnsafeBytes(of: seed) { word in
                    for offset in 0..<min(8, raw.count - index) { raw[index + offset] = word[offset] }
                }
            }
        }
        self.bytes = bytes
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var quickXorHash: String {
        var hash = QuickXorHash()
        hash.update(bytes)
        return hash.base64
    }
}

extension Range where Bound == Int {
    /// `bytes 0-327679/1048576` → 0..<327680.
    init?(header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let bounds = header.dropFirst(6).split(separator: "/").first?.split(separator: "-") ?? []
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]) else { return nil }
        self = first..<(last + 1)
    }
}
