import Foundation
import Testing

/// The generator's output depends on the spec alone. Swift seeds its hashing per process, so a Set or Dictionary
/// iterated on the way to the output would show up only between processes: each spec is generated twice, by two
/// runs of `bindery-gen` with random hash seeds, and the two trees must be byte for byte the same. `Specs/Graph` is
/// all of Microsoft Graph v1.0: thousands of names in hashed collections (symbols, collisions, routes, fixtures).
@Suite struct DeterminismTests {
    /// Every checked-in spec, with its configuration, as `make gen` runs it (fixtures and calls included).
    static let checkedInSpecs: [String] = {
        let root = GoldenTests.packageRoot.path
        let services = ((try? FileManager.default.contentsOfDirectory(atPath: root + "/Specs")) ?? []).sorted()
            .compactMap { service in
                ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/Specs/\(service)")) ?? [])
                    .first { $0.hasPrefix(service + ".") }
                    .map { "Specs/\(service)/\($0)" }
            }
        return services + [
            "Tests/Golden/OData/spec.csdl.xml", "Tests/Golden/OpenAPI/spec.json", "Tests/Golden/Shapes/spec.yaml",
        ]
    }()

    /// Runs `bindery-gen` on `spec` into a new folder; the child gets a random hash seed.
    static func generate(_ spec: String) async throws -> URL {
        let folder = try CommandLineTests.temporaryFolder()
        var arguments = [spec, "--output", folder.appendingPathComponent("Sources").path]
        arguments += ["--fixtures", folder.appendingPathComponent("Fixtures").path]
        arguments += ["--calls", folder.appendingPathComponent("Calls").path]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = nil
        let (status, output) = try await CommandLineTests.run(arguments, environment: environment)
        #expect(status == 0, "\(output)")
        return folder
    }

    /// Every file under `folder`, by relative path.
    static func tree(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[String(url.path.dropFirst(folder.path.count))] = try Data(contentsOf: url)
        }
        return files
    }

    static func expectSameOutputTwice(_ spec: String) async throws {
        let first = try await generate(spec)
        let second = try await generate(spec)
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let (one, two) = (try tree(first), try tree(second))
        #expect(one.count > 3)
        #expect(one.keys.sorted() == two.keys.sorted(), "\(spec): the two runs wrote different files")
        for (path, contents) in one where two[path] != contents {
            Issue.record("\(spec): \(path) differs between two runs")
        }
    }

    @Test(arguments: checkedInSpecs)
    func checkedInSpecsGenerateTheSameTwice(spec: String) async throws {
        try #require(CommandLineTests.tool != nil, "bindery-gen must be built beside the tests")
        try await Self.expectSameOutputTwice(GoldenTests.packageRoot.appendingPathComponent(spec).path)
    }
}
