import BinderyJSON
import Foundation
import Synchronization

/// The mock's data: JSON objects at paths below the service root, the ordered members of each collection,
/// bytes behind stream properties, and a log of every change, which delta answers from.
///
/// Paths are segment lists (`["drives", "d1", "items", "a/b"]`); two URLs that reach the same item by
/// different navigations (`/me/drive/root` and `/drives/d1/root`) are two entries, as in a recording.
public final class MockStore: Sendable {
    /// One change, numbered in the order it happened.
    public struct Change: Sendable {
        public enum Kind: String, Sendable { case created, updated, deleted }
        public let sequence: Int
        public let collection: [String]
        public let key: String
        public let kind: Kind
        public let date: Date
    }

    fileprivate struct State {
        var objects: [[String]: JSONObject] = [:]
        var members: [[String]: [String]] = [:]
        var blobs: [[String]: [UInt8]] = [:]
        var log: [Change] = []
        var generated = 0
        /// The most segments of any path held: removing an item scans for what lies below it only when something
        /// can, which keeps removals from a flat collection of 100,000 items from reading every path each time.
        var deepest = 0

        mutating func holds(_ path: [String]) { deepest = max(deepest, path.count) }
    }

    private let state = Mutex(State())

    public init() {}

    /// The sequence number of the latest change: a delta token for "everything after now".
    public var latestSequence: Int { state.withLock { $0.log.last?.sequence ?? 0 } }

    // MARK: Reading

    public func object(at path: [String]) -> JSONObject? { state.withLock { $0.objects[path] } }

    /// The keys of a collection's items, in insertion order.
    public func keys(in collection: [String]) -> [String] { state.withLock { $0.members[collection] ?? [] } }

    /// The items of a collection in insertion order, with their keys.
    public func items(in collection: [String]) -> [(key: String, object: JSONObject)] {
        state.withLock { state in
            (state.members[collection] ?? []).compactMap { key in state.objects[collection + [key]].map { (key, $0) } }
        }
    }

    /// `path`, or where the same item is stored under another navigation: OData addresses an item by key
    /// (`/drive/items/{id}`) wherever it was listed (`/drive/root/children`), so a key missing from the
    /// addressed collection is looked up below the collection's owner.
    public func locate(_ path: [String]) -> [String] {
        state.withLock { state in
            guard state.objects[path] == nil, path.count >= 2, let key = path.last else { return path }
            let owner = path.dropLast(2)
            return state.objects.keys.filter {
                $0.last == key && $0.count > owner.count && $0.starts(with: owner)
                    && state.members[Array($0.dropLast())] != nil
            }
            .min { $0.count < $1.count } ?? path
        }
    }

    public func isCollection(_ path: [String]) -> Bool { state.withLock { $0.members[path] != nil } }

    public func blob(at path: [String]) -> [UInt8]? { state.withLock { $0.blobs[path] } }

    /// Changes after `sequence` to collections at or below `prefix`, oldest first.
    public func changes(after sequence: Int, below prefix: [String]) -> [Change] {
        state.withLock { state in
            state.log.filter { $0.sequence > sequence && $0.collection.starts(with: prefix) }
        }
    }

    /// The current items of every collection at or below `prefix`.
    public func allItems(below prefix: [String]) -> [(collection: [String], key: String, object: JSONObject)] {
        state.withLock { state in
            state.members.keys.filter { $0.starts(with: prefix) }.sorted {
                $0.count < $1.count || ($0.count == $1.count && $0.lexicographicallyPrecedes($1))
            }
            .flatMap { collection in
                (state.members[collection] ?? []).compactMap { key in
                    state.objects[collection + [key]].map { (collection, key, $0) }
                }
            }
        }
    }

    // MARK: Writing

