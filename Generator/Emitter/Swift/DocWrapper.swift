/// Re-flows one line of a doc comment at word boundaries: a list item (`- `, `  - name:`) continues under its text,
/// a code span (`` `a b` ``) is never split, and a word longer than the width stays whole on its own line.
enum DocWrapper {
    /// The wrapped lines as strings.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        wrap(text, width: width) { prefix, words in lines.append(prefix + words.joined(separator: " ")) }
        return lines
    }

    /// Hands each wrapped line to `line`: its prefix (the list marker and the spaces before it on the first line,
    /// as many spaces after) and its words, to be joined by single spaces. Indented code and tables are one line.
    static func wrap(_ text: String, width: Int, line: (_ prefix: Substring, _ words: ArraySlice<Substring>) -> Void) {
        let leading = text.prefix { $0 == " " }
        var rest = text.dropFirst(leading.count)
        // A list item's marker: `- `, `* `, `+ `, `1. `.
        var marker = 0
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            marker = 2
        } else {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let after = rest.dropFirst(digits.count)
            if !digits.isEmpty, after.hasPrefix(". ") || after.hasPrefix(") ") { marker = digits.count + 2 }
        }
        rest = rest.dropFirst(marker)
        // Indented code and tables keep their lines.
        if marker == 0, leading.count >= 4 || rest.hasPrefix("|") { return line("", [Substring(text)]) }
        let firstPrefix = text[..<rest.startIndex]
        let prefixColumns = firstPrefix.count
        let continuation = Substring(String(repeating: " ", count: prefixColumns))

        let words = words(rest)
        var start = 0
        var columns = prefixColumns
        for index in words.indices {
            let wordColumns = words[index].columns
            if start == index || columns + 1 + wordColumns <= width {
                columns += (start == index ? 0 : 1) + wordColumns
                continue
            }
            // A line must not start with what Markdown reads as a list item or a heading: the word before comes along.
            let next = index - start > 1 && startsABlock(words[index]) ? index - 1 : index
            line(start == 0 ? firstPrefix : continuation, words[start..<next])
            start = next
            columns = prefixColumns + words[start...index].reduce(index - start) { $0 + $1.columns }
        }
        if start < words.count { line(start == 0 ? firstPrefix : continuation, words[start...]) }
    }

    /// The words of a line; a code span with spaces in it is one word.
    private static func words(_ text: Substring) -> [Substring] {
        // ASCII, nearly every line, is split by its bytes: stepping by characters costs a grapheme break each.
        if !text.containsByte(where: { $0 >= 0x80 }) {
            return words(of: text, in: text.utf8, backtick: UInt8(ascii: "`"), space: UInt8(ascii: " "))
        }
        return words(of: text, in: text, backtick: "`", space: " ")
    }

    /// `words`, stepping through `view` (the text's bytes or its characters).
    private static func words<View: Collection>(
        of text: Substring, in view: View, backtick: View.Element, space: View.Element
    ) -> [Substring] where View.Index == Substring.Index, View.Element: Equatable {
        var words: [Substring] = []
        var start: Substring.Index?
        var inCode = false
        var index = view.startIndex
        while index < view.endIndex {
            let element = view[index]
            if element == backtick { inCode.toggle() }
            if element == space, !inCode {
                if let wordStart = start {
                    words.append(text[wordStart..<index])
                    start = nil
                }
            } else if start == nil {
                start = index
            }
            index = view.index(after: index)
        }
        if let wordStart = start { words.append(text[wordStart..<text.endIndex]) }
        return words
    }

    private static func startsABlock(_ word: Substring) -> Bool {
        if ["-", "*", "+", ">", "|"].contains(word) || word.hasPrefix("#") || word.hasPrefix("```") { return true }
        let digits = word.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && (word.dropFirst(digits.count) == "." || word.dropFirst(digits.count) == ")")
    }
}
