import Foundation
import PackagePlugin

/// What a target gives `bindery-gen`: `bindery.json` at the top of the target's folder and the one spec beside it.
///
/// Both plugins find their inputs here (this file is linked into each plugin's folder: a plugin cannot depend
/// on a library). The folder is read directly rather than through the target's source files, so a target may
/// exclude the spec and bindery.json in its manifest.
struct BinderyInputs {
    let spec: URL
    let config: URL

    /// The spec: OData CSDL (.xml, .csdl, .edmx, including `name.csdl.xml`) or OpenAPI (.json other than bindery.json).
    static let specExtensions: Set<String> = ["xml", "csdl", "edmx", "json"]

    /// The inputs in a target's folder; nil when it has no bindery.json, an error when the spec is missing or ambiguous.
    static func find(in target: Target) throws -> BinderyInputs? {
        let folder = target.directoryURL
        let config = folder.appending(component: "bindery.json")
        guard FileManager.default.fileExists(atPath: config.path) else { return nil }
        let specs = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0 != "bindery.json" && specExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        guard let spec = specs.first, specs.count == 1 else {
            throw PluginFailure(
                specs.isEmpty
                    ? "target '\(target.name)': \(folder.path) has bindery.json but no spec (.xml, .csdl, .edmx or .json) beside it"
                    : "target '\(target.name)': \(folder.path) has more than one spec beside bindery.json: \(specs.joined(separator: ", "))"
            )
        }
        return BinderyInputs(spec: folder.appending(component: spec), config: config)
    }
}

/// A plugin error that SwiftPM prints as it is.
struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
