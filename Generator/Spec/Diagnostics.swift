/// A position in a spec file, for diagnostics.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// One message about a spec, printed as `file:line:column: error: message` like a compiler's.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning, note }

    public var severity: Severity
    public var message: String
    public var location: SourceLocation?

    public init(_ severity: Severity, _ message: String, at location: SourceLocation?) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    public var description: String {
        let prefix = location.map { "\($0): " } ?? ""
        return "\(prefix)\(severity.rawValue): \(message)"
    }
}

/// Collects diagnostics while a stage runs; a stage that recorded an error must not produce output.
public struct Diagnostics: Sendable {
    public private(set) var all: [Diagnostic] = []

    public init() {}

    public var hasErrors: Bool { all.contains { $0.severity == .error } }
    public var errors: [Diagnostic] { all.filter { $0.severity == .error } }

    public mutating func error(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.error, message, at: location))
    }

    public mutating func warning(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.warning, message, at: location))
    }

    /// Something left out on purpose that needs no action, such as a vocabulary's term definitions.
    public mutating func note(_ message: String, at location: SourceLocation?) {
        all.append(Diagnostic(.note, message, at: location))
    }

    public mutating func append(contentsOf other: Diagnostics) {
        all.append(contentsOf: other.all)
    }

    public mutating func append(contentsOf diagnostics: [Diagnostic]) {
        all.append(contentsOf: diagnostics)
    }
}

/// Thrown by a stage that cannot go on; carries everything it found so far.
public struct DiagnosticsError: Error, CustomStringConvertible {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
