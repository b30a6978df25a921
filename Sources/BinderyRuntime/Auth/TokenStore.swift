import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where tokens live between runs, one per account.
public protocol TokenStore: Sendable {
    func load(account: String) throws(BinderyError) -> Token?
    func save(_ token: Token) throws(BinderyError)
    func remove(account: String) throws(BinderyError)
}

/// Tokens in memory only: for tests, and for apps that sign in on every launch.
public final class MemoryTokenStore: TokenStore {
    private let tokens = Mutex<[String: Token]>([:])

    public init(_ tokens: [Token] = []) {
        self.tokens.withLock { stored in for token in tokens { stored[token.account] = token } }
    }

    public func load(account: String) -> Token? { tokens.withLock { $0[account] } }
    public func save(_ token: Token) { tokens.withLock { $0[token.account] = token } }
    public func remove(account: String) { tokens.withLock { $0[account] = nil } }
}

/// One JSON file per account in a directory of its own (mode 0700), each file mode 0600.
///
/// A save writes a new file beside the old one and renames it over, so a crash or a concurrent
/// reader never sees half a token, and a rotated refresh token replaces the old one in one step.
/// An unreadable or corrupt file is a `storage` error that names the file, never a crash.
public struct FileTokenStore: TokenStore {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// `~/.config/<app>/tokens` (or `$XDG_CONFIG_HOME`); in an app container, Application Support's `<app>/tokens`.
    /// An app on Apple platforms does better to keep tokens in the Keychain (the "Signing in" article shows a
    /// `TokenStore` for it).
    public static func standard(app: String) -> FileTokenStore {
        let environment = ProcessInfo.processInfo.environment
        let config =
            environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? Self.configurationFolder
        return FileTokenStore(directory: config.appendingPathComponent(app).appendingPathComponent("tokens"))
    }

    /// `~/.config` where there is a home folder; in an app container (iOS, tvOS, watchOS, visionOS), whose root is
    /// not writable, Application Support.
    private static var configurationFolder: URL {
        #if os(macOS) || os(Linux)
            // NSHomeDirectory, not homeDirectoryForCurrentUser: that one is macOS-only.
            URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".config")
        #else
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #endif
    }

    /// The account's file: its name is the account in hex, so any account string is a safe file name.
    public func file(for account: String) -> URL {
        directory.appendingPathComponent("token-\(Digest.hex(Array(account.utf8))).json")
    }

    public func load(account: String) throws(BinderyError) -> Token? {
        let path = file(for: account).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BinderyError(kind: .storage, message: "cannot read the token file \(path)")
        }
        do {
            return try JSONDecoder.tokens.decode(Token.self, from: data)
        } catch {
            throw BinderyError(
                kind: .storage, message: "the token file \(path) is not a valid token; sign in again", underlying: error
            )
        }
    }

    public func save(_ token: Token) throws(BinderyError) {
        let target = file(for: token.account)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let data = try JSONEncoder.tokens.encode(token)
            try Self.writeAtomically(Array(data), to: target.path)
        } catch let error as BinderyError {
            throw error
        } catch {
            throw BinderyError(
                kind: .storage, message: "cannot write the token file \(target.path): \(error)", underlying: error)
        }
    }

    public func remove(account: String) throws(BinderyError) {
        let path = file(for: account).path
        guard unlink(path) == 0 || errno == ENOENT else {
            throw BinderyError(
                kind: .storage, message: "cannot remove the token file \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Creates a temporary file with mode 0600 from the start (never readable by others, not even
    /// briefly), writes and syncs it, then renames it over the target.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(BinderyError) {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw BinderyError(
                kind: .storage, message: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                close(descriptor)
                unlink(temporary)
                throw BinderyError(
                    kind: .storage, message: "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw BinderyError(kind: .storage, message: "cannot replace \(path): \(reason)")
        }
    }
}

extension JSONEncoder {
    static var tokens: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var tokens: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
