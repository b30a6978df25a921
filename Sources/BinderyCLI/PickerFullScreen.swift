import ArgumentParser
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneNote
import OneNotePicker

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The picker on a terminal: raw mode on the alternate screen, redrawn on every state, key, resize and spinner tick.
struct FullScreenPicker {
    let picker: OneNotePicker
    let terminal = Terminal()
    /// `NO_COLOR` set to anything but the empty string turns colour off (no-color.org).
    let color = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty

    private enum Event {
        case keys([Key])
        case state(OneNotePickerState)
        case resize
        case signal(Int32)
        case tick
        case inputClosed
    }

    func run() async throws -> PickOutcome {
        let (signals, stopSignals) = Terminal.signals([SIGWINCH, SIGINT, SIGTERM, SIGHUP])
        try terminal.enter()
        defer { terminal.restore() }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let keys = terminal.keys()
        let states = await picker.states()
        let feeders = [
            Task {
                for await typed in keys { continuation.yield(.keys(typed)) }
                continuation.yield(.inputClosed)
            },
            Task { for await state in states { continuation.yield(.state(state)) } },
            Task { for await number in signals { continuation.yield(number == SIGWINCH ? .resize : .signal(number)) } },
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(120))
                    continuation.yield(.tick)
                }
            },
        ]
        defer {
            for feeder in feeders { feeder.cancel() }
            stopSignals()
        }

        let size = terminal.size
        var screen = PickerScreen(
            state: await picker.current, searchInput: nil, columns: size.columns, rows: size.rows, spinnerFrame: 0,
            color: color)
        terminal.write(screen.frame())
        for await event in events {
            switch event {
            case .state(let state):
                screen.state = state
                if let outcome = PickOutcome(finished: state) { return outcome }
            case .tick:
                guard !screen.state.isSettled else { continue }
                screen.spinnerFrame += 1
            case .resize:
                (screen.columns, screen.rows) = terminal.size
            case .signal(let number):
                return .interrupted(number)
            case .inputClosed:
                return PickOutcome(quitting: screen.state)
            case .keys(let typed):
                for key in typed {
                    if let outcome = await handle(key, on: &screen) { return outcome }
                }
            }
            terminal.write(screen.frame())
        }
        return .cancelled
    }

    /// Sends what a key means to the picker; an outcome when the key ends the session.
    private func handle(_ key: Key, on screen: inout PickerScreen) async -> PickOutcome? {
        if key == .interrupt { return .interrupted(SIGINT) }
        let page = max(screen.rows - 5, 1)
        switch key {
        case .up: await picker.send(.move(by: -1))
        case .down: await picker.send(.move(by: 1))
        case .pageUp: await picker.send(.move(by: -page))
        case .pageDown: await picker.send(.move(by: page))
        case .home: await picker.send(.select(0))
        case .end: await picker.send(.select(Int.max))
        default: break
        }
        if var text = screen.searchInput {
            switch key {
            case .character(let character):
                text.append(character)
                screen.searchInput = text
                await picker.send(.search(text))
            case .backspace:
                guard !text.isEmpty else { return await endSearch(&screen) }
                text.removeLast()
                screen.searchInput = text
                await picker.send(.search(text))
            case .enter:
                if screen.state.selected != nil { await picker.send(.open) } else { screen.searchInput = nil }
            case .escape: return await endSearch(&screen)
            default: break
            }
            return nil
        }
        switch key {
        case .character("k"): await picker.send(.move(by: -1))
        case .character("j"): await picker.send(.move(by: 1))
        case .enter, .right, .character("l"): await picker.send(.open)
        case .backspace, .left, .character("h"): await picker.send(.back)
        case .character("/"):
            screen.searchInput = screen.state.search?.query ?? ""
        case .character("r"):
            if case .failed = screen.state.phase { await picker.send(.retry) } else { await picker.send(.refresh) }
        case .escape where screen.state.search != nil:
            await picker.send(.search(""))
        case .escape, .character("q"):
            let outcome = PickOutcome(quitting: screen.state)
            await picker.send(.cancel)
            return outcome
        default: break
        }
        return nil
    }

    private func endSearch(_ screen: inout PickerScreen) async -> PickOutcome? {
        screen.searchInput = nil
        await picker.send(.search(""))
        return nil
    }
}
