import Foundation
import GRDB
import Inbox
import Testing

@testable import InboxOffline

/// A file written by an older version of the store opens in this one: its migrations run once, in order, and
/// the rows it held are carried over.
@Suite struct MigrationTests {
    @Test func aVersionOneFileGainsFingerprintsAndStillAnswers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inbox-migration-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sqlite").path
        let json = #"{"id":"t1","object":"thread","subject":"Old","last_message_timestamp":5,"tags":[]}"#
        let message = #"{"id":"m1","object":"message","thread_id":"t1","subject":"Ünïcode","date":4}"#
        do {
            // What version one wrote: its schema, and a thread with no revision (now fingerprint) column.
            let old = try DatabaseQueue(path: path)
            try InboxSchema.migrator.migrate(old, upTo: "v1: objects, filter indexes, sync state, outbox")
            try await old.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO threads (id, namespace_id, last_message_timestamp, json) VALUES ('t1', 'ns', 5, ?)",
                    arguments: [json])
                try db.execute(
                    sql:
                        "INSERT INTO messages (id, namespace_id, thread_id, date, json) VALUES ('m1', 'ns', 't1', 4, ?)",
                    arguments: [message])
            }
        }
        let store = try InboxStore(path: path)
        let applied = try await store.database.read { db in try InboxSchema.migrator.appliedIdentifiers(db) }
        #expect(applied.count == InboxSchema.migrator.migrations.count)
        #expect(applied.count == 6)
        let fingerprint = try await store.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT fingerprint FROM threads WHERE id = 't1'")
        }
        #expect(fingerprint == InboxRows.fingerprint(of: json))
        #expect(fingerprint != 0)
        var view = store.view(namespace: "ns").makeAsyncIterator()
        #expect(try await view.next()?.threads.map(\.subject) == ["Old"])
        // Messages gained a folded subject and a fingerprint: a subject filter and a message view find the old row.
        let messages = try store.messages(namespace: "ns", matching: InboxFilter(subject: "üNÏCODE"))
        #expect(messages.map(\.id) == ["m1"])
        var messageView = store.messageView(namespace: "ns").makeAsyncIterator()
        #expect(
            try await messageView.next()?.rows == [ViewRow(id: "m1", fingerprint: InboxRows.fingerprint(of: message))])
        // Every kind has its table: the first migration names them itself rather than asking the live code.
        let tables = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(Set(InboxObjectKind.allCases.map(\.table)).isSubset(of: Set(tables)))
        // Opening again runs nothing twice.
        #expect(throws: Never.self) { _ = try InboxStore(path: path) }
    }
}
