import Testing

@testable import BinderyEmitter

/// Every naming rule as a table: spec name → Swift name.
@Suite struct NamingTests {
    @Test(arguments: [
        ("driveItem", "DriveItem"),
        ("drive_item", "DriveItem"),
        ("security.alert", "SecurityAlert"),
        ("callRecords.session", "CallRecordsSession"),
        ("HTMLContent", "HTMLContent"),
        ("oAuth2PermissionGrant", "OAuth2PermissionGrant"),
        ("x509Certificate", "X509Certificate"),
        ("2dBarcode", "_2dBarcode"),
        ("Date", "DateModel"),
        ("URL", "URLModel"),
        ("", "Unnamed"),
    ])
    func typeNames(spec: String, swift: String) {
        #expect(SwiftNames.typeName(spec) == swift)
    }

    @Test(arguments: [
        ("name", "name"),
        ("@odata.nextLink", "nextLink"),
        ("@microsoft.graph.downloadUrl", "downloadUrl"),
        ("$top", "top"),
        ("Last-Modified", "lastModified"),
        ("cursor_start", "cursorStart"),
        ("ID", "id"),
        ("URLPath", "urlPath"),
        ("class", "`class`"),
        ("default", "`default`"),
        ("protocol", "`protocol`"),
        ("self", "selfValue"),
        ("Type", "type"),
        ("init", "initValue"),
        ("copy", "copy"),
        ("3dModel", "_3dModel"),
        ("D", "d"),
    ])
    func memberNames(spec: String, swift: String) {
        #expect(SwiftNames.memberName(spec) == swift)
    }

    /// `memberName` gives lower camel names back from their bytes, trusting that every keyword it must change that
    /// starts with a lowercase letter is all lowercase letters.
    @Test func keywordsThatStartLowercaseAreAllLowercase() {
        for word in SwiftNames.keywords.union(SwiftNames.unescapableMembers) where word.first?.isLowercase == true {
            #expect(word.allSatisfy { $0.isASCII && $0.isLowercase }, "\(word)")
        }
        #expect(SwiftNames.memberName("default") == "`default`")
        #expect(SwiftNames.memberName("self") == "selfValue")
        #expect(SwiftNames.memberName("defaultValue2") == "defaultValue2")
    }

    @Test func wordsSplitAtCaseChangesAndKeepAcronyms() {
        #expect(SwiftNames.splitWords("ODataType") == ["O", "Data", "Type"])
        #expect(SwiftNames.splitWords("getHTTPResponse") == ["get", "HTTP", "Response"])
        #expect(SwiftNames.splitWords("sha256Hash") == ["sha256", "Hash"])
    }
}

/// Every rule for the names of generated files, which must check out on any file system.
@Suite struct FileNameTests {
    @Test func aNameThatFitsIsTheTypeName() {
        var names = FileNames()
        #expect(names.claim("DriveItem", in: "Models") == "Models/DriveItem.swift")
        #expect(names.claim("GraphClient", in: "") == "GraphClient.swift")
        #expect(names.claim("Größe", in: "Models") == "Models/Größe.swift")
    }

    @Test func namesThatDifferOnlyInCaseOrUnicodeFormGetACounter() {
        var names = FileNames()
        #expect(names.claim("ITEM", in: "Models") == "Models/ITEM.swift")
        #expect(names.claim("Item", in: "Models") == "Models/Item-2.swift")
        #expect(names.claim("item", in: "Models") == "Models/item-3.swift")
        // Build tools put a module's object files in one folder, so another folder is no escape.
        #expect(names.claim("Item", in: "Builders") == "Builders/Item-4.swift")
        // "é" precomposed, then as "e" and a combining accent: one name on APFS.
        #expect(names.claim("Caf\u{E9}", in: "Models") == "Models/Caf\u{E9}.swift")
        #expect(names.claim("Cafe\u{301}", in: "Models") == "Models/Cafe\u{301}-2.swift")
        // Final sigma folds to sigma.
        #expect(names.claim("Λόγος", in: "Models") == "Models/Λόγος.swift")
        #expect(names.claim("Λόγοσ", in: "Models") == "Models/Λόγοσ-2.swift")
    }

