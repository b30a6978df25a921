// Handwritten beside the generated code, as a service module's conveniences are: the plugin adds the rest.

extension Book {
    /// "Dune by Frank Herbert".
    public var byline: String { "\(self.title ?? "Untitled") by \(self.author?.name ?? "unknown")" }
}
