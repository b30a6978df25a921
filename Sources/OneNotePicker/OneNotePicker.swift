import BinderyRuntime
import Foundation
import OneNote

/// The OneNote section picker without a UI: the user walks notebooks → section groups → sections and picks one.
/// A UI renders `states()` and sends `send(_:)` actions; nothing here knows about screens.
///
/// Each level loads when it is opened, page by page (`@odata.nextLink` continuations included), and stays loaded:
/// going back, opening it again and searching reuse it. Search walks the whole tree through the same levels.
/// A 401 in the middle is the client's session to renew (its `AuthMiddleware`); the picker never sees it.
///
/// ```swift
/// let picker = OneNotePicker(client: OneNoteClient(auth: session), instructions: "Choose a section")
/// for await state in await picker.states() { render(state) }   // ends once picked or cancelled
/// await picker.send(.open)
/// ```
public actor OneNotePicker {
    private let client: OneNoteClient
    private let pageSize: Int?
    private var state: OneNotePickerState
    private var observers: [Int: AsyncStream<OneNotePickerState>.Continuation] = [:]
    private var nextObserver = 0
    private var started = false
    private var levels: [LevelKey: Level] = [:]
    /// One loader per level at a time, shared by browsing and searching.
    private var loaders: [LevelKey: (id: Int, task: Task<Void, any Error>)] = [:]
    private var loadersStarted = 0
    /// The load or search the shown state waits for.
    private var work: Task<Void, Never>?
    /// Bumped whenever what is shown changes, so that late answers of abandoned work are dropped.
    private var generation = 0

    /// - Parameters:
    ///   - client: Graph (`OneNoteClient(auth:)`) or the legacy API (`baseURL: OneNoteClient.legacyBaseURL`).
    ///   - pageSize: `$top` for every list; nil lets the service choose.
    ///   - instructions: The text shown above the list.
    public init(client: OneNoteClient, pageSize: Int? = nil, instructions: String? = nil) {
        self.client = client
        self.pageSize = pageSize
        state = OneNotePickerState(
            phase: .loading, path: [], entries: [], search: nil, selection: 0, instructions: instructions)
    }

    public var current: OneNotePickerState { state }

    /// The current state, then every change, until a section is picked or the picker is cancelled.
    /// Asking for it starts loading the notebooks.
    public func states() -> AsyncStream<OneNotePickerState> {
        let (stream, continuation) = AsyncStream.makeStream(of: OneNotePickerState.self)
        startIfNeeded()
        continuation.yield(state)
        guard !state.isFinished else {
            continuation.finish()
            return stream
        }
        let id = nextObserver
        nextObserver += 1
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    /// The state once nothing more is on its way (`isSettled`): what a prompt or a script answers. States the
    /// actions sent since have already replaced are passed over.
    public func settled() async -> OneNotePickerState {
        for await shown in states() where shown.isSettled && shown == state { return shown }
        return state
    }

    public func send(_ action: OneNotePickerAction) {
        startIfNeeded()
        guard !state.isFinished else { return }
        switch action {
        case .move(let rows):
            // Saturating: a UI may send a huge page size.
            let (moved, overflowed) = state.selection.addingReportingOverflow(rows)
            select(overflowed ? (rows > 0 ? Int.max : 0) : moved)
        case .select(let index): select(index)
        case .open:
            guard let node = state.selected else { return }
            if node.isContainer { open(node) } else if let section = node.section { finish(.picked(section)) }
        case .pick:
            if let section = state.selected?.section { finish(.picked(section)) }
        case .back: back()
        case .search(let text): search(text)
        case .retry:
            if case .failed = state.phase { resume() }
        case .refresh: refresh()
        case .cancel: finish(.cancelled)
        }
    }

    // MARK: Navigation

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        showLevel()
    }

    private func select(_ index: Int) {
        state.selection = min(max(index, 0), max(state.rows.count - 1, 0))
        publish()
    }

    private func open(_ node: OneNotePickerNode) {
        state.path.append(node)
        showLevel()
    }

    private func back() {
        if state.search != nil { return search("") }
        guard let left = state.path.popLast() else { return }
        showLevel()
        if let index = state.entries.firstIndex(of: left) { select(index) }
    }

    /// Shows the open level as far as it is loaded and loads the rest.
    private func showLevel(keepingSelection: Bool = false) {
        abandonWork()
        let key = currentKey
        let level = ensureLevel(key, path: state.path.map(\.name))
        state.search = nil
        state.entries = level.entries
        if !keepingSelection { state.selection = 0 }
        state.phase = level.isComplete ? .browsing : .loading
        publish()
        guard !level.isComplete else { return }
        let generation = generation
        work = Task {
            do throws(OneNotePickerError) {
                try await self.load(key)
            } catch {
                self.fail(error, ifStill: generation)
            }
        }
    }

    private func search(_ text: String) {
        let query = text.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { return showLevel() }
        abandonWork()
        state.search = OneNotePickerState.Search(query: query, hits: [], isComplete: false)
        state.selection = 0
        state.phase = .searching
        publish()
        let generation = generation
        work = Task {
            do throws(OneNotePickerError) {
                guard try await self.walk(.notebooks, path: [], for: query, generation) else { return }
                self.searchCompleted(generation)
            } catch {
                self.fail(error, ifStill: generation)
            }
        }
    }

    /// Searches one level and everything below it; false once the search was abandoned.
    private func walk(_ key: LevelKey, path: [String], for query: String, _ generation: Int)
        async throws(OneNotePickerError) -> Bool
    {
        ensureLevel(key, path: path)
        try await load(key)
        guard generation == self.generation, let level = levels[key] else { return false }
        let hits = level.entries.filter { !$0.isContainer && $0.name.localizedCaseInsensitiveContains(query) }
        if !hits.isEmpty {
            state.search?.hits += hits
            publish()
        }
        for node in level.entries where node.isContainer {
            guard try await walk(Self.key(for: node), path: path + [node.name], for: query, generation) else {
                return false
            }
        }
        return true
    }

    private func searchCompleted(_ generation: Int) {
        guard generation == self.generation else { return }
        state.search?.isComplete = true
        publish()
    }

    private func fail(_ error: OneNotePickerError, ifStill generation: Int) {
        guard generation == self.generation, !state.isFinished else { return }
        state.phase = .failed(error)
        publish()
    }

    /// After a failure: the level goes on from the page that failed (it is still pending); a search starts over
    /// on the levels already loaded.
    private func resume() {
        if let query = state.search?.query { search(query) } else { showLevel(keepingSelection: true) }
    }

    private func refresh() {
        abandonWork()
        for loader in loaders.values { loader.task.cancel() }
        loaders = [:]
        levels = [:]
        if let query = state.search?.query { search(query) } else { showLevel() }
    }

    private func finish(_ phase: OneNotePickerState.Phase) {
        abandonWork()
        for loader in loaders.values { loader.task.cancel() }
        state.phase = phase
        publish()
    }

    private func abandonWork() {
        generation += 1
        work?.cancel()
        work = nil
    }

    private func publish() {
        for observer in observers.values { observer.yield(state) }
        if state.isFinished {
            for observer in observers.values { observer.finish() }
            observers = [:]
        }
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    // MARK: Levels

    private enum LevelKey: Hashable {
        case notebooks
        case notebook(String)
        case sectionGroup(String)
    }

    private struct Level {
        /// The names above the level's sections.
        var path: [String]
        var entries: [OneNotePickerNode] = []
        /// The pages still to fetch, next first: a level lists its section groups, then its sections.
        var pending: [PendingPage]
        var fetched: Set<String> = []
        var isComplete: Bool { pending.isEmpty }
    }

    private enum PendingPage: Sendable {
        case notebooks(CollectionRequest<Notebook>)
        case sectionGroups(CollectionRequest<SectionGroup>)
        case sections(CollectionRequest<OnenoteSection>)

        var url: String {
            switch self {
            case .notebooks(let request): return request.request.url(relativeTo: request.client.baseURL).absoluteString
            case .sectionGroups(let request):
                return request.request.url(relativeTo: request.client.baseURL).absoluteString
            case .sections(let request): return request.request.url(relativeTo: request.client.baseURL).absoluteString
            }
        }
    }

    private var currentKey: LevelKey { state.path.last.map(Self.key(for:)) ?? .notebooks }

    private static func key(for node: OneNotePickerNode) -> LevelKey {
        node.kind == .notebook ? .notebook(node.id) : .sectionGroup(node.id)
    }

    @discardableResult
    private func ensureLevel(_ key: LevelKey, path: [String]) -> Level {
        if let level = levels[key] { return level }
        let level = Level(path: path, pending: firstPages(of: key))
        levels[key] = level
        return level
    }

    private func firstPages(of key: LevelKey) -> [PendingPage] {
        switch key {
        case .notebooks:
            return [.notebooks(sized(client.notebooks.request()))]
        case .notebook(let id):
            let notebook = client.notebooks(id)
            return [
                .sectionGroups(sized(notebook.sectionGroups.request())), .sections(sized(notebook.sections.request())),
            ]
        case .sectionGroup(let id):
            let group = client.sectionGroups(id)
            return [.sectionGroups(sized(group.sectionGroups.request())), .sections(sized(group.sections.request()))]
        }
    }

    private func sized<Item>(_ request: CollectionRequest<Item>) -> CollectionRequest<Item> {
        pageSize.map { request.top($0) } ?? request
    }

    /// Loads every page of a level not loaded yet, joining the loader already at it.
    private func load(_ key: LevelKey) async throws(OneNotePickerError) {
        guard levels[key]?.isComplete == false else { return }
        let loader: Task<Void, any Error>
        if let running = loaders[key] {
            loader = running.task
        } else {
            loadersStarted += 1
            let id = loadersStarted
            loader = Task { try await self.fetchRemainingPages(of: key, loader: id) }
            loaders[key] = (id, loader)
        }
        do {
            try await loader.value
        } catch let error as OneNotePickerError {
            throw error
        } catch {
            throw OneNotePickerError(BinderyError(kind: .cancelled, message: "\(error)"))
        }
    }

    private func fetchRemainingPages(of key: LevelKey, loader: Int) async throws {
        // A refresh may have started another loader for the key meanwhile: leave that one registered.
        defer { if loaders[key]?.id == loader { loaders[key] = nil } }
        while let level = levels[key], let next = level.pending.first {
            let url = next.url
            guard !level.fetched.contains(url) else {
                throw OneNotePickerError(
                    BinderyError(kind: .pagingLoop, message: "the service sent a next link already fetched: \(url)"))
            }
            let page: (nodes: [OneNotePickerNode], next: PendingPage?)
            do {
                page = try await Self.fetch(next, path: level.path, serviceRoot: client.client.baseURL)
            } catch {
                throw OneNotePickerError(error)
            }
            // Refreshed or cancelled while the page was on its way: it belongs to a level no longer shown.
            try Task.checkCancellation()
            guard var updated = levels[key] else { return }
            updated.fetched.insert(url)
            updated.entries += page.nodes
            updated.pending.removeFirst()
            if let following = page.next { updated.pending.insert(following, at: 0) }
            levels[key] = updated
            pageArrived(for: key)
        }
    }

    private func pageArrived(for key: LevelKey) {
        guard key == currentKey, let level = levels[key] else { return }
        state.entries = level.entries
        if state.search == nil, state.phase == .loading || state.phase == .browsing {
            state.phase = level.isComplete ? .browsing : .loading
        }
        publish()
    }

    private static func fetch(_ page: PendingPage, path: [String], serviceRoot: URL) async throws(BinderyError)
        -> (nodes: [OneNotePickerNode], next: PendingPage?)
    {
        switch page {
        case .notebooks(let request):
            let answer = try await request.get()
            let nodes = answer.value.compactMap { notebook in
                notebook.id.map { OneNotePickerNode(kind: .notebook, id: $0, name: notebook.title ?? $0) }
            }
            return (nodes, answer.nextRequest.map(PendingPage.notebooks))
        case .sectionGroups(let request):
            let answer = try await request.get()
            let nodes = answer.value.compactMap { group in
                group.id.map { OneNotePickerNode(kind: .sectionGroup, id: $0, name: group.title ?? $0) }
            }
            return (nodes, answer.nextRequest.map(PendingPage.sectionGroups))
        case .sections(let request):
            let answer = try await request.get()
            let nodes = answer.value.compactMap { section -> OneNotePickerNode? in
                guard let id = section.id else { return nil }
                let name = section.title ?? id
                // The service always sends pagesUrl; its documented form stands in if a proxy dropped it.
                let pagesURL =
                    section.pagesUrl.flatMap(URL.init(string:))
                    ?? serviceRoot.appendingPathComponent("sections").appendingPathComponent(id)
                    .appendingPathComponent("pages")
                let picked = PickedSection(
                    id: id, name: name, pagesURL: pagesURL, createdTime: section.created,
                    modifiedTime: section.lastModified, lastModifiedBy: section.lastModifiedByName, path: path)
                return OneNotePickerNode(kind: .section, id: id, name: name, section: picked)
            }
            return (nodes, answer.nextRequest.map(PendingPage.sections))
        }
    }
}
