import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program a test starts, through `posix_spawn` rather than Foundation's `Process`.
///
/// Swift 6.3.1's `Process.run()` on Linux copies a whole 256-byte `dirent` name while it lists /proc/self/fd, and now
/// and then that copy runs off the end of a page (swift-corelibs-foundation#5472, fixed after 6.3.1). The suites keep
/// hundreds of sockets open, so it crashed the test process; frozen while the crash was reported, the process left
/// every child that talked to its mock servers waiting until its requests timed out.
///
/// The child gets only its three standard streams, /dev/null unless told (every other descriptor is closed, so a
/// child that outlives a crashed test holds none of the test runner's pipes open), a session of its own, and the
/// default signal dispositions. A thread of its own waits for it, so no test blocks the shared pool.
public final class ChildProcess: Sendable {
    /// How a child ended: its exit status, or the signal that killed it.
    public enum Ending: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the signal's number: what `Process.terminationStatus` gives.
        public var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): status
            }
        }
    }

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// /dev/null.
        case null
        /// A descriptor the caller owns (and closes); the child gets a copy.
        case descriptor(Int32)
        /// A pipe whose text the test reads (see `Capture`).
        case capture(Capture)
        /// Standard error only: wherever standard output goes.
        case output
    }

    public let pid: pid_t
    private let ending = Once<Ending>()

    public init(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        input: Stream = .null, output: Stream = .null, errors: Stream = .null
    ) throws {
        var actions = SpawnActions()
        defer { actions.destroy() }
        for (stream, target) in [(input, Int32(0)), (output, 1), (errors, 2)] {
            switch stream {
            case .null: try actions.open("/dev/null", as: target, writing: target != 0)
            case .descriptor(let descriptor): try actions.copy(descriptor, as: target)
            case .capture(let capture): try actions.copy(capture.childEnd, as: target)
            case .output: try actions.copy(1, as: 2)
            }
        }
        try actions.closeOthers()
        if let directory { try actions.changeDirectory(to: directory.path) }

        var attributes = SpawnAttributes()
        defer { attributes.destroy() }
        try attributes.startFresh()

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let environment = environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions.value, &attributes.value, argv, envp)
        for case .capture(let capture) in [input, output, errors] { capture.childStarted() }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid

        Thread { [self] in
            // Waits without reaping, then reaps under `ending`'s lock: `signal` never meets a reaped pid that the
            // system may have given to another process.
            var info = siginfo_t()
            while waitid(P_PID, id_t(self.pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
            ending.set {
                var status: Int32 = 0
                while waitpid(self.pid, &status, 0) < 0, errno == EINTR {}
                // wait(2)'s status: a signal in the low 7 bits, or the exit status in the next byte.
                return status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            }
        }
        .start()
    }

    public var isRunning: Bool { ending.value == nil }

    /// Waits for the child to end.
    public func ended() async -> Ending { await ending.wait() }

    /// Blocks the calling thread until the child ends: only for code already off the shared pool (`offThePool`).
    public func waitUntilEnded() -> Ending { ending.waitBlocking() }

    /// Sends `signal` (SIGTERM unless told) if the child is still running.
    public func signal(_ signal: Int32 = SIGTERM) {
        ending.unlessSet { _ = kill(pid, signal) }
    }

    /// Starts `executable`, waits for it to end, and returns how it ended with what it wrote to standard output
    /// and to standard error (with `mergingErrors`, both in `output`, in the order written).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        mergingErrors: Bool = false
    ) async throws -> (ending: Ending, output: String, errors: String) {
        let output = try Capture()
        let errors = mergingErrors ? nil : try Capture()
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, output: .capture(output),
            errors: errors.map { .capture($0) } ?? .output)
        let ending = await child.ended()
        await output.finished()
        await errors?.finished()
        return (ending, output.text, errors?.text ?? "")
    }
}

/// A pipe from a child's stream to the test: a thread reads it to the end, so a chatty child never blocks on a full
/// pipe, and what arrived so far can be read at any time.
public final class Capture: Sendable {
    fileprivate let childEnd: Int32
    private let readEnd: Int32
    private let received = Mutex<[UInt8]>([])
    private let closed = Once<Void>()

    public init() throws {
        (readEnd, childEnd) = try makePipe()
    }

    /// What arrived so far (all of it, after `finished()`).
    public var bytes: [UInt8] { received.withLock { $0 } }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Waits until the child (and any child of its that kept the stream) has closed it.
    public func finished() async { await closed.wait() }

    /// `finished()` for code already off the shared pool.
    public func waitUntilFinished() { closed.waitBlocking() }

