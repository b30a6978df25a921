import BinderyMock
import BinderyRuntime
import Foundation
import GRDB
import Inbox
import InboxMock
import InboxOffline
import Synchronization

// `Benchmarks/run.sh inbox`: the first sync of 10,000 threads and 10,000 messages from the mock into SQLite
// (items/s, peak memory), then how soon a live view over those threads, and one over those messages, shows a delta
// round. Prints `key=value` lines for the script.
//
// The mock is Inbox's own (`InboxMock`: its filters, order and namespace-scoped cursor delta), so the benchmark
// does not build the other services' mocks (Graph among them) in release.

let threadCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let rounds = 30
let namespace = "ns"
let mock = try await MockServer(.inbox)
let threads = ["n", namespace, "threads"]
let messages = ["n", namespace, "messages"]
for index in 0..<threadCount {
    mock.store.insert(
        [
            "object": "message", "thread_id": .string("t\(index)"), "subject": .string("Thread \(index)"),
            "snippet": .string(String(repeating: "y", count: 80)),
            "from": [["name": "Ann", "email": .string("ann\(index % 50)@example.com")]],
            "date": .number(JSONNumber(1_400_000_000 + index * 2)),
        ], into: messages, key: "m\(index)", logged: false)
    var tags: [JSONValue] = [["id": "inbox", "name": "inbox"]]
    if index % 3 == 0 { tags.append(["id": "unread", "name": "unread"]) }
    mock.store.insert(
        [
            "object": "thread", "subject": .string("Thread \(index)"),
            "snippet": .string(String(repeating: "x", count: 80)),
            "participants": [["name": "Ann", "email": .string("ann\(index % 50)@example.com")]],
            "first_message_timestamp": .number(JSONNumber(1_400_000_000 + index)),
            "last_message_timestamp": .number(JSONNumber(1_400_000_000 + index * 2)),
            "tags": .array(tags), "message_ids": [.string("m\(index)")],
        ], into: threads, key: "t\(index)", logged: false)
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-offline-bench-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let store = try InboxStore(path: folder.appendingPathComponent("inbox.sqlite").path)
let client = InboxClient(
    baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken), middleware: [])
let sync = InboxSync(store: store, client: client, namespace: namespace)

func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let start = ContinuousClock.now
let synced = try await sync.sync()
let syncSeconds = seconds(since: start)
var usage = rusage()
#if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
#else
    getrusage(RUSAGE_SELF, &usage)
#endif
print("threads=\(threadCount) objects=\(synced) seconds=\(syncSeconds) per_second=\(Double(synced) / syncSeconds)")
// The mock server runs in this process too: its copy of the mailbox is part of the peak.
print("peak_rss_mib=\(Double(usage.ru_maxrss) / 1024)")
// The file and its write-ahead log, which holds recent commits until a checkpoint.
let fileBytes = [store.path, store.path + "-wal"].compactMap {
    try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int
}.reduce(0, +)
print("file_mib=\(Double(fileBytes) / 1_048_576)")

// View latency: a view over every thread (10,000 rows), then one over every message; each round changes one of
// them on the server, sync applies it, and the time from the round's commit (as the writer commits) to the view's
// snapshot in the consuming task is recorded.
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// When each commit that wrote threads or messages happened, taken on the writer as it commits (registered before
/// any view, so it runs before a view's own work on that commit).
final class CommitClock: TransactionObserver, @unchecked Sendable {
    let commits = Mutex<[ContinuousClock.Instant]>([])
    private var wrote = false  // the writer's queue only

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        ["threads", "messages"].contains(eventKind.tableName)
    }
    func databaseDidChange(with event: DatabaseEvent) { wrote = true }
    func databaseDidCommit(_ db: Database) {
        if wrote { commits.withLock { $0.append(.now) } }
        wrote = false
    }
    func databaseDidRollback(_ db: Database) { wrote = false }
}
let clock = CommitClock()
store.database.writeWithoutTransaction { db in db.add(transactionObserver: clock, extent: .databaseLifetime) }

func measure<Item: JSONModel>(
    _ view: LiveView<Item>, changing collection: [String], key: @escaping (Int) -> String
) async throws -> (rounds: [Double], views: [Double]) {
    let arrivals = Mutex<[ContinuousClock.Instant]>([])
    let viewer = Task {
        for try await _ in view {
            arrivals.withLock { $0.append(.now) }
        }
    }
    while arrivals.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
    var roundSeconds: [Double] = []
    var viewMilliseconds: [Double] = []
    for round in 0..<rounds {
        _ = mock.store.update(at: collection + [key(round * 7)], merging: ["snippet": .string("round \(round)")])
        let before = arrivals.withLock { $0.count }
        let commitsBefore = clock.commits.withLock { $0.count }
        let roundStart = ContinuousClock.now
        try await sync.sync()
        roundSeconds.append(seconds(since: roundStart))
        guard let committed = clock.commits.withLock({ $0.count > commitsBefore ? $0.last : nil }) else {
            fatalError("round \(round) committed nothing")
        }
        while arrivals.withLock({ $0.count }) == before { try await Task.sleep(for: .microseconds(200)) }
        let arrived = arrivals.withLock { $0[before] }
        let latency = arrived - committed
        viewMilliseconds.append(
            max(0, Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15))
    }
    viewer.cancel()
    return (roundSeconds, viewMilliseconds)
}

let threadRounds = try await measure(store.view(namespace: namespace), changing: threads) { "t\($0)" }
print(
    "round_ms_median=\(median(threadRounds.rounds) * 1000) view_ms_median=\(median(threadRounds.views)) view_ms_max=\(threadRounds.views.max() ?? 0)"
)
let messageRounds = try await measure(store.messageView(namespace: namespace), changing: messages) { "m\($0)" }
print(
    "message_view_ms_median=\(median(messageRounds.views)) message_view_ms_max=\(messageRounds.views.max() ?? 0)"
)
await mock.stop()
