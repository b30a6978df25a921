import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The small part of a terminal a full-screen picker needs: raw mode, the alternate screen, the window size, keys
/// and the signals that end or resize it. The escape codes are the VT100/xterm ones every terminal emulator speaks.
///
/// Owned here rather than taken from a package: the terminal packages available offline draw colours and
/// prompts (Rainbow, ConsoleKit) but do not read keys in raw mode or restore the terminal on signals.
final class Terminal: @unchecked Sendable {
    /// The file descriptors: keys come from `input`, the screen goes to `output`.
    let input: Int32
    let output: Int32
    private var original = termios()
    private let restored = NSLock()
    private var isActive = false

    init(input: Int32 = STDIN_FILENO, output: Int32 = STDERR_FILENO) {
        self.input = input
        self.output = output
    }

    /// Whether both ends are terminals: otherwise the picker falls back to a numbered prompt.
    static func isInteractive(input: Int32 = STDIN_FILENO, output: Int32 = STDERR_FILENO) -> Bool {
        isatty(input) == 1 && isatty(output) == 1
    }

    /// Raw mode (keys arrive one by one, unechoed, Ctrl-C as a byte), the alternate screen, no cursor.
    func enter() throws {
        guard tcgetattr(input, &original) == 0 else { throw TerminalError("cannot read the terminal's settings") }
        var raw = original
        cfmakeraw(&raw)
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { throw TerminalError("cannot switch to raw mode") }
        restored.withLock { isActive = true }
        write(Escape.alternateScreen + Escape.hideCursor)
    }

    /// Back to the normal screen and the settings the terminal had; safe to call more than once, from any thread.
    func restore() {
        restored.withLock {
            guard isActive else { return }
            isActive = false
            write(Escape.showCursor + Escape.normalScreen)
            _ = tcsetattr(input, TCSANOW, &original)
        }
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(output, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Columns and rows; 80 × 24 when the terminal does not say.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Keys as they are typed, read on a thread of their own (a blocking read); ends when the input closes.
    func keys() -> AsyncStream<[Key]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [Key].self)
        let input = input
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield(Key.parse(Array(buffer[0..<count])))
            }
            continuation.finish()
        }
        reader.start()
        return stream
    }

    /// Signals as events: resizes, and the ones that must end the program with the terminal restored; `stop`
    /// puts the signals' previous actions back.
    ///
    /// A handler of our own writes each signal's number into a pipe that a thread reads. Dispatch's signal sources
    /// on Linux read a signalfd, which sees a signal only while every thread blocks it: in a program started from a
    /// shell (nothing blocked) the kernel handed SIGTERM to a thread that did not block it, where it was ignored.
    static func signals(_ numbers: [Int32]) -> (events: AsyncStream<Int32>, stop: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            continuation.finish()
            return (stream, {})
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        signalPipe = writeEnd
        Thread {
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1, number != 0 else { break }  // 0: stopped
                continuation.yield(Int32(number))
            }
            continuation.finish()
            _ = close(readEnd)
        }
        .start()
        var previous: [(Int32, sigaction)] = []
        for number in numbers {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = { number in Terminal.signalArrived(number) }
            #else
                action.__sigaction_u.__sa_handler = { number in Terminal.signalArrived(number) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(number, &action, &old)
            previous.append((number, old))
        }
        let saved = previous
        return (
            stream,
            {
                for (number, action) in saved {
                    var action = action
                    sigaction(number, &action, nil)
                }
                writeByte(0, to: writeEnd)
                _ = close(writeEnd)
            }
        )
    }

    /// The write end of the signal pipe, read by the handler: only async-signal-safe calls happen there.
    nonisolated(unsafe) private static var signalPipe: Int32 = -1

    private static func signalArrived(_ number: Int32) {
        writeByte(UInt8(truncatingIfNeeded: number), to: signalPipe)
    }

    enum Escape {
        static let alternateScreen = "\u{1B}[?1049h"
        static let normalScreen = "\u{1B}[?1049l"
        static let hideCursor = "\u{1B}[?25l"
        static let showCursor = "\u{1B}[?25h"
        static let home = "\u{1B}[H"
        static let clearLine = "\u{1B}[K"
        static let clearBelow = "\u{1B}[J"
        /// Select Graphic Rendition: `\e[<n>m` (0 reset, 1 bold, 2 dim, 7 inverse, 31 red).
        static func style(_ number: Int) -> String { "\u{1B}[\(number)m" }
        static let (reset, bold, dim, inverse, red) = (style(0), style(1), style(2), style(7), style(31))
    }
}

/// One byte to a descriptor with write(2), which is async-signal-safe (outside `Terminal`, whose own `write` would
/// shadow it).
private func writeByte(_ byte: UInt8, to descriptor: Int32) {
    var byte = byte
    _ = write(descriptor, &byte, 1)
}

struct TerminalError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A key as the picker understands it.
enum Key: Equatable, Sendable {
    case up, down, pageUp, pageDown, home, end, left, right
    case enter, backspace, escape, interrupt
    case character(Character)

    /// The keys in one read. An escape byte that ends the read is the Esc key; one followed by `[` or `O` starts
    /// a sequence (arrows, Page Up…), as terminals send them in one write.
    static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        var text: [UInt8] = []
        func flushText() {
            keys += String(decoding: text, as: UTF8.self).map { Key.character($0) }
            text = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            let control: Key?
            switch byte {
            case 0x1B:
                guard index < bytes.count, bytes[index] == 0x5B || bytes[index] == 0x4F else {
                    control = .escape
                    break
                }
                var sequence: [UInt8] = []
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    index += 1
                    sequence.append(next)
                    if (0x40...0x7E).contains(next) { break }
                }
                control = Self.sequences[sequence]
            case 0x0D, 0x0A: control = .enter
            case 0x7F, 0x08: control = .backspace
            case 0x03: control = .interrupt
            case 0x00..<0x20: continue
            default:
                text.append(byte)
                continue
            }
            flushText()
            if let control { keys.append(control) }
        }
        flushText()
        return keys
    }

    private static let sequences: [[UInt8]: Key] = [
        Array("A".utf8): .up, Array("B".utf8): .down, Array("C".utf8): .right, Array("D".utf8): .left,
        Array("H".utf8): .home, Array("F".utf8): .end, Array("5~".utf8): .pageUp, Array("6~".utf8): .pageDown,
        Array("1~".utf8): .home, Array("4~".utf8): .end,
    ]
}
