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
            // Each folder is made once, not once per file (thousands of files share `Models/` with `perType`).
            var folders: Set<String> = []
            for file in changed {
                let path = staging + "/" + file.path
                try createFolder(containing: path, made: &folders)
                try writeNewFile(file.contents, to: path)
            }
            for file in changed {
                let destination = folder + "/" + file.path
                try createFolder(containing: destination, made: &folders)
                if rename(staging + "/" + file.path, destination) != 0 {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination])
                }
            }
        }
        for path in stale { try fileManager.removeItem(atPath: folder + "/" + path) }
        return changed.count + stale.count
    }

    /// Creates the folder that `path` (which holds a `/`) goes into, unless `made` says it was already.
    private func createFolder(containing path: String, made: inout Set<String>) throws {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return }
        let parent = String(path[..<slash])
        guard made.insert(parent).inserted else { return }
        try fileManager.createDirectory(atPath: parent, withIntermediateDirectories: true)
    }

    /// Writes `contents` to `path` with plain POSIX calls. `Data.write` syncs every file to disk, which a
    /// staged file renamed into place a moment later does not need (thousands of files with `perType`).
    private func writeNewFile(_ contents: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        var contents = contents
        try contents.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = Foundation.write(descriptor, base + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
                offset += written
            }
        }
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
