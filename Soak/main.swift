import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Inbox
import InboxOffline
import Logging
import MicrosoftIdentity
import OneDrive
import Spark

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each exchange that fails, to standard error (`make soak` sends it to .build/soak.log): the library logs only
/// to a logger it is given.
let httpLog = Logger(label: "bindery.http")

// `make soak` (and `make soak-short` in CI): the generated clients against the mock server with a share of
// every request answered by a fault (429 with and without Retry-After, 503, a reset connection, a cut body, a slow
// answer, an expired token or Spark's 1020), while paging and running delta rounds in every dialect:
//
// - OData (OneDrive): every item of a large folder by `@odata.nextLink`, then delta rounds against a folder that
//   changes between rounds; the client's copy must equal the server's after each round.
// - Page numbers (Spark): every listing, with the session renewed on 1020.
// - Offset and cursor delta (Inbox): `InboxSync` into a SQLite file, then delta rounds; the file must hold what the
//   server holds.
//
// Nothing may be lost or listed twice, each injected expiry must cost exactly one renewal, every failure that
// reaches the caller must be a `BinderyError` (the soak then carries on from where it was, as an app would), and
// resident memory must stay flat. Exits 1, saying why, when an invariant breaks.
//
// Then the mock holds `--connections` keep-alive connections at once for `--seconds` seconds, each asking again as
// soon as it is answered, without a failed request or a file descriptor left open afterwards.
//
//   bindery-soak [--items N] [--requests N] [--rate R] [--seed S] [--connections N] [--seconds S]

struct Options {
    var items = 100_000
    var requests = 10_000
    var rate = 0.1
    var seed: UInt64 = 20_261_125
    var connections = 200
    var seconds = 60

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        while let name = arguments.popFirst() {
            guard let value = arguments.popFirst() else { fatalError("\(name) needs a value") }
            switch name {
            case "--items": items = Int(value) ?? items
            case "--requests": requests = Int(value) ?? requests
            case "--rate": rate = Double(value) ?? rate
            case "--seed": seed = UInt64(value) ?? seed
            case "--connections": connections = Int(value) ?? connections
            case "--seconds": seconds = Int(value) ?? seconds
            default: fatalError("unknown option \(name)")
            }
        }
    }
}

/// What a run saw; printed at the end, and the reason to fail when an invariant broke.
final class Ledger: @unchecked Sendable {
    var problems: [String] = []
    var surfaced: [String: Int] = [:]
    /// Rejected credentials that reached the caller: an expiry met again by the one replay after a renewal. The
    /// client renews at most once per request, so such a request fails (typed) and the app asks again.
    var rejectedAfterRenewal = 0
    var requests = 0
    /// Resident kilobytes after each round, by phase: each phase repeats one kind of work, so its memory must
    /// stay flat from its first quarter to its last.
    var residentSamples: [(phase: String, kilobytes: Int)] = []

    func check(_ condition: Bool, _ problem: @autoclosure () -> String) {
        if !condition { problems.append(problem()) }
    }

    /// Runs `operation` until it succeeds, as an app whose request failed would try again. Every failure must be
    /// typed; 20 in a row means the client is stuck, not unlucky. `renewals` counts the client's renewals so far:
    /// a 401 may reach the caller only from a request that renewed once already.
    func retrying<T>(
        _ what: String, renewals: () async -> Int = { 0 }, _ operation: () async throws -> T
    ) async throws -> T {
        for _ in 0..<20 {
            let renewedBefore = await renewals()
            do {
                return try await operation()
            } catch let error as BinderyError {
                surfaced["\(error.kind)", default: 0] += 1
                if error.status == 401 {
                    rejectedAfterRenewal += 1
                    let renewed = await renewals() - renewedBefore
                    check(renewed == 1, "\(what): a 401 reached the caller after \(renewed) renewals, not 1")
                }
            } catch {
                problems.append("\(what): an untyped error reached the caller: \(error)")
                throw error
            }
        }
        throw BinderyError(kind: .api, message: "\(what) failed 20 times in a row")
    }

    /// Counts the requests the mock answered and forgets them (its log would grow with the soak).
    func drain(_ mock: MockServer) {
        requests += mock.requests.count
        mock.clearRequests()
    }

