import BinderySpec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one entry point for reading a spec file: picks the reader by the file's extension.
public enum SpecReader {
    /// Reads the spec at `path`. Diagnostics and `ServiceSpec.source` name the file `displayPath ?? path`
    /// (the CLI passes the path as the user typed it). The spec is nil when any error was diagnosed.
    public static func read(path: String, displayPath: String? = nil) -> (spec: ServiceSpec?, diagnostics: [Diagnostic])
    {
        let shownPath = displayPath ?? path
        let fileExtension = path.split(separator: "/").last.flatMap { name in
            name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() }
        }
        let readBytes: ([UInt8], String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic])
        switch fileExtension {
        case "xml", "csdl", "edmx":
            readBytes = { CSDLReader().read(bytes: $0, path: $1) }
        case "json":
            readBytes = { OpenAPIReader().read(bytes: $0, path: $1) }
        case "yaml", "yml":
            readBytes = { OpenAPIReader().read(bytes: $0, path: $1, syntax: .yaml) }
        default:
            let found = fileExtension.map { "'.\($0)'" } ?? "no extension"
            return (
                nil,
                [
                    Diagnostic(
                        .error,
                        "cannot tell the spec format from \(found) in '\(shownPath)'; expected .xml, .csdl or .edmx (CSDL) or .json, .yaml or .yml (OpenAPI)",
                        at: nil)
                ]
            )
        }
        switch contents(ofFile: path) {
        case .success(let bytes): return readBytes(bytes, shownPath)
        case .failure(let reason): return (nil, [Diagnostic(.error, "cannot read '\(shownPath)': \(reason)", at: nil)])
        }
    }

    /// The file's bytes, or why they cannot be read: read from one descriptor to its end, into an array sized by
    /// the file (`Data(contentsOf:)` and a copy into `[UInt8]` took twice as long for Graph's 3.5 MB, on the path
    /// every generation waits on). A pipe, or a file that reports no size (`/proc`), goes on in chunks.
    static func contents(ofFile path: String) -> Result<[UInt8], FileError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(FileError()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(FileError()) }
        if status.st_mode & S_IFMT == S_IFDIR { return .failure(FileError(reason: String(cString: strerror(EISDIR)))) }
        var ended = false
        var failure: FileError?
        // One byte more than the size, so that a file read whole is seen to end without a second buffer.
        var bytes = [UInt8](unsafeUninitializedCapacity: max(Int(status.st_size) + 1, 1 << 16)) { buffer, count in
            (count, ended, failure) = fill(buffer, from: descriptor)
        }
        while !ended, failure == nil {
            bytes += [UInt8](unsafeUninitializedCapacity: 1 << 16) { buffer, count in
                (count, ended, failure) = fill(buffer, from: descriptor)
            }
        }
        return failure.map { .failure($0) } ?? .success(bytes)
    }

    /// Reads into `buffer` until it is full, the file ends or reading fails: how many bytes, whether it ended, and
    /// why it failed. (`read` may return fewer bytes than asked for.)
    private static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, from descriptor: Int32) -> (
        count: Int, ended: Bool, failure: FileError?
    ) {
        var count = 0
        while count < buffer.count {
            let got = systemRead(descriptor, buffer.baseAddress! + count, buffer.count - count)
            if got > 0 {
                count += got
            } else if got == 0 {
                return (count, true, nil)
            } else if errno != EINTR {
                return (count, true, FileError())
            }
        }
        return (count, false, nil)
    }

    /// Why a file could not be read: the system's description of `errno`, or a reason given.
    struct FileError: Error, CustomStringConvertible {
        var description: String

        init(reason: String? = nil) { description = reason ?? String(cString: strerror(errno)) }
    }
}

/// `read(2)`, under a name that `SpecReader.read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
