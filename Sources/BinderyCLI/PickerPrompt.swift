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

/// The picker without a terminal: each level as a numbered list on standard error, answers from standard input.
struct NumberedPrompt {
    let picker: OneNotePicker

    func run() async -> PickOutcome {
        let answers = Self.lines()
        var answerIterator = answers.makeAsyncIterator()
        while true {
            let state = await picker.settled()
            if let outcome = PickOutcome(finished: state) { return outcome }
            Pick.note(Self.menu(state))
            guard let answer = await answerIterator.next() else { return PickOutcome(quitting: state) }
            let text = answer.trimmingCharacters(in: .whitespaces)
            switch text {
            case "q":
                await picker.send(.cancel)
                return PickOutcome(quitting: state)
            case "b", "..": await picker.send(.back)
            case "r":
                if case .failed = state.phase { await picker.send(.retry) } else { await picker.send(.refresh) }
            case _ where text.hasPrefix("/"): await picker.send(.search(String(text.dropFirst())))
            default:
                guard let number = Int(text), state.rows.indices.contains(number - 1) else {
                    Pick.note("Not a choice: \(text)")
                    continue
                }
                await picker.send(.select(number - 1))
                await picker.send(.open)
            }
        }
    }

    static func menu(_ state: OneNotePickerState) -> String {
        var lines = [(["OneNote"] + state.path.map(\.name)).joined(separator: " › ")]
        if let instructions = state.instructions { lines.append(instructions) }
        if let search = state.search { lines.append("Sections matching \"\(search.query)\":") }
        for (index, node) in state.rows.enumerated() {
            var line = "  \(index + 1). \(node.name)\(node.isContainer ? "/" : "")"
            if state.search != nil, let path = node.section?.path { line += "  (\(path.joined(separator: " / ")))" }
            lines.append(line)
        }
        if state.rows.isEmpty { lines.append(state.search != nil ? "  No section matches." : "  Nothing in here.") }
        if case .failed(let error) = state.phase { lines.append("! \(error)") }
        lines.append("Number to open or pick, b back, /text search, r reload or retry, q quit:")
        return lines.joined(separator: "\n")
    }

    /// Lines of standard input, read on a thread of their own so that no task blocks on it.
    private static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        .start()
        return stream
    }
}
