import ArgumentParser
import BinderyRuntime
import Foundation
import OneDrive
import Synchronization

struct OneDriveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onedrive", abstract: "OneDrive transfers.",
        subcommands: [OneDriveUpload.self, OneDriveDownload.self])
}

/// `bindery onedrive upload FILE --to PATH [--resume]`: a resumable upload session.
struct OneDriveUpload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Uploads a file of any size through a resumable upload session.",
        discussion: """
            Sends FILE in ranges of --chunk-size bytes (a multiple of 320 KiB) to the session's upload URL, without \
            credentials. The session is saved to --state (FILE.bindery-upload by default) after every acknowledged \
            range; --resume carries on from it after a failure or a killed process, asking the service which \
            bytes it still needs. Without --resume a saved session is forgotten and the upload starts over. \
            Talks to --base-url with --token (a `bindery mock --service onedrive` URL and token), or signs in to \
            Microsoft Graph when BINDERY_MS_CLIENT_ID is set. Progress goes to standard error: a bar on a \
            terminal, lines otherwise; the new item's id and size go to standard output.
            """)

    @Argument(help: "The local file.")
    var file: String

    @Option(help: "The path of the new item below the drive's root (Videos/clip.mp4).")
    var to: String

    @Flag(help: "Carry on from the saved session instead of starting over.")
    var resume = false

    @Option(help: "Where the session is saved (default: FILE.bindery-upload).")
    var state: String?

    @Option(help: "Bytes per range, rounded down to a multiple of 327680.")
    var chunkSize = 10 << 20

    @Option(help: "fail, replace or rename when an item of that name exists.")
    var conflict: String?

    @OptionGroup var endpoint: EndpointOptions

    func run() async throws {
        let client = try await endpoint.oneDriveClient()
        let stateFile = state ?? file + ".bindery-upload"
        if !resume { try? FileManager.default.removeItem(atPath: stateFile) }
        let behavior = try conflict.map { text in
            guard let behavior = ConflictBehavior(rawValue: text) else {
                throw ValidationError("--conflict is fail, replace or rename")
            }
            return behavior
        }
        let progress = ProgressPrinter(interactive: isatty(STDERR_FILENO) == 1)
        let item = try await client.me.drive.root.upload(
            file: file, to: to, conflictBehavior: behavior, chunkSize: chunkSize, stateFile: stateFile,
            events: progress.report)
        progress.finish()
        print("\(item.id ?? "?") \(item.size ?? 0) bytes")
    }
}

/// `bindery onedrive download PATH --to FILE`: a ranged, resumable download.
struct OneDriveDownload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Downloads a file of any size a range at a time, resuming a partial file.",
        discussion: """
            Asks for PATH's content in ranges of --chunk-size bytes; the service redirects each to a \
            pre-authenticated URL, which is fetched without credentials. Bytes go to FILE.partial, which a later run \
            carries on from; once the size and quickXorHash match the item, it is renamed to FILE. Talks to \
            --base-url with --token, or signs in to Microsoft Graph when BINDERY_MS_CLIENT_ID is set. Progress goes \
            to standard error; the item's id and size go to standard output.
            """)

    @Argument(help: "The item's path below the drive's root (Videos/clip.mp4).")
    var path: String

    @Option(help: "The local file to write.")
    var to: String

    @Option(help: "Bytes per range.")
    var chunkSize = 10 << 20

    @OptionGroup var endpoint: EndpointOptions

    func run() async throws {
        let client = try await endpoint.oneDriveClient()
        let progress = ProgressPrinter(interactive: isatty(STDERR_FILENO) == 1)
        let item = try await client.me.drive.root.item(atPath: path).download(
            to: to, chunkSize: chunkSize, events: progress.report)
        progress.finish()
        print("\(item.id ?? "?") \(item.size ?? 0) bytes")
    }
}

/// `--base-url` and `--token`: a service root other than the command's default, such as a `bindery mock` URL.
struct EndpointOptions: ParsableArguments {
    @Option(help: "An API root to use instead of the default (such as the URL `bindery mock` prints).")
    var baseURL: String?

    @Option(help: "The bearer token for --base-url.")
    var token: String?

    /// The root, or nil when none was given; an error when it is not an absolute URL.
    func url() throws -> URL? {
        guard let baseURL else { return nil }
        guard let url = URL(string: baseURL), url.scheme != nil else {
            throw ValidationError("--base-url must be an absolute URL")
        }
        return url
    }

    var auth: StaticTokenAuth? { token.map { StaticTokenAuth($0) } }

    /// A client for --base-url, or one signed in to Microsoft Graph (BINDERY_MS_CLIENT_ID). Without logging: a
    /// transfer's progress is the output.
    func oneDriveClient() async throws -> OneDriveClient {
        // Quiet: the progress line is the output.
        let middleware: [any HTTPMiddleware] = .defaults
        if let url = try url() { return OneDriveClient(baseURL: url, auth: auth, middleware: middleware) }
        let environment = ProcessInfo.processInfo.environment
        guard let clientID = environment["BINDERY_MS_CLIENT_ID"] else {
            throw ValidationError("give --base-url (and --token), or set BINDERY_MS_CLIENT_ID to sign in")
        }
        let session = try await Demo.microsoftSignIn(
            clientID: clientID, tenant: environment["BINDERY_MS_TENANT"],
            log: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
        return OneDriveClient(auth: session.auth, middleware: middleware)
    }
}

/// Transfer progress on standard error: one redrawn line with bytes, rate and ETA on a terminal; a line per event
/// otherwise (so that logs and tests can read it).
final class ProgressPrinter: Sendable {
    private let interactive: Bool
    private let started = ContinuousClock.now
    /// The bytes already on the service when this process began: the rate counts only what it sent.
    private let baseline = Mutex<Int64?>(nil)

    init(interactive: Bool) { self.interactive = interactive }

    var report: @Sendable (TransferEvent) -> Void { { [self] event in self.handle(event) } }

    private func handle(_ event: TransferEvent) {
        switch event {
        case .started(let total): line("started: \(total) bytes")
        case .resumed(let acknowledged, let total):
            baseline.withLock { $0 = acknowledged }
            line("resumed at \(acknowledged) of \(total) bytes")
        case .restarted(let reason): line("starting over: \(reason)")
        case .recovered(let next, let reason): line("carrying on at byte \(next) after: \(reason)")
        case .progress(let acknowledged, let total): progress(acknowledged, of: total)
        }
    }

    private func progress(_ acknowledged: Int64, of total: Int64) {
        let base = baseline.withLock { value in
            if value == nil { value = 0 }
            return value ?? 0
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(acknowledged - base) / seconds : 0
        let remaining = rate > 0 ? Double(total - acknowledged) / rate : 0
        let percent = total > 0 ? Int(acknowledged * 100 / total) : 100
        guard interactive else {
            line("progress: \(acknowledged)/\(total) bytes")
            return
        }
        let filled = percent / 5
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled)
        let text =
            "\r[\(bar)] \(percent)% \(Self.bytes(Double(acknowledged)))/\(Self.bytes(Double(total)))"
            + " \(Self.bytes(rate))/s ETA \(Int(remaining.rounded()))s  "
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func line(_ text: String) {
        FileHandle.standardError.write(Data(((interactive ? "\r" : "") + text + "\n").utf8))
    }

    private static func bytes(_ count: Double) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = count
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : String(format: "%.1f %@", value, units[unit])
    }
}
