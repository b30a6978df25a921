import Foundation
import TestSupport
import Testing

/// The tests' own way to start programs (`ChildProcess`, in place of Foundation's `Process`): what the suites rely
/// on when they start `bindery`, the workers and the tools.
@Suite struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func reportsTheExitStatusAndWhatEachStreamSaid() async throws {
        let run = try await ChildProcess.run(Self.shell, ["-c", "echo out; echo err >&2; exit 3"])
        #expect(run.ending == .exited(3))
        #expect(run.output == "out\n")
        #expect(run.errors == "err\n")
    }

    @Test func mergesTheStreamsInTheOrderWritten() async throws {
        let run = try await ChildProcess.run(
            Self.shell, ["-c", "echo one; echo two >&2; echo three"], mergingErrors: true)
        #expect(run.output == "one\ntwo\nthree\n")
        #expect(run.errors.isEmpty)
    }

    /// Far more than a pipe holds: the capture reads while the child writes, so neither waits for the other.
    @Test func readsALargeOutputWhole() async throws {
        let run = try await ChildProcess.run(Self.shell, ["-c", "head -c 3000000 /dev/zero"])
        #expect(run.ending == .exited(0))
        #expect(run.output.utf8.count == 3_000_000)
    }

    @Test func passesTheEnvironmentAndDirectoryItIsGiven() async throws {
        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        let run = try await ChildProcess.run(
            Self.shell, ["-c", "echo \"$GREETING\"; pwd; echo \"${HOME-unset}\""],
            environment: ["GREETING": "hello"], directory: directory)
        #expect(run.output == "hello\n\(directory.path)\nunset\n")
    }

    @Test func aKilledChildEndsBySignal() async throws {
        let child = try ChildProcess(Self.shell, ["-c", "sleep 60"])
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.ended() == .signalled(SIGKILL))
        #expect(!child.isRunning)
        child.signal(SIGKILL)  // After the end: nothing, and no other process is signalled.
    }

    /// A descriptor this process holds open without close-on-exec (as sockets are) does not reach the child: a
    /// child that outlives its test cannot keep a server's socket or the test runner's pipe open.
    @Test func theChildGetsOnlyItsThreeStreams() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let run = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["ls", "/proc/self/fd"])
        // 0, 1 and 2, and the one `ls` opened to read the folder: the lowest free, 3.
        let descriptors = run.output.split(separator: "\n").compactMap { Int32($0) }
        #expect(descriptors.sorted() == [0, 1, 2, 3], "\(descriptors), while this process holds \(ends)")
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: POSIXError.self) {
            try ChildProcess(URL(fileURLWithPath: "/nonexistent/program"), [])
        }
    }
}