    func sampleMemory(_ phase: String) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return }
        residentSamples.append((phase, kilobytes))
    }

    func checkMemory() {
        for phase in Set(residentSamples.map(\.phase)).sorted() {
            let samples = residentSamples.filter { $0.phase == phase }.map(\.kilobytes)
            guard samples.count >= 40 else {
                print("\(phase): \(samples.count) rounds are too few to judge memory (40 or more)")
                continue
            }
            let quarter = samples.count / 4
            let (first, last) = (samples.prefix(quarter).max() ?? 0, samples.suffix(quarter).max() ?? 0)
            print("\(phase): resident memory \(first / 1024) MiB in the first quarter, \(last / 1024) MiB in the last")
            check(Double(last) <= Double(first) * 1.1, "\(phase): resident memory grew \(first / 1024) → \(last / 1024) MiB")
        }
    }
}

let ledger = Ledger()
let faults: [MockFault] = [
    .status(429, retryAfter: 0), .status(429), .status(503), .reset, .truncated, .slow(.milliseconds(20)),
    .expiredToken,
]

/// Every page of a collection, following `nextRequest`; a page that fails is asked for again.
func walk<Element>(
    _ first: CollectionRequest<Element>, _ what: String, renewals: () async -> Int,
    visit: (Page<Element>) -> Void
) async throws -> Page<Element> {
    var request = first
    while true {
        let page = try await ledger.retrying(what, renewals: renewals) { try await request.get() }
        visit(page)
        guard let next = page.nextRequest else { return page }
        request = next
    }
}

// MARK: OData: OneDrive paging and delta

func oneDrive(items: Int, rounds: Int, rate: Double, seed: UInt64) async throws {
    let mock = try await MockServer(.oneDrive)
    let rejectedBefore = ledger.rejectedAfterRenewal
    let children = ["drive", "root", "children"]
    mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 0]], at: ["drive", "root"])
    for index in 0..<items {
        mock.store.insert(["name": .string("file \(index).txt"), "size": 10], into: children, logged: false)
    }
    let oauth = OAuth2Client(
        MicrosoftIdentity.configuration(clientID: "soak", scopes: OneDriveClient.scopes, authority: mock.baseURL),
        middleware: OAuth2Client.tokenEndpointDefaults(logger: httpLog))
    let session = oauth.session(account: "me", store: MemoryTokenStore([mock.identity.issueToken(account: "me")]))
    let client = OneDriveClient(baseURL: mock.serviceURL, auth: session, middleware: .defaults(logger: httpLog))
    mock.injectRandomly(faults, rate: rate, seed: seed, pathPrefix: mock.serviceURL.path)

    var listed: [String] = []
    let renewalCount = { await session.refreshCount }
    _ = try await walk(client.drive.root.children.request().top(500), "listing", renewals: renewalCount) { page in
        listed += page.value.compactMap(\.id)
    }
    let server = Set(mock.store.items(in: children).map(\.key))
    ledger.check(listed.count == Set(listed).count, "OData listing: \(listed.count - Set(listed).count) items twice")
    ledger.check(Set(listed) == server, "OData listing: \(server.subtracting(listed).count) items lost")

    // Delta: everything first, then only what changed, applied to a local copy.
    var local: [String: String] = [:]
    var last = try await walk(client.drive.root.delta(), "first delta", renewals: renewalCount) { page in
        for item in page.value { if let id = item.id { local[id] = item.name } }
    }
    var generator = SplitMix64(seed: seed)
    for round in 0..<rounds {
        churn(
            mock, children, using: &generator, created: ["name": .string("new in round \(round).txt")],
            renamed: ["name": .string("renamed in round \(round)")])
        guard let token = last.deltaToken else {
            ledger.problems.append("OData delta: a round ended without a token")
            break
        }
        last = try await walk(client.drive.root.delta(token: token), "delta round", renewals: renewalCount) { page in
            for item in page.value {
                guard let id = item.id else { continue }
                local[id] = item.isDeleted ? nil : item.name
            }
        }
        ledger.drain(mock)
        ledger.sampleMemory("odata delta rounds")
    }
    let now = Dictionary(
        uniqueKeysWithValues: mock.store.items(in: children).map { ($0.key, $0.object["name"]?.stringValue) })
    ledger.check(local.count == now.count, "OData delta: the copy holds \(local.count) items, the server \(now.count)")
    ledger.check(now.allSatisfy { local[$0.key] == $0.value }, "OData delta: the copy differs from the server")
    let expiries = mock.playedFaults[.expiredToken] ?? 0
    let renewals = await session.refreshCount
    let surfaced = ledger.rejectedAfterRenewal - rejectedBefore
    ledger.check(
        renewals + surfaced == expiries,
        "OData: \(expiries) expired tokens, \(renewals) renewals, \(surfaced) rejections after a renewal")
    print(
        "odata: \(listed.count) listed, \(rounds) delta rounds, \(expiries) expiries, \(renewals) renewals, "
            + "\(surfaced) met again on the replay after a renewal (returned to the caller, asked again)")
    report(mock)
    ledger.drain(mock)
    await mock.stop()
}

