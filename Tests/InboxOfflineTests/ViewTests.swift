import BinderyMock
import BinderyRuntime
import Foundation
import Inbox
import InboxOffline
import Testing

/// A live view yields a snapshot when sync or a local write changes what it shows, with the change set that turns
/// the previous snapshot into the new one.
// The limit catches a hang. It is generous: with every suite running at once on two cores, a test can
// wait a minute or more for a thread before its first line runs.
@Suite(.timeLimit(.minutes(5))) struct ViewTests {
    @Test func viewsFollowSyncAndLocalWritesWithExactChangeSets() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let ids = Mailbox.seed(fixture, threads: 40, seed: 11)
        for (index, id) in ids.enumerated() {
            let tag = index < 12 ? "unread" : "inbox"
            _ = fixture.mock.store.update(
                at: fixture.threads + [id], merging: ["tags": [["id": .string(tag), "name": .string(tag)]]])
        }
        try await fixture.sync.sync()
        var view = fixture.store.view(namespace: OfflineFixture.namespace, filter: .unread).makeAsyncIterator()
        var shown = try #require(try await view.next())
        #expect(shown.changes.inserted == Array(0..<shown.threads.count))
        #expect(Set(shown.threads.compactMap(\.id)) == Set(ids.prefix(12)))

        // A local write: marking a thread read removes it at once.
        let outbox = InboxOutbox(store: fixture.store, client: fixture.client, namespace: OfflineFixture.namespace)
        let read = try #require(shown.threads[3].id)
        try await outbox.markRead(thread: read)
        var next = try #require(try await view.next())
        #expect(next.changes.removed == [3] && next.changes.inserted.isEmpty)
        try Self.expectChanges(from: shown, to: next)
        shown = next

        // Sync: a thread becomes unread and newest (inserted first), one changes its snippet (updated), one gets
        // an older last message (moved to the end), one is deleted (removed).
        _ = fixture.mock.store.update(
            at: fixture.threads + [ids[20]],
            merging: ["tags": [["id": "unread", "name": "unread"]], "last_message_timestamp": 1_600_000_000])
        let updated = try #require(shown.threads[1].id)
        _ = fixture.mock.store.update(at: fixture.threads + [updated], merging: ["snippet": "new text"])
        let moved = try #require(shown.threads[0].id)
        _ = fixture.mock.store.update(at: fixture.threads + [moved], merging: ["last_message_timestamp": 1_000])
        let deleted = try #require(shown.threads[2].id)
        fixture.mock.store.remove(at: fixture.threads + [deleted])
        try await fixture.sync.sync()
        next = try #require(try await view.next())
        // One delta round is one transaction: one snapshot with every change.
        #expect(next.threads.first?.id == ids[20])
        #expect(next.threads.last?.id == moved)
        #expect(next.changes.inserted == [0])
        #expect(next.changes.removed == [2])
        #expect(next.changes.moves.map(\.from) == [0])
        // The moved thread's JSON changed too (its timestamp): it is reloaded where it lands.
        let reloaded = [updated, moved].compactMap { id in next.threads.firstIndex { $0.id == id } }
        #expect(next.changes.updated == reloaded.sorted())
        try Self.expectChanges(from: shown, to: next)
    }

    @Test func messageViewsFollowSyncWithExactChangeSets() async throws {
        let fixture = try await OfflineFixture()
        defer { Task { await fixture.stop() } }
        let threads = Mailbox.seed(fixture, threads: 30, seed: 17)
        try await fixture.sync.sync()
        let filter = InboxFilter(from: "ann@example.com")
        var view = fixture.store.messageView(namespace: OfflineFixture.namespace, filter: filter).makeAsyncIterator()
        let shown = try #require(try await view.next())
        let expected = try fixture.store.messages(namespace: OfflineFixture.namespace, matching: filter)
        #expect(shown.messages.map(\.id) == expected.map(\.id) && shown.messages.count > 3)
        #expect(shown.changes.inserted == Array(0..<shown.messages.count))

        // A new message from Ann (newest: inserted first), one edited (updated in place), one deleted (removed).
        fixture.mock.store.insert(
            [
                "object": "message", "namespace_id": "ns", "thread_id": .string(threads[0]), "subject": "New",
                "date": 1_500_000_000, "from": [["name": "Ann", "email": "ann@example.com"]],
            ], into: fixture.messages, key: "fresh", logged: true)
        let edited = try #require(shown.messages[1].id)
        _ = fixture.mock.store.update(at: fixture.messages + [edited], merging: ["snippet": "edited"])
        let deleted = try #require(shown.messages[2].id)
        fixture.mock.store.remove(at: fixture.messages + [deleted])
        try await fixture.sync.sync()
        let next = try #require(try await view.next())
        #expect(next.messages.first?.id == "fresh")
        #expect(next.changes.inserted == [0] && next.changes.removed == [2] && next.changes.moves.isEmpty)
        #expect(next.changes.updated == [2])  // the edited message, one down behind the new one
        #expect(next.messages[2].id == edited && next.messages[2].snippet == "edited")
        try Self.expectChanges(from: shown, to: next)
    }

    @Test func changeSetsRebuildTheNewSnapshotForRandomEdits() throws {
        var random = SeededRandom(seed: 5)
        for _ in 0..<300 {
            let old = (0..<Int.random(in: 0..<12, using: &random)).map {
                ViewRow(id: "r\($0)", fingerprint: Int64.random(in: 0..<2, using: &random))
            }
            var new = old.filter { _ in Int.random(in: 0..<4, using: &random) != 0 }.shuffled(using: &random)
            for index in new.indices where Bool.random(using: &random) { new[index].fingerprint += 10 }
            for extra in 0..<Int.random(in: 0..<3, using: &random) {
                new.insert(ViewRow(id: "n\(extra)", fingerprint: 0), at: Int.random(in: 0...new.count, using: &random))
            }
            let changes = ChangeSet(from: old, to: new)
            let newIDs: [String] = new.map(\.id)
            let rebuilt = Self.rebuilt(old.map(\.id), changes, insertedIDs: newIDs)
            #expect(rebuilt == newIDs)
            let oldFingerprints = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0.fingerprint) })
            let edited = new.filter { row in oldFingerprints[row.id].map { $0 != row.fingerprint } ?? false }.map(\.id)
            #expect(Set(changes.updated.map { new[$0].id }) == Set(edited))
        }
    }

    /// The new snapshot's ids, rebuilt from the old ids and the change set alone (the ids of inserted rows aside).
    static func rebuilt(_ old: [String], _ changes: ChangeSet, insertedIDs: [String]) -> [String?] {
        let count = old.count - changes.removed.count + changes.inserted.count
        var result = [String?](repeating: nil, count: count)
        for index in changes.inserted { result[index] = insertedIDs[index] }
        for move in changes.moves { result[move.to] = old[move.from] }
        let moved = Set(changes.moves.map(\.from))
        var staying = old.indices.filter { !changes.removed.contains($0) && !moved.contains($0) }.map { old[$0] }[...]
        for index in result.indices where result[index] == nil { result[index] = staying.popFirst() }
        return result
    }

    static func expectChanges<Item>(from old: ViewSnapshot<Item>, to new: ViewSnapshot<Item>) throws {
        let newIDs = new.rows.map(\.id)
        #expect(new.items.map { $0.storage["id"]?.scalarText } == newIDs)
        #expect(rebuilt(old.rows.map(\.id), new.changes, insertedIDs: newIDs) == newIDs)
    }
}
