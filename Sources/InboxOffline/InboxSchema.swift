import BinderyRuntime
import GRDB

/// The store's tables. Each migration is applied once, in order, and recorded in the file; a shipped migration is
/// never edited, a change is a new one.
enum InboxSchema {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: objects, filter indexes, sync state, outbox") { db in
            // Every kind: the lossless JSON beside the namespace.
            for table in ["namespaces", "contacts", "tags", "files", "calendars", "events"] {
                try db.execute(
                    sql: "CREATE TABLE \(table) (id TEXT PRIMARY KEY, namespace_id TEXT, json TEXT NOT NULL)")
            }
            // Threads and messages also keep what filters and sort orders read. Text that filters compare is
            // stored lowercased: the service compares without case.
            try db.execute(
                sql: """
                    CREATE TABLE threads (
                        id TEXT PRIMARY KEY, namespace_id TEXT, subject_key TEXT,
                        first_message_timestamp INTEGER, last_message_timestamp INTEGER, json TEXT NOT NULL);
                    CREATE INDEX threads_by_recency ON threads (namespace_id, last_message_timestamp DESC, id);
                    CREATE TABLE thread_tags (
                        thread_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (thread_id, tag)) WITHOUT ROWID;
                    CREATE INDEX thread_tags_by_tag ON thread_tags (tag);
                    CREATE TABLE thread_participants (
                        thread_id TEXT NOT NULL, email TEXT NOT NULL, PRIMARY KEY (thread_id, email)) WITHOUT ROWID;
                    CREATE INDEX thread_participants_by_email ON thread_participants (email);
                    CREATE TABLE messages (
                        id TEXT PRIMARY KEY, namespace_id TEXT, thread_id TEXT, date INTEGER, json TEXT NOT NULL);
                    CREATE INDEX messages_by_thread ON messages (thread_id);
                    CREATE TABLE message_addresses (
                        message_id TEXT NOT NULL, thread_id TEXT, role TEXT NOT NULL, email TEXT NOT NULL,
                        PRIMARY KEY (message_id, role, email)) WITHOUT ROWID;
                    CREATE INDEX message_addresses_by_email ON message_addresses (email, role, thread_id);
                    CREATE TABLE message_files (
                        message_id TEXT NOT NULL, thread_id TEXT, filename TEXT NOT NULL,
                        PRIMARY KEY (message_id, filename)) WITHOUT ROWID;
                    CREATE INDEX message_files_by_name ON message_files (filename, thread_id);
                    CREATE TABLE drafts (
                        id TEXT PRIMARY KEY, namespace_id TEXT, thread_id TEXT, version INTEGER, json TEXT NOT NULL);
                    CREATE TABLE sync_state (
                        namespace_id TEXT PRIMARY KEY, cursor TEXT, fetched INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE outbox (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        namespace_id TEXT NOT NULL,
                        operation TEXT NOT NULL,
                        target_id TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        in_flight INTEGER NOT NULL DEFAULT 0,
                        not_before REAL NOT NULL DEFAULT 0,
                        last_error TEXT);
                    """)
        }
        migrator.registerMigration("v2: thread revisions, so that views compare numbers, not JSON") { db in
            try db.execute(sql: "ALTER TABLE threads ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM threads") {
                try db.execute(
                    sql: "UPDATE threads SET revision = ? WHERE id = ?",
                    arguments: [AsShipped.fingerprint(of: row["json"]), row["id"] as String])
            }
            // A view reads ids and revisions in its order from the index alone.
            try db.execute(
                sql: """
                    DROP INDEX threads_by_recency;
                    CREATE INDEX threads_by_recency ON threads (namespace_id, last_message_timestamp DESC, id, revision);
                    """)
        }
        migrator.registerMigration("v3: where an interrupted first fetch resumes") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sync_state ADD COLUMN fetch_kind TEXT;
                    ALTER TABLE sync_state ADD COLUMN fetch_offset INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE sync_state ADD COLUMN fetch_cursor TEXT;
                    """)
        }
        migrator.registerMigration("v4: one replayer at a time") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox_lease (
                        namespace_id TEXT PRIMARY KEY, owner TEXT NOT NULL, pid INTEGER NOT NULL, expires REAL NOT NULL);
                    """)
        }
        migrator.registerMigration("v5: message subjects and revisions, for message filters and views") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN subject_key TEXT;
                    ALTER TABLE messages ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    """)
            for row in try Row.fetchAll(db, sql: "SELECT id, json FROM messages") {
                let json: String = row["json"]
                let object = try JSONValue.parse(Array(json.utf8)).objectValue
                try db.execute(
                    sql: "UPDATE messages SET subject_key = ?, revision = ? WHERE id = ?",
                    arguments: [
                        AsShipped.folded(object?["subject"]), AsShipped.fingerprint(of: json), row["id"] as String,
                    ])
            }
            // A message view reads ids and revisions newest first from the index alone.
            try db.execute(
                sql: "CREATE INDEX messages_by_date ON messages (namespace_id, date DESC, id, revision)")
        }
        migrator.registerMigration("v6: the hash of a row's JSON is its fingerprint, not a revision") { db in
            // A revision suggests a version that grows; the column holds an FNV-1a hash. The indexes follow.
            try db.execute(
                sql: """
                    ALTER TABLE threads RENAME COLUMN revision TO fingerprint;
                    ALTER TABLE messages RENAME COLUMN revision TO fingerprint;
                    """)
        }
        return migrator
    }()

    /// What the migrations compute, as it was when they shipped. A migration calls none of the store's own code
    /// (`InboxRows`, `InboxObjectKind`) beyond parsing JSON: it must write the same rows whatever that code becomes. When the live code changes what
    /// it computes, a new migration recomputes the stored values (`MigrationTests` compares the two).
    private enum AsShipped {
        /// v2 and v5: a row's revision (v6 calls it its fingerprint), the 64-bit FNV-1a hash of its JSON.
        static func fingerprint(of json: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in json.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0100_0000_01b3
            }
            return Int64(bitPattern: hash)
        }

        /// v5: text as filters compare it, without case: a string as it is, a number as its text, lowercased.
        static func folded(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let text)?: text.lowercased()
            case .number(let number)?: number.text.lowercased()
            default: nil
            }
        }
    }
}
