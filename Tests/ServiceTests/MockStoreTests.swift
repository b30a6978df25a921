import BinderyJSON
import BinderyMock
import Testing

/// The mock's store on its own: keys, replacement and removal below a path, which the delta answers read.
@Suite struct MockStoreTests {
    @Test func insertingGivesNewKeysAndReplacesByKey() {
        let store = MockStore()
        let first = store.insert(["name": "a"], into: ["items"])
        let second = store.insert(["name": "b"], into: ["items"])
        #expect(first.key != second.key)
        // An explicit key replaces; an `id` that is taken does not (a new key is made).
        store.insert(["name": "a2"], into: ["items"], key: first.key)
        let clash = store.insert(["id": .string(second.key), "name": "c"], into: ["items"])
        #expect(clash.key != second.key)
        #expect(store.keys(in: ["items"]) == [first.key, second.key, clash.key])
        #expect(store.object(at: ["items", first.key])?["name"] == "a2")
        #expect(store.changes(after: 0, below: ["items"]).map(\.kind) == [.created, .created, .updated, .created])
    }

    @Test func removingAnItemRemovesWhatLiesBelowItAndNothingElse() {
        let store = MockStore()
        let folder = store.insert(["name": "folder"], into: ["root", "children"]).key
        let file = store.insert(["name": "file"], into: ["root", "children"]).key
        let inner = store.insert(["name": "inner"], into: ["root", "children", folder, "children"]).key
        store.setBlob([1, 2, 3], at: ["root", "children", folder, "children", inner, "content"])
        store.setBlob([4], at: ["root", "children", file, "content"])

        #expect(store.remove(at: ["root", "children", folder]))
        #expect(store.keys(in: ["root", "children"]) == [file])
        #expect(store.object(at: ["root", "children", folder, "children", inner]) == nil)
        #expect(!store.isCollection(["root", "children", folder, "children"]))
        #expect(store.blob(at: ["root", "children", folder, "children", inner, "content"]) == nil)
        #expect(store.blob(at: ["root", "children", file, "content"]) == [4])
        #expect(!store.remove(at: ["root", "children", folder]))

        // A flat item: the same answer without anything below it.
        #expect(store.remove(at: ["root", "children", file]))
        #expect(store.keys(in: ["root", "children"]).isEmpty)
        #expect(store.blob(at: ["root", "children", file, "content"]) == nil)
        #expect(store.changes(after: 0, below: ["root"]).filter { $0.kind == .deleted }.map(\.key) == [folder, file])
    }

    @Test func inAFlatStoreRemovingAnItemStillClearsItsOwnPath() {
        // Nothing is deeper than the item, so nothing below it is searched for; what sits at its own path goes.
        let store = MockStore()
        let key = store.insert(["name": "a"], into: ["items"]).key
        store.createCollection(at: ["items", key])
        store.setBlob([9], at: ["items", key])
        #expect(store.remove(at: ["items", key]))
        #expect(!store.isCollection(["items", key]))
        #expect(store.blob(at: ["items", key]) == nil)
        #expect(store.keys(in: ["items"]).isEmpty)
    }
}
