import BinderyJSON
@_spi(Generated) import BinderyRuntime
import Foundation
import Synchronization

/// A stateful stand-in for one service on 127.0.0.1: its API from the generated route table, an in-memory
/// store, the service's paging, query options and error shape, an identity provider, and faults on demand.
///
/// ```swift
/// let mock = try await MockServer(.oneDrive)
/// let client = OneDriveClient(baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken))
/// ```
public final class MockServer: Sendable {
    public let service: MockService
    public let store = MockStore()
    public let identity: MockIdentity
    private let http = Mutex<MockHTTPServer?>(nil)
    /// The storage host upload URLs point at: another port, addressed as `localhost`, so that a client that
    /// trusts the API's host (127.0.0.1) but sends its credentials here is caught (see `storageRequests`).
    private let storageHTTP = Mutex<MockHTTPServer?>(nil)
    private let state = Mutex(State())

    private struct State {
        var requests: [MockRequest] = []
        var storageRequests: [MockRequest] = []
        /// Download token → the store path of the bytes it serves.
        var downloads: [String: [String]] = [:]
        var faults: [(fault: MockFault, remaining: Int, pathContains: String?)] = []
        var randomFaults: RandomFaults?
        var playedFaults: [MockFault: Int] = [:]
        var fixtures: [MockFixture] = []
        /// `"<resource> <METHOD>"` → the status its fixture gives a generic write, worked out once at seeding.
        var writeStatuses: [String: Int] = [:]
        var uploads: [String: UploadSession] = [:]
        var deltaTokens: [String: Int] = [:]
        /// The store as the fixtures alone seeded it: `reset()` returns to it without seeding again, which
        /// would cost a pass over every fixture per replayed fixture (thousands for the full Graph).
        var seeded: MockStore.Snapshot?
        /// Paths served from another path (see `alias(_:to:)`).
        var aliases: [(path: [String], target: [String])] = []
    }

    /// A resumable upload in progress: bytes so far, and where the finished item goes.
    struct UploadSession {
        var parent: [String]
        var item: JSONObject
        /// The key of the item of the same name that the upload replaces.
        var replacing: String? = nil
        var received: [UInt8] = []
        var expires = Date(timeIntervalSinceNow: 3600)
    }

    func withDownloads<T>(_ body: (inout [String: [String]]) -> T) -> T { state.withLock { body(&$0.downloads) } }

    func withUploads<T>(_ body: (inout [String: UploadSession]) -> T) -> T { state.withLock { body(&$0.uploads) } }

    /// Starts serving on 127.0.0.1: `port` 0 takes a free one. Mocks that share an `identity` accept each
    /// other's tokens, as Graph, OneDrive and OneNote accept one Microsoft sign-in.
    public init(_ service: MockService, port: UInt16 = 0, identity: MockIdentity = MockIdentity()) async throws {
        self.service = service
        self.identity = identity
        if let signIn = service.signIn { identity.add(signIn) }
        let server = try await MockHTTPServer(port: port) { [weak self] request in
            await self?.handle(request) ?? MockResponse(status: 503)
        }
        http.withLock { $0 = server }
        let storage = try await MockHTTPServer(port: 0) { [weak self] request in
            await self?.handleStorage(request) ?? MockResponse(status: 503)
        }
        storageHTTP.withLock { $0 = storage }
    }

    public func stop() async {
        if let storage = storageHTTP.withLock({ $0 }) { await storage.stop() }
        guard let server = http.withLock({ $0 }) else { return }
        await server.stop()
    }

    public var port: UInt16 { http.withLock { $0?.port ?? 0 } }
    /// `http://127.0.0.1:<port>`: the identity provider's authority.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Where the API lives: give it to the client as `baseURL`.
    public var serviceURL: URL { service.basePath.reduce(baseURL) { $0.appendingPathComponent($1) } }

    /// `http://localhost:<port>`: the storage host, where upload URLs point.
    public var storageURL: URL { URL(string: "http://localhost:\(storageHTTP.withLock { $0?.port ?? 0 })")! }

    /// Every request received, oldest first.
    public var requests: [MockRequest] { state.withLock { $0.requests } }

