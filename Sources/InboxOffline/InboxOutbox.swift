import BinderyRuntime
import Foundation
import GRDB
import Inbox

/// Writes that work offline. Each is applied to the cache at once (views update) and queued in the same
/// transaction; `replay()` sends the queue in order when the service is reachable, with backoff after a failure.
///
/// Sending is exactly once: a send is marked in flight (committed) before its request leaves, and a send found
/// in flight on the next replay (the process died, the answer was lost) is first confirmed against the server:
/// if the draft is gone or sent, it is not sent again. A 409 on a stale draft version refreshes the draft in the
/// cache and is reported as a conflict.
///
/// Drafts can be written offline too: a new draft gets a local id (`local-…`) that every later write may use;
/// when the service creates it, the cache and the writes queued after it move to the service's id and version.
public struct InboxOutbox: Sendable {
    public let store: InboxStore
    public let namespace: NamespaceRequestBuilder
    public let namespaceID: String
    /// The first wait after a failure; it doubles with each further attempt, up to `maximumBackoff`.
    public var initialBackoff: Duration = .seconds(1)
    public var maximumBackoff: Duration = .seconds(300)
    /// How long the queue's lease lasts without renewal. A replay renews it every third of this while a request is
    /// in flight, however long the client's retries and timeouts make that request: a second replayer can take
    /// the queue only from a holder that stopped renewing (its process died, or it hung past the whole lease).
    public var leaseDuration: Duration = .seconds(60)

    public init(store: InboxStore, client: InboxClient, namespace: String) {
        self.store = store
        self.namespace = client.namespaces(namespace)
        self.namespaceID = namespace
    }

    /// One queued write.
    public struct PendingWrite: Sendable, Hashable {
        public var sequence: Int64
        public var operation: Operation
        public var targetID: String
        public var attempts: Int
        public var inFlight: Bool
        public var lastError: String?
    }

    public enum Operation: String, Sendable {
        case changeTags, deleteDraft, send, saveDraft
    }

    /// The prefix of the ids given to drafts saved offline before the service has created them.
    public static let localDraftPrefix = "local-"

    /// What a replay did.
    public struct Report: Sendable {
        /// Writes the service accepted (or, for an interrupted send, had already accepted).
        public var completed: [PendingWrite] = []
        /// Drafts whose version was stale: the cache now holds the server's draft; the write was dropped.
        public var conflicts: [(draftID: String, serverVersion: Int32?)] = []
        /// Writes the service refused for good (404, 400…): dropped; the cache keeps the server's state.
        public var refused: [(write: PendingWrite, error: BinderyError)] = []
        /// Set when a failure that may pass (no connection, 5xx, 429) stopped the replay: the queue waits.
        public var retryAfter: Duration?
        /// Another replay (in this process or another) holds the queue: this one sent nothing.
        public var busy = false
    }

    // MARK: Writing offline

    /// Adds and removes tags (Inbox's read, starred, archived and labels are tags).
    public func changeTags(thread: String, add: [String] = [], remove: [String] = []) async throws {
        let payload: JSONObject = [
            "add_tags": .array(add.map { .string($0) }), "remove_tags": .array(remove.map { .string($0) }),
        ]
        try await store.database.write { [namespaceID] db in
            if let json = try String.fetchOne(db, sql: "SELECT json FROM threads WHERE id = ?", arguments: [thread]) {
                var object = try InboxStore.model(MailThread.self, json: json).storage
                object["tags"] = .array(Self.tags(object["tags"]?.arrayValue ?? [], adding: add, removing: remove))
                try InboxRows.save(db, .thread, object, namespace: namespaceID)
            }
            try Self.enqueue(db, namespace: namespaceID, .changeTags, target: thread, payload: payload)
        }
    }

    public func markRead(thread: String) async throws { try await changeTags(thread: thread, remove: ["unread"]) }
    public func markUnread(thread: String) async throws { try await changeTags(thread: thread, add: ["unread"]) }
    public func star(thread: String) async throws { try await changeTags(thread: thread, add: ["starred"]) }
    public func unstar(thread: String) async throws { try await changeTags(thread: thread, remove: ["starred"]) }
    public func archive(thread: String) async throws {
        try await changeTags(thread: thread, add: ["archive"], remove: ["inbox"])
    }

