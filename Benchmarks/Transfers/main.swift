import BinderyMock
import BinderyRuntime
import Foundation
import OneDrive

// `Benchmarks/run.sh transfers` (Benchmarks/transfers.sh): OneDrive uploads and downloads through the OneDrive
// module, beside libcurl driven from C (Benchmarks/raw_transfer.c) sending the same ranges to the same mock.
//
//   transfer-bench serve                                  the OneDrive mock; prints `base=URL token=T`, runs until killed
//   transfer-bench upload BASE TOKEN FILE NAME CHUNK      upload(file:to:chunkSize:) to the drive's root
//   transfer-bench download BASE TOKEN NAME FILE CHUNK    download(to:chunkSize:) of root:/NAME
//
// The mock runs in a process of its own so that the client's peak memory (`peak_rss_mib`, getrusage) is the
// client's alone. The mock speaks OneDrive from the generated descriptor, as BinderyServiceMocks does, so the
// benchmark does not build the other services' modules (Graph among them) in release.

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func peakResidentMiB() -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_maxrss) / 1024
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "serve":
    let service = MockService(
        OneDriveService.descriptor, deletionMarker: .deletedFacet,
        operations: ["microsoft.graph.driveItem/createUploadSession": .uploadSession],
        uploadedFileFacet: { bytes in
            var hash = QuickXorHash()
            hash.update(bytes)
            return ["hashes": ["quickXorHash": .string(hash.base64)]]
        }, redirectsContent: true)
    let mock = try await MockServer(service)
    // The drive's root, which the latency figures ask for.
    mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 0]], at: ["drive", "root"])
    FileHandle.standardOutput.write(
        Data("base=\(mock.serviceURL.absoluteString) token=\(mock.identity.acceptedToken)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }

case "upload" where arguments.count == 6, "download" where arguments.count == 6:
    let client = OneDriveClient(baseURL: URL(string: arguments[1])!, auth: StaticTokenAuth(arguments[2]))
    let chunk = Int(arguments[5])!
    let start = ContinuousClock.now
    let item: DriveItem
    let bytes: Int64
    if arguments[0] == "upload" {
        item = try await client.me.drive.root.upload(file: arguments[3], to: arguments[4], chunkSize: chunk)
        bytes = item.size ?? 0
    } else {
        item = try await client.me.drive.root.item(atPath: arguments[3]).download(to: arguments[4], chunkSize: chunk)
        bytes = Int64((try FileManager.default.attributesOfItem(atPath: arguments[4])[.size] as? Int) ?? 0)
    }
    let elapsed = seconds(since: start)
    print("bytes=\(bytes) seconds=\(elapsed) peak_rss_mib=\(peakResidentMiB()) id=\(item.id ?? "")")

default:
    FileHandle.standardError.write(
        Data(
            "usage: transfer-bench serve | upload BASE TOKEN FILE NAME CHUNK | download BASE TOKEN NAME FILE CHUNK\n"
                .utf8))
    exit(2)
}