    /// Every request the storage host received, oldest first (they are not in `requests`).
    public var storageRequests: [MockRequest] { state.withLock { $0.storageRequests } }

    public func clearRequests() {
        state.withLock {
            $0.requests.removeAll()
            $0.storageRequests.removeAll()
        }
    }

    /// Makes every open upload session expire now: its URL answers 404, as OneDrive's does.
    public func expireUploadSessions() {
        withUploads { uploads in
            for id in uploads.keys { uploads[id]?.expires = .distantPast }
        }
    }

    // MARK: Faults

    /// Answers the next `count` requests whose path contains `pathContains` (any request when nil) with `fault`.
    /// A request can also ask for one itself with the `X-Bindery-Fault` header (see `MockFault.init(header:)`).
    public func inject(_ fault: MockFault, count: Int = 1, pathContains: String? = nil) {
        state.withLock { $0.faults.append((fault, count, pathContains)) }
    }

    /// Plays a fault drawn from `faults` on a share `rate` (0...1) of the requests whose path starts with
    /// `pathPrefix` (every request when nil), after the faults `inject` queued. The draws come from `seed`, so a
    /// run can be repeated. A soak's chaos: `playedFaults` says what was played.
    public func injectRandomly(_ faults: [MockFault], rate: Double, seed: UInt64, pathPrefix: String? = nil) {
        state.withLock {
            $0.randomFaults =
                faults.isEmpty
                ? nil : RandomFaults(faults: faults, rate: rate, generator: SplitMix64(seed: seed), prefix: pathPrefix)
        }
    }

    /// Every fault played so far (queued, random or asked for by header), by fault.
    public var playedFaults: [MockFault: Int] { state.withLock { $0.playedFaults } }

    /// Forgets the faults not played yet, random ones included.
    public func clearFaults() {
        state.withLock {
            $0.faults.removeAll()
            $0.randomFaults = nil
        }
    }

    private func takeFault(for request: MockRequest) -> MockFault? {
        state.withLock { state in
            let fault = Self.nextFault(for: request, &state)
            if let fault { state.playedFaults[fault, default: 0] += 1 }
            return fault
        }
    }

    private static func nextFault(for request: MockRequest, _ state: inout State) -> MockFault? {
        if let header = request.header(MockFault.headerName), let fault = MockFault(header: header) { return fault }
        if let index = state.faults.firstIndex(where: { $0.pathContains.map { request.path.contains($0) } ?? true }) {
            let fault = state.faults[index].fault
            state.faults[index].remaining -= 1
            if state.faults[index].remaining <= 0 { state.faults.remove(at: index) }
            return fault
        }
        return state.randomFaults?.draw(for: request.path)
    }

    /// Faults on a share of requests, from a seeded SplitMix64 generator.
    struct RandomFaults {
        let faults: [MockFault]
        let rate: Double
        var generator: SplitMix64
        let prefix: String?

        mutating func draw(for path: String) -> MockFault? {
            guard prefix.map(path.hasPrefix) ?? true else { return nil }
            guard Double(generator.next() >> 11) / 0x1p53 < rate else { return nil }
            return faults[Int(generator.next() % UInt64(faults.count))]
        }
    }

    // MARK: Fixtures

    /// Loads every fixture under `directory` (`<resource>/<operation>.json`): read responses seed the store,
    /// and each operation's response becomes its answer unless the operation has behaviour.
    public func seed(fixturesIn directory: URL) throws {
        seed(try MockFixture.load(from: directory))
    }

    /// Takes `token` as a delta token for the state after change `sequence` (for replaying a recorded delta call).
    public func acceptDeltaToken(_ token: String, as sequence: Int = 0) {
        state.withLock { $0.deltaTokens[token] = sequence }
    }

    func deltaSequence(_ token: String) -> Int? { Int(token) ?? state.withLock { $0.deltaTokens[token] } }

    /// Lets an operation with behaviour accept a fixture's sample request (see `MockOperation.prepare`).
    public func prepare(for fixture: MockFixture) {
        service.operations[fixture.operation]?.prepare?(fixture, self)
    }