    /// Saves a draft and returns its id: a draft without an id is new, and gets a local one until the service
    /// creates it (`POST drafts`); one with an id is replaced at `draft.version` (nil: the cached version) with
    /// `PUT drafts/{id}`. The cache and its views show the draft at once.
    @discardableResult
    public func saveDraft(_ draft: Draft) async throws -> String {
        let given = draft.storage["id"]?.scalarText
        let id = given ?? Self.localDraftPrefix + UUID().uuidString.lowercased()
        // What the service is sent: the contents, without what it sets itself.
        var sent = draft.storage
        for member in ["id", "object", "namespace_id", "version"] { sent[member] = nil }
        let contents = sent
        try await store.database.write { [namespaceID] db in
            let previous = try String.fetchOne(db, sql: "SELECT json FROM drafts WHERE id = ?", arguments: [id])
                .map(JSONValue.parse)?.objectValue
            var payload: JSONObject = ["contents": .object(contents)]
            if given != nil, !Self.isLocal(id) {
                let version = draft.storage["version"] ?? previous?["version"]
                if let version { payload["version"] = version }
                // Put back if the service refuses the change for good.
                if let previous { payload["draft"] = .object(previous) }
            }
            var cached = previous ?? [:]
            for member in contents { cached[member.key] = member.value }
            cached["id"] = .string(id)
            cached["object"] = "draft"
            try InboxRows.save(db, .draft, cached, namespace: namespaceID)
            try Self.enqueue(db, namespace: namespaceID, .saveDraft, target: id, payload: payload)
        }
        return id
    }

    static func isLocal(_ draftID: String) -> Bool { draftID.hasPrefix(localDraftPrefix) }

    /// Sends a saved draft at `version` (nil: the version cached when the send is replayed). The draft leaves the
    /// cache at once.
    public func send(draft: String, version: Int32? = nil) async throws {
        try await queueDraftWrite(.send, draft: draft, version: version)
    }

    /// Deletes a draft at `version` (nil: the cached version).
    public func deleteDraft(_ draft: String, version: Int32? = nil) async throws {
        try await queueDraftWrite(.deleteDraft, draft: draft, version: version)
    }

    private func queueDraftWrite(_ operation: Operation, draft: String, version: Int32?) async throws {
        try await store.database.write { [namespaceID] db in
            let cached = try Int64.fetchOne(db, sql: "SELECT version FROM drafts WHERE id = ?", arguments: [draft])
            var payload = JSONObject()
            if let version = version.map(Int64.init) ?? cached { payload["version"] = .number(JSONNumber(version)) }
            // The payload keeps the draft itself, so that a refused write can put it back.
            if let json = try String.fetchOne(db, sql: "SELECT json FROM drafts WHERE id = ?", arguments: [draft]) {
                payload["draft"] = try JSONValue.parse(json)
            }
            try InboxRows.remove(db, .draft, id: draft)
            try Self.enqueue(db, namespace: namespaceID, operation, target: draft, payload: payload)
        }
    }

