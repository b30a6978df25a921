import BinderySpec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one entry point for reading a spec file: picks the reader by the file's extension.
public enum SpecReader {
    /// Reads the spec at `path`. Diagnostics and `ServiceSpec.source` name the file `displayPath ?? path`
    /// (the CLI passes the path as the user typed it). The spec is nil when any error was diagnosed.
    public static func read(path: String, displayPath: String? = nil) -> (spec: ServiceSpec?, diagnostics: [Diagnostic])
    {
        let shownPath = displayPath ?? path
        let fileExtension = path.split(separator: "/").last.flatMap { name in
            name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() }
        }
        let readBytes: ([UInt8], String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic])
        switch fileExtension {
        case "xml", "csdl", "edmx":
            readBytes = { CSDLReader().read(bytes: $0, path: $1) }
        case "json":
            readBytes = { OpenAPIReader().read(bytes: $0, path: $1) }
        default:
            let found = fileExtension.map { "'.\($0)'" } ?? "no extension"
            return (
                nil,
                [
                    Diagnostic(
                        .error,
                        "cannot tell the spec format from \(found) in '\(shownPath)'; expected .xml, .csdl or .edmx (CSDL) or .json (OpenAPI)",
                        at: nil)
                ]
            )
        }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            return (nil, [Diagnostic(.error, "cannot read '\(shownPath)': \(error.localizedDescription)", at: nil)])
        }
        return readBytes(bytes, shownPath)
    }
}