    /// Adds `object` to `collection` under `key` (or its `idMember`, or a new key), setting `idMember` to
    /// the key. Replaces an item with the same key. Returns the key and the stored object.
    @discardableResult
    public func insert(
        _ object: JSONObject, into collection: [String], key: String? = nil, idMember: String = "id",
        logged: Bool = true
    ) -> (key: String, object: JSONObject) {
        state.withLock { state in
            var stored = object
            // An item's object is stored at its collection's path and its key: looking that up is the same as
            // looking through the collection's keys, without reading them all.
            func taken(_ key: String) -> Bool { state.objects[collection + [key]] != nil }
            var chosen = key ?? stored[idMember]?.scalarText
            if chosen == nil || (key == nil && taken(chosen!)) {
                repeat {
                    state.generated += 1
                    chosen = "\(collection.last ?? "item")-\(state.generated)"
                } while taken(chosen!)
            }
            let itemKey = chosen!
            stored[idMember] = .string(itemKey)
            let isNew = !taken(itemKey) || !(state.members[collection]?.contains(itemKey) ?? false)
            if isNew { state.members[collection, default: []].append(itemKey) }
            state.objects[collection + [itemKey]] = stored
            state.holds(collection + [itemKey])
            if logged { Self.log(&state, collection, itemKey, isNew ? .created : .updated) }
            return (itemKey, stored)
        }
    }

    /// Puts an object that is not an item of a collection (`/me`, `/me/drive`).
    public func set(_ object: JSONObject, at path: [String]) {
        state.withLock { state in
            state.objects[path] = object
            state.holds(path)
        }
    }

    /// An empty collection, so lists at `path` answer `[]` rather than 404.
    public func createCollection(at path: [String]) {
        state.withLock { state in
            if state.members[path] == nil { state.members[path] = [] }
            state.holds(path)
        }
    }

    /// Merges `changes` into the object at `path` (members replaced, `null` kept as null); nil when absent.
    public func update(at path: [String], merging changes: JSONObject) -> JSONObject? {
        state.withLock { state in
            guard var object = state.objects[path] else { return nil }
            for member in changes { object[member.key] = member.value }
            state.objects[path] = object
            if let (collection, key) = Self.split(path), state.members[collection]?.contains(key) == true {
                Self.log(&state, collection, key, .updated)
            }
            return object
        }
    }

    /// Removes the object at `path`, with everything below it; false when there was nothing.
    @discardableResult
    public func remove(at path: [String]) -> Bool {
        state.withLock { state in
            guard state.objects.removeValue(forKey: path) != nil else { return false }
            state.members[path] = nil
            state.blobs[path] = nil
            if state.deepest > path.count {
                for below in state.objects.keys where below.starts(with: path) { state.objects[below] = nil }
                for below in state.members.keys where below.starts(with: path) { state.members[below] = nil }
                state.blobs = state.blobs.filter { !$0.key.starts(with: path) }
            }
            if let (collection, key) = Self.split(path), let index = state.members[collection]?.firstIndex(of: key) {
                state.members[collection]?.remove(at: index)
                Self.log(&state, collection, key, .deleted)
            }
            return true
        }
    }

    public func setBlob(_ bytes: [UInt8], at path: [String]) {
        state.withLock { state in
            state.blobs[path] = bytes
            state.holds(path)
        }
    }

    /// Forgets everything, the change log included.
    public func removeAll() { state.withLock { $0 = State() } }

    /// Everything the store holds now, change log included, to come back to with `restore(_:)`.
    public struct Snapshot: Sendable {
        fileprivate let state: State
    }

    public func snapshot() -> Snapshot { state.withLock { Snapshot(state: $0) } }

    /// Back to exactly what `snapshot` held; costs a copy only when the store is next changed.
    public func restore(_ snapshot: Snapshot) { state.withLock { $0 = snapshot.state } }

    /// A key no item has had yet.
    public func newKey(prefix: String) -> String {
        state.withLock { state in
            state.generated += 1
            return "\(prefix)-\(state.generated)"
        }
    }

    private static func split(_ path: [String]) -> ([String], String)? {
        guard let key = path.last, path.count >= 2 else { return nil }
        return (Array(path.dropLast()), key)
    }

    private static func log(_ state: inout State, _ collection: [String], _ key: String, _ kind: Change.Kind) {
        let sequence = (state.log.last?.sequence ?? 0) + 1
        state.log.append(Change(sequence: sequence, collection: collection, key: key, kind: kind, date: Date()))
    }
}

extension JSONValue {
    /// `scalarText`, booleans included: query values (`unread=true`) compare with them.
    public var text: String? {
        if case .bool(let value) = self { return value ? "true" : "false" }
        return scalarText
    }
}
