import BinderyEmitter
import Foundation

/// Puts generated files into the output folder without ever leaving it half-written.
///
/// Changed files are first written to a staging folder beside the output, then renamed into place
/// (a rename replaces a file atomically); unchanged files are not touched, so their timestamps stay and
/// the build system recompiles only what changed. Stale `.swift` files are removed last.
struct OutputWriter {
    let folder: String
    /// The kind of file this run owns in the folder: others of the kind that it does not produce are stale.
    var fileExtension = "swift"

    private var fileManager: FileManager { .default }

    /// Writes the files; returns how many were new or changed.
    func write(_ files: [Emitter.OutputFile]) throws -> Int {
        let changed = try files.filter { try existingContents(of: $0.path) != $0.contents }
        let stale = try staleFiles(keeping: files)
        if !changed.isEmpty {
            let staging =
                (folder as NSString).deletingLastPathComponent
                + "/.bindery-staging-\(ProcessInfo.processInfo.processIdentifier)"
            try? fileManager.removeItem(atPath: staging)
            defer { try? fileManager.removeItem(atPath: staging) }
            for file in changed {
                let path = staging + "/" + file.path
                try fileManager.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: path))
            }
            for file in changed {
                let destination = folder + "/" + file.path
                try fileManager.createDirectory(
                    atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if rename(staging + "/" + file.path, destination) != 0 {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination])
                }
            }
        }
        for path in stale { try fileManager.removeItem(atPath: folder + "/" + path) }
        return changed.count + stale.count
    }

    /// What `write` would change, one line per file: `+ new`, `~ changed`, `- stale`.
    func differences(from files: [Emitter.OutputFile]) throws -> [String] {
        var lines: [String] = []
        for file in files {
            switch try existingContents(of: file.path) {
            case nil: lines.append("+ \(folder)/\(file.path)")
            case let existing? where existing != file.contents: lines.append("~ \(folder)/\(file.path)")
            default: break
            }
        }
        lines += try staleFiles(keeping: files).map { "- \(folder)/\($0)" }
        return lines
    }

    private func existingContents(of path: String) throws -> String? {
        let full = folder + "/" + path
        guard fileManager.fileExists(atPath: full) else { return nil }
        return try String(contentsOfFile: full, encoding: .utf8)
    }

    /// Generated-looking files in the folder that this run does not produce.
    private func staleFiles(keeping files: [Emitter.OutputFile]) throws -> [String] {
        guard let enumerator = fileManager.enumerator(atPath: folder) else { return [] }
        let produced = Set(files.map(\.path))
        var stale: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix("." + fileExtension), !produced.contains(path) { stale.append(path) }
        }
        return stale.sorted()
    }
}