    /// Seeds the store from fixtures already loaded (see `seed(fixturesIn:)`); `reset()` returns to this state.
    public func seed(_ fixtures: [MockFixture]) {
        addToSeeded {
            for fixture in fixtures { seedStore(from: fixture) }
        }
        let statuses = writeStatuses(of: fixtures)
        state.withLock { state in
            state.fixtures += fixtures
            state.writeStatuses.merge(statuses) { first, _ in first }
        }
    }

    /// Runs `put` on the store as it is now and on the seeded state `reset()` returns to (the earlier seeds' plus
    /// this one, whatever the store holds now).
    func addToSeeded(_ put: () -> Void) {
        let current = store.snapshot()
        if let seeded = state.withLock({ $0.seeded }) { store.restore(seeded) } else { store.removeAll() }
        put()
        let seeded = store.snapshot()
        store.restore(current)
        put()
        state.withLock { $0.seeded = seeded }
    }

    /// Serves every path below `path` from the same path below `target`: `alias(["drives", "d1"], to: ["me",
    /// "drive"])` makes `/drives/d1/root/children` the list `/me/drive/root/children` is, as one drive answers at
    /// both URLs. (Without an alias, two navigations are two entries of the store, as in a recording.)
    public func alias(_ path: [String], to target: [String]) {
        state.withLock { state in
            if !state.aliases.contains(where: { $0.path == path && $0.target == target }) {
                state.aliases.append((path, target))
            }
        }
    }

    /// `path` with an aliased prefix replaced by the path it stands for.
    func resolvingAliases(_ path: [String]) -> [String] {
        let aliases = state.withLock { $0.aliases }
        for alias in aliases where path.starts(with: alias.path) {
            return alias.target + path.dropFirst(alias.path.count)
        }
        return path
    }

    /// The first fixture of `operation` (`"microsoft.graph.driveItem/copy"`).
    func fixture(for operation: String) -> MockFixture? {
        state.withLock { $0.fixtures.first { $0.operation == operation } }
    }

    func fixtureStatus(resource: String, method: String) -> Int? {
        state.withLock { $0.writeStatuses["\(resource) \(method)"] }
    }

    /// Back to the seeded state: changes, requests, faults, uploads and accepted delta tokens are forgotten and the
    /// store holds what the fixtures and samples seeded again. The identity provider keeps its tokens.
    public func reset() {
        let seeded = state.withLock { state in
            state.requests.removeAll()
            state.storageRequests.removeAll()
            state.faults.removeAll()
            state.randomFaults = nil
            state.playedFaults = [:]
            state.uploads.removeAll()
            state.deltaTokens.removeAll()
            return state.seeded
        }
        if let seeded { store.restore(seeded) } else { store.removeAll() }
    }

    // MARK: Handling

    func handle(_ request: MockRequest) async -> MockResponse {
        state.withLock { $0.requests.append(request) }
        return await withFaults(request, answer: answer)
    }

    /// The storage host serves upload sessions only, and refuses credentials: the upload URL is its own.
    func handleStorage(_ request: MockRequest) async -> MockResponse {
        state.withLock { $0.storageRequests.append(request) }
        if request.header("Authorization") != nil || request.header("Cookie") != nil {
            return errorResponse(
                401, code: "credentialsLeaked", message: "credentials were sent to the storage host")
        }
        return await withFaults(request) { request in
            let segments = request.segments
            switch (segments.first, segments.count) {
            case (MockServer.uploadSegment, 2): return self.upload(request, session: segments[1])
            case (MockServer.downloadSegment, 2): return self.download(request, token: segments[1])
            default:
                return self.errorResponse(
                    404, code: "itemNotFound", message: "the storage host serves upload and download URLs")
            }
        }
    }

