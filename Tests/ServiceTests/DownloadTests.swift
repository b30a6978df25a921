import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneDrive
import Synchronization
import Testing

/// Ranged downloads over HTTP against the mock, through the real transport. The mock answers `…/content` with a
/// 302 to its storage host (another port, addressed as `localhost`), which refuses any request with credentials.
@Suite struct DownloadTests {
    /// A file put on the mock through an upload session, so that the item carries its size and quickXorHash.
    static func uploaded(_ count: Int, to mock: MockServer, client: OneDriveClient) async throws -> (
        TestFile, DriveItem
    ) {
        let file = try TestFile(bytes: count)
        let item = try await client.me.drive.root.upload(file: file.path, to: "clip.bin", chunkSize: 4 << 20)
        return (file, item)
    }

    static func client(_ mock: MockServer) -> OneDriveClient {
        OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
    }

    @Test func followsTheRedirectWithoutCredentialsAndSurvivesFaults() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = Self.client(mock)
        let (file, item) = try await Self.uploaded(5 << 20 + 17, to: mock, client: client)
        let destination = file.path + ".copy"
        mock.clearRequests()
        mock.inject(.reset, pathContains: "/_download/")
        mock.inject(.truncated, pathContains: "/_download/")
        mock.inject(.status(503, retryAfter: 0), pathContains: "/_download/")
        let events = Mutex<[TransferEvent]>([])
        let downloaded = try await client.me.drive.items(try #require(item.id)).download(
            to: destination, chunkSize: 1 << 20
        ) { event in events.withLock { $0.append(event) } }
        let storage = mock.storageRequests
        let api = mock.requests
        await mock.stop()

        #expect(downloaded.id == item.id)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == file.bytes)
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
        #expect(events.withLock { $0.first } == .started(total: Int64(file.bytes.count)))
        #expect(events.withLock { $0.last } == .progress(done: Int64(file.bytes.count), total: Int64(file.bytes.count)))
        // Six ranges, and the three faulted answers asked for again (by the retry middleware or the download).
        #expect(storage.count >= 6 + 3)
        // The API saw the credentials, the storage host never did; every range asked for was a range.
        let contentCalls = api.filter { $0.path.hasSuffix("/content") }
        #expect(contentCalls.count >= 6)
        #expect(contentCalls.allSatisfy { $0.header("Authorization") != nil })
        #expect(!storage.isEmpty)
        #expect(storage.allSatisfy { $0.header("Authorization") == nil && $0.header("Range") != nil })
    }

    @Test func aPartialFileIsCarriedOnFromItsEnd() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = Self.client(mock)
        let (file, item) = try await Self.uploaded(3 << 20 + 5, to: mock, client: client)
        let destination = file.path + ".copy"
        let already = 1_500_000
        try Data(file.bytes[..<already]).write(to: URL(fileURLWithPath: destination + ".partial"))
        mock.clearRequests()
        let events = Mutex<[TransferEvent]>([])
        _ = try await client.me.drive.items(try #require(item.id)).download(to: destination, chunkSize: 1 << 20) {
            event in events.withLock { $0.append(event) }
        }
        let ranges = mock.storageRequests.compactMap { $0.header("Range") }
        await mock.stop()

        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == file.bytes)
        #expect(events.withLock { $0.first } == .resumed(done: Int64(already), total: Int64(file.bytes.count)))
        #expect(ranges.first == "bytes=\(already)-\(already + (1 << 20) - 1)", "no byte on disk is asked for again")
    }

    @Test func aPartialFileThatDoesNotMatchIsDownloadedAgain() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = Self.client(mock)
        let (file, item) = try await Self.uploaded(2 << 20, to: mock, client: client)
        let destination = file.path + ".copy"
        try Data(repeating: 0xAB, count: 1 << 20).write(to: URL(fileURLWithPath: destination + ".partial"))
        let events = Mutex<[TransferEvent]>([])
        _ = try await client.me.drive.items(try #require(item.id)).download(to: destination) { event in
            events.withLock { $0.append(event) }
        }
        await mock.stop()

        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == file.bytes)
        #expect(events.withLock { $0.contains { if case .restarted = $0 { true } else { false } } })
    }

    @Test func aFailedDownloadLeavesNothingUnderTheFinalNameAndResumesLater() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = Self.client(mock)
        let (file, item) = try await Self.uploaded(3 << 20, to: mock, client: client)
        let destination = file.path + ".copy"
        let id = try #require(item.id)
        // The first range arrives; then the storage host drops every connection.
        let seen = Mutex(0)
        await #expect(throws: BinderyError.self) {
            try await client.me.drive.items(id).download(to: destination, chunkSize: 1 << 20, maxFailuresInARow: 3) {
                event in
                guard case .progress = event,
                    seen.withLock({
                        $0 += 1
                        return $0
                    }) == 1
                else { return }
                mock.inject(.reset, count: 100, pathContains: "/_download/")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(DownloadTests.size(destination + ".partial") == 1 << 20)

        mock.clearFaults()
        let events = Mutex<[TransferEvent]>([])
        _ = try await client.me.drive.items(id).download(to: destination, chunkSize: 1 << 20) { event in
            events.withLock { $0.append(event) }
        }
        await mock.stop()
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == file.bytes)
        #expect(events.withLock { $0.first } == .resumed(done: 1 << 20, total: Int64(file.bytes.count)))
    }

    @Test func aFolderIsNotDownloaded() async throws {
        let mock = try await MockServer(.oneDrive)
        let client = Self.client(mock)
        let folder = try await client.me.drive.root.children.request().add(.folder(named: "Docs"))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-\(UUID())").path
        await #expect(throws: BinderyError.self) {
            try await client.me.drive.items(try #require(folder.id)).download(to: destination)
        }
        await mock.stop()
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
    }

    /// `bindery onedrive download` by path, as a user runs it against `bindery mock`.
    @Test
    func theCommandDownloadsByPath() async throws {
        let mock = try await MockServer(.oneDrive)
        let (file, item) = try await Self.uploaded(700_000, to: mock, client: Self.client(mock))
        let destination = file.path + ".copy"
        let tool = try #require(MockCommandTests.tool)
        let (status, printed, progress) = try await runToEnd(
            tool,
            [
                "onedrive", "download", "clip.bin", "--to", destination, "--chunk-size", "300000", "--base-url",
                mock.serviceURL.absoluteString, "--token", mock.identity.acceptedToken,
            ])
        await mock.stop()

        #expect(status == 0, "\(progress)")
        #expect(printed == "\(item.id ?? "") 700000 bytes\n")
        #expect(progress.contains("progress: 700000/700000 bytes"))
        #expect(!progress.contains(mock.identity.acceptedToken))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: destination))) == file.bytes)
    }

    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }
}
