// swift-tools-version: 6.2
import Foundation
import PackageDescription

// A package that uses Bindery's SwiftPM plugins, built by Tests/PluginTests (which points a copy of it at the
// repository with an absolute path). Library and Weather are generated at build time by the BinderyGenerator
// plugin; Tasks is checked in under Generated/ and regenerated with `swift package bindery-gen --target Tasks`;
// GraphMail and GraphFiles are the README's recipes for a part of Microsoft Graph. Every target builds as an app's
// code does with Swift 6.2's approachable concurrency: main-actor isolation by default, nonisolated async functions
// that stay on their caller's actor, isolated conformances inferred. Generated and handwritten code must build so,
// with no warnings.

/// The Bindery repository. A path dependency is known by its folder's name, whatever the checkout is called.
let bindery = "../.."
let binderyPackage = URL(fileURLWithPath: bindery, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent

let runtime = Target.Dependency.product(name: "BinderyRuntime", package: binderyPackage)

let approachable: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

/// A target whose Swift the build-tool plugin generates from the spec and bindery.json in its folder.
func generated(_ name: String) -> Target {
    .target(
        name: name, dependencies: [runtime], swiftSettings: approachable,
        plugins: [.plugin(name: "BinderyGenerator", package: binderyPackage)])
}

let package = Package(
    name: "PluginSample",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(path: bindery)],
    targets: [
        generated("Library"),
        generated("Weather"),
        // The command plugin reads the spec and bindery.json from the folder; the build needs only Generated/.
        .target(
            name: "Tasks", dependencies: [runtime], exclude: ["tasks.json", "bindery.json"], swiftSettings: approachable
        ),
        // The README's two recipes for a part of Microsoft Graph: an `include` list in bindery.json beside Graph's
        // full spec (which the test copies in), generated at build time.
        generated("GraphMail"),
        generated("GraphFiles"),
        // A service module of Bindery's own beside them, and the mocks the article "Using Bindery in an app" tests with.
        .executableTarget(
            name: "plugin-sample",
            dependencies: [
                "Library", "Weather", "Tasks", "GraphMail", "GraphFiles",
                .product(name: "OneDrive", package: binderyPackage),
                .product(name: "OneDriveMock", package: binderyPackage),
                .product(name: "BinderyMock", package: binderyPackage),
            ],
            swiftSettings: approachable),
    ],
    swiftLanguageModes: [.v6]
)
