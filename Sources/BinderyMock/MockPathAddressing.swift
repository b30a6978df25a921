import BinderyJSON
import Foundation

/// OneDrive's path addressing: `/me/drive/root:/Docs/a.txt:/createUploadSession` names an item by the names on
/// the way to it from `root` (or from any item, `/items/{id}:/a.txt:`), where the route table only knows keys.
struct PathAddress: Equatable {
    /// The item the names start from (`["me", "drive", "root"]`), as addressed.
    var base: [String]
    /// The names below it, the last one the addressed item's (`["Docs", "a.txt"]`).
    var names: [String]
    /// What follows the address (`["createUploadSession"]`, `["content"]`, or nothing).
    var rest: [String]

    /// Reads `…/base:/a/b:/rest`, where the client sent the names as segments of their own: `base:`, `a`, `b:`.
    /// Nil when the path has no address.
    init?(_ path: [String]) {
        guard let start = path.firstIndex(where: { $0.count > 1 && $0.hasSuffix(":") }),
            let end = path[(start + 1)...].firstIndex(where: { $0.hasSuffix(":") })
        else { return nil }
        base = Array(path[..<start]) + [String(path[start].dropLast())]
        names = path[(start + 1)...end].map { String($0) }
        names[names.count - 1].removeLast()
        rest = Array(path[(end + 1)...])
        guard names.allSatisfy({ !$0.isEmpty }) else { return nil }
    }

    /// Where the address leads in the store: the folder that holds (or would hold) the item, the item's name, and
    /// the item's own path when it exists. Nil when a folder on the way does not exist, unless `creatingFolders`,
    /// when it is made (an upload by path makes the folders it names).
    func resolve(in store: MockStore, creatingFolders: Bool = false) -> (
        parent: [String], name: String, item: [String]?
    )? {
        var current = store.locate(base)
        for name in names.dropLast() {
            if let key = Self.child(named: name, of: current, in: store) {
                current = current + ["children", key]
                continue
            }
            guard creatingFolders else { return nil }
            let folder = store.insert(
                ["name": .string(name), "folder": ["childCount": 0]], into: current + ["children"])
            current = current + ["children", folder.key]
        }
        let name = names[names.count - 1]
        let item = Self.child(named: name, of: current, in: store).map { current + ["children", $0] }
        return (current, name, item)
    }

    /// The key of the child called `name` (OneDrive compares names without regard to case).
    static func child(named name: String, of item: [String], in store: MockStore) -> String? {
        store.items(in: item + ["children"]).first {
            $0.object["name"]?.stringValue?.lowercased() == name.lowercased()
        }?.key
    }
}
