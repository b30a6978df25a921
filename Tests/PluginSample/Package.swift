// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A package that uses Bindery's SwiftPM plugins, built by Tests/PluginTests (which points a copy of it at the
// repository with an absolute path). Library and Weather are generated at build time by the BinderyGenerator
// plugin; Tasks is checked in under Generated/ and regenerated with `swift package bindery-gen --target Tasks`.

/// The Bindery repository. A path dependency is known by its folder's name, whatever the checkout is called.
let bindery = "../.."
let binderyPackage = URL(fileURLWithPath: bindery, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

let runtime = Target.Dependency.product(name: "BinderyRuntime", package: binderyPackage)

let package = Package(
    name: "PluginSample",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: bindery)],
    targets: [
        .target(
            name: "Library", dependencies: [runtime],
            plugins: [.plugin(name: "BinderyGenerator", package: binderyPackage)]),
        .target(
            name: "Weather", dependencies: [runtime],
            plugins: [.plugin(name: "BinderyGenerator", package: binderyPackage)]),
        // The command plugin reads the spec and bindery.json from the folder; the build needs only Generated/.
        .target(name: "Tasks", dependencies: [runtime], exclude: ["tasks.json", "bindery.json"]),
        .executableTarget(name: "plugin-sample", dependencies: ["Library", "Weather", "Tasks"]),
    ],
    swiftLanguageModes: [.v6]
)
