import Foundation
import GRDB

/// The outbox's lease: one replayer at a time per namespace, across processes. A lease lasts `leaseDuration` from
/// its last renewal, and a holder whose process is gone loses it at once.
extension InboxOutbox {
    /// Runs `body` (one write, which may take the client's whole retry budget) with the lease renewed every third
    /// of `leaseDuration`, so it never runs out while the request is in flight.
    /// A renewal that fails (the file busy for a moment) is tried again at the next third; the renewal task has
    /// ended before this returns, so none can run after the lease is released.
    func holdingLease<Result>(_ owner: String, _ body: () async throws -> Result) async throws -> Result {
        let renewal = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: leaseDuration / 3)
                if Task.isCancelled { return }
                _ = try? await takeLease(owner)
            }
        }
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        renewal.cancel()
        await renewal.value
        return try result.get()
    }

    /// Takes (or renews) the queue's lease for `owner`; false when a live holder has it. A lease lasts
    /// `leaseDuration` from its last renewal; a holder whose process is gone loses it at once.
    func takeLease(_ owner: String) async throws -> Bool {
        let pid = Int(getpid())
        let lasts = Self.seconds(leaseDuration)
        return try await store.database.write { [namespaceID] db in
            let now = Date().timeIntervalSince1970
            if let holder = try Row.fetchOne(
                db, sql: "SELECT owner, pid, expires FROM outbox_lease WHERE namespace_id = ?",
                arguments: [namespaceID]),
                holder["owner"] as String != owner, holder["expires"] as Double > now,
                Self.isRunning(pid: holder["pid"])
            {
                return false
            }
            try db.execute(
                sql: """
                    INSERT INTO outbox_lease (namespace_id, owner, pid, expires) VALUES (?, ?, ?, ?)
                    ON CONFLICT (namespace_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,
                        expires = excluded.expires
                    """, arguments: [namespaceID, owner, pid, now + lasts])
            return true
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func releaseLease(_ owner: String) async throws {
        try await store.database.write { [namespaceID] db in
            try db.execute(
                sql: "DELETE FROM outbox_lease WHERE namespace_id = ? AND owner = ?", arguments: [namespaceID, owner])
        }
    }

    /// Whether a process with this id runs on this machine (signal 0 checks without sending anything).
    private static func isRunning(pid: Int) -> Bool {
        kill(pid_t(pid), 0) == 0 || errno == EPERM
    }
}
