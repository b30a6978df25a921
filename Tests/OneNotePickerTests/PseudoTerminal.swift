import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pseudo-terminal opened by the test: a program runs on its secondary side as on a real terminal, the test
/// types into the primary side and reads what the program draws, through `Screen`, as a person would see it.
final class PseudoTerminal: Sendable {
    let primary: Int32
    let secondary: Int32
    private let transcript = Mutex<[UInt8]>([])
    private let size: Mutex<(columns: Int, rows: Int)>

    init(columns: Int, rows: Int) throws {
        let pty = try PTYFunctions()
        primary = pty.open(O_RDWR | O_NOCTTY)
        guard primary >= 0, pty.grant(primary) == 0, pty.unlock(primary) == 0, let name = pty.name(primary) else {
            throw POSIXError(.ENOTTY)
        }
        // Close-on-exec, so that programs other tests start meanwhile do not keep this terminal open; the program
        // started here gets the secondary side as its standard streams, which are copies without the flag.
        _ = fcntl(primary, F_SETFD, FD_CLOEXEC)
        secondary = open(String(cString: name), O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard secondary >= 0 else { throw POSIXError(.ENOTTY) }
        size = Mutex((columns, rows))
        setWindowSize(columns: columns, rows: rows)
        let primary = primary
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(primary, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }  // EIO once no program holds the secondary side
                self.transcript.withLock { $0 += buffer[0..<count] }
            }
        }
        .start()
    }

    /// Runs `executable` with the secondary side as its standard input, output and error.
    func run(_ executable: URL, _ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        try ChildProcess(
            executable, arguments, environment: environment, input: .descriptor(secondary),
            output: .descriptor(secondary), errors: .descriptor(secondary))
    }

    /// Types `text` as one write, as a terminal sends a key (an arrow's whole escape sequence at once).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(primary, $0.baseAddress, $0.count) }
    }

    /// Changes the window size, as a terminal emulator does when its window is resized.
    func setWindowSize(columns: Int, rows: Int) {
        var window = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(primary, UInt(TIOCSWINSZ), &window)
        size.withLock { $0 = (columns, rows) }
    }

    /// Everything the program wrote, escape codes included.
    var output: String { String(decoding: transcript.withLock { $0 }, as: UTF8.self) }

    var screen: Screen {
        let (columns, rows) = size.withLock { $0 }
        return Screen(replaying: output, columns: columns, rows: rows)
    }

    /// The terminal's settings as the program left them (raw mode or not).
    var attributes: termios {
        var settings = termios()
        _ = tcgetattr(secondary, &settings)
        return settings
    }

    /// Waits until the screen satisfies `condition`; fails the test with the screen after a minute.
    @discardableResult
    func waitFor(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: (Screen) -> Bool
    ) async throws -> Screen {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let screen = self.screen
            if condition(screen) { return screen }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the screen never showed \(what):\n\(screen.text)", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Closes both sides: the reading thread ends once the secondary side is closed.
    func close() {
        for descriptor in [secondary, primary] {
            #if canImport(Glibc)
                _ = Glibc.close(descriptor)
            #else
                _ = Darwin.close(descriptor)
            #endif
        }
    }
}

/// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname` from the C library: Swift's Glibc module leaves them out
/// (they need `_XOPEN_SOURCE`), so they are looked up by name.
private struct PTYFunctions {
    let open: @convention(c) (Int32) -> Int32
    let grant: @convention(c) (Int32) -> Int32
    let unlock: @convention(c) (Int32) -> Int32
    let name: @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    init() throws {
        let library = dlopen(nil, RTLD_NOW)
        func function<T>(_ symbol: String, as type: T.Type) throws -> T {
            guard let address = dlsym(library, symbol) else { throw POSIXError(.ENOSYS) }
            return unsafeBitCast(address, to: type)
        }
        open = try function("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        grant = try function("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        unlock = try function("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        name = try function("ptsname", as: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
    }
}

/// The text a terminal shows after the output so far: the few VT100 codes a full-screen program uses (cursor
/// home, clear to end of line and of screen, the alternate screen, colours ignored) played onto a grid.
struct Screen {
    private(set) var lines: [[Character]]
    private(set) var isAlternate = false
    private var row = 0
    private var column = 0
    let columns: Int

    init(replaying output: String, columns: Int, rows: Int) {
        self.columns = columns
        lines = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        var characters = output.makeIterator()
        while let character = characters.next() {
            switch character {
            case "\u{1B}":
                guard characters.next() == "[" else { continue }
                var sequence = ""
                while let next = characters.next() {
                    sequence.append(next)
                    if let ascii = next.asciiValue, (0x40...0x7E).contains(ascii) { break }
                }
                apply(sequence)
            case "\r\n", "\n":
                // A newline after the program's own \r, or the line discipline's \r\n outside raw mode.
                column = 0
                row = min(row + 1, lines.count - 1)
            case "\r": column = 0
            default:
                guard column < columns else { continue }
                lines[row][column] = character
                column += 1
            }
        }
    }

    private mutating func apply(_ sequence: String) {
        switch sequence {
        case "H": (row, column) = (0, 0)
        case "K": for index in column..<columns { lines[row][index] = " " }
        case "J":
            for index in column..<columns { lines[row][index] = " " }
            for below in (row + 1)..<lines.count { lines[below] = Array(repeating: " ", count: columns) }
        case "?1049h", "?1049l":
            isAlternate = sequence.hasSuffix("h")
            lines = lines.map { _ in Array(repeating: " ", count: columns) }
            (row, column) = (0, 0)
        default: break  // colours and the cursor's visibility change no text
        }
    }

    /// Each line without its trailing spaces.
    var rows: [String] {
        lines.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
    }

    var text: String { rows.joined(separator: "\n") }

    func contains(_ text: String) -> Bool { rows.contains { $0.contains(text) } }
}
