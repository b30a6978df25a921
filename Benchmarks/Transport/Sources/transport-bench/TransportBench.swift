// Measures one HTTP client against a local server and prints one `RESULT` line (Benchmarks/transport.sh runs it
// once per client, each in a fresh process, and builds the table from those lines).
//
//   transport-bench CLIENT BASE_URL [--requests N] [--inflight N] [--large N] [--reps N] [--warmup N]
//
// CLIENT is `bindery` (Bindery's libcurl transport), `bindery-loop` (the same, every task preferring the
// transport's loop thread as its executor), `urlsession` (Foundation's URLSession, used directly) or
// `ahc` (async-http-client). BASE_URL serves /1k.bin (1,024 bytes) and /1m.bin (1,048,576 bytes).
// Every response is checked: a status other than 200 or a body of the wrong length stops the run with exit code 1.

import AsyncHTTPClient
import BinderyRuntime
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The two files the server holds, and their exact lengths.
enum Resource: Sendable {
    case small, large

    var path: String { self == .small ? "/1k.bin" : "/1m.bin" }
    var length: Int { self == .small ? 1024 : 1_048_576 }
}

/// One client under test: fetches a resource and returns the status code and the body's length.
/// Requests are built once up front, so the loop measures sending them, not building them.
protocol BenchClient: Sendable {
    var name: String { get }
    func fetch(_ resource: Resource) async throws -> (status: Int, length: Int)
}

struct BinderyClient<Transport: HTTPTransport>: BenchClient {
    let transport: Transport
    let small: TransportRequest
    let large: TransportRequest
    var name: String { "BinderyRuntime.\(Transport.self)" }

    init(transport: Transport, base: URL) {
        self.transport = transport
        small = TransportRequest(HTTPRequest(method: .get, url: base.appendingPathComponent("1k.bin")))
        large = TransportRequest(HTTPRequest(method: .get, url: base.appendingPathComponent("1m.bin")))
    }

    func fetch(_ resource: Resource) async throws -> (status: Int, length: Int) {
        let response = try await transport.send(resource == .small ? small : large)
        return (response.status.code, response.body.count)
    }
}

struct URLSessionClient: BenchClient {
    let session: URLSession
    let small: URLRequest
    let large: URLRequest
    var name: String { "Foundation.URLSession" }

    init(base: URL, inflight: Int) {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = inflight
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
        small = URLRequest(url: base.appendingPathComponent("1k.bin"))
        large = URLRequest(url: base.appendingPathComponent("1m.bin"))
    }

    func fetch(_ resource: Resource) async throws -> (status: Int, length: Int) {
        let (data, response) = try await session.data(for: resource == .small ? small : large)
        return ((response as? HTTPURLResponse)?.statusCode ?? -1, data.count)
    }
}

struct AsyncHTTPClientClient: BenchClient {
    let client: HTTPClient
    let small: HTTPClientRequest
    let large: HTTPClientRequest
    var name: String { "AsyncHTTPClient 1.37.0" }

    init(base: URL) {
        // The shared client: the singleton event loop group, and up to 8 connections per host.
        client = HTTPClient.shared
        small = HTTPClientRequest(url: base.appendingPathComponent("1k.bin").absoluteString)
        large = HTTPClientRequest(url: base.appendingPathComponent("1m.bin").absoluteString)
    }

    func fetch(_ resource: Resource) async throws -> (status: Int, length: Int) {
        let response = try await client.execute(resource == .small ? small : large, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 4 << 20)
        return (Int(response.status.code), body.readableBytes)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

func check(_ result: (status: Int, length: Int), _ resource: Resource, _ client: String) throws {
    guard result.status == 200, result.length == resource.length else {
        throw BenchFailure(
            description: "\(client): GET \(resource.path) answered \(result.status) with \(result.length) bytes; "
                + "expected 200 with \(resource.length) bytes")
    }
}

/// Seconds taken by `count` GETs one after another.
func sequential<C: BenchClient>(_ client: C, _ resource: Resource, count: Int) async throws -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count {
        try check(try await client.fetch(resource), resource, client.name)
    }
    return seconds(ContinuousClock.now - start)
}

/// Seconds taken by `count` GETs with `inflight` of them under way at all times (until the last ones).
func concurrent<C: BenchClient>(_ client: C, _ resource: Resource, count: Int, inflight: Int) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: (status: Int, length: Int).self) { group in
        var started = 0
        while started < min(inflight, count) {
            group.addTask { try await client.fetch(resource) }
            started += 1
        }
        while let result = try await group.next() {
            try check(result, resource, client.name)
            if started < count {
                group.addTask { try await client.fetch(resource) }
                started += 1
            }
        }
    }
    return seconds(ContinuousClock.now - start)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double) -> String { String(format: "%.1f", value) }

