// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A package that uses Bindery's SwiftPM plugins, built by Tests/PluginTests (which points a copy of it at the
// repository with an absolute path). Library and Weather are generated at build time by the BinderyGenerator
// plugin; Tasks is checked in under Generated/ and regenerated with `swift package bindery-gen --target Tasks`;
// GraphMail and GraphFiles are the README's recipes for a part of Microsoft Graph.

/// The Bindery repository. A path dependency is known by its folder's name, whatever the checkout is called.
let bindery = "../.."
let binderyPackage = URL(fileURLWithPath: bindery, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

let runtime = Target.Dependency.product(name: "BinderyRuntime", package: binderyPackage)

/// A target whose Swift the build-tool plugin generates from the spec and bindery.json in its folder.
func generated(_ name: String) -> Target {
    .target(name: name, dependencies: [runtime], plugins: [.plugin(name: "BinderyGenerator", package: binderyPackage)])
}

let package = Package(
    name: "PluginSample",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: bindery)],
    targets: [
        generated("Library"),
        generated("Weather"),
        // The command plugin reads the spec and bindery.json from the folder; the build needs only Generated/.
        .target(name: "Tasks", dependencies: [runtime], exclude: ["tasks.json", "bindery.json"]),
        // The README's two recipes for a part of Microsoft Graph: an `include` list in bindery.json beside Graph's
        // full spec (which the test copies in), generated at build time.
        generated("GraphMail"),
        generated("GraphFiles"),
        .executableTarget(
            name: "plugin-sample", dependencies: ["Library", "Weather", "Tasks", "GraphMail", "GraphFiles"]),
    ],
    swiftLanguageModes: [.v6]
)
