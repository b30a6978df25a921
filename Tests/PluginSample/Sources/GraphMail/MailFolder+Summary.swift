// Handwritten beside the generated code. The spec, Graph.csdl.xml, is Specs/Graph/Graph.csdl.xml of the Bindery
// repository; Tests/PluginTests copies it here, and bindery.json's `include` keeps mail and calendar of it.

extension MailFolder {
    /// "Inbox, 3 unread of 12".
    public var summary: String {
        "\(self.displayName ?? "?"), \(self.unreadItemCount ?? 0) unread of \(self.totalItemCount ?? 0)"
    }
}
