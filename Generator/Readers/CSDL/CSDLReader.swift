import BinderySpec

/// Reads an OData CSDL document (EDMX 4.0 XML) into the spec model.
///
/// Three passes: the parser collects raw declarations from the start tags libxml2's streaming reader hands it from
/// a thread of its own (`CSDLParser`, `XMLTagReader`), the resolver qualifies names and checks the model
/// (`CSDLResolver`), and the resource builder derives the request-builder graph (`CSDLResourceBuilder`). Same bytes
/// in, same spec out: everything keeps document order.
public struct CSDLReader: Sendable {
    public init() {}

    /// Reads `bytes`; `path` is what diagnostics and `ServiceSpec.source` call the file.
    /// The spec is nil when any error was diagnosed.
    public func read(bytes: [UInt8], path: String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
        let (document, parsed) = bytes.withUnsafeBufferPointer { CSDLParser.parse($0, path: path) }
        var diagnostics = parsed
        // A document that did not parse cleanly would only add errors about what is missing from it.
        guard !diagnostics.hasErrors else { return (nil, diagnostics.all) }
        guard let primarySchema = document.schemas.first else {
            diagnostics.error("the document declares no Schema", at: SourceLocation(file: path, line: 1, column: 1))
            return (nil, diagnostics.all)
        }
        let model = CSDLResolver.resolve(consume document, diagnostics: &diagnostics)
        guard !diagnostics.hasErrors else { return (nil, diagnostics.all) }
        let (resources, root) = CSDLResourceBuilder(model: model).build(
            primarySchema: primarySchema, diagnostics: &diagnostics)
        let spec = ServiceSpec(
            source: path, primaryNamespace: primarySchema.namespace, enums: model.enums, structures: model.structures,
            resources: resources, rootResource: root, conventions: .odata)
        return (spec, diagnostics.all)
    }
}
