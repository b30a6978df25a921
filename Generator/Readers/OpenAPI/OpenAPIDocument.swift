import BinderyJSON
import BinderySpec

/// A JSON value together with the JSON Pointer it sits at, so that anything read from it can be located in the file.
struct OpenAPINode {
    let value: JSONValue
    let pointer: String

    subscript(key: String) -> OpenAPINode? {
        guard let member = value[key] else { return nil }
        return OpenAPINode(value: member, pointer: pointer + "/" + JSONLocations.escape(key))
    }

    var isObject: Bool { value.objectValue != nil }
    var string: String? { value.stringValue }
    var bool: Bool? { value.boolValue }

    /// Object members in document order (empty for anything but an object).
    var members: [(key: String, node: OpenAPINode)] {
        guard let object = value.objectValue else { return [] }
        return object.members.map { member in
            (member.key, OpenAPINode(value: member.value, pointer: pointer + "/" + JSONLocations.escape(member.key)))
        }
    }

    /// Array elements in order, or nil when this is not an array.
    var elements: [OpenAPINode]? {
        guard let array = value.arrayValue else { return nil }
        return array.enumerated().map { OpenAPINode(value: $0.element, pointer: pointer + "/\($0.offset)") }
    }

    /// `title` (or `summary`) is the summary and `description` the details; a lone description is the summary.
    func documentation(summaryKey: String = "title") -> Documentation {
        let summary = self[summaryKey]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let description = self["description"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        if let summary { return Documentation(summary: summary, details: description) }
        return Documentation(summary: description)
    }

    /// The node's own key (the last reference token of its pointer), for messages.
    var key: String {
        let token = pointer.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        return OpenAPIReferences.unescape(token)
    }
}

/// Where each value of the document starts, by JSON Pointer, in whichever syntax the document was written.
enum DocumentPositions {
    case json(JSONLocations)
    case yaml([String: YAMLDocument.Position])

    func lineAndColumn(of pointer: String) -> (line: Int, column: Int)? {
        switch self {
        case .json(let locations): locations.position(of: pointer).map { ($0.line, $0.column) }
        case .yaml(let positions): positions[pointer].map { ($0.line, $0.column) }
        }
    }
}

/// The sections of `#/components` that a `$ref` may point into.
enum OpenAPIComponentSection: String {
    case schemas, parameters, requestBodies, responses

    /// The section whose objects have the same shape.
    var sibling: Self? {
        switch self {
        case .requestBodies: .responses
        case .responses: .requestBodies
        default: nil
        }
    }
}

/// State shared by every stage of one read: where the file is, where its values are, and what was found wrong.
///
/// A class so that the readers can all report into one list in document order.
final class OpenAPIContext {
    let file: String
    let root: OpenAPINode
    private let positions: DocumentPositions
    private(set) var diagnostics = Diagnostics()
    /// `components/<section>` by name, built on first use: big specs look components up constantly.
    private var componentIndex: [OpenAPIComponentSection: [String: OpenAPINode]] = [:]

    init(file: String, root: OpenAPINode, positions: DocumentPositions) {
        self.file = file
        self.root = root
        self.positions = positions
    }

    /// The position of a node; falls back to its nearest located ancestor, so a diagnostic always has a line.
    func location(of node: OpenAPINode) -> SourceLocation {
        var pointer = node.pointer
        while true {
            if let position = positions.lineAndColumn(of: pointer) {
                return SourceLocation(file: file, line: position.line, column: position.column)
            }
            guard let slash = pointer.lastIndex(of: "/") else { break }
            pointer = String(pointer[..<slash])
        }
        return SourceLocation(file: file, line: 1, column: 1)
    }

    func error(_ message: String, at node: OpenAPINode) {
        diagnostics.error(message, at: location(of: node))
    }

    func warning(_ message: String, at location: SourceLocation?) {
        diagnostics.warning(message, at: location)
    }

    func warning(_ message: String, at node: OpenAPINode) {
        diagnostics.warning(message, at: location(of: node))
    }

    // MARK: Local references

    func component(_ section: OpenAPIComponentSection, named name: String) -> OpenAPINode? {
        if let index = componentIndex[section] { return index[name] }
        var index: [String: OpenAPINode] = [:]
        for (key, node) in root["components"]?[section.rawValue]?.members ?? [] { index[key] = node }
        componentIndex[section] = index
        return index[name]
    }

    /// Follows a `$ref` string node into `#/components/<section>/<name>`.
    ///
    /// References into a component of the same section are followed (`parameters/a` → `parameters/b`), with a
    /// cycle check; schema references are not, as a schema reference names a type. Reports and returns nil when
    /// the reference is not a string, is not local, points elsewhere, or names nothing.
    func resolveReference(
        _ reference: OpenAPINode, in section: OpenAPIComponentSection, followChains: Bool = true
    ) -> (name: String, node: OpenAPINode)? {
        var current = reference
        var seen: Set<String> = []
        while true {
            guard let text = current.string else {
                error("$ref must be a string, found \(current.value.kindName)", at: current)
                return nil
            }
            // A response and a request body are the same object (a description and `content`): specs that refer
            // to one where the other is meant are read as they mean it.
            if let sibling = section.sibling, let name = OpenAPIReferences.componentName(in: text, section: sibling),
                let target = component(sibling, named: name)
            {
                warning(
                    "a reference to #/components/\(sibling.rawValue) where #/components/\(section.rawValue) is expected; read as one",
                    at: current)
                return (name, target)
            }
            guard let name = OpenAPIReferences.componentName(in: text, section: section) else {
                if text.hasPrefix("#/") {
                    error(
                        "unsupported $ref '\(text)': expected a reference to #/components/\(section.rawValue)/<name>",
                        at: current)
                } else {
                    error("unsupported $ref '\(text)': only references inside this document are supported", at: current)
                }
                return nil
            }
            guard let target = component(section, named: name) else {
                error("unknown $ref '\(text)'", at: current)
                return nil
            }
            guard followChains, let next = target["$ref"] else { return (name, target) }
            guard seen.insert(name).inserted else {
                error("$ref cycle through '\(text)'", at: current)
                return nil
            }
            current = next
        }
    }
}

/// Reading `$ref` strings.
enum OpenAPIReferences {
    /// `#/components/schemas/Thread` → `Thread` when `section` is `.schemas`; nil for anything else.
    static func componentName(in reference: String, section: OpenAPIComponentSection) -> String? {
        let prefix = "#/components/\(section.rawValue)/"
        guard reference.hasPrefix(prefix) else { return nil }
        let token = String(reference.dropFirst(prefix.count))
        guard !token.isEmpty, !token.contains("/") else { return nil }
        return unescape(token)
    }

    /// Undoes JSON Pointer escaping (`~1` → `/`, `~0` → `~`) of one reference token.
    static func unescape(_ token: String) -> String {
        guard token.contains("~") else { return token }
        return token.replacing("~1", with: "/").replacing("~0", with: "~")
    }
}
