import Foundation
import OneNotePicker

/// What the full-screen picker draws for a state: plain lines, styled only when colour is allowed (`NO_COLOR`).
struct PickerScreen {
    var state: OneNotePickerState
    /// The search text being typed, when the search line has the keyboard.
    var searchInput: String?
    var columns: Int
    var rows: Int
    var spinnerFrame: Int
    var color: Bool

    static let spinner = ["|", "/", "-", "\\"]

    /// Exactly `rows` lines, none wider than `columns`.
    func lines() -> [String] {
        var header = [title()]
        if let instructions = state.instructions, !instructions.isEmpty { header.append(plain(instructions)) }
        header.append(style(String(repeating: "─", count: max(columns, 1)), Terminal.Escape.dim))
        let footer = [status(), keys()]
        let listHeight = max(rows - header.count - footer.count, 1)
        var lines = header + list(height: listHeight) + footer
        if lines.count > rows { lines = Array(lines.prefix(rows)) }
        return lines
    }

    /// The whole screen as the terminal gets it: home, each line cleared to its end, then the rest cleared.
    func frame() -> String {
        Terminal.Escape.home + lines().map { $0 + Terminal.Escape.clearLine }.joined(separator: "\r\n")
            + Terminal.Escape.clearBelow
    }

    private func title() -> String {
        var text = (["OneNote"] + state.path.map(\.name)).joined(separator: " › ")
        if let searchInput {
            text = "Search: \(searchInput)_"
        } else if let query = state.search?.query {
            text += " › search \"\(query)\""
        }
        let busy = !state.isSettled ? "\(Self.spinner[spinnerFrame % Self.spinner.count]) loading" : ""
        let room = max(columns - busy.count - 1, 1)
        let clipped = clip(text, room)
        let padding = String(repeating: " ", count: max(columns - clipped.count - busy.count, 0))
        return style(clipped, Terminal.Escape.bold) + padding + busy
    }

    private func list(height: Int) -> [String] {
        let rows = state.rows
        guard !rows.isEmpty else {
            let empty: String
            if !state.isSettled {
                empty = "  Loading…"
            } else if state.search != nil {
                empty = "  No section matches."
            } else {
                empty = state.path.isEmpty ? "  No notebooks." : "  Nothing in here."
            }
            return [plain(empty)] + Array(repeating: "", count: height - 1)
        }
        // Scrolls so that the selection stays in view, a page at a time.
        let first = (state.selection / height) * height
        let visible = rows[first..<min(first + height, rows.count)]
        var lines = visible.enumerated().map { offset, node in
            line(for: node, selected: first + offset == state.selection)
        }
        lines += Array(repeating: "", count: height - lines.count)
        return lines
    }

    private func line(for node: OneNotePickerNode, selected: Bool) -> String {
        let name = clip((selected ? "> " : "  ") + node.name + (node.isContainer ? "/" : ""), columns)
        let shown = selected ? style(name, Terminal.Escape.inverse) : name
        // A search hit says where it lives.
        guard state.search != nil, let path = node.section?.path else { return shown }
        return shown + style(clip("  " + path.joined(separator: " / "), columns - name.count), Terminal.Escape.dim)
    }

    private func status() -> String {
        if case .failed(let error) = state.phase {
            let reason: String
            switch error {
            case .api(let failure):
                reason = "OneNote said \(failure.status) \(failure.code ?? ""): \(failure.message)"
            case .system(let failure):
                reason = "Cannot load (\(failure.kind.rawValue)): \(failure.message)"
            }
            return style(clip("! \(reason) — r retry, q quit", columns), Terminal.Escape.red)
        }
        let count = state.rows.count
        let noun = state.search != nil ? (count == 1 ? "match" : "matches") : (count == 1 ? "item" : "items")
        return plain("\(count) \(noun)" + (!state.isSettled ? " so far" : ""))
    }

    private func keys() -> String {
        let help =
            searchInput != nil
            ? "type to search · ↑↓ move · Enter pick · Esc done"
            : "↑↓/jk move · Enter open · Backspace back · / search · r reload · q quit"
        return style(clip(help, columns), Terminal.Escape.dim)
    }

    private func plain(_ text: String) -> String { clip(text, columns) }

    private func style(_ text: String, _ code: String) -> String {
        color && !text.isEmpty ? code + text + Terminal.Escape.reset : text
    }

    private func clip(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        return text.count <= width ? text : String(text.prefix(max(width - 1, 0))) + "…"
    }
}
