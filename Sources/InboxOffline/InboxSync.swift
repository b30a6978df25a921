import BinderyRuntime
import GRDB
import Inbox

/// Keeps an `InboxStore` up to date with one namespace of the service.
///
/// The first sync takes the latest cursor, then fetches every collection page by page; every sync then applies
/// the delta rounds after the saved cursor. Each round is applied in the transaction that saves its end cursor,
/// so a restart resumes exactly where the last committed round ended; a round applied twice (a crash between
/// the request and the commit) changes nothing the second time.
public struct InboxSync: Sendable {
    public let store: InboxStore
    public let namespace: NamespaceRequestBuilder
    public let namespaceID: String
    /// Items a page during the first fetch (the service allows at most 1000).
    public var pageSize: Int32 = 1000

    /// What a sync did, for progress reports.
    public struct Progress: Sendable {
        /// `fetch threads`, `delta`, …
        public var phase: String
        /// Objects written (or removed) so far in this sync.
        public var objects: Int
    }

    public init(store: InboxStore, client: InboxClient, namespace: String) {
        self.store = store
        self.namespace = client.namespaces(namespace)
        self.namespaceID = namespace
    }

    /// Brings the store up to date: the first full fetch if it has not finished, then delta rounds until the
    /// service has nothing more. Returns the number of objects written or removed.
    @discardableResult
    public func sync(progress: (@Sendable (Progress) -> Void)? = nil) async throws -> Int {
        var count = 0
        var state = try await store.database.read { [namespaceID] db in
            try SyncState.read(db, namespace: namespaceID)
        }
        if !state.fetched {
            // The cursor comes first: changes made while the pages are fetched are replayed after them.
            let latest = try await namespace.delta.getLatestCursor().send().cursor
            let cursor = state.cursor ?? latest
            try await store.database.write { [namespaceID] db in
                try SyncState.write(db, namespace: namespaceID, cursor: cursor, fetched: false)
                try SyncState.writeFetchCursor(db, namespace: namespaceID, cursor: latest)
            }
            // An interrupted fetch goes on where it stopped, unless the service changed since that attempt began:
            // offsets may have shifted, so the collection is listed again from the start (saving is idempotent,
            // and every change since the first cursor comes again by delta).
            var resume = state
            if state.fetchCursor != latest { resume.fetchOffset = 0 }
            count += try await fetchEverything(from: resume) { objects, phase in
                progress?(Progress(phase: phase, objects: objects))
            }
            if try await namespace.delta.getLatestCursor().send().cursor != cursor {
                count += try await fetchSlipped()
            }
            try await store.database.write { [namespaceID] db in
                try SyncState.write(db, namespace: namespaceID, cursor: cursor, fetched: true)
            }
            state = SyncState(cursor: cursor, fetched: true)
        }
        guard let cursor = state.cursor else { return count }
        for try await round in namespace.delta.listChanges(cursor: cursor).deltaRounds() {
            count += try await apply(round)
            progress?(Progress(phase: "delta", objects: count))
        }
        return count
    }

    /// Waits (up to `timeout` seconds) for the service to report a change, then applies every round after the
    /// saved cursor. Call it in a loop for realtime updates. Returns the number of objects written or removed.
    @discardableResult
    public func waitForChanges(timeout: Int32 = 30) async throws -> Int {
        guard let cursor = try store.cursor(namespace: namespaceID) else { return try await sync() }
        // One longpoll only: following its rounds would longpoll again and wait out another timeout.
        var rounds = namespace.delta.longpoll.waitForChanges(cursor: cursor, timeout: timeout).deltaRounds()
            .makeAsyncIterator()
        var count = 0
        if let round = try await rounds.next() { count = try await apply(round) }
        return count + (try await sync())
    }

    /// Applies one round and saves its end cursor, in one transaction.
    func apply(_ round: DeltaRound) async throws -> Int {
        try await store.database.write { [namespaceID] db in
            for event in round.events {
                guard let kind = InboxObjectKind(rawValue: event.object) else { continue }
                if event.isDeletion {
                    try InboxRows.remove(db, kind, id: event.id)
                } else if let attributes = event.attributes {
                    try InboxRows.save(db, kind, attributes, namespace: namespaceID)
                }
                // A create or modify without attributes: the object has gone since; its deletion follows.
            }
            try SyncState.write(db, namespace: namespaceID, cursor: round.cursorEnd, fetched: true)
            return round.events.count
        }
    }

    /// What the first fetch lists, in order.
    static let fetchOrder: [InboxObjectKind] = [
        .namespace, .tag, .thread, .message, .draft, .contact, .file, .calendar, .event,
    ]

