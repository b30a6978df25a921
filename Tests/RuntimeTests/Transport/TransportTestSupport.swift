import BinderyRuntime
import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports a behaviour is checked on, for tests that run over both (over URLSession alone when the package
/// is built without libcurl).
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    #if canImport(CCurl)
        case curl
    #endif
    case urlSession

    func make() -> any HTTPTransport {
        switch self {
        #if canImport(CCurl)
            case .curl: CurlTransport()
        #endif
        case .urlSession: URLSessionTransport()
        }
    }

    var testDescription: String { rawValue }
}

func transportRequest(
    _ method: HTTPRequest.Method = .get, _ url: URL, headers: HTTPFields = [:], body: RequestBody? = nil,
    options: TransferOptions = TransferOptions()
) -> TransportRequest {
    TransportRequest(HTTPRequest(method: method, url: url, headerFields: headers), body: body, options: options)
}

/// A loopback server answering `GET /big` with the file at `source`, streamed.
func fileServer(_ source: String) async throws -> LoopbackServer {
    try await LoopbackServer([
        "GET /big": { _ in
            LoopbackServer.Reply(
                headers: ["Content-Type": "application/octet-stream"], file: URL(fileURLWithPath: source))
        }
    ])
}

/// Runs `body`, which must throw a `BinderyError`, and returns that error.
func binderyError(_ body: () async throws -> Void) async -> BinderyError? {
    do {
        try await body()
        return nil
    } catch let error as BinderyError {
        return error
    } catch {
        Issue.record("expected a BinderyError, got \(error)")
        return nil
    }
}

/// Every progress report of one transfer, in order.
final class ProgressLog: Sendable {
    private let reports = Mutex<[TransferProgress]>([])

    var all: [TransferProgress] { reports.withLock { $0 } }
    var callback: @Sendable (TransferProgress) -> Void { { [self] report in reports.withLock { $0.append(report) } } }

    /// Whether received and sent bytes never go down from one report to the next.
    var isMonotonic: Bool {
        let all = all
        return zip(all, all.dropFirst()).allSatisfy { $1.received >= $0.received && $1.sent >= $0.sent }
    }
}

/// A fresh directory under the system's temporary directory, for the files of one test.
struct ScratchDirectory: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-transport-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names in the directory: shows leftover temporary files as well as the expected ones.
    func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
}

/// Writes `size` pseudo-random bytes (a fixed sequence, so runs are comparable) in 1 MB pieces.
func writeTestFile(at path: String, size: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw TestFailure("cannot create \(path)")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let pieceSize = 1 << 20
    var words = [UInt64](repeating: 0, count: pieceSize / 8)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for index in words.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        words[index] = state
    }
    var written = 0
    var piece: UInt64 = 0
    while written < size {
        // Each piece differs from the others, so a misplaced piece changes the checksum.
        words[0] = piece
        piece += 1
        let count = min(pieceSize, size - written)
        try words.withUnsafeBytes { try handle.write(contentsOf: Data($0.prefix(count))) }
        written += count
    }
}

/// A 64-bit FNV-1a style checksum of a file, read in 1 MB pieces (word by word, to stay quick in debug builds).
func checksum(ofFileAt path: String) throws -> UInt64 {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
        hash = checksum(data, continuing: hash)
    }
    return hash
}

func checksum(_ bytes: some DataProtocol, continuing start: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64 {
    var hash = start
    let contiguous = Array(bytes)
    contiguous.withUnsafeBytes { raw in
        let wordCount = raw.count / 8
        for index in 0..<wordCount {
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) &* 0x100_0000_01B3
        }
        for byte in raw[(wordCount * 8)...] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }
    return hash
}

/// Resident memory (Linux `/proc/self/status`), for checking that a transfer streams: nil where there is none.
enum ResidentMemory {
    /// Resets the peak (`VmHWM`) to the current resident size and returns that size in bytes.
    static func resetPeak() -> Int? {
        guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
            return nil
        }
        return field("VmRSS:")
    }

    /// The most resident memory since `resetPeak()`, in bytes.
    static func peak() -> Int? { field("VmHWM:") }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

/// `bytes` compressed by the system's gzip, as a server would send them with `Content-Encoding: gzip`.
func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let (input, output) = (try makePipe(), try Capture())
    let process = try ChildProcess(
        URL(fileURLWithPath: "/usr/bin/env"), ["gzip", "-c", "-n"], input: .descriptor(input.read),
        output: .capture(output))
    close(input.read)
    // Written while the capture reads: gzip's output could fill the pipe while we are still writing its input.
    writeAll(bytes, to: input.write)
    close(input.write)
    let ending = process.waitUntilEnded()
    guard ending == .exited(0) else { throw TestFailure("gzip exited with \(ending)") }
    output.waitUntilFinished()
    return output.bytes
}
