import BinderyReaders
import BinderySpec
import Foundation
import Testing

/// `bindery.json` is typed: every setting is read into its Swift type, and anything the generator would otherwise
/// ignore or misread is an error at its `file:line:column`.
@Suite struct ConfigReaderTests {
    static func read(_ text: String) -> (config: GeneratorConfig?, diagnostics: [String]) {
        let (config, diagnostics) = ConfigReader.read(bytes: Array(text.utf8), path: "bindery.json")
        return (config, diagnostics.map(\.description))
    }

    @Test func readsEverySetting() throws {
        let (config, diagnostics) = Self.read(
            """
            {
              "moduleName": "Files",
              "baseURL": "https://example.com/v1",
              "alternativeBaseURLs": {"consumer": "https://consumer.example.com/v1"},
              "clientName": "FilesAPI",
              "accessLevel": "internal",
              "include": ["files.*"],
              "exclude": ["files.secret"],
              "nameOverrides": {"files.item": "FileItem", "files.item/size": "byteCount"},
              "layout": "grouped",
              "fileCount": 4,
              "fieldTables": "tuples",
              "referenceURL": "https://example.com/docs/{name}",
              "descriptions": "metadata.xml"
            }
            """)
        #expect(diagnostics == [])
        #expect(
            config
                == GeneratorConfig(
                    moduleName: "Files", baseURL: "https://example.com/v1",
                    alternativeBaseURLs: ["consumer": "https://consumer.example.com/v1"], clientName: "FilesAPI",
                    accessLevel: .internal, include: ["files.*"], exclude: ["files.secret"],
                    nameOverrides: ["files.item": "FileItem", "files.item/size": "byteCount"], layout: .grouped,
                    fileCount: 4, fieldTables: .tuples, referenceURL: "https://example.com/docs/{name}",
                    descriptions: "metadata.xml"))
    }

    @Test func defaultsAreThoseOfTheREADME() {
        let config = Self.read(#"{"moduleName": "Files"}"#).config
        #expect(config == GeneratorConfig(moduleName: "Files"))
        #expect(config?.layout == .automatic)
        #expect(config?.accessLevel == .public)
        #expect(config?.fileCount == 100)
        #expect(config?.fieldTables == .automatic)
    }

    /// Each mistake, and the exact place and words of its error.
    @Test(arguments: [
        (
            "{\"moduleName\": \"A\",\n \"layout\": \"Grouped\"}",
            #"bindery.json:2:12: error: 'layout' must be "automatic", "perType" or "grouped", not "Grouped""#
        ),
        (
            "{\"moduleName\": \"A\",\n \"nameOverides\": {}}",
            "bindery.json:2:2: error: unknown key 'nameOverides' (did you mean 'nameOverrides'?)"
        ),
        ("{\"moduleName\": \"A\", \"colour\": 1}", "bindery.json:1:21: error: unknown key 'colour'"),
        (
            "{\"moduleName\": \"A\", \"fieldTables\": \"tuple\"}",
            #"bindery.json:1:36: error: 'fieldTables' must be "automatic", "structs" or "tuples", not "tuple""#
        ),
        (
            "{\"moduleName\": \"A\", \"accessLevel\": \"open\"}",
            #"bindery.json:1:36: error: 'accessLevel' must be "public" or "internal", not "open""#
        ),
        ("{\"moduleName\": 7}", "bindery.json:1:16: error: 'moduleName' must be a string, not a number"),
        (
            "{\"moduleName\": \"My Module\"}",
            #"bindery.json:1:16: error: 'moduleName' must be a Swift identifier, not "My Module""#
        ),
        ("{\"baseURL\": \"https://x\"}", "bindery.json:1:1: error: missing required key 'moduleName'"),
        ("{\"moduleName\": \"A\", \"baseURL\": \"/v1\"}", #"bindery.json:1:32: error: not an absolute URL: "/v1""#),
        (
            "{\"moduleName\": \"A\", \"include\": \"me\"}",
            "bindery.json:1:32: error: 'include' must be an array of strings, not a string"
        ),
        (
            "{\"moduleName\": \"A\", \"exclude\": [\"a\", 2]}",
            "bindery.json:1:38: error: each pattern must be a string, not a number"
        ),
        (
            "{\"moduleName\": \"A\", \"nameOverrides\": {\"a.b\": null}}",
            "bindery.json:1:46: error: 'a.b' must be a string, not null"
        ),
        (
            "{\"moduleName\": \"A\", \"layout\": \"grouped\", \"fileCount\": 1.5}",
            "bindery.json:1:55: error: fileCount must be a whole number of at least 1, not 1.5"
        ),
        (
            "{\"moduleName\": \"A\", \"alternativeBaseURLs\": {\"legacy\": \"www\"}}",
            #"bindery.json:1:55: error: not an absolute URL: "www""#
        ),
        ("[\"moduleName\"]", "bindery.json:1:1: error: expected an object of settings, found an array"),
        (
            "{\"moduleName\": \"A\", \"referenceURL\": \"https://x.org/docs\"}",
            "bindery.json:1:37: error: referenceURL must contain {name}, where the type's name goes"
        ),
        (
            "{\"moduleName\": \"A\", \"descriptions\": true}",
            "bindery.json:1:37: error: descriptions must be the path of a spec document, not true"
        ),
        ("{\"moduleName\": \"A\",}", "bindery.json:1:20: error:"),
    ])
    func aMistakeIsAnErrorWhereItIsWritten(text: String, expected: String) {
        let (config, diagnostics) = Self.read(text)
        #expect(config == nil)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.hasPrefix(expected) == true, "\(diagnostics)")
    }

    @Test func fileCountWithPerTypeIsAWarningOnly() {
        let (config, diagnostics) = Self.read(#"{"moduleName": "A", "layout": "perType", "fileCount": 3}"#)
        #expect(config?.fileCount == 3)
        #expect(diagnostics == [#"bindery.json:1:55: warning: fileCount has no effect when layout is "perType""#])
        // With the default layout a large spec is grouped, so the count matters.
        #expect(Self.read(#"{"moduleName": "A", "fileCount": 3}"#).diagnostics.isEmpty)
    }

    /// Every key is documented in the README's configuration table, and the table has no key the reader rejects.
    @Test func theREADMEDocumentsEveryKey() throws {
        let readme = try String(
            contentsOf: GoldenTests.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### Configuration").dropFirst().first)
        let documented = section.split(separator: "\n").prefix { !$0.hasPrefix("#") }
            .filter { $0.hasPrefix("| `") }
            .compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(documented == ConfigReader.Key.allCases.map(\.rawValue))
    }

    /// Every checked-in configuration reads without a diagnostic.
    @Test func theRepositorysConfigurationsAreClean() throws {
        let root = GoldenTests.packageRoot
        let files = try ["Specs", "Tests/Golden"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
                .map { "\(folder)/\($0)/bindery.json" }
        }.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
        #expect(files.count >= 7)
        for file in files {
            let (config, diagnostics) = ConfigReader.read(
                path: root.appendingPathComponent(file).path, displayPath: file)
            #expect(config != nil && diagnostics.isEmpty, "\(file): \(diagnostics)")
        }
    }
}