// MARK: Page numbers: Spark listings and 1020

func spark(items: Int, passes: Int, rate: Double, seed: UInt64) async throws {
    let mock = try await MockServer(.spark)
    let rejectedBefore = ledger.rejectedAfterRenewal
    mock.identity.registerSparkAPIKey("soak-key", secret: "soak-secret")
    for index in 0..<items {
        mock.store.insert(
            ["StandardFields": ["ListPrice": .number(JSONNumber(100_000 + index)), "City": "Fargo"]],
            into: ["listings"], idMember: "Id", logged: false)
    }
    let session = SparkAPIKeySession(
        apiKey: "soak-key", secret: "soak-secret", apiBase: mock.baseURL, userAgent: "Bindery soak")
    let client = SparkClient(
        userAgent: "Bindery soak", baseURL: mock.serviceURL, auth: session, middleware: .defaults(logger: httpLog))
    // The session grant itself is not faulted: a failed renewal is its own subject (AuthTests).
    mock.injectRandomly(faults, rate: rate, seed: seed, pathPrefix: mock.serviceURL.path + "/listings")
    let server = Set(mock.store.items(in: ["listings"]).map(\.key))
    var sessions = 0
    // Sessions opened in the current pass (the mock's request log is drained after each).
    let sessionsThisPass = { mock.requests.filter { $0.method == "POST" && $0.path.hasSuffix("/session") }.count }
    for pass in 0..<passes {
        var listed: [String] = []
        _ = try await walk(client.listings.list(limit: 25), "Spark listing", renewals: sessionsThisPass) { page in
            listed += page.value.compactMap(\.id)
        }
        ledger.check(listed.count == server.count && Set(listed) == server, "Spark pass \(pass): lost or doubled items")
        sessions += sessionsThisPass()
        ledger.drain(mock)
        ledger.sampleMemory("spark passes")
    }
    let expiries = mock.playedFaults[.expiredToken] ?? 0
    let surfaced = ledger.rejectedAfterRenewal - rejectedBefore
    // The first session is opened on the first request; every later one is a renewal after a 1020.
    let renewals = sessions - 1
    ledger.check(
        renewals + surfaced == expiries,
        "Spark: \(expiries) sessions ended with 1020, \(renewals) renewals, \(surfaced) rejections after a renewal")
    print(
        "spark: \(passes) passes over \(server.count) listings, \(expiries) expiries, \(renewals) renewals, "
            + "\(surfaced) met again on the replay after a renewal")
    report(mock)
    ledger.drain(mock)
    await mock.stop()
}

// MARK: Offset paging and cursor delta: Inbox into SQLite

