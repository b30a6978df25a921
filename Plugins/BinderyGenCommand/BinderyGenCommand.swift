import Foundation
import PackagePlugin

/// `swift package bindery-gen [--target NAME]... [bindery-gen options]`: regenerates checked-in bindings.
///
/// Each named target gets its spec's Swift in `Generated/` inside its folder, in the layout its bindery.json asks
/// for. With no `--target`, every target that has a bindery.json and already a `Generated/` folder is regenerated,
/// so targets that the build-tool plugin generates at build time are left alone. Other arguments go to
/// `bindery-gen` as they are: `--check` fails when the checked-in code is out of date instead of writing.
@main
struct BinderyGenCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let passedOn = extractor.remainingArguments
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let tool = try context.tool(named: "bindery-gen")
        // Paths relative to the package, run from its folder: the generated headers name the spec the same way on
        // every machine, so the checked-in files do not change with the checkout's location.
        let root = context.package.directoryURL.path + "/"
        func relative(_ url: URL) -> String {
            url.path.hasPrefix(root) ? String(url.path.dropFirst(root.count)) : url.path
        }

        var generated = 0
        for target in targets {
            let output = target.directoryURL.appending(component: "Generated")
            guard let inputs = try BinderyInputs.find(in: target) else {
                if names.contains(target.name) {
                    throw PluginFailure("target '\(target.name)': \(target.directoryURL.path) has no bindery.json")
                }
                continue
            }
            if names.isEmpty, !FileManager.default.fileExists(atPath: output.path) { continue }
            let process = Process()
            process.executableURL = tool.url
            let note = passedOn.contains("--regenerate-note") ? [] : ["--regenerate-note", BinderyInputs.commandNote]
            process.arguments = [relative(inputs.spec), "--output", relative(output)] + note + passedOn
            process.currentDirectoryURL = context.package.directoryURL
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw PluginFailure(
                    passedOn.contains("--check")
                        ? "target '\(target.name)' is out of date: run `swift package --allow-writing-to-package-directory bindery-gen --target \(target.name)`"
                        : "bindery-gen failed for target '\(target.name)' (exit status \(process.terminationStatus))")
            }
            generated += 1
        }
        if generated == 0 {
            throw PluginFailure(
                "no target of \(context.package.displayName) has a bindery.json and a Generated/ folder: name one with --target"
            )
        }
    }
}