    /// The queue, oldest first.
    public func pending() throws -> [PendingWrite] {
        try store.database.read { [namespaceID] db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, operation, target_id, attempts, in_flight, last_error FROM outbox
                    WHERE namespace_id = ? ORDER BY sequence
                    """, arguments: [namespaceID]
            ).map(Self.pendingWrite)
        }
    }

    // MARK: Replaying

    /// Sends the queued writes in order until the queue is empty or a failure that may pass stops it (the
    /// report says when to try again). Writes that are still backing off are not sent. `progress` hears of each
    /// write as it leaves the queue, whatever became of it.
    ///
    /// One replay at a time holds the queue (a lease in the file, taken over when its holder's process has died or
    /// it has expired): two replayers would both find a send in flight, confirm it unsent, and send it twice.
    public func replay(progress: (@Sendable (PendingWrite) -> Void)? = nil) async throws -> Report {
        var report = Report()
        let lease = UUID().uuidString
        guard try await takeLease(lease) else {
            report.busy = true
            return report
        }
        do {
            try await replayQueue(&report, lease: lease, progress: progress)
        } catch {
            try? await releaseLease(lease)
            throw error
        }
        try await releaseLease(lease)
        return report
    }

    private func replayQueue(
        _ report: inout Report, lease: String, progress: (@Sendable (PendingWrite) -> Void)?
    ) async throws {
        while let (write, payload, notBefore) = try nextWrite() {
            guard try await takeLease(lease) else {
                report.busy = true
                return
            }
            let wait = notBefore - Date().timeIntervalSince1970
            if wait > 0 {
                report.retryAfter = .milliseconds(Int(wait * 1000))
                return
            }
            defer { progress?(write) }
            do {
                try await holdingLease(lease) { try await perform(write, payload, &report) }
            } catch let error as BinderyError where Self.mayPass(error) {
                report.retryAfter = try await backOff(write, error)
                return
            } catch let error as BinderyError where error.kind == .api {
                try await refuse(write, payload, error)
                report.refused.append((write, error))
            }
        }
    }

    private func perform(_ write: PendingWrite, _ payload: JSONObject, _ report: inout Report) async throws {
        let draft = namespace.drafts(write.targetID)
        let version = payload["version"]?.int64.map { Int32(clamping: $0) }
        switch write.operation {
        case .changeTags:
            var changes = TagChanges()
            changes.addTags = payload["add_tags"]?.arrayValue?.compactMap(\.stringValue)
            changes.removeTags = payload["remove_tags"]?.arrayValue?.compactMap(\.stringValue)
            // Adding and removing tags is idempotent: repeating it after a crash is harmless.
            let thread = try await namespace.threads(write.targetID).updateTags(changes).send()
            try await finish(write, saving: thread.storage, as: .thread)
        case .deleteDraft:
            switch await Self.attempt({ () async throws(BinderyError) in
                try await draft.delete(version: version ?? 0).send()
            }) {
            case .success: break
            case .failure(let error) where error.status == 404: break  // Already gone: what the write wanted.
            case .failure(let error) where error.status == 409: return try await conflict(write, &report)
            case .failure(let error): throw error
            }
            try await finish(write, saving: nil, as: .draft)
        case .saveDraft:
            return try await saveDraft(write, payload, &report)
        case .send:
            if write.inFlight, try await wasSent(write.targetID) {
                try await finish(write, saving: nil, as: .message)
                report.completed.append(write)
                return
            }
            try await markInFlight(write)
            switch await Self.attempt({ () async throws(BinderyError) in
                try await namespace.send(draftID: write.targetID, version: version ?? 0).send()
            }) {
            case .success(let message): try await finish(write, saving: message.storage, as: .message)
            case .failure(let error) where error.status == 409: return try await conflict(write, &report)
            case .failure(let error): throw error
            }
        }
        report.completed.append(write)
    }

    /// Creates or replaces a draft. Marked in flight first: a save whose answer was lost is looked for on the
    /// server (a draft holding exactly these contents) before it is sent again, so it is never made twice.
    private func saveDraft(_ write: PendingWrite, _ payload: JSONObject, _ report: inout Report) async throws {
        let contents = payload["contents"]?.objectValue ?? [:]
        let isNew = Self.isLocal(write.targetID)
        if write.inFlight, let landed = try await landedSave(write, contents: contents) {
            try await finishSave(write, payload, saved: landed)
            report.completed.append(write)
            return
        }
        try await markInFlight(write)
        var body = Draft(storage: contents)
        let result: Result<Draft?, BinderyError>
        if isNew {
            let drafts = namespace.drafts.request()
            result = await Self.attempt { () async throws(BinderyError) in try await drafts.add(body) }
        } else {
            if let version = payload["version"] { body.storage["version"] = version }
            let draft = namespace.drafts(write.targetID).request()
            result = await Self.attempt { () async throws(BinderyError) in try await draft.replace(body) }
        }
        switch result {
        case .success(let saved?): try await finishSave(write, payload, saved: saved.storage)
        case .success(nil):
            // No body in the answer: read the draft back for its version (a replace keeps its id).
            let saved = try await namespace.drafts(write.targetID).request().get()
            try await finishSave(write, payload, saved: saved.storage)
        case .failure(let error) where error.status == 409: return try await conflict(write, &report)
        case .failure(let error): throw error
        }
        report.completed.append(write)
    }

    /// The draft an interrupted save left on the server, if it got there: for a new draft, one of the service's
    /// drafts that holds these contents and that the cache does not know; for a replace, the draft itself when it
    /// holds them.
    private func landedSave(_ write: PendingWrite, contents: JSONObject) async throws -> JSONObject? {
        let holdsContents = { (draft: JSONObject) in contents.allSatisfy { draft[$0.key] == $0.value } }
        guard Self.isLocal(write.targetID) else {
            let current = try await namespace.drafts(write.targetID).request().get()
            return holdsContents(current.storage) ? current.storage : nil
        }
        let known = try await store.database.read { db in Set(try String.fetchAll(db, sql: "SELECT id FROM drafts")) }
        for try await draft in namespace.drafts.list(limit: 1000).all() {
            guard let id = draft.id, !known.contains(id), holdsContents(draft.storage) else { continue }
            return draft.storage
        }
        return nil
    }

    /// The service saved the draft: the cache and the writes queued after this one follow its id and version.
    private func finishSave(_ write: PendingWrite, _ payload: JSONObject, saved: JSONObject) async throws {
        guard let newID = saved["id"]?.scalarText else {
            throw BinderyError(kind: .invalidResponse, message: "the saved draft has no id")
        }
        let oldVersion = payload["version"]
        try await store.database.write { [namespaceID] db in
            let later = try Row.fetchAll(
                db,
                sql: "SELECT sequence, payload FROM outbox WHERE namespace_id = ? AND target_id = ? AND sequence > ?",
                arguments: [namespaceID, write.targetID, write.sequence])
            if later.isEmpty {
                if newID != write.targetID { try InboxRows.remove(db, .draft, id: write.targetID) }
                try InboxRows.save(db, .draft, saved, namespace: namespaceID)
            } else {
                // Later writes changed the draft locally: the cache keeps their contents under the new id.
                if let json = try String.fetchOne(
                    db, sql: "SELECT json FROM drafts WHERE id = ?", arguments: [write.targetID]),
                    var cached = try JSONValue.parse(json).objectValue
                {
                    cached["id"] = .string(newID)
                    cached["version"] = saved["version"]
                    try InboxRows.remove(db, .draft, id: write.targetID)
                    try InboxRows.save(db, .draft, cached, namespace: namespaceID)
                }
                for row in later {
                    var queued = try JSONValue.parse(row["payload"] as String).objectValue ?? [:]
                    // Written against the draft as it was before this save: they now apply to the saved one.
                    if queued["version"] == nil || queued["version"] == oldVersion {
                        queued["version"] = saved["version"]
                    }
                    if case .object(var draft)? = queued["draft"] {
                        draft["id"] = .string(newID)
                        queued["draft"] = .object(draft)
                    }
                    try db.execute(
                        sql: "UPDATE outbox SET target_id = ?, payload = ? WHERE sequence = ?",
                        arguments: [newID, JSONValue.object(queued).jsonText, row["sequence"] as Int64])
                }
            }
            try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [write.sequence])
        }
    }

    /// Whether an interrupted send reached the service: the draft is gone, or the service says it was sent.
    private func wasSent(_ draftID: String) async throws -> Bool {
        let request = namespace.drafts(draftID).request()
        switch await Self.attempt({ () async throws(BinderyError) in try await request.get() }) {
        case .success(let draft):
            // A draft that became a message, or says it is being sent, must not be sent again.
            return draft.object == "message" || ["sent", "sending"].contains(draft.state?.rawValue ?? "")
        case .failure(let error) where error.status == 404: return true
        case .failure(let error): throw error
        }
    }

    /// The outcome of a request as a value, so that statuses can be matched case by case.
    private static func attempt<Output>(
        _ operation: () async throws(BinderyError) -> Output
    ) async -> Result<Output, BinderyError> {
        do { return .success(try await operation()) } catch { return .failure(error) }
    }

    /// The draft's version was stale: cache the server's draft, drop the write, report the conflict.
    private func conflict(_ write: PendingWrite, _ report: inout Report) async throws {
        let current = try? await namespace.drafts(write.targetID).request().get()
        try await store.database.write { [namespaceID] db in
            if let current { try InboxRows.save(db, .draft, current.storage, namespace: namespaceID) }
            try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [write.sequence])
        }
        report.conflicts.append((write.targetID, current?.version))
    }

    /// Refused for good: drop the write and put back the server's state of what it changed.
    private func refuse(_ write: PendingWrite, _ payload: JSONObject, _ error: BinderyError) async throws {
        var restored: (InboxObjectKind, JSONObject)?
        switch write.operation {
        case .changeTags:
            if let thread = try? await namespace.threads(write.targetID).request().get() {
                restored = (.thread, thread.storage)
            }
        case .deleteDraft, .send, .saveDraft:
            if let draft = payload["draft"]?.objectValue { restored = (.draft, draft) }
        }
        try await store.database.write { [namespaceID, restored] db in
            if write.operation == .saveDraft, Self.isLocal(write.targetID) {
                // A draft the service would not create: it and the writes that name it go.
                try InboxRows.remove(db, .draft, id: write.targetID)
                try db.execute(
                    sql: "DELETE FROM outbox WHERE namespace_id = ? AND target_id = ? AND sequence > ?",
                    arguments: [namespaceID, write.targetID, write.sequence])
            }
            if let (kind, object) = restored { try InboxRows.save(db, kind, object, namespace: namespaceID) }
            try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [write.sequence])
        }
    }

    private func finish(_ write: PendingWrite, saving object: JSONObject?, as kind: InboxObjectKind) async throws {
        try await store.database.write { [namespaceID] db in
            if let object { try InboxRows.save(db, kind, object, namespace: namespaceID) }
            try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [write.sequence])
        }
    }

    /// Committed before the request leaves, so that a crash after it is confirmed before any retry.
    private func markInFlight(_ write: PendingWrite) async throws {
        try await store.database.write { db in
            try db.execute(
                sql: "UPDATE outbox SET in_flight = 1, attempts = attempts + 1 WHERE sequence = ?",
                arguments: [write.sequence])
        }
    }

    private func backOff(_ write: PendingWrite, _ error: BinderyError) async throws -> Duration {
        let exponent = min(write.attempts, 20)
        var wait = min(initialBackoff * (1 << exponent), maximumBackoff)
        if let retryAfter = error.retryAfter { wait = max(wait, retryAfter) }
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        try await store.database.write { db in
            try db.execute(
                sql: "UPDATE outbox SET attempts = attempts + 1, not_before = ?, last_error = ? WHERE sequence = ?",
                arguments: [Date().timeIntervalSince1970 + seconds, error.description, write.sequence])
        }
        return wait
    }

    /// No connection, a timeout, throttling or a server error: the same write may succeed later.
    static func mayPass(_ error: BinderyError) -> Bool {
        if [.connection, .timeout, .tls, .invalidResponse].contains(error.kind) { return true }
        guard let status = error.status else { return false }
        return status == 429 || status >= 500
    }

    private func nextWrite() throws -> (PendingWrite, JSONObject, Double)? {
        try store.database.read { [namespaceID] db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT sequence, operation, target_id, attempts, in_flight, last_error, payload, not_before
                        FROM outbox WHERE namespace_id = ? ORDER BY sequence LIMIT 1
                        """, arguments: [namespaceID])
            else { return nil }
            let payload = try JSONValue.parse(row["payload"] as String).objectValue ?? [:]
            return (try Self.pendingWrite(row), payload, row["not_before"])
        }
    }

    private static func pendingWrite(_ row: Row) throws -> PendingWrite {
        guard let operation = Operation(rawValue: row["operation"]) else {
            throw BinderyError(kind: .storage, message: "unknown queued operation \(row["operation"] as String)")
        }
        return PendingWrite(
            sequence: row["sequence"], operation: operation, targetID: row["target_id"], attempts: row["attempts"],
            inFlight: row["in_flight"], lastError: row["last_error"])
    }

    private static func enqueue(
        _ db: Database, namespace: String, _ operation: Operation, target: String, payload: JSONObject
    ) throws {
        try db.execute(
            sql: "INSERT INTO outbox (namespace_id, operation, target_id, payload) VALUES (?, ?, ?, ?)",
            arguments: [namespace, operation.rawValue, target, JSONValue.object(payload).jsonText])
    }

    /// A thread's tags after a change, as the service computes them: removals match a tag's id or name.
    static func tags(_ tags: [JSONValue], adding: [String], removing: [String]) -> [JSONValue] {
        let removed = Set(removing)
        var kept = tags.filter { tag in
            !removed.contains(tag["id"]?.scalarText ?? "") && !removed.contains(tag["name"]?.scalarText ?? "")
        }
        for name in adding
        where !kept.contains(where: { $0["id"]?.scalarText == name || $0["name"]?.scalarText == name }) {
            kept.append(["id": .string(name), "name": .string(name)])
        }
        return kept
    }
}
