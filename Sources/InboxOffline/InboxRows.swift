import BinderyRuntime
import GRDB

/// Writes objects into their tables: the JSON as received, plus the columns and index rows filters read.
/// Saving the same object twice leaves the same rows, which is what makes a replayed delta round harmless.
enum InboxRows {
    static func save(_ db: Database, _ kind: InboxObjectKind, _ object: JSONObject, namespace: String?) throws {
        guard let id = object["id"]?.scalarText else { return }
        let json = JSONValue.object(object).jsonText
        // The namespace it was synced from: that is where it is listed, whatever the payload says.
        let namespace = namespace ?? object["namespace_id"]?.scalarText
        switch kind {
        case .thread:
            try db.execute(
                sql: """
                    INSERT INTO threads (id, namespace_id, subject_key, first_message_timestamp,
                        last_message_timestamp, json, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET namespace_id = excluded.namespace_id,
                        subject_key = excluded.subject_key, first_message_timestamp = excluded.first_message_timestamp,
                        last_message_timestamp = excluded.last_message_timestamp, json = excluded.json,
                        fingerprint = excluded.fingerprint
                    """,
                arguments: [
                    id, namespace, folded(object["subject"]), object["first_message_timestamp"]?.int64,
                    object["last_message_timestamp"]?.int64, json, fingerprint(of: json),
                ])
            try removeIndexRows(db, .thread, id: id)
            for tag in object["tags"]?.arrayValue ?? [] {
                // A tag filter matches a tag's id or its name.
                for key in Set([folded(tag["id"]), folded(tag["name"])].compactMap { $0 }) {
                    try db.execute(sql: "INSERT INTO thread_tags (thread_id, tag) VALUES (?, ?)", arguments: [id, key])
                }
            }
            for email in Set(addresses(object["participants"])) {
                try db.execute(
                    sql: "INSERT INTO thread_participants (thread_id, email) VALUES (?, ?)", arguments: [id, email])
            }
        case .message:
            let thread = object["thread_id"]?.scalarText
            try db.execute(
                sql: """
                    INSERT INTO messages (id, namespace_id, thread_id, date, subject_key, json, fingerprint)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET namespace_id = excluded.namespace_id,
                        thread_id = excluded.thread_id, date = excluded.date, subject_key = excluded.subject_key,
                        json = excluded.json, fingerprint = excluded.fingerprint
                    """,
                arguments: [
                    id, namespace, thread, object["date"]?.int64, folded(object["subject"]), json,
                    fingerprint(of: json),
                ])
            try removeIndexRows(db, .message, id: id)
            for role in ["from", "to", "cc", "bcc"] {
                for email in Set(addresses(object[role])) {
                    try db.execute(
                        sql: "INSERT INTO message_addresses (message_id, thread_id, role, email) VALUES (?, ?, ?, ?)",
                        arguments: [id, thread, role, email])
                }
            }
            let filenames = (object["files"]?.arrayValue ?? []).compactMap { folded($0["filename"]) }
            for filename in Set(filenames) {
                try db.execute(
                    sql: "INSERT INTO message_files (message_id, thread_id, filename) VALUES (?, ?, ?)",
                    arguments: [id, thread, filename])
            }
        case .draft:
            try db.execute(
                sql: """
                    INSERT INTO drafts (id, namespace_id, thread_id, version, json) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET namespace_id = excluded.namespace_id,
                        thread_id = excluded.thread_id, version = excluded.version, json = excluded.json
                    """,
                arguments: [id, namespace, object["thread_id"]?.scalarText, object["version"]?.int64, json])
        default:
            try db.execute(
                sql: """
                    INSERT INTO \(kind.table) (id, namespace_id, json) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET namespace_id = excluded.namespace_id, json = excluded.json
                    """,
                arguments: [id, namespace, json])
        }
    }

    /// Removes an object and its index rows; removing what is not there does nothing.
    static func remove(_ db: Database, _ kind: InboxObjectKind, id: String) throws {
        try db.execute(sql: "DELETE FROM \(kind.table) WHERE id = ?", arguments: [id])
        try removeIndexRows(db, kind, id: id)
    }

    private static func removeIndexRows(_ db: Database, _ kind: InboxObjectKind, id: String) throws {
        switch kind {
        case .thread:
            try db.execute(sql: "DELETE FROM thread_tags WHERE thread_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM thread_participants WHERE thread_id = ?", arguments: [id])
        case .message:
            try db.execute(sql: "DELETE FROM message_addresses WHERE message_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM message_files WHERE message_id = ?", arguments: [id])
        default: break
        }
    }

    /// A fingerprint of a row's JSON (64-bit FNV-1a): equal JSON, equal fingerprint, in every process, so saving the
    /// same object again leaves it as it was.
    static func fingerprint(of json: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in json.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Text as filters compare it: without case.
    static func folded(_ value: JSONValue?) -> String? { value?.scalarText?.lowercased() }

    /// The email addresses of a list of participants (`[{"name", "email"}]`).
    private static func addresses(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap { folded($0["email"]) }
    }
}

extension JSONValue {
    /// A whole number, whether sent as a number or as loose text.
    var int64: Int64? {
        switch self {
        case .number(let number): return number.int64Value ?? number.doubleValue.map { Int64($0) }
        case .string(let text): return Int64(text)
        default: return nil
        }
    }
}
