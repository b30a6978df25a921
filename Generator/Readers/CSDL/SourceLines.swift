#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns libxml2's node positions into the line and column of a start tag's `<`.
///
/// libxml2 records, for each element, the line on which its start tag *ends*, and no column at all (the reader's
/// parser column is wherever its look-ahead buffer happens to be). Diagnostics want where the tag begins, so this
/// searches the source bytes near that line for `<name`. Elements arrive in document order, so a cursor at the
/// previous match keeps two same-named tags on one line apart.
struct SourceLines {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Byte offset at which each line starts; line N (1-based) starts at `lineStarts[N - 1]`.
    private let lineStarts: [Int]
    /// Columns on line 1 are counted after a UTF-8 byte order mark, as editors show them.
    private let byteOrderMarkLength: Int
    /// Offset of the last start tag found; the next one lies after it.
    private var cursor = -1

    /// How far above its last line a multi-line start tag is looked for.
    private static let maximumTagLength = 1 << 16
    /// libxml2 stores element line numbers in 16 bits and saturates at this value.
    private static let saturatedLine = 65535

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        var starts = [0]
        starts.reserveCapacity(bytes.count / 32 + 1)
        // `memchr` finds each line break a word at a time; a loop over the bytes took a tenth of the parse.
        if let base = bytes.baseAddress {
            var offset = 0
            while offset < bytes.count, let found = memchr(base + offset, 0x0A, bytes.count - offset) {
                offset = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
                starts.append(offset)
            }
        }
        lineStarts = starts
        byteOrderMarkLength =
            bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// The position of the start tag named `qualifiedName` (as written, with any prefix) that ends on
    /// `endLine`. Falls back to column 1 of `endLine` when the tag cannot be found (say, inside an entity).
    mutating func startOfTag(_ qualifiedName: UnsafeBufferPointer<UInt8>, endingOn endLine: Int) -> (
        line: Int, column: Int
    ) {
        let fallback = (line: max(endLine, 1), column: 1)
        guard let name = qualifiedName.baseAddress, !qualifiedName.isEmpty, endLine >= 1,
            endLine <= lineStarts.count
        else { return fallback }
        let nameLength = qualifiedName.count

        let lineStart = lineStarts[endLine - 1]
        let searchEnd: Int
        if endLine >= Self.saturatedLine || endLine == lineStarts.count {
            searchEnd = bytes.count
        } else {
            searchEnd = lineStarts[endLine]
        }
        var offset: Int?
        var position = max(cursor + 1, lineStart)
        // From one `<` to the next with `memchr`: most of the bytes between tags are attribute text.
        while position < searchEnd, offset == nil, let base = bytes.baseAddress,
            let found = memchr(base + position, Int32(UInt8(ascii: "<")), searchEnd - position)
        {
            position = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if isStartTag(at: position, name: name, length: nameLength) { offset = position }
            position += 1
        }
        if offset == nil {
            // A start tag spread over several lines: its `<` is the last match above the line it ends on.
            let lowerBound = max(cursor + 1, lineStart - Self.maximumTagLength, 0)
            position = lineStart - 1
            while position >= lowerBound, offset == nil {
                if isStartTag(at: position, name: name, length: nameLength) { offset = position }
                position -= 1
            }
        }
        guard let offset else { return fallback }
        cursor = offset
        // Nearly every tag starts on the line it ends on: only the others need the search.
        let endsOnItsLine = offset >= lineStart && (endLine == lineStarts.count || offset < lineStarts[endLine])
        let line = endsOnItsLine ? endLine : lineContaining(offset)
        var column = offset - lineStarts[line - 1] + 1
        if line == 1 { column = max(column - byteOrderMarkLength, 1) }
        return (line, column)
    }

    private func isStartTag(at offset: Int, name: UnsafePointer<UInt8>, length: Int) -> Bool {
        guard bytes[offset] == UInt8(ascii: "<"), offset + 1 + length < bytes.count else { return false }
        for index in 0..<length where bytes[offset + 1 + index] != name[index] {
            return false
        }
        switch bytes[offset + 1 + length] {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "/"),
            UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }

    /// The 1-based line holding a byte offset (binary search).
    private func lineContaining(_ offset: Int) -> Int {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }
}