func inbox(threads: Int, rounds: Int, rate: Double, seed: UInt64) async throws {
    let mock = try await MockServer(.inbox)
    let namespace = ["n", "ns"]
    mock.store.insert(["object": "namespace"], into: ["n"], key: "ns", logged: false)
    for index in 0..<threads {
        mock.store.insert(
            [
                "object": "thread", "subject": .string("Thread \(index)"),
                "last_message_timestamp": .number(JSONNumber(1_400_000_000 + index)),
                "tags": [["id": "inbox", "name": "inbox"]],
            ], into: namespace + ["threads"], key: "t\(index)", logged: false)
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-soak-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try InboxStore(path: folder.appendingPathComponent("inbox.sqlite").path)
    let client = InboxClient(
        baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken),
        middleware: .defaults(logger: httpLog))
    var sync = InboxSync(store: store, client: client, namespace: "ns")
    sync.pageSize = 500
    // Inbox tokens do not expire, so no expiry here.
    mock.injectRandomly(Array(faults.dropLast()), rate: rate, seed: seed, pathPrefix: "/n/")
    var generator = SplitMix64(seed: seed)
    for round in 0...rounds {
        if round > 0 {
            churn(
                mock, namespace + ["threads"], using: &generator,
                created: ["object": "thread", "subject": .string("New in round \(round)"), "tags": []])
        }
        _ = try await ledger.retrying("Inbox sync") { try await sync.sync() }
        ledger.drain(mock)
        ledger.sampleMemory("inbox delta rounds")
    }
    let cached = Set(try store.threads(namespace: "ns").compactMap(\.id))
    let server = Set(mock.store.items(in: namespace + ["threads"]).map(\.key))
    ledger.check(cached == server, "Inbox: the file holds \(cached.count) threads, the server \(server.count)")
    print("inbox: \(threads) threads synced, \(rounds) cursor delta rounds, \(cached.count) in the file")
    report(mock)
    ledger.drain(mock)
    await mock.stop()
}

// MARK: Many connections at once

func connections(_ count: Int, seconds: Int) async throws {
    let descriptorsBefore = openDescriptors()
    let (answered, failures, mostOpen) = try await serveAndHammer(count, seconds: seconds)
    ledger.requests += answered + failures.count
    ledger.check(failures.isEmpty, "connections: \(failures.count) failed requests, first: \(failures.first ?? "")")
    ledger.check(mostOpen >= count, "connections: at most \(mostOpen) were open at once, not \(count)")
    // Sockets close a moment after the server (gone with `serveAndHammer`) stops and the transport lets go.
    var descriptorsAfter = openDescriptors()
    for _ in 0..<50 where descriptorsAfter.sockets > descriptorsBefore.sockets {
        try await Task.sleep(for: .milliseconds(100))
        descriptorsAfter = openDescriptors()
    }
    ledger.check(
        descriptorsAfter.sockets <= descriptorsBefore.sockets,
        "connections: \(descriptorsAfter.sockets - descriptorsBefore.sockets) sockets left open")
    // FlyingFox's epoll queue does not close its wake-up eventfd when its server stops: one per listener (the API
    // and the storage host), whatever the traffic. More than that would be ours.
    ledger.check(
        descriptorsAfter.others <= descriptorsBefore.others + 2,
        "connections: \(descriptorsAfter.others - descriptorsBefore.others) descriptors left open")
    print(
        "connections: \(count) at once for \(seconds) s (\(mostOpen) seen open), \(answered) answered, "
            + "\(failures.count) failed; sockets \(descriptorsBefore.sockets) before, \(descriptorsAfter.sockets) "
            + "after; other descriptors \(descriptorsBefore.others) before, \(descriptorsAfter.others) after "
            + "(FlyingFox keeps one eventfd per stopped listener)")
}

/// A mock of its own, hammered, stopped and released.
func serveAndHammer(_ count: Int, seconds: Int) async throws -> (Int, [String], Int) {
    let mock = try await MockServer(.oneDrive)
    mock.store.set(["id": "root", "name": "root", "folder": ["childCount": 0]], at: ["drive", "root"])
    let outcome = await hammer(mock, count, seconds: seconds)
    report(mock)
    await mock.stop()
    return outcome
}