    /// Closes the test's copy of the child's end (or the end never comes) and starts reading.
    fileprivate func childStarted() {
        _ = close(childEnd)
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                self.received.withLock { $0 += buffer[0..<count] }
            }
            _ = close(readEnd)
            closed.set {}
        }
        .start()
    }
}

/// A value that arrives once (a child's ending, a stream's end), awaited or waited for by any number of callers.
final class Once<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiting: [@Sendable (Value) -> Void])>((nil, []))

    var value: Value? { state.withLock { $0.value } }

    /// Sets the value `make` gives, under the lock that `unlessSet` takes, and resumes every waiter.
    func set(_ make: () -> Value) {
        let (value, waiting) = state.withLock { state in
            let value = make()
            defer { state = (value, []) }
            return (value, state.waiting)
        }
        for action in waiting { action(value) }
    }

    /// Runs `body` while the value is not set, and keeps it from being set meanwhile.
    func unlessSet(_ body: () -> Void) {
        state.withLock { if $0.value == nil { body() } }
    }

    func wait() async -> Value {
        await withCheckedContinuation { continuation in whenSet { continuation.resume(returning: $0) } }
    }

    /// `wait()` blocking the calling thread: only for code already off the shared pool.
    func waitBlocking() -> Value {
        let set = DispatchSemaphore(value: 0)
        whenSet { _ in set.signal() }
        set.wait()
        return value!
    }

    private func whenSet(_ action: @escaping @Sendable (Value) -> Void) {
        let value = state.withLock { state in
            if state.value == nil { state.waiting.append(action) }
            return state.value
        }
        if let value { action(value) }
    }
}

/// Writes all of `bytes` to `descriptor` (a pipe takes a large write in parts).
public func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        offset += count
    }
}

/// A pipe whose two ends are closed on exec: a child gets one only as a standard stream.
public func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
}

/// What the child does between fork and exec: its standard streams, the other descriptors closed, its directory.
private struct SpawnActions {
    #if canImport(Glibc)
        var value = posix_spawn_file_actions_t()
    #else
        var value: posix_spawn_file_actions_t?
    #endif

    init() { posix_spawn_file_actions_init(&value) }

    mutating func destroy() { posix_spawn_file_actions_destroy(&value) }

    mutating func open(_ path: String, as target: Int32, writing: Bool) throws {
        try check(posix_spawn_file_actions_addopen(&value, target, path, writing ? O_WRONLY : O_RDONLY, 0))
    }

    mutating func copy(_ descriptor: Int32, as target: Int32) throws {
        try check(posix_spawn_file_actions_adddup2(&value, descriptor, target))
    }

    /// Closes every descriptor above the standard three in the child. glibc has had the call since 2.34 but Swift's
    /// Glibc module leaves it out (it needs `_GNU_SOURCE`), so it is looked up by name; Darwin has a flag instead
    /// (`SpawnAttributes.startFresh`).
    mutating func closeOthers() throws {
        #if canImport(Glibc)
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            let closeFrom = try cFunction("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)
            try check(closeFrom(&value, 3))
        #endif
    }

    mutating func changeDirectory(to path: String) throws {
        #if canImport(Glibc)
            typealias ChangeDirectory =
                @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        #else
            typealias ChangeDirectory =
                @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t?>, UnsafePointer<CChar>) -> Int32
        #endif
        let changeDirectory = try cFunction("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)
        try check(changeDirectory(&value, path))
    }
}

/// How the child starts: a session of its own (as `Process` gives it), no blocked signals, and SIGPIPE and the
/// other signals this process ignores back to their defaults.
private struct SpawnAttributes {
    #if canImport(Glibc)
        var value = posix_spawnattr_t()
        // <spawn.h>'s values, under `_GNU_SOURCE` there too.
        static let newSession: Int32 = 0x80
    #else
        var value: posix_spawnattr_t?
        static let newSession: Int32 = 0x400
    #endif

    init() { posix_spawnattr_init(&value) }

    mutating func destroy() { posix_spawnattr_destroy(&value) }

    mutating func startFresh() throws {
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        try check(posix_spawnattr_setsigmask(&value, &none))
        try check(posix_spawnattr_setsigdefault(&value, &all))
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | Self.newSession
        #if !canImport(Glibc)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        try check(posix_spawnattr_setflags(&value, Int16(flags)))
    }
}

private func check(_ result: Int32) throws {
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
}

/// A C library function Swift's module map leaves out, by name.
private func cFunction<T>(_ symbol: String, as type: T.Type) throws -> T {
    guard let address = dlsym(dlopen(nil, RTLD_NOW), symbol) else { throw POSIXError(.ENOSYS) }
    return unsafeBitCast(address, to: type)
}