struct Options {
    var client = ""
    var base = URL(string: "http://127.0.0.1:8080")!
    var requests = 5000
    var inflight = 8
    var large = 200
    var reps = 3
    var warmup = 500

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func number(_ flag: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                throw BenchFailure(description: "\(flag) needs a positive number")
            }
            return value
        }
        var positional: [String] = []
        while let argument = rest.popFirst() {
            switch argument {
            case "--requests": requests = try number(argument)
            case "--inflight": inflight = try number(argument)
            case "--large": large = try number(argument)
            case "--reps": reps = try number(argument)
            case "--warmup": warmup = try number(argument)
            default: positional.append(argument)
            }
        }
        guard positional.count == 2, let url = URL(string: positional[1]) else {
            throw BenchFailure(
                description: "usage: transport-bench bindery|bindery-loop|urlsession|ahc BASE_URL "
                    + "[--requests N] [--inflight N] [--large N] [--reps N] [--warmup N]")
        }
        client = positional[0]
        base = url
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func run<C: BenchClient>(_ client: C, _ options: Options, id: String) async throws {
    let name = client.name
    log(
        "\(name): warm-up (\(options.warmup) sequential, \(options.warmup) with \(options.inflight) in flight, 10 × 1 MB)"
    )
    _ = try await sequential(client, .small, count: options.warmup)
    _ = try await concurrent(client, .small, count: options.warmup, inflight: options.inflight)
    _ = try await sequential(client, .large, count: 10)

    var seq: [Double] = []
    var conc: [Double] = []
    var large: [Double] = []
    for rep in 1...options.reps {
        let s = Double(options.requests) / (try await sequential(client, .small, count: options.requests))
        let c =
            Double(options.requests)
            / (try await concurrent(client, .small, count: options.requests, inflight: options.inflight))
        let l =
            Double(options.large * Resource.large.length) / 1_048_576
            / (try await sequential(client, .large, count: options.large))
        log(
            "\(name): rep \(rep): sequential \(format(s)) req/s, \(options.inflight) in flight \(format(c)) req/s, 1 MB \(format(l)) MB/s"
        )
        seq.append(s)
        conc.append(c)
        large.append(l)
    }
    // One line for the script: medians first, then the best of the repetitions.
    print(
        "RESULT client=\(id) name=\(name.replacingOccurrences(of: " ", with: "_")) seq=\(format(median(seq))) "
            + "conc=\(format(median(conc))) large=\(format(median(large))) seq_best=\(format(seq.max()!)) "
            + "conc_best=\(format(conc.max()!)) large_best=\(format(large.max()!))")
}

@main
enum TransportBench {
    static func main() async {
        do {
            let options = try Options(Array(CommandLine.arguments.dropFirst()))
            switch options.client {
            case "bindery":
                let transport = CurlTransport()
                try await run(BinderyClient(transport: transport, base: options.base), options, id: "bindery")
            case "bindery-loop":
                // Every task of the run (the task group's children inherit it) on the transport's loop thread.
                let transport = CurlTransport()
                try await withTaskExecutorPreference(transport.executor) {
                    try await run(
                        BinderyClient(transport: transport, base: options.base), options, id: "bindery-loop")
                }
            case "urlsession":
                try await run(
                    URLSessionClient(base: options.base, inflight: options.inflight), options, id: "urlsession")
            case "ahc":
                try await run(AsyncHTTPClientClient(base: options.base), options, id: "ahc")
            default:
                throw BenchFailure(
                    description: "unknown client \(options.client); expected bindery, bindery-loop, urlsession or ahc")
            }
        } catch {
            log("transport-bench: error: \(error)")
            exit(1)
        }
    }
}