/// `count` clients asking as fast as they are answered until `seconds` have passed: requests answered, failures,
/// and the most connections the kernel saw established to the mock at once.
func hammer(_ mock: MockServer, _ count: Int, seconds: Int) async -> (Int, [String], Int) {
    // One libcurl multi handle with room for every connection: `count` requests in flight means `count` sockets.
    #if canImport(CCurl)
        let transport = CurlTransport(configuration: .init(maxConnectionsPerHost: count))
    #else
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = count
        let transport = URLSessionTransport(configuration: configuration)
    #endif
    let client = OneDriveClient(
        baseURL: mock.serviceURL, auth: StaticTokenAuth(mock.identity.acceptedToken), transport: transport,
        middleware: [])
    // Every answer a quarter of a second late, so each client holds its connection while it waits: at any moment
    // all `count` are open, not only the few a fast answer leaves in flight.
    mock.injectRandomly([.slow(.milliseconds(250))], rate: 1, seed: 1)
    let deadline = ContinuousClock.now + .seconds(seconds)
    let port = mock.baseURL.port ?? 0
    return await withTaskGroup(of: (Int, [String]).self) { group in
        for _ in 0..<count {
            group.addTask {
                var answered = 0
                var failures: [String] = []
                while ContinuousClock.now < deadline {
                    do {
                        let root = try await client.drive.root.request().get()
                        if root.id == "root" { answered += 1 } else { failures.append("a wrong answer") }
                    } catch {
                        failures.append("\(error)")
                    }
                }
                return (answered, failures)
            }
        }
        // Meanwhile, how many connections the mock holds, from the kernel's table.
        var mostOpen = 0
        while ContinuousClock.now < deadline {
            mostOpen = max(mostOpen, establishedConnections(toPort: port))
            try? await Task.sleep(for: .milliseconds(500))
        }
        var answered = 0
        var failures: [String] = []
        for await (count, failed) in group {
            answered += count
            failures += failed
        }
        return (answered, failures, mostOpen)
    }
}

/// This process's open sockets, and its other descriptors.
func openDescriptors() -> (sockets: Int, others: Int) {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    let sockets = entries.filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.hasPrefix("socket:")
            == true
    }.count
    return (sockets, entries.count - sockets)
}

/// Established TCP connections whose local port is `port` (the server's side of each), from the kernel's tables
/// (a dual-stack listener's connections are in tcp6).
func establishedConnections(toPort port: Int) -> Int {
    let hexPort = String(format: ":%04X", port)
    return ["/proc/net/tcp", "/proc/net/tcp6"].reduce(0) { total, path in
        // Read to the end: a /proc file reports no size, and a one-shot read stops at the first page.
        guard let handle = FileHandle(forReadingAtPath: path) else { return total }
        defer { try? handle.close() }
        let table = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return total
            + table.split(separator: "\n").dropFirst().filter { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[1].hasSuffix(hexPort) && fields[3] == "01"
            }.count
    }
}

func report(_ mock: MockServer) {
    let played = mock.playedFaults.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ")
    print("  faults played: \(played)")
}

/// Between delta rounds a collection changes and keeps its size: five members deleted and five created, and with
/// `renamed`, five of the others changed.
func churn(
    _ mock: MockServer, _ collection: [String], using generator: inout SplitMix64, created: JSONObject,
    renamed: JSONObject? = nil
) {
    var keys = mock.store.keys(in: collection)
    for _ in 0..<5 {
        mock.store.remove(at: collection + [keys.remove(at: Int.random(in: keys.indices, using: &generator))])
        mock.store.insert(created, into: collection)
        if let renamed, let key = keys.randomElement(using: &generator) {
            _ = mock.store.update(at: collection + [key], merging: renamed)
        }
    }
}

// Half the requests go to OData (the listing and first delta of every item, then delta rounds), a quarter to
// Spark passes of 20 pages, a quarter to Inbox sync rounds of about two requests.
let options = Options(Array(CommandLine.arguments.dropFirst()))
let start = ContinuousClock.now
let rounds = max(10, options.requests / 2 - options.items / 500 - options.items / 100)
do {
    try await oneDrive(items: options.items, rounds: rounds, rate: options.rate, seed: options.seed)
    try await spark(items: 500, passes: max(1, options.requests / 80), rate: options.rate, seed: options.seed &+ 1)
    try await inbox(
        threads: 2_000, rounds: max(1, options.requests / 8), rate: options.rate, seed: options.seed &+ 2)
    try await connections(options.connections, seconds: options.seconds)
} catch {
    ledger.problems.append("the soak stopped: \(error)")
}
ledger.checkMemory()
let surfaced = ledger.surfaced.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")
print(
    "soak: \(ledger.requests) requests in \(ContinuousClock.now - start); failures that reached the caller, all "
        + "typed: \(surfaced.isEmpty ? "none" : surfaced)")
if ledger.problems.isEmpty {
    print("soak: passed")
} else {
    for problem in ledger.problems { print("soak: FAILED: \(problem)") }
    exit(1)
}
