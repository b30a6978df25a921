import BinderyJSON
import BinderyMock
import Foundation

/// A OneNote notebook or section group to seed into the mock: its sections (by name) and the groups inside it.
public struct OneNoteMockFolder: Sendable {
    public var id: String
    public var name: String
    public var sections: [String]
    public var groups: [OneNoteMockFolder]

    public init(id: String, name: String, sections: [String] = [], groups: [OneNoteMockFolder] = []) {
        self.id = id
        self.name = name
        self.sections = sections
        self.groups = groups
    }

    /// The id the seeded section at `index` gets: `<folder id>-s<index + 1>`.
    public func sectionID(_ index: Int) -> String { "\(id)-s\(index + 1)" }
}

extension MockServer {
    /// Seeds notebooks, section groups to any depth and sections where both ways of reading them look:
    /// level by level at the canonical URLs (`notebooks/{id}/sections`, `sectionGroups/{id}/sectionGroups`), as
    /// the picker reads them, and nested below each notebook, as `$expand` with `$levels` reads them.
    /// `legacy` writes the onenote.com API's field names (`name`, `createdTime`, a plain `lastModifiedBy`).
    public func seedOneNote(_ notebooks: [OneNoteMockFolder], legacy: Bool = false) {
        for notebook in notebooks {
            store.insert(folderObject(notebook, legacy: legacy), into: ["notebooks"], key: notebook.id, logged: false)
            seedContents(
                of: notebook, canonical: ["notebooks", notebook.id], nested: ["notebooks", notebook.id], legacy)
        }
    }

    private func seedContents(of folder: OneNoteMockFolder, canonical: [String], nested: [String], _ legacy: Bool) {
        for place in [canonical, nested] {
            store.createCollection(at: place + ["sections"])
            store.createCollection(at: place + ["sectionGroups"])
        }
        for (index, name) in folder.sections.enumerated() {
            let id = folder.sectionID(index)
            let section = sectionObject(name, id: id, legacy: legacy)
            for place in Set([canonical, nested]) {
                store.insert(section, into: place + ["sections"], key: id, logged: false)
            }
        }
        for group in folder.groups {
            let object = folderObject(group, legacy: legacy)
            for place in Set([canonical, nested]) {
                store.insert(object, into: place + ["sectionGroups"], key: group.id, logged: false)
            }
            seedContents(
                of: group, canonical: ["sectionGroups", group.id], nested: nested + ["sectionGroups", group.id], legacy)
        }
    }

    private func folderObject(_ folder: OneNoteMockFolder, legacy: Bool) -> JSONObject {
        [legacy ? "name" : "displayName": .string(folder.name)]
    }

    private func sectionObject(_ name: String, id: String, legacy: Bool) -> JSONObject {
        let pagesURL = JSONValue.string(serviceURL.appendingPathComponent("sections/\(id)/pages").absoluteString)
        if legacy {
            return [
                "name": .string(name), "createdTime": "2014-04-29T23:49:49.003Z",
                "lastModifiedTime": "2014-05-07T17:11:56.533Z", "lastModifiedBy": "Alex Darrow", "pagesUrl": pagesURL,
            ]
        }
        return [
            "displayName": .string(name), "createdDateTime": "2026-10-01T08:00:00Z",
            "lastModifiedDateTime": "2026-11-21T17:45:00Z",
            "lastModifiedBy": ["user": ["id": "u1", "displayName": "Adele Vance"]], "pagesUrl": pagesURL,
        ]
    }
}
