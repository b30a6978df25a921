import BinderyJSON
import Foundation

/// A small, coherent set of data to try a service with, written as JSON: what it is, the paths worth trying, and
/// the store's contents by path.
///
/// ```json
/// {
///   "about": "A personal drive: two folders and a file at the root.",
///   "try": [{"path": "me/drive/root/children", "says": "the root's folders and files"}],
///   "aliases": {"drives/sample-drive": "me/drive"},
///   "store": {
///     "me/drive/root": {"id": "sample-root", "name": "root", "folder": {}},
///     "me/drive/root/children": [{"id": "doc", "name": "notes.txt", "@sample.streams": {"content": "Hello"}}]
///   }
/// }
/// ```
///
/// In `store`, a list is a collection of items in that order (each keyed by its id member); an object is a single
/// entity at that path (`me`, `me/drive`). An item's `@sample.streams` holds the text behind its stream properties
/// (`content`, `download`); for a service whose uploads get a `file` facet (OneDrive), the item gets that facet, with
/// its hashes, and its size from the text. `aliases` make a second navigation reach the same data: a path below
/// `drives/sample-drive` is served from `me/drive`.
public struct MockSample: Sendable {
    /// A path worth trying, below the service root, and what it answers.
    public struct Tour: Sendable, Equatable {
        public var path: String
        public var says: String
    }

    /// One sentence on what the sample holds.
    public var about: String
    public var tours: [Tour]
    var entries: [(path: [String], value: JSONValue)]
    var aliases: [(path: [String], target: [String])]

    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a sample written as above.
    public init(json bytes: [UInt8]) throws {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw FormatError(description: "the sample is not JSON: \(error)")
        }
        guard let about = json["about"]?.stringValue, let store = json["store"]?.objectValue else {
            throw FormatError(description: "a sample needs \"about\" and \"store\"")
        }
        self.about = about
        tours = try (json["try"]?.arrayValue ?? []).map { tour in
            guard let path = tour["path"]?.stringValue, let says = tour["says"]?.stringValue else {
                throw FormatError(description: "each \"try\" entry needs \"path\" and \"says\"")
            }
            return Tour(path: path, says: says)
        }
        entries = try store.members.map { member in
            guard member.value.objectValue != nil || member.value.arrayValue != nil else {
                throw FormatError(description: "\(member.key): a store entry is an object or a list of objects")
            }
            return (Self.segments(member.key), member.value)
        }
        aliases = (json["aliases"]?.objectValue?.members ?? []).compactMap { member in
            member.value.stringValue.map { (Self.segments(member.key), Self.segments($0)) }
        }
    }

    static func segments(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }

    /// The reserved member of an item that holds the text behind its streams.
    static let streamsMember = "@sample.streams"
}

extension MockServer {
    /// Adds `sample` to the store (and to the state `reset()` returns to), beside what fixtures seeded.
    public func seed(_ sample: MockSample) {
        addToSeeded { put(sample) }
        for entry in sample.aliases { alias(entry.path, to: entry.target) }
    }

    private func put(_ sample: MockSample) {
        for (path, value) in sample.entries {
            if case .object(let object) = value {
                store.set(object, at: path)
                continue
            }
            store.createCollection(at: path)
            for case .object(var item) in value.arrayValue ?? [] {
                let streams = item[MockSample.streamsMember]?.objectValue
                item[MockSample.streamsMember] = nil
                var blobs: [(String, [UInt8])] = []
                for stream in streams ?? [:] {
                    let bytes = Array((stream.value.stringValue ?? "").utf8)
                    blobs.append((stream.key, bytes))
                    if stream.key == "content", let facet = service.uploadedFileFacet {
                        var file = facet(bytes)
                        for member in item["file"]?.objectValue ?? [:] { file[member.key] = member.value }
                        item["file"] = .object(file)
                        item["size"] = .number(JSONNumber(bytes.count))
                    }
                }
                // Keyed by its id, so that seeding again replaces the item in place.
                let key = store.insert(
                    item, into: path, key: item[service.idMember]?.scalarText, idMember: service.idMember, logged: false
                ).key
                for (name, bytes) in blobs { store.setBlob(bytes, at: path + [key, name]) }
            }
        }
    }

    /// A `curl` command that reads `path` (below the service root) with `token`, in the service's way of sending it;
    /// `-L` follows OneDrive's content redirect (curl does not send the credentials to the other host).
    public func curlCommand(_ path: String, token: String) -> String {
        let credentials =
            switch service.authorization {
            case .basicUser: "-u \(token):"
            default: "-H \"Authorization: \(service.authorization.header(for: token))\""
            }
        // In single quotes for the shell, so a quote in the path (SparkQL's `'Fargo'`) is sent encoded.
        let url = serviceURL.absoluteString + "/" + path.replacingOccurrences(of: "'", with: "%27")
        return "curl -L \(credentials) '\(url)'"
    }
}
