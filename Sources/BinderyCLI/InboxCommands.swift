import ArgumentParser
import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import Synchronization

/// `bindery inbox sync` and `bindery inbox list`: the offline store from a terminal.
struct InboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Keeps an Inbox account in a local SQLite file and lists its threads or messages offline.",
        subcommands: [InboxSyncCommand.self, InboxListCommand.self])
}

struct InboxSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Brings the SQLite file up to date: the first full fetch, then cursor delta rounds.",
        discussion: """
            Safe to interrupt at any point (even with kill -9): every page and every delta round is one \
            transaction, and the next run resumes from the last one committed.
            """)

    @Option(help: "The SQLite file (created when missing).")
    var db: String

    @Option(help: "The service root (a mock's URL, or the service's).")
    var url: String = InboxClient.defaultBaseURL.absoluteString

    @Option(help: "The access token (default: $BINDERY_INBOX_TOKEN).")
    var token: String?

    @Option(help: "The namespace to sync (default: $BINDERY_INBOX_NAMESPACE).")
    var namespace: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let token = token ?? environment["BINDERY_INBOX_TOKEN"],
            let namespace = namespace ?? environment["BINDERY_INBOX_NAMESPACE"], let base = URL(string: url)
        else {
            throw ValidationError("give --token and --namespace (or BINDERY_INBOX_TOKEN and BINDERY_INBOX_NAMESPACE)")
        }
        let store = try InboxStore(path: db)
        let client = InboxClient(baseURL: base, auth: InboxSignIn.auth(token: token), middleware: Bindery.http)
        let bar = ProgressBar()
        let count = try await InboxSync(store: store, client: client, namespace: namespace).sync { progress in
            bar.show(progress)
        }
        bar.finish("synced \(count) objects into \(db); cursor \(try store.cursor(namespace: namespace) ?? "none")")
    }
}

struct InboxListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Lists cached threads (or, with --messages, messages), most recent first, without the network.",
        discussion: """
            Filters use the API's parameter names, and mean what they mean to the service: \
            \(InboxFilter.parameterNames.joined(separator: ", ")). Example: \
            --filter tag=unread --filter from=ann@example.com --filter limit=20. Over messages, tag and the \
            times are the message's thread's.
            """)

    @Option(help: "The SQLite file a sync filled.")
    var db: String

    @Option(help: "The namespace (default: $BINDERY_INBOX_NAMESPACE).")
    var namespace: String?

    @Option(name: .customLong("filter"), help: "NAME=VALUE, any number of times; all must match.")
    var filters: [String] = []

    @Flag(help: "List messages (newest first) instead of threads.")
    var messages = false

    func run() async throws {
        guard FileManager.default.fileExists(atPath: db) else { throw ValidationError("no store at \(db)") }
        let namespace = namespace ?? ProcessInfo.processInfo.environment["BINDERY_INBOX_NAMESPACE"]
        guard let namespace else { throw ValidationError("give --namespace (or BINDERY_INBOX_NAMESPACE)") }
        let parameters = try filters.map { text -> (name: String, value: String) in
            guard let equals = text.firstIndex(of: "=") else { throw ValidationError("expected NAME=VALUE: \(text)") }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
        let filter: InboxFilter
        do { filter = try InboxFilter(parameters: parameters) } catch { throw ValidationError(error.message) }
        let store = try InboxStore(path: db)
        if messages {
            let messages = try store.messages(namespace: namespace, matching: filter)
            for message in messages {
                let from = (message.from ?? []).compactMap { $0.email }.joined(separator: ",")
                print(
                    "\(Self.day(message.date) ?? "          ")  \(message.id ?? "?")  \(message.subject ?? "")  <\(from)>"
                )
            }
            print("\(messages.count) messages")
            return
        }
        let threads = try store.threads(namespace: namespace, matching: filter)
        for thread in threads {
            let tags = (thread.tags ?? []).compactMap { $0.name ?? $0.id }.joined(separator: ",")
            print(
                "\(Self.day(thread.lastMessageTimestamp) ?? "          ")  \(thread.id ?? "?")  \(thread.subject ?? "")  [\(tags)]"
            )
        }
        print("\(threads.count) threads")
    }

    /// Unix seconds as a day (`2014-05-13`).
    static func day(_ seconds: Int64?) -> String? {
        seconds.map { Date(timeIntervalSince1970: TimeInterval($0)).formatted(.iso8601.year().month().day()) }
    }
}

/// One line redrawn in place on a terminal (a line per phase otherwise): the phase, a bar over the nine phases of
/// a sync (eight collections, then delta) and the objects written so far.
final class ProgressBar: Sendable {
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    private let last = Mutex("")
    private static let phases = [
        "fetch tags", "fetch threads", "fetch messages", "fetch drafts", "fetch contacts", "fetch files",
        "fetch calendars", "fetch events", "delta",
    ]

    func show(_ progress: InboxSync.Progress) {
        let done = (Self.phases.firstIndex(of: progress.phase) ?? 0) + 1
        let width = 27
        let filled = done * width / Self.phases.count
        let line =
            "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + "\(progress.phase.padding(toLength: 16, withPad: " ", startingAt: 0)) \(progress.objects) objects"
        let previousPhase = last.withLock { previous in
            defer { previous = progress.phase }
            return previous
        }
        if isTerminal {
            FileHandle.standardOutput.write(Data(("\r" + line).utf8))
        } else if previousPhase != progress.phase {
            print(line)
        }
    }

    func finish(_ message: String) {
        if isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
        print(message)
    }
}
