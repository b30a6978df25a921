#if os(Linux)  // It finds the built modules through `/proc/self/exe`; CI runs on Linux.
    import Foundation
    import TestSupport
    import Testing

    /// A typed selection's promise is a compile-time one: a field that was not selected has no name to be read by.
    /// Each case compiles a few lines against the BinderyRuntime module this test run built, with the toolchain's
    /// `swiftc`; the same lines reading only selected fields must compile, or the failures prove nothing.
    @Suite struct TypedSelectionCompileTests {
        /// A model of three fields, and requests for it, as generated code declares them.
        static let prelude = """
            @_spi(Generated) import BinderyRuntime

            struct NoteFields: FieldSet {
                static let schema = ModelSchema("test.note", fields: NoteFields())
                let title = Field<String>("title")
                let pages = Field<Int>("pages")
                let archived = Field<Bool>("archived")
            }
            typealias Note = Model<NoteFields>

            func read(_ notes: CollectionRequest<Note>, _ note: EntityRequest<Note>) async throws {

            """

        /// swiftc's status and diagnostics for `body` inside `read(_:_:)`.
        static func typecheck(_ body: String) async throws -> (status: Int32, errors: String) {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            // The modules sit beside the test binary (`.build/<triple>/debug/Modules`).
            let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let modules = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("Modules")
            try #require(
                FileManager.default.fileExists(
                    atPath: modules.appendingPathComponent("BinderyRuntime.swiftmodule").path),
                "no BinderyRuntime module beside the test binary, in \(modules.path)")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("selection-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let source = folder.appendingPathComponent("Read.swift")
            try (prelude + body + "\n}\n").write(to: source, atomically: true, encoding: .utf8)
            let run = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path,
                    "-I", root.appendingPathComponent("Sources/CCurl").path, source.path,
                ])
            return (run.ending.status, run.errors + run.output)
        }

        @Test func readingTheSelectedFieldsCompiles() async throws {
            let result = try await Self.typecheck(
                """
                    for try await (title, pages) in notes.select(\\.title, \\.pages).all() {
                        let _: String? = title
                        let _: Int? = pages
                    }
                    let page = try await notes.select(\\.archived).filter("pages gt 2").top(5).get()
                    let _: Bool? = page.value.first?.values
                    let (title, archived) = try await note.select(\\.title, \\.archived).get().values
                    _ = (title, archived)
                    for try await item in notes.select(\\.title, \\.archived).items() where !item.isDeletedInDelta {
                        let _: String? = item.values.0
                        let _: String? = item.id
                    }
                """)
            #expect(result.status == 0, "\(result.errors)")
        }

        @Test(arguments: [
            // A third name for a row of two.
            (
                "for try await (title, pages, archived) in notes.select(\\.title, \\.pages).all() { _ = (title, pages, archived) }",
                "pattern cannot match values of type '(String?, Int?)'"
            ),
            // A member of the model on a selected item.
            ("let item = try await note.select(\\.title).get(); _ = item.archived", "has no member 'archived'"),
            // A member of the model on a row.
            (
                "let row = try await note.select(\\.title, \\.pages).get().values; _ = row.archived",
                "has no member 'archived'"
            ),
            // Widening a typed selection with an untyped one.
            (
                "let typed = notes.select(\\.title); _ = typed.select(\"archived\")",
                "Optional<String>>') has no member 'select'"
            ),
        ])
        func readingAnUnselectedFieldDoesNotCompile(_ body: String, _ expected: String) async throws {
            let result = try await Self.typecheck("    " + body)
            #expect(result.status != 0, "compiled, but it reads a field that was not selected: \(body)")
            // The error is the body's, not the prelude's: the prelude compiles (the test above).
            let line = Self.prelude.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(result.errors.contains("Read.swift:\(line):"), "\(result.errors)")
            #expect(result.errors.contains(expected), "\(result.errors)")
        }
    }
#endif
