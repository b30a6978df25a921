// Handwritten beside the generated code. The spec, Graph.csdl.xml, is Specs/Graph/Graph.csdl.xml of the Bindery
// repository; Tests/PluginTests copies it here, and bindery.json's `include` keeps files and sharing of it.

extension DriveItem {
    /// "folder" or "file".
    public var kind: String { self.folder != nil ? "folder" : "file" }
}
