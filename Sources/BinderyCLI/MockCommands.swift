import ArgumentParser
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation

/// `bindery mock --service NAME [--port P] [--fixtures DIR] [--no-sample]`: serves one service until interrupted.
struct Mock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serves a stateful mock of one service on 127.0.0.1.",
        discussion: """
            The API answers at the printed URL with the service's paging, query options, errors and delta; the \
            identity provider (authorize, token, device code, Spark OpenID/grant/session) shares the port. The \
            store is seeded from the service's conformance fixtures and a small hand-written sample (a drive, \
            notebooks, listings, threads, mail), whose paths to try are printed. Send \
            `X-Bindery-Fault: 429; retry-after=1` (or expired, 503, reset, truncated, slow=250) to get a fault.
            """)

    @Option(help: ArgumentHelp(MockService.choices))
    var service: String

    @Option(help: "The port; 0 takes a free one.")
    var port: UInt16 = 0

    @Option(help: "The fixtures folder that seeds the store (its <Service>/ subfolder is read).")
    var fixtures: String = "Tests/Fixtures"

    @Flag(inversion: .prefixedNo, help: "Add the service's sample to the store (--no-sample: fixtures only).")
    var sample = true

    func run() async throws {
        let service = try MockService.chosen(service)
        let server = try await MockServer(service, port: port)
        let folder = URL(fileURLWithPath: fixtures).appendingPathComponent(service.name)
        let seeded = sample ? try MockSample.of(service) : nil
        // The sample goes in before the fixtures, so that lists show its items first, and again after, so that no
        // fixture replaces one of its objects (`me`); the second time changes nothing else.
        if let seeded { server.seed(seeded) }
        if FileManager.default.fileExists(atPath: folder.path) { try server.seed(fixturesIn: folder) }
        if let seeded { server.seed(seeded) }
        // Written straight to the descriptor, not through print's buffer: when the output is a pipe or a file, a
        // script waits for the URL and token before it starts.
        FileHandle.standardOutput.write(Data(Self.banner(server, sample: seeded).utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// Where the mock answers, a token it takes, and the sample's paths as `curl` commands that work as printed.
    static func banner(_ server: MockServer, sample: MockSample?) -> String {
        let token = server.identity.acceptedToken
        var lines = [
            "\(server.service.name) mock on \(server.serviceURL.absoluteString)",
            "  identity provider: \(server.baseURL.absoluteString) (authority for MicrosoftIdentity, SparkSignIn bases)",
            "  a token it accepts: \(token)",
        ]
        if let sample {
            lines.append("Sample: \(sample.about)")
            for tour in sample.tours {
                lines.append("  # \(tour.says)")
                lines.append("  \(server.curlCommand(tour.path, token: token))")
            }
        }
        lines.append("Ctrl-C stops it.")
        return lines.joined(separator: "\n") + "\n\n"
    }
}

/// `bindery conformance`: replays every fixture of every service over HTTP and prints coverage.
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replays every conformance fixture against the mock server and prints coverage per service.")

    @Option(help: "The fixtures folder (one subfolder per service).")
    var fixtures: String = "Tests/Fixtures"

    @Flag(help: "List every fixture, not only failures.")
    var verbose = false

    func run() async throws {
        var complete = true
        print("service    operations passing / in the spec")
        for service in MockService.all {
            let folder = URL(fileURLWithPath: fixtures).appendingPathComponent(service.name)
            let outcomes = try await ConformanceRun(
                service, fixtures: try MockFixture.load(from: folder),
                calls: ConformanceCalls.byService[service.name] ?? [:]
            ).run()
            let (passed, total) = ConformanceRun.coverage(outcomes)
            let percent = total == 0 ? 0 : passed * 100 / total
            print(
                "\(service.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(passed) / \(total)  \(percent)%")
            for outcome in outcomes where verbose || !outcome.passed {
                print("  \(outcome.passed ? "ok  " : "FAIL") \(outcome.fixture)")
                for problem in outcome.problems { print("       \(problem)") }
            }
            if passed < total || total == 0 { complete = false }
        }
        if !complete { throw ExitCode(1) }
    }
}
