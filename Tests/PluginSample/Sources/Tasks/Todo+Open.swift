// Handwritten beside Generated/, which `swift package bindery-gen --target Tasks` rewrites.

extension Todo {
    /// Not done yet (a task that does not say counts as open).
    public var isOpen: Bool { self.done != true }
}
