import BinderyJSON
import BinderySpec

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads `bindery.json` into a `GeneratorConfig`. An unknown key, a misspelled value or a wrong type is an error at
/// its `file:line:column`, like every other spec error: a setting the generator ignored would silently change the
/// output.
public enum ConfigReader {
    /// The keys of `bindery.json`, as written in the file (the README's configuration table lists the same).
    public enum Key: String, CaseIterable, Sendable {
        case moduleName, baseURL, alternativeBaseURLs, clientName, accessLevel, include, exclude, nameOverrides
        case layout, fileCount, fieldTables, referenceURL, descriptions
    }

    /// Reads the file at `path`; diagnostics name it `displayPath ?? path`. The configuration is nil after an error.
    public static func read(path: String, displayPath: String? = nil) -> (
        config: GeneratorConfig?, diagnostics: [Diagnostic]
    ) {
        let shownPath = displayPath ?? path
        do {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            return read(bytes: bytes, path: shownPath)
        } catch {
            return (nil, [Diagnostic(.error, "cannot read '\(shownPath)': \(error.localizedDescription)", at: nil)])
        }
    }

    /// Reads configuration text; `path` names the file in diagnostics.
    public static func read(bytes: [UInt8], path: String) -> (config: GeneratorConfig?, diagnostics: [Diagnostic]) {
        var reading = Reading(bytes: bytes, path: path)
        let config = reading.read()
        return (reading.diagnostics.hasErrors ? nil : config, reading.diagnostics.all)
    }
}

private struct Reading {
    let bytes: [UInt8]
    let path: String
    var locations: JSONLocations?
    var diagnostics = Diagnostics()

    init(bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
    }

    mutating func read() -> GeneratorConfig? {
        let root: JSONValue
        do throws(JSONParseError) {
            (root, locations) = try JSONValue.parseWithLocations(bytes)
        } catch {
            diagnostics.error(error.message, at: location(error.position))
            return nil
        }
        guard let object = root.objectValue else {
            diagnostics.error("expected an object of settings, found \(root.kindName)", at: location(of: ""))
            return nil
        }
        var config = GeneratorConfig(moduleName: "")
        var sawModuleName = false
        for member in object {
            let pointer = "/" + JSONLocations.escape(member.key)
            guard let key = ConfigReader.Key(rawValue: member.key) else {
                let suggestion =
                    ConfigReader.Key.allCases.map(\.rawValue).closest(to: member.key)
                    .map { " (did you mean '\($0)'?)" } ?? ""
                diagnostics.error("unknown key '\(member.key)'\(suggestion)", at: keyLocation(member.key, pointer))
                continue
            }
            let value = member.value
            switch key {
            case .moduleName:
                sawModuleName = true
                if let name = identifier(value, pointer) { config.moduleName = name }
            case .baseURL:
                config.baseURL = absoluteURL(value, pointer)
            case .alternativeBaseURLs:
                for (name, text) in strings(byName: value, pointer) {
                    let entry = pointer + "/" + JSONLocations.escape(name)
                    if identifier(.string(name), entry, what: "a base URL name") != nil,
                        let url = absoluteURL(.string(text), entry)
                    {
                        config.alternativeBaseURLs[name] = url
                    }
                }
            case .clientName:
                config.clientName = identifier(value, pointer)
            case .accessLevel:
                if let level = oneOf(GeneratorConfig.AccessLevel.self, value, pointer) { config.accessLevel = level }
            case .include:
                config.include = stringList(value, pointer)
            case .exclude:
                config.exclude = stringList(value, pointer)
            case .nameOverrides:
                for (name, swiftName) in strings(byName: value, pointer) {
                    config.nameOverrides[name] = swiftName
                }
            case .layout:
                if let layout = oneOf(GeneratorConfig.Layout.self, value, pointer) { config.layout = layout }
            case .fieldTables:
                if let shape = oneOf(GeneratorConfig.FieldTables.self, value, pointer) { config.fieldTables = shape }
            case .referenceURL:
                if let url = absoluteURL(value, pointer) {
                    if url.contains("{name}") {
                        config.referenceURL = url
                    } else {
                        diagnostics.error(
                            "referenceURL must contain {name}, where the type's name goes",
                            at: location(of: pointer))
                    }
                }
            case .descriptions:
                if let path = value.stringValue, !path.isEmpty {
                    config.descriptions = path
                } else {
                    diagnostics.error(
                        "descriptions must be the path of a spec document, not \(value.described)",
                        at: location(of: pointer))
                }
            case .fileCount:
                if let count = value.numberValue?.intValue, count >= 1 {
                    config.fileCount = count
                } else {
                    diagnostics.error(
                        "fileCount must be a whole number of at least 1, not \(value.described)",
                        at: location(of: pointer))
                }
            }
        }
        if !sawModuleName { diagnostics.error("missing required key 'moduleName'", at: location(of: "")) }
        if object.contains(ConfigReader.Key.fileCount.rawValue), config.layout == .perType {
            diagnostics.warning(
                "fileCount has no effect when layout is \"perType\"",
                at: location(of: "/" + ConfigReader.Key.fileCount.rawValue))
        }
        return config
    }