    @Test func windowsDeviceNamesAreNeverFileNames() {
        var names = FileNames()
        #expect(names.claim("Aux", in: "Models") == "Models/Aux-2.swift")
        #expect(names.claim("COM1", in: "Models") == "Models/COM1-2.swift")
        #expect(names.claim("Nul", in: "") == "Nul-2.swift")
        #expect(names.claim("Auxiliary", in: "Models") == "Models/Auxiliary.swift")
    }

    @Test func aLongNameKeepsItsBeginningAndEndsWithAHashOfTheWhole() throws {
        var names = FileNames()
        let long = String(repeating: "A", count: 300)
        let first = names.claim(long + "One", in: "Models")
        let second = names.claim(long + "Two", in: "Models")
        for path in [first, second] {
            let file = try #require(path.split(separator: "/").last)
            #expect(file.utf8.count <= FileNames.maximumBytes)
            #expect(file.hasPrefix(String(repeating: "A", count: 100)))
            #expect(file.hasSuffix(".swift"))
        }
        #expect(first != second)
        // The hash is FNV-1a of the whole name's bytes, the same in every run: a regenerated module keeps its names.
        #expect(first.hasSuffix("-ff39852b.swift"), "\(first)")
    }

    @Test func aCounterStillFits() {
        var names = FileNames()
        let long = String(repeating: "B", count: 400)
        let paths = (0..<120).map { _ in names.claim(long, in: "Models") }
        #expect(Set(paths).count == 120)
        #expect(paths.allSatisfy { $0.utf8.count - "Models/".utf8.count <= FileNames.maximumBytes })
        #expect(paths.last?.hasSuffix("-120.swift") == true)
    }

    @Test func aLongNonASCIINameIsCutBetweenScalars() {
        let stem = FileNames.fitted(String(repeating: "日付", count: 100))
        #expect(stem.utf8.count <= FileNames.maximumBytes - ".swift".utf8.count)
        #expect(stem.hasPrefix("日付日付"))
        // One character of a letter and 300 combining marks (600 bytes) is cut inside, never dropped whole.
        let cluster = FileNames.fitted("a" + String(repeating: "\u{301}", count: 300))
        #expect(cluster.unicodeScalars.starts(with: "a\u{301}\u{301}".unicodeScalars))
        #expect(cluster.utf8.count <= FileNames.maximumBytes - ".swift".utf8.count)
    }

    /// Through the whole emitter: schemas named `item`, `ITEM` and a very long name make files that a
    /// case-insensitive file system keeps apart, each under 200 bytes.
    @Test func aModuleOfCollidingNamesChecksOutAnywhere() throws {
        let long = String(repeating: "a", count: 240)
        let spec = try #require(
            readOpenAPI(
                """
                {"openapi": "3.0.3", "info": {"title": "Store", "version": "1"}, "paths": {},
                 "components": {"schemas": {
                   "item": {"type": "object", "properties": {"a": {"type": "string"}}},
                   "ITEM": {"type": "object", "properties": {"b": {"type": "string"}}},
                   "\(long)": {"type": "object", "properties": {"c": {"type": "string"}}}}}}
                """
            ).spec)
        let emitter = Emitter(options: .init(moduleName: "Store", baseURL: "", specDisplayPath: "inline.json"))
        let paths = emitter.emit(spec).files.map(\.path)
        #expect(Set(paths.map { $0.lowercased() }).count == paths.count, "\(paths)")
        #expect(paths.allSatisfy { ($0.split(separator: "/").last?.utf8.count ?? 0) <= FileNames.maximumBytes })
        #expect(paths.contains("Models/ITEM.swift"))
        #expect(paths.contains("Models/Item-2.swift"))
    }

    /// Fixture files too: an operation named with 300 characters gets a fixture whose name fits.
    @Test func fixtureNamesFitToo() throws {
        let long = String(repeating: "list", count: 75)
        let spec = try #require(
            readOpenAPI(
                """
                {"openapi": "3.0.3", "info": {"title": "Store", "version": "1"},
                 "paths": {"/things": {"get": {"operationId": "\(long)", "responses": {"200": {"description": "ok",
                   "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}}}}
                """
            ).spec)
        let paths = FixtureEmitter(spec: spec).emit().map(\.path)
        #expect(!paths.isEmpty)
        for path in paths {
            #expect(path.split(separator: "/").allSatisfy { $0.utf8.count <= 255 }, "\(path)")
        }
        #expect(paths.contains { $0.contains("listlistlist") })
    }
}
