import BinderyJSON
import BinderySpec

/// Reads an OpenAPI 3.0 or 3.1 document, JSON or YAML, into the spec model.
///
/// JSON is parsed with BinderyJSON's own parser and YAML with Yams (`YAMLDocument`), both into one `JSONValue`
/// with the position of every value, so each diagnostic reads `file:line:column: error: message`. The
/// `x-bindery-*` extensions state what OpenAPI cannot (envelopes, paging, delta, error shapes);
/// `Docs/OpenAPIExtensions.md` describes them and the path rules.
public struct OpenAPIReader: Sendable {
    /// How the document is written.
    public enum Syntax: Sendable {
        case json, yaml
    }

    public init() {}

    /// Reads one document.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents (UTF-8).
    ///   - path: the file name used in diagnostics and as the spec's `source`.
    ///   - syntax: JSON or YAML.
    /// - Returns: the spec (nil when an error was diagnosed) and every diagnostic, in a deterministic order.
    public func read(bytes: [UInt8], path: String, syntax: Syntax = .json) -> (
        spec: ServiceSpec?, diagnostics: [Diagnostic]
    ) {
        let value: JSONValue
        let positions: DocumentPositions
        switch syntax {
        case .json:
            do {
                let locations: JSONLocations
                (value, locations) = try JSONValue.parseWithLocations(bytes)
                positions = .json(locations)
            } catch {
                let location = SourceLocation(file: path, line: error.position.line, column: error.position.column)
                return (nil, [Diagnostic(.error, "invalid JSON: \(error.message)", at: location)])
            }
        case .yaml:
            do {
                let yamlPositions: [String: YAMLDocument.Position]
                (value, yamlPositions) = try YAMLDocument.parse(bytes)
                positions = .yaml(yamlPositions)
            } catch {
                let location = SourceLocation(file: path, line: error.line, column: error.column)
                return (nil, [Diagnostic(.error, "invalid YAML: \(error.message)", at: location)])
            }
        }
        let document = OpenAPINode(value: DeepReferences.inline(value), pointer: "")
        let context = OpenAPIContext(file: path, root: document, positions: positions)
        let spec = read(context)
        let diagnostics = context.diagnostics
        return (diagnostics.hasErrors ? nil : spec, diagnostics.all)
    }

    private func read(_ context: OpenAPIContext) -> ServiceSpec? {
        let root = context.root
        guard root.isObject else {
            context.error("an OpenAPI document must be an object, found \(root.value.kindName)", at: root)
            return nil
        }
        guard checkVersion(context) else { return nil }
        let extensions = OpenAPIExtensionReader(context: context)
        extensions.checkExtensionNames(of: root, at: .document)
        guard let namespace = primaryNamespace(context, extensions: extensions) else { return nil }
        let conventions = extensions.conventions(root["x-bindery-conventions"])

        let schemas = OpenAPISchemaReader(context: context, namespace: namespace)
        schemas.readComponents()
        if let webhooks = root["webhooks"] { schemas.readWebhooks(webhooks) }
        let operations = OpenAPIOperationReader(context: context, schemas: schemas, conventions: conventions)
        let paths = OpenAPIPathTreeReader(context: context, operationReader: operations, namespace: namespace)
        paths.read()

        var spec = ServiceSpec(
            source: context.file, primaryNamespace: namespace,
            doc: root["info"].map { $0.documentation(summaryKey: "title") } ?? Documentation(),
            enums: schemas.enums, structures: schemas.structures, choices: schemas.choices, resources: paths.resources,
            rootResource: paths.rootResourceName, conventions: conventions)
        spec.servers = readServers(context)
        return spec
    }

    /// `servers`: absolute URLs, each variable with its default. A relative URL has no host to default to.
    private func readServers(_ context: OpenAPIContext) -> [ServerSpec] {
        guard let list = context.root["servers"] else { return [] }
        guard let elements = list.elements else {
            context.error("servers must be an array, found \(list.value.kindName)", at: list)
            return []
        }
        var servers: [ServerSpec] = []
        for element in elements {
            guard let url = element["url"]?.string else {
                context.error("a server needs a \"url\" string", at: element)
                continue
            }
            var variables: [ServerSpec.Variable] = []
            for (name, node) in element["variables"]?.members ?? [] {
                guard let defaultValue = node["default"]?.string else {
                    context.error("server variable '\(name)' needs a \"default\" string", at: node)
                    continue
                }
                let values = node["enum"]?.elements?.compactMap(\.string) ?? []
                variables.append(
                    ServerSpec.Variable(
                        name: name, defaultValue: defaultValue, values: values, doc: node.documentation()))
            }
            let server = ServerSpec(url: url, variables: variables, doc: element.documentation())
            guard server.defaultURL.hasPrefix("https://") || server.defaultURL.hasPrefix("http://") else {
                context.warning(
                    "server '\(url)' is not an absolute http(s) URL; set \"baseURL\" in bindery.json instead",
                    at: element)
                continue
            }
            servers.append(server)
        }
        return servers
    }

    /// `openapi: 3.0.x` or `3.1.x`; Swagger 2.0 and later majors are refused with a reason.
    private func checkVersion(_ context: OpenAPIContext) -> Bool {
        let root = context.root
        guard let versionNode = root["openapi"] else {
            if root["swagger"] != nil {
                context.error(
                    "Swagger 2.0 documents are not supported; convert to OpenAPI 3.0 or 3.1",
                    at: root["swagger"] ?? root)
            } else {
                context.error("missing \"openapi\": expected an OpenAPI 3.0 or 3.1 document", at: root)
            }
            return false
        }
        guard let version = versionNode.string else {
            context.error(
                "\"openapi\" must be a version string such as \"3.1.0\", found \(versionNode.value.kindName)",
                at: versionNode)
            return false
        }
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "3", parts[1] == "0" || parts[1] == "1" else {
            context.error("unsupported OpenAPI version '\(version)': expected 3.0.x or 3.1.x", at: versionNode)
            return false
        }
        return true
    }

    /// `x-bindery-namespace`, else a lowercase slug of `info.title`.
    private func primaryNamespace(_ context: OpenAPIContext, extensions: OpenAPIExtensionReader) -> String? {
        let root = context.root
        if let node = root["x-bindery-namespace"] {
            return extensions.namespace(node)
        }
        guard let titleNode = root["info"]?["title"], let title = titleNode.string else {
            context.error(
                "missing info.title (or x-bindery-namespace), which names the spec's namespace",
                at: root["info"] ?? root)
            return nil
        }
        let slug = OpenAPINaming.namespaceSlug(title)
        guard OpenAPINaming.isValidNamespace(slug) else {
            context.error("info.title '\(title)' gives no usable namespace; set x-bindery-namespace", at: titleNode)
            return nil
        }
        return slug
    }
}
