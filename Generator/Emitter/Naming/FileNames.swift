/// The names of a module's files, chosen so that it checks out anywhere: no name over 200 bytes (file systems stop
/// at 255, and build tools add suffixes such as `~partial.swiftsourceinfo`), and no two names in a folder that
/// differ only in case, which macOS and Windows hold to be one file (`Item.swift` and `ITEM.swift`).
///
/// A long stem keeps its first bytes and ends with a hash of the whole, so two long names that share a beginning
/// stay two files; a name already held up to case gets `-2`, `-3`, ... (a `-` no Swift type name contains).
struct FileNames {
    static let maximumBytes = 200
    private var taken: Set<String> = []

    /// The path for a file of `stem` in `folder` ("" for the module's root), `.swift` added.
    mutating func claim(_ stem: String, in folder: String) -> String {
        let fitted = Self.fitted(stem)
        var name = fitted
        var counter = 2
        while !taken.insert(Self.key(folder, name)).inserted {
            name = "\(fitted)-\(counter)"
            counter += 1
        }
        return folder.isEmpty ? name + ".swift" : "\(folder)/\(name).swift"
    }

    /// How a case-insensitive file system tells names apart. Swift compares strings by canonical equivalence, so
    /// the two Unicode spellings of `é` are one key too, as they are one name on APFS.
    private static func key(_ folder: String, _ name: String) -> String { (folder + "/" + name).lowercased() }

    /// `stem` when it fits with room for `.swift` and a counter; else its first bytes, `-`, and its hash.
    static func fitted(_ stem: String) -> String {
        let budget = maximumBytes - ".swift".utf8.count - "-99".utf8.count
        guard stem.utf8.count > budget else { return stem }
        let hex = String(fnv1a(stem), radix: 16)
        let hash = String(repeating: "0", count: 8 - hex.count) + hex
        var kept = Substring(stem)
        while kept.utf8.count > budget - hash.utf8.count - 1 { kept = kept.dropLast() }
        return "\(kept)-\(hash)"
    }

    /// 32-bit FNV-1a of the UTF-8 bytes: the same in every run and on every platform, as Swift's `Hasher` is not.
    private static func fnv1a(_ text: String) -> UInt32 {
        text.utf8.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }
}