    /// Every collection, page by page, each page in the transaction that records how far the fetch has come.
    private func fetchEverything(from state: SyncState, progress: (Int, String) -> Void) async throws -> Int {
        let order = Self.fetchOrder
        let first = state.fetchKind.flatMap { order.firstIndex(of: $0) } ?? 0
        var count = 0
        for (index, kind) in order.enumerated().dropFirst(first) {
            let offset = kind == state.fetchKind ? state.fetchOffset : 0
            count += try await fetch(kind, from: offset, after: count, progress)
            let next = index + 1 < order.count ? order[index + 1] : nil
            try await store.database.write { [namespaceID] db in
                try SyncState.writeFetchPosition(db, namespace: namespaceID, kind: next, offset: 0)
            }
        }
        return count
    }

    private func fetch(
        _ kind: InboxObjectKind, from offset: Int, after earlier: Int, _ progress: (Int, String) -> Void
    ) async throws -> Int {
        let limit = pageSize
        let start = offset > 0 ? Int32(clamping: offset) : nil  // a fresh listing sends no offset
        switch kind {
        case .namespace:
            do {
                let space = try await namespace.request().get()
                try await save([space.storage], as: .namespace)
                return 1
            } catch let error as BinderyError where error.status == 404 {
                // Some deployments do not answer for the namespace itself; its contents are what matter.
                return 0
            }
        case .tag: return try await listed(namespace.tags.list(limit: limit, offset: start))
        case .thread: return try await listed(namespace.threads.list(limit: limit, offset: start))
        case .message: return try await listed(namespace.messages.list(limit: limit, offset: start))
        case .draft: return try await listed(namespace.drafts.list(limit: limit, offset: start))
        case .contact: return try await listed(namespace.contacts.list(limit: limit, offset: start))
        case .file: return try await listed(namespace.files.list(limit: limit, offset: start))
        case .calendar: return try await listed(namespace.calendars.list(limit: limit, offset: start))
        case .event: return try await listed(namespace.events.list(limit: limit, offset: start))
        }
        func listed<Listed: JSONModel>(_ request: CollectionRequest<Listed>) async throws -> Int {
            try await pages(request, kind, offset, earlier, progress)
        }
    }

    private func pages<Listed: JSONModel>(
        _ request: CollectionRequest<Listed>, _ kind: InboxObjectKind, _ offset: Int, _ earlier: Int,
        _ progress: (Int, String) -> Void
    ) async throws -> Int {
        var count = 0
        for try await page in request.pages() {
            count += page.value.count
            try await save(page.value.map(\.storage), as: kind, position: offset + count)
            progress(earlier + count, "fetch \(kind.table)")
        }
        return count
    }

    /// When the service changed during the first fetch, offsets shifted under it: a thread or message can have
    /// slipped from a page not yet read onto one already read, and no delta event will bring it (it did not
    /// change). Their ids are cheap to list (`view=ids`); whatever the cache lacks is fetched by id.
    private func fetchSlipped() async throws -> Int {
        let threads = namespace.threads
        let messages = namespace.messages
        let slippedThreads = try await missing(.thread) { limit, offset in
            try await threads.ids(limit: limit, offset: offset).send()
        }
        let slippedMessages = try await missing(.message) { limit, offset in
            try await messages.ids(limit: limit, offset: offset).send()
        }
        var objects: [(InboxObjectKind, JSONObject)] = []
        for id in slippedThreads {
            if let thread = try await ifStillThere({ () async throws(BinderyError) in
                try await threads(id).request().get().storage
            }) {
                objects.append((.thread, thread))
            }
        }
        for id in slippedMessages {
            if let message = try await ifStillThere({ () async throws(BinderyError) in
                try await messages(id).request().get().storage
            }) {
                objects.append((.message, message))
            }
        }
        try await store.database.write { [namespaceID, objects] db in
            for (kind, object) in objects { try InboxRows.save(db, kind, object, namespace: namespaceID) }
        }
        return objects.count
    }

    /// The object, or nil when the service no longer has it (its deletion comes by delta).
    private func ifStillThere(
        _ read: () async throws(BinderyError) -> JSONObject
    ) async throws(BinderyError) -> JSONObject? {
        do {
            return try await read()
        } catch {
            if error.status == 404 { return nil }
            throw error
        }
    }

    /// The ids the service lists for `kind` that the cache does not hold.
    private func missing(
        _ kind: InboxObjectKind, listing: (Int32, Int32) async throws -> [String]
    ) async throws -> [String] {
        var listed: [String] = []
        while true {
            let page = try await listing(1000, Int32(clamping: listed.count))
            listed += page
            if page.count < 1000 { break }
        }
        let cached = Set(try store.ids(of: kind))
        return listed.filter { !cached.contains($0) }
    }

    /// Saves a page and, in the same transaction, how many of the collection's items are now saved.
    private func save(_ objects: [JSONObject], as kind: InboxObjectKind, position: Int? = nil) async throws {
        try await store.database.write { [namespaceID] db in
            for object in objects { try InboxRows.save(db, kind, object, namespace: namespaceID) }
            if let position {
                try SyncState.writeFetchPosition(db, namespace: namespaceID, kind: kind, offset: position)
            }
        }
    }

}