    // MARK: Values

    mutating func string(_ value: JSONValue, _ pointer: String, what: String) -> String? {
        guard let string = value.stringValue else {
            diagnostics.error("\(what) must be a string, not \(value.kindName)", at: location(of: pointer))
            return nil
        }
        return string
    }

    /// A Swift identifier: module, client and base URL names become declarations.
    mutating func identifier(_ value: JSONValue, _ pointer: String, what: String? = nil) -> String? {
        let what = what ?? "'\(pointer.dropFirst())'"
        guard let name = string(value, pointer, what: what) else { return nil }
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic,
            name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else {
            diagnostics.error("\(what) must be a Swift identifier, not \"\(name)\"", at: location(of: pointer))
            return nil
        }
        return name
    }

    mutating func absoluteURL(_ value: JSONValue, _ pointer: String) -> String? {
        guard let text = string(value, pointer, what: "a base URL") else { return nil }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            diagnostics.error("not an absolute URL: \"\(text)\"", at: location(of: pointer))
            return nil
        }
        return text
    }

    mutating func oneOf<Choice: RawRepresentable & CaseIterable>(_: Choice.Type, _ value: JSONValue, _ pointer: String)
        -> Choice? where Choice.RawValue == String
    {
        let quoted = Choice.allCases.map { "\"\($0.rawValue)\"" }
        let choices = quoted.dropLast().joined(separator: ", ") + (quoted.count > 1 ? " or " : "") + (quoted.last ?? "")
        guard let text = value.stringValue, let choice = Choice(rawValue: text) else {
            diagnostics.error(
                "'\(pointer.dropFirst())' must be \(choices), not \(value.described)",
                at: location(of: pointer))
            return nil
        }
        return choice
    }

    mutating func stringList(_ value: JSONValue, _ pointer: String) -> [String] {
        guard let array = value.arrayValue else {
            diagnostics.error(
                "'\(pointer.dropFirst())' must be an array of strings, not \(value.kindName)",
                at: location(of: pointer))
            return []
        }
        return array.enumerated().compactMap { index, element in
            string(element, "\(pointer)/\(index)", what: "each pattern")
        }
    }

    /// An object whose members are all strings, in file order.
    mutating func strings(byName value: JSONValue, _ pointer: String) -> [(String, String)] {
        guard let object = value.objectValue else {
            diagnostics.error(
                "'\(pointer.dropFirst())' must be an object of strings, not \(value.kindName)",
                at: location(of: pointer))
            return []
        }
        return object.compactMap { member in
            let entry = pointer + "/" + JSONLocations.escape(member.key)
            return string(member.value, entry, what: "'\(member.key)'").map { (member.key, $0) }
        }
    }

    // MARK: Locations

    func location(_ position: JSONPosition) -> SourceLocation {
        SourceLocation(file: path, line: position.line, column: position.column)
    }

    func location(of pointer: String) -> SourceLocation? {
        locations?.position(of: pointer).map(location)
    }

    /// Where a member's key is written: the last `"key"` before its value (keys with escapes fall back to the value).
    func keyLocation(_ key: String, _ pointer: String) -> SourceLocation? {
        guard let locations, let valueOffset = locations.position(of: pointer)?.offset else { return nil }
        let quoted = Array("\"\(key)\"".utf8)
        var start = valueOffset - quoted.count
        while start >= 0 {
            if bytes[start..<start + quoted.count].elementsEqual(quoted) {
                return location(locations.position(atOffset: start))
            }
            start -= 1
        }
        return location(of: pointer)
    }
}

extension JSONValue {
    /// The value as a diagnostic quotes it: strings in quotes, numbers and literals as written, containers by kind.
    fileprivate var described: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .number(let number): number.text
        case .bool(let flag): String(flag)
        case .null: "null"
        default: kindName
        }
    }
}

extension [String] {
    /// The candidate within two edits of `word` (case-insensitively), for "did you mean" hints.
    fileprivate func closest(to word: String) -> String? {
        map { ($0, editDistance($0.lowercased(), word.lowercased())) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }
}

/// Levenshtein distance, one row at a time.
private func editDistance(_ a: String, _ b: String) -> Int {
    let b = [Character](b)
    var previous = [Int](0...b.count)
    for (i, character) in a.enumerated() {
        var current = [i + 1]
        for (j, other) in b.enumerated() {
            current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (character == other ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
