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

    /// The spec: OData CSDL (.xml, .csdl, .edmx, including `name.csdl.xml`) or OpenAPI (.json other than
    /// bindery.json, .yaml, .yml).
    static let specExtensions: Set<String> = ["xml", "csdl", "edmx", "json", "yaml", "yml"]

    /// The generated files' header line on how they are made: by the build plugin on every build.
    static let buildNote =
        "Made on every build by the BinderyGenerator plugin; change the spec or bindery.json instead."
    /// The same for files the command plugin writes into the target's `Generated/` folder.
    static let commandNote = "Regenerate with `swift package --allow-writing-to-package-directory bindery-gen`."

    /// The spec's path relative to the package, as generated headers show it: the same on every machine.
    func specName(in package: Package) -> String {
        let root = package.directoryURL.path + "/"
        return spec.path.hasPrefix(root) ? String(spec.path.dropFirst(root.count)) : spec.lastPathComponent
    }

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
                    ? "target '\(target.name)': \(folder.path) has bindery.json but no spec (.xml, .csdl, .edmx, .json, .yaml or .yml) beside it"
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
