import Foundation
import PackagePlugin

/// Generates a target's bindings at build time from the spec and bindery.json at the top of its folder.
///
/// A build command must name its outputs before it runs, but the generator's usual layouts name files after
/// the spec's types. So the plugin asks `bindery-gen` for the numbered layout: always `fileCount` files,
/// `BinderyGenerated1.swift` and on, whatever the spec holds (files past the end of the spec declare nothing).
/// The spec and bindery.json are the command's inputs, so editing either regenerates; so does a new generator.
@main
struct BinderyGenerator: BuildToolPlugin {
    /// Enough files for the compiler to work on a large spec in parallel; few enough to cost nothing for a small one.
    static let fileCount = 8

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let inputs = try BinderyInputs.find(in: target) else {
            throw PluginFailure(
                "target '\(target.name)' uses the BinderyGenerator plugin but \(target.directoryURL.path) has no bindery.json"
            )
        }
        // Inside the plugin's work folder, where the generator may also stage its files beside the output.
        let output = context.pluginWorkDirectoryURL.appending(component: "Generated")
        return [
            .buildCommand(
                displayName: "Generating \(target.name) from \(inputs.spec.lastPathComponent) with bindery-gen",
                executable: try context.tool(named: "bindery-gen").url,
                arguments: [
                    inputs.spec.path, "--output", output.path, "--numbered-files", "\(Self.fileCount)",
                    // Headers name the spec by its place in the package, never by this machine's absolute path.
                    "--spec-name", inputs.specName(in: context.package), "--regenerate-note", BinderyInputs.buildNote,
                ],
                inputFiles: [inputs.spec, inputs.config],
                outputFiles: (1...Self.fileCount).map { output.appending(component: "BinderyGenerated\($0).swift") })
        ]
    }
}
