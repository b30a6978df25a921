// libcurl is the transport where it exists: Linux, unless BINDERY_NO_CURL=1 (Package.swift).
#if canImport(CCurl)
    import CCurl
    import Foundation
    import HTTPTypes

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A request body, read as libcurl asks for it.
    enum Upload {
        /// In memory; `offset` is the next byte to send (a box, so the enum need not be reassigned per chunk).
        case bytes([UInt8], offset: Box)
        /// An open file, streamed: never read into memory whole.
        case file(File)

        final class Box {
            var value = 0
        }

        struct File {
            let descriptor: Int32
            let path: String
            let size: Int64
        }

        static func inMemory(_ bytes: [UInt8]) -> Upload { .bytes(bytes, offset: Box()) }

        /// Opens the file now, on the caller's thread, so a missing file fails the call before anything is sent.
        static func opening(_ path: String) throws(BinderyError) -> Upload {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw BinderyError(
                    kind: .connection,
                    message: "cannot open the request body \(path): \(String(cString: strerror(errno)))")
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(descriptor)
                throw BinderyError(kind: .connection, message: "the request body \(path) is not a regular file")
            }
            return .file(File(descriptor: descriptor, path: path, size: Int64(info.st_size)))
        }

        var size: Int64 {
            switch self {
            case .bytes(let bytes, _): Int64(bytes.count)
            case .file(let file): file.size
            }
        }
    }

    /// A response body streamed to a temporary file beside its destination, renamed into place only when the
    /// whole body has arrived: the destination never holds half a download.
    struct Download {
        let destination: String
        let temporary: String
        private(set) var descriptor: Int32

        init(destination: String) throws(BinderyError) {
            self.destination = destination
            let directory = (destination as NSString).deletingLastPathComponent
            let name = (destination as NSString).lastPathComponent
            let suffix = String(UInt64.random(in: .min ... .max), radix: 36)
            temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).\(suffix).download"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else { throw Self.error("cannot create", temporary) }
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws(BinderyError) {
            guard writeAll(descriptor, bytes) else { throw Self.error("cannot write", temporary) }
        }

        /// Closes the file and moves it to its destination.
        mutating func commit() throws(BinderyError) {
            let closed = close(descriptor)
            descriptor = -1
            guard closed == 0 else {
                let error = Self.error("cannot write", temporary)
                unlink(temporary)
                throw error
            }
            guard rename(temporary, destination) == 0 else {
                let error = Self.error("cannot move the download to", destination)
                unlink(temporary)
                throw error
            }
        }

        /// Closes and deletes the temporary file; nothing is left behind.
        func discard() {
            guard descriptor >= 0 else { return }
            close(descriptor)
            unlink(temporary)
        }

        private static func error(_ action: String, _ path: String) -> BinderyError {
            BinderyError(kind: .connection, message: "\(action) \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes every byte, retrying short and interrupted writes; false (with `errno` set) on failure.
    func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
#endif
