// swift-tools-version: 6.1
// The transport benchmark (`make bench-transport`, run by Benchmarks/transport.sh): Bindery's CurlTransport beside
// Foundation's URLSession and async-http-client, against a local nginx. A package of its own so that
// async-http-client (and SwiftNIO under it) never becomes a dependency of Bindery itself.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, lowercased: the checkout may be called anything.
let bindery = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "TransportBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "transport-bench",
            dependencies: [
                .product(name: "BinderyRuntime", package: bindery),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