    /// Plays the next fault that applies to the request, if any, around its normal answer.
    func withFaults(
        _ request: MockRequest, answer: (MockRequest) async -> MockResponse
    ) async -> MockResponse {
        guard let fault = takeFault(for: request) else { return await answer(request) }
        switch fault {
        case .expiredToken:
            return expiredTokenResponse()
        case .status(let status, let retryAfter):
            var response = errorResponse(
                status, code: Self.faultCodes[status] ?? "ServiceUnavailable", message: "injected fault: HTTP \(status)"
            )
            if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
            return response
        case .reset, .truncated:
            var response = await answer(request)
            if response.body.isEmpty { response.body = Array(#"{"padding":"so that a body can be cut"}"#.utf8) }
            response.delivery = fault == .reset ? .reset : .truncated
            return response
        case .slow(let delay):
            try? await Task.sleep(for: delay)
            return await answer(request)
        }
    }

    private func answer(_ request: MockRequest) async -> MockResponse {
        let segments = request.segments
        if let response = await identity.handle(request, segments: segments, server: self) { return response }
        if segments.first == MockServer.uploadSegment {
            return upload(request, session: segments.dropFirst().first ?? "")
        }
        if segments.first == MockServer.monitorSegment, segments.count == 2 {
            return MockResponse(json: [
                "status": "completed", "percentageComplete": 100, "resourceId": .string(segments[1]),
            ])
        }
        guard segments.starts(with: service.basePath) else {
            return errorResponse(404, code: "itemNotFound", message: "no API at \(request.path)")
        }
        return await serve(request, path: Array(segments.dropFirst(service.basePath.count)))
    }

    /// An API request below the service root (also each step of a `$batch`).
    func serve(_ request: MockRequest, path addressedPath: [String]) async -> MockResponse {
        guard let method = HTTPRequest.Method(rawValue: request.method.uppercased()) else {
            return errorResponse(405, code: "methodNotAllowed", message: request.method)
        }
        var path = resolvingAliases(addressedPath)
        var addressed: (parent: [String], name: String)?
        var createdByUpload = false
        if let address = PathAddress(path) {
            // Only an upload (simple, or a session) may name an item that does not exist yet: it creates it, and
            // the folders on the way that do not exist either, as OneDrive does.
            let session = method == .post && address.rest == ["createUploadSession"]
            let simple = method == .put && address.rest == ["content"]
            // A request the service refuses creates nothing.
            if session || simple, let refusal = authorize(request) { return refusal }
            guard var target = address.resolve(in: store, creatingFolders: session || simple),
                target.item != nil || session || simple
            else {
                return errorResponse(404, code: "itemNotFound", message: "nothing at \(request.path)")
            }
            if simple, target.item == nil {
                let created = store.insert(
                    ["name": .string(target.name), "file": ["mimeType": "application/octet-stream"], "size": 0],
                    into: target.parent + ["children"], idMember: service.idMember)
                target.item = target.parent + ["children", created.key]
                createdByUpload = true
            }
            addressed = (target.parent, target.name)
            path = (target.item ?? target.parent) + address.rest
        }
        if path == ["$batch"], method == .post { return await batch(request) }
        let (match, isRefused) = service.routes.lookUp(
            method: method, segments: path, query: request.query.map { ($0.name, $0.value) })
        if case .operation(let operation, let resource, _)? = match {
            let key = "\(resource.name)/\(operation.name)"
            let behaviour = service.operations[key]
            if behaviour?.requiresAuthorization ?? true, let refusal = authorize(request) { return refusal }
            let resourcePath = Array(path.dropLast(operation.segments.count))
            let call = MockCall(
                request: request, server: self, resourcePath: resourcePath, resource: resource, operation: operation,
                body: requestBody(request), addressed: addressed, key: key)
            if let behaviour { return await behaviour.handle(call) }
            return standardAnswer(call)
        }
        if let refusal = authorize(request) { return refusal }
        if isRefused {
            return errorResponse(
                405, code: "methodNotAllowed", message: "\(request.method) is not allowed on \(request.path)")
        }
        switch match {
        case .collection(let resource, _)?:
            if method == .post {
                if let written = await writeBehaviour(request, method, at: path, of: resource, onCollection: true) {
                    return written
                }
                return create(request, in: path, resource: resource)
            }
            if method == .get { return list(request, at: path) }
        case .item(let resource, _)?:
            if method != .get,
                let written = await writeBehaviour(request, method, at: path, of: resource, onCollection: false)
            {
                return written
            }
            switch method {
            case .get: return read(request, at: path)
            case .patch, .put: return update(request, at: path, resource: resource, replacing: method == .put)
            case .delete: return delete(at: path, resource: resource)
            default: break
            }
        case .operation, nil:
            // A stream property (`items/{id}/content`) is not in the route table: its owner is.
            if case .item? = service.routes.match(method: .get, segments: Array(path.dropLast())) {
                var response = stream(request, at: path)
                // A simple upload that made the item answers 201 Created, one that replaced it 200.
                if createdByUpload, response.status == 200 { response.status = 201 }
                return response
            }
        }
        return errorResponse(
            404, code: "itemNotFound",
            message: "\(request.method) \(request.path) is not an operation of \(service.name)")
    }

    /// The service's behaviour for a plain write, `"inbox.Draft/POST"` (a create in the collection) or
    /// `"spark.cartListing/DELETE"` (an item's delete), as a call whose standard answer is the write itself.
    private func writeBehaviour(
        _ request: MockRequest, _ method: HTTPRequest.Method, at path: [String], of resource: ResourceRoute,
        onCollection: Bool
    ) async -> MockResponse? {
        let key = "\(resource.name)/\(method.rawValue)"
        guard let behaviour = service.operations[key] else { return nil }
        let write = ResourceRoute.Operation(method.rawValue, method, path: "", onCollection: onCollection)
        var call = MockCall(
            request: request, server: self, resourcePath: path, resource: resource, operation: write,
            body: requestBody(request), key: key)
        call.replaces = method == .put && !onCollection
        return await behaviour.handle(call)
    }

    /// An operation without a behaviour of its own. One on its resource's own URL (Spark's `searchListings`,
    /// Inbox's `listThreads` with their filters) is a read or write of that collection or item with parameters;
    /// any other answers its fixture.
    func standardAnswer(_ call: MockCall) -> MockResponse {
        let (request, path, resource) = (call.request, call.resourcePath, call.resource)
        if call.operation.segments.isEmpty, let method = HTTPRequest.Method(rawValue: request.method.uppercased()) {
            switch (method, call.operation.onCollection) {
            case (.get, true): return list(request, at: path)
            case (.post, true): return create(request, in: path, resource: resource)
            case (.get, false): return read(request, at: path)
            case (.put, false), (.patch, false):
                return update(request, at: path, resource: resource, replacing: call.replaces)
            case (.delete, false): return delete(at: path, resource: resource)
            default: break
            }
        }
        return cannedAnswer(call.key, for: call)
    }

    /// The request body without the service's envelope (`{"D": …}` for Spark).
    func requestBody(_ request: MockRequest) -> JSONValue? {
        guard let json = request.json else { return nil }
        return json.value(at: service.conventions.requestEnvelope) ?? json
    }

    /// An operation without behaviour answers its fixture's status and body.
    func cannedAnswer(_ key: String, for call: MockCall) -> MockResponse {
        if call.operation.isMonitored {
            // Accepted at once, done at once: the monitor reports completion.
            let monitor = origin(of: call.request) + "/\(Self.monitorSegment)/\(UUID().uuidString.lowercased())"
            return MockResponse(status: 202, headers: [("Location", monitor)])
        }
        guard let fixture = fixture(for: key) else {
            return call.operation.response == nil ? .empty(204) : MockResponse(json: .object([:]))
        }
        if let text = fixture.responseText { return MockResponse(status: fixture.status, body: Array(text.utf8)) }
        guard let body = fixture.responseBody else { return .empty(fixture.status) }
        return MockResponse(status: fixture.status, json: body)
    }

    // MARK: Authorization

    /// Nil when the request carries a token the identity provider issued and is still valid.
    private func authorize(_ request: MockRequest) -> MockResponse? {
        switch identity.check(request) {
        case .valid: return nil
        case .expired: return expiredTokenResponse()
        case .missing:
            return errorResponse(
                401, code: service.errorCodes.missingCredentials, message: "the request carries no valid credentials")
        case .badSignature:
            return errorResponse(
                401, code: service.errorCodes.missingCredentials, message: "ApiSig does not match the request")
        }
    }

    private func expiredTokenResponse() -> MockResponse {
        errorResponse(401, code: service.errorCodes.expired.code, message: service.errorCodes.expired.message)
    }
}
