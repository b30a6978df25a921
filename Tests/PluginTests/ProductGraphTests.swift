import Foundation
import TestSupport
import Testing

/// The products as SwiftPM builds them, read from the manifest itself (`swift package dump-package`): a test target
/// that mocks one service depends on that service's mock product and compiles no other service.
@Suite struct ProductGraphTests {
    struct Manifest: Decodable {
        struct Product: Decodable {
            var name: String
            var targets: [String]
        }
        struct Target: Decodable {
            var name: String
            var dependencies: [Dependency]
        }
        /// `{"byName": ["X", condition]}`, `{"target": ["X", condition]}` or `{"product": ["X", "package", ...]}`.
        struct Dependency: Decodable {
            /// A target of this package, by its name; nil for another package's product.
            var localTarget: String?

            enum Kind: String, CodingKey { case byName, target, product }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Kind.self)
                for kind in [Kind.byName, .target] where container.contains(kind) {
                    var entry = try container.nestedUnkeyedContainer(forKey: kind)
                    localTarget = try entry.decode(String.self)
                }
            }
        }
        var products: [Product]
        var targets: [Target]
    }

    static let services = ["Graph", "Inbox", "OneDrive", "OneNote", "Spark"]

    static func manifest() async throws -> Manifest {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A scratch folder of its own: the package's `.build` is locked by the `swift test` running this.
        let dump = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        try #require(dump.ending == .exited(0), "swift package dump-package failed: \(dump.errors)")
        return try JSONDecoder().decode(Manifest.self, from: Data(dump.output.utf8))
    }

    /// Every target `name` needs, itself included.
    static func closure(of name: String, in manifest: Manifest) -> Set<String> {
        let byName = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, $0) })
        var found: Set<String> = []
        var queue = [name]
        while let next = queue.popLast() {
            guard found.insert(next).inserted, let target = byName[next] else { continue }
            queue += target.dependencies.compactMap(\.localTarget)
        }
        return found
    }

    @Test(.timeLimit(.minutes(5))) func eachServiceMockBuildsItsServiceAlone() async throws {
        let manifest = try await Self.manifest()
        for service in Self.services {
            let product = try #require(manifest.products.first { $0.name == service + "Mock" }, "no \(service)Mock")
            let needed = product.targets.reduce(into: Set<String>()) {
                $0.formUnion(Self.closure(of: $1, in: manifest))
            }
            #expect(needed.contains(service) && needed.contains("BinderyMock"), "\(service)Mock: \(needed.sorted())")
            let others = needed.intersection(Self.services).subtracting([service])
            #expect(others.isEmpty, "\(service)Mock also builds \(others.sorted())")
        }
        // The catalogue gathers all five, for the CLI and the conformance suite.
        #expect(Self.closure(of: "BinderyServiceMocks", in: manifest).isSuperset(of: Self.services))
    }
}
