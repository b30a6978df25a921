import Foundation

/// The names of a module's files, chosen so that it checks out and builds on Linux, macOS and Windows: no name over
/// 200 bytes (file systems stop at 255, and build tools add suffixes such as `~partial.swiftsourceinfo`), no two
/// names in the module that differ only in case (macOS and Windows hold them to be one file, and build tools put
/// every object file of a module in one folder), and no name Windows keeps for a device (`Aux.swift`).
///
/// A long stem keeps its first bytes and ends with a hash of the whole, so two long names that share a beginning
/// stay two files; a name already held gets `-2`, `-3`, ... and still fits.
struct FileNames {
    static let maximumBytes = 200
    /// Windows' device names, which no file may have, whatever its extension.
    private static let devices = Set(["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })
    private var taken = devices

    /// The path for a file of `stem` in `folder` ("" for the module's root), `.swift` added.
    mutating func claim(_ stem: String, in folder: String) -> String {
        var name = Self.fitted(stem)
        var counter = 2
        while !taken.insert(Self.key(name)).inserted {
            let suffix = "-\(counter)"
            name = Self.fitted(stem, before: suffix) + suffix
            counter += 1
        }
        return folder.isEmpty ? name + ".swift" : "\(folder)/\(name).swift"
    }

    /// How a case-insensitive file system tells names apart: case folded, and the two Unicode spellings of `é` one
    /// name (Swift compares strings by canonical equivalence), as on APFS and NTFS.
    private static func key(_ name: String) -> String {
        name.folding(options: .caseInsensitive, locale: nil)
    }

    /// `stem` when it fits with `.swift` and `suffix` after it; else its first bytes, `-`, and its hash.
    static func fitted(_ stem: String, before suffix: String = "") -> String {
        let budget = maximumBytes - ".swift".utf8.count - suffix.utf8.count
        guard stem.utf8.count > budget else { return stem }
        let hex = String(fnv1a(stem), radix: 16)
        let hash = String(repeating: "0", count: 8 - hex.count) + hex
        // Cut between Unicode scalars, not characters: a character can be any number of bytes long.
        let room = budget - "-".utf8.count - hash.utf8.count
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in stem.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= room else { break }
            kept.append(scalar)
        }
        return "\(String(kept))-\(hash)"
    }

    /// 32-bit FNV-1a of the UTF-8 bytes: the same in every run and on every platform, as Swift's `Hasher` is not.
    private static func fnv1a(_ text: String) -> UInt32 {
        text.utf8.reduce(2_166_136_261 as UInt32) { ($0 ^ UInt32($1)) &* 16_777_619 }
    }
}
