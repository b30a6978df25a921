import Foundation
import Testing

/// `bindery demo` and `bindery validate` as a user runs them: a process, its exit status and what it prints.
@Suite struct CommandProcessTests {
    /// Runs `bindery` with `arguments`: its exit status, standard output and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let tool = try #require(MockCommandTests.tool, "bindery must be built beside the tests")
        return try await runToEnd(tool, arguments)
    }

    /// A file holding `text`, removed by the caller.
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("validate-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The README's first command: every step of the walkthrough, against the embedded mock servers, exit 0 and
    /// nothing on standard error.
    @Test(.timeLimit(.minutes(5))) func theDemoRunsEveryStep() async throws {
        let demo = try await Self.run(["demo"])
        #expect(demo.status == 0, "\(demo.output)\n\(demo.errors)")
        for step in [
            "== Microsoft identity", "== Graph: sendMail", "== OneDrive", "== OneNote:", "== OneNote picker",
            "== Spark", "== Inbox:", "== Inbox offline", "Done: five services, one runtime, every answer typed.",
        ] {
            #expect(demo.output.contains(step), "the demo did not reach \(step)")
        }
        #expect(demo.output.contains("sent \"Hello from Bindery\""))
        #expect(demo.errors.isEmpty, "\(demo.errors)")
    }

    @Test func validateChecksAnAnswerAndSaysWhatFails() async throws {
        let good = try Self.file(#"{"id":"item-1","name":"a.txt","size":12,"unknownToTheSpec":true}"#)
        let bad = try Self.file(#"{"id":"item-1","size":"twelve"}"#)
        let empty = try Self.file("")
        let body = try Self.file(#"{"unexpected":1}"#)
        defer { for url in [good, bad, empty, body] { try? FileManager.default.removeItem(at: url) } }
        let url = "https://graph.microsoft.com/v1.0/me/drive/items/item-1"

        let valid = try await Self.run(["validate", "onedrive", "GET", url, good.path])
        #expect(valid.status == 0, "\(valid.output)\(valid.errors)")
        #expect(valid.output.contains("unknownToTheSpec"), "fields the spec does not declare are listed")

        let invalid = try await Self.run(["validate", "onedrive", "GET", url, bad.path])
        #expect(invalid.status == 1)
        #expect(invalid.output.contains("size"), "\(invalid.output)")

        // An action that answers no body: an empty answer is right, a body is not.
        let sendMail = "https://graph.microsoft.com/v1.0/me/sendMail"
        let sent = try await Self.run(["validate", "graph", "POST", sendMail, empty.path])
        #expect(sent.status == 0, "\(sent.output)\(sent.errors)")
        #expect(sent.output.contains("type: no content"))
        let unexpected = try await Self.run(["validate", "graph", "POST", sendMail, body.path])
        #expect(unexpected.status == 1)
        #expect(unexpected.output.contains("answers no content"))

        // A DELETE answers no content too; an empty file is an empty answer, not one that cannot be read.
        let deleted = try await Self.run(["validate", "onedrive", "DELETE", url, empty.path])
        #expect(deleted.status == 0, "\(deleted.output)\(deleted.errors)")
        #expect(deleted.output.contains("checked as: DELETE of a microsoft.graph.driveItem"))
        let legacyError = try Self.file(#"{"error":{"code":"itemNotFound","message":"Item does not exist"}}"#)
        defer { try? FileManager.default.removeItem(at: legacyError) }
        let notFound = try await Self.run(["validate", "onedrive", "--type", "oneDrive.error", legacyError.path])
        #expect(notFound.status == 0, "\(notFound.output)\(notFound.errors)")
        #expect(notFound.output.contains("itemNotFound"), "\(notFound.output)")
        let nothingToRead = try await Self.run(["validate", "onedrive", "GET", url, empty.path])
        #expect(nothingToRead.status == 1, "\(nothingToRead.output)\(nothingToRead.errors)")
        #expect(!nothingToRead.errors.contains("cannot read"), "\(nothingToRead.errors)")

        let unknown = try await Self.run([
            "validate", "onedrive", "GET", "https://graph.microsoft.com/v1.0/nowhere", good.path,
        ])
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("has no operation for GET"), "\(unknown.errors)")
    }

    /// `$batch`: each step against its request's operation, given the batch request that was sent.
    @Test func validateChecksABatchAnswerStepByStep() async throws {
        let request = try Self.file(
            #"{"requests":[{"id":"a","method":"GET","url":"/me"},{"id":"b","method":"POST","url":"/me/sendMail"}]}"#)
        let answer = try Self.file(
            #"{"responses":[{"id":"a","status":200,"body":{"id":"u1","displayName":"Ann"}},{"id":"b","status":202}]}"#)
        let wrong = try Self.file(#"{"responses":[{"id":"a","status":200,"body":{"id":"u1","accountEnabled":"yes"}}]}"#)
        defer { for url in [request, answer, wrong] { try? FileManager.default.removeItem(at: url) } }
        let batch = "https://graph.microsoft.com/v1.0/$batch"

        let valid = try await Self.run([
            "validate", "graph", "POST", batch, answer.path, "--batch-request", request.path,
        ])
        #expect(valid.status == 0, "\(valid.output)\(valid.errors)")
        #expect(valid.output.contains("checked as: $batch (2 steps)"), "\(valid.output)")
        #expect(valid.output.contains("step b: 202 for POST /me/sendMail"), "\(valid.output)")
        let invalid = try await Self.run([
            "validate", "graph", "POST", batch, wrong.path, "--batch-request", request.path,
        ])
        #expect(invalid.status == 1)
        #expect(invalid.output.contains("accountEnabled"), "\(invalid.output)")
    }
}
