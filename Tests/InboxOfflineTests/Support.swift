import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Inbox
import InboxOffline

/// A mock Inbox service on 127.0.0.1 with one namespace, a store in a fresh SQLite file, and the sync between them.
struct OfflineFixture {
    static let namespace = "ns"
    let mock: MockServer
    let client: InboxClient
    let store: InboxStore
    let sync: InboxSync
    let directory: URL

    var threads: [String] { [Self.namespaceRoot, Self.namespace, "threads"] }
    var messages: [String] { [Self.namespaceRoot, Self.namespace, "messages"] }
    var drafts: [String] { [Self.namespaceRoot, Self.namespace, "drafts"] }
    static let namespaceRoot = "n"

    init(pageSize: Int32 = 1000) async throws {
        mock = try await MockServer(.inbox)
        mock.store.insert(
            ["object": "namespace", "email_address": "me@example.com"], into: [Self.namespaceRoot],
            key: Self.namespace, logged: false)
        client = InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-offline-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try InboxStore(path: directory.appendingPathComponent("inbox.sqlite").path)
        var sync = InboxSync(store: store, client: client, namespace: Self.namespace)
        sync.pageSize = pageSize
        self.sync = sync
    }

    var databasePath: String { store.path }

    /// The client's builder for the fixture's namespace.
    var namespace: NamespaceRequestBuilder { client.namespaces(Self.namespace) }

    func stop() async {
        await mock.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the server holds in `collection`, by id.
    func serverObjects(_ collection: [String]) -> [String: JSONObject] {
        Dictionary(uniqueKeysWithValues: mock.store.items(in: collection).map { ($0.key, $0.object) })
    }
}

/// An executable SwiftPM builds beside the test bundle (`.build/debug/`): this target depends on it.
func builtExecutable(_ name: String) -> URL? {
    let candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// A small deterministic generator (xorshift64*), so that a failing case can be replayed from its seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }  // xorshift never leaves zero
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Mailbox data drawn from small vocabularies, so that random filters often match something.
enum Mailbox {
    static let people = ["ann@example.com", "Ben@Example.com", "cy@example.org", "dee@example.net", "eve@example.com"]
    static let subjects = ["Lunch", "Report", "Re: Report", "Invoice", "lunch", "Trip"]
    static let tags = ["inbox", "unread", "starred", "archive", "important"]
    static let filenames = ["a.pdf", "Notes.txt", "photo.jpg"]
    static let baseTime: Int64 = 1_400_000_000

    /// Seeds `threads` threads, each with one to three messages, straight into the mock (no change log, as if
    /// they had been there before the sync started). Returns the thread ids.
    @discardableResult
    static func seed(_ fixture: OfflineFixture, threads: Int, seed: UInt64, logged: Bool = false) -> [String] {
        var random = SeededRandom(seed: seed)
        var ids: [String] = []
        for index in 0..<threads {
            let id = "t\(seed)-\(index)"
            let messageCount = Int.random(in: 1...3, using: &random)
            var participants: Set<String> = []
            let started = baseTime + Int64.random(in: 0..<100_000, using: &random)
            var last = started
            for number in 0..<messageCount {
                let date = started + Int64(number) * Int64.random(in: 1...5_000, using: &random)
                last = max(last, date)
                var message: JSONObject = [
                    "object": "message", "namespace_id": .string(OfflineFixture.namespace),
                    "thread_id": .string(id), "subject": .string(subjects.randomElement(using: &random)!),
                    "date": .number(JSONNumber(date)),
                ]
                for role in ["from", "to", "cc", "bcc"] where role == "from" || Bool.random(using: &random) {
                    let person = people.randomElement(using: &random)!
                    participants.insert(person)
                    message[role] = [
                        ["name": .string(person.prefix { $0 != "@" }.capitalized), "email": .string(person)]
                    ]
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    let filename = filenames.randomElement(using: &random)!
                    message["files"] = [["id": .string("f\(index)-\(number)"), "filename": .string(filename)]]
                }
                fixture.mock.store.insert(message, into: fixture.messages, key: "\(id)-m\(number)", logged: logged)
            }
            let chosenTags = tags.filter { _ in Bool.random(using: &random) }
            let thread: JSONObject = [
                "object": "thread", "namespace_id": .string(OfflineFixture.namespace),
                "subject": .string(subjects.randomElement(using: &random)!),
                "participants": .array(participants.sorted().map { ["name": "", "email": .string($0)] }),
                "first_message_timestamp": .number(JSONNumber(started)),
                "last_message_timestamp": .number(JSONNumber(last)),
                "tags": .array(chosenTags.map { ["id": .string($0), "name": .string($0)] }),
                "message_ids": .array((0..<messageCount).map { .string("\(id)-m\($0)") }),
            ]
            fixture.mock.store.insert(thread, into: fixture.threads, key: id, logged: logged)
            ids.append(id)
        }
        return ids
    }
}
