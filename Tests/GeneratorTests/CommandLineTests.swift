import BinderySpec
import Foundation
import TestSupport
import Testing

/// `bindery-gen` as a user runs it: a broken spec prints `file:line:column: error:`, exits non-zero and
/// leaves the output folder exactly as it was; a good run writes only what changed.
@Suite struct CommandLineTests {
    /// The built `bindery-gen`, beside the test bundle in the build folder.
    static let tool: URL? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("bindery-gen")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> (
        status: Int32, output: String
    ) {
        guard let tool else { throw TestFailure("bindery-gen is not built beside the tests") }
        return try await offThePool {
            let process = Process()
            process.executableURL = tool
            process.arguments = arguments
            if let environment { process.environment = environment }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let goodSpec = """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="t" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="thing"><Key><PropertyRef Name="id"/></Key><Property Name="id" Type="Edm.String"/></EntityType>
              <EntityContainer Name="c"><EntitySet Name="things" EntityType="t.thing"/></EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    @Test func aBrokenSpecWritesNothingAndSaysWhere() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("Generated")
        let spec = folder.appendingPathComponent("thing.xml")
        try Data(Self.goodSpec.utf8).write(to: spec)
        let first = try await Self.run([spec.path, "--output", output.path, "--module", "Things"])
        #expect(first.status == 0, "\(first.output)")
        let before = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("Models").path)
        #expect(before == ["Thing.swift"])
        let thing = output.appendingPathComponent("Models/Thing.swift")
        let modified = try FileManager.default.attributesOfItem(atPath: thing.path)[.modificationDate] as? Date

        // The same spec again: nothing changes, not even a timestamp.
        let again = try await Self.run([spec.path, "--output", output.path, "--module", "Things"])
        #expect(again.output.contains("0 changed"))
        #expect(try FileManager.default.attributesOfItem(atPath: thing.path)[.modificationDate] as? Date == modified)

        // Break it: an unknown type on line 4.
        try Data(Self.goodSpec.replacingOccurrences(of: "Type=\"Edm.String\"", with: "Type=\"t.missing\"").utf8).write(
            to: spec)
        let broken = try await Self.run([spec.path, "--output", output.path, "--module", "Things"])
        #expect(broken.status != 0)
        #expect(broken.output.contains("\(spec.path):4:"))
        #expect(broken.output.contains("error:"))
        #expect(broken.output.contains("t.missing"))
        #expect(try String(contentsOf: thing, encoding: .utf8).contains("public typealias Thing = Model<ThingFields>"))
        #expect(try FileManager.default.attributesOfItem(atPath: thing.path)[.modificationDate] as? Date == modified)
    }

    @Test
    func checkReportsDriftWithoutWriting() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("Generated")
        let spec = folder.appendingPathComponent("thing.xml")
        try Data(Self.goodSpec.utf8).write(to: spec)
        #expect(try await Self.run([spec.path, "--output", output.path, "--module", "Things"]).status == 0)
        #expect(try await Self.run([spec.path, "--output", output.path, "--module", "Things", "--check"]).status == 0)
        // A file someone wrote is not drift; a generated one the spec no longer makes is.
        try Data("// mine\n".utf8).write(to: output.appendingPathComponent("Models/Mine.swift"))
        #expect(try await Self.run([spec.path, "--output", output.path, "--module", "Things", "--check"]).status == 0)
        let stray = output.appendingPathComponent("Models/Stray.swift")
        try Data("// DO NOT EDIT. Generated by bindery-gen from old.xml.\n".utf8).write(to: stray)
        let drift = try await Self.run([spec.path, "--output", output.path, "--module", "Things", "--check"])
        #expect(drift.status != 0)
        #expect(drift.output.contains("- \(output.path)/Models/Stray.swift"))
        #expect(!drift.output.contains("Mine.swift"))
        #expect(FileManager.default.fileExists(atPath: stray.path))
    }
}
