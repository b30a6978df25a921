import BinderyMock
import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import Synchronization

// `Benchmarks/run.sh inbox`: the first sync of 10,000 threads from the mock into SQLite (items/s, peak memory),
// then how soon a live view over those threads shows a delta round. Prints `key=value` lines for the script.
//
// The mock speaks Inbox from the generated descriptor with the runtime's cursor operations, so the benchmark
// does not build the other services' mocks (Graph among them) in release.

let threadCount = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 10_000
let rounds = 30
let namespace = "ns"
let service = MockService(
    InboxService.descriptor,
    operations: ["inbox.delta/getLatestCursor": .latestCursor, "inbox.delta/listChanges": .cursorDelta])
let mock = try await MockServer(service)
let threads = ["n", namespace, "threads"]
for index in 0..<threadCount {
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

// View latency: a view over every thread (10,000 rows); each round changes one thread on the server, sync applies
// it, and the time from the round's commit (sync returning) to the view's snapshot is recorded.
let arrivals = Mutex<[ContinuousClock.Instant]>([])
let viewer = Task {
    for try await _ in store.view(namespace: namespace) {
        arrivals.withLock { $0.append(.now) }
    }
}
while arrivals.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
var roundSeconds: [Double] = []
var viewMilliseconds: [Double] = []
for round in 0..<rounds {
    _ = mock.store.update(at: threads + ["t\(round * 7)"], merging: ["snippet": .string("round \(round)")])
    let before = arrivals.withLock { $0.count }
    let roundStart = ContinuousClock.now
    try await sync.sync()
    let committed = ContinuousClock.now
    roundSeconds.append(seconds(since: roundStart))
    while arrivals.withLock({ $0.count }) == before { try await Task.sleep(for: .microseconds(200)) }
    let arrived = arrivals.withLock { $0[before] }
    let latency = arrived - committed
    viewMilliseconds.append(
        max(0, Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15))
}
viewer.cancel()
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print(
    "round_ms_median=\(median(roundSeconds) * 1000) view_ms_median=\(median(viewMilliseconds)) view_ms_max=\(viewMilliseconds.max() ?? 0)"
)
await mock.stop()
