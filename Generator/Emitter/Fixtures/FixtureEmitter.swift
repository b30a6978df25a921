import BinderySpec
import Foundation

/// One conformance fixture per operation: the request a generated builder should send and a response the
/// service could answer, synthesized from the spec's types (every property set, a derived type where the base
/// allows one, nested collections, one member the spec does not declare). The mock server seeds its store from
/// them; the conformance tests replay them.
public struct FixtureEmitter {
    let spec: ServiceSpec
    private let structures: StructureIndex
    private let enums: [QualifiedName: EnumSpec]
    private let choices: [QualifiedName: ChoiceSpec]
    private let resources: [QualifiedName: ResourceSpec]

    public init(spec: ServiceSpec) {
        self.spec = spec
        structures = StructureIndex(spec.structures)
        enums = Dictionary(spec.enums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        choices = Dictionary(spec.choices.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        resources = Dictionary(spec.resources.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `<resource>/<operation>.json` for every operation reachable from the service root.
    public func emit() -> [Emitter.OutputFile] {
        cases().map { Emitter.OutputFile(path: $0.name + ".json", contents: $0.json.rendered() + "\n") }
    }

    /// One fixture, before it is written, with what a call through the builders needs to reach its operation.
    struct Case {
        /// `driveItem/copy`: the file's path without `.json`.
        var name: String
        var owner: ResourceSpec
        var operation: OperationSpec
        /// The operation's place in `owner.operations`, or in `owner.collectionOperations` when `onCollection`.
        var index: Int
        var onCollection: Bool
        /// The navigation from the root to the item or collection the operation is on.
        var steps: [Step]
        /// The spec parameters the request carries: the call passes these, and no others.
        var arguments: Set<String>
        var json: JSONLiteral
    }

    /// Following `child` of `owner`; `key` addresses one item of a collection.
    struct Step {
        var owner: QualifiedName
        var child: ChildSpec
        var key: String?

        var segments: [String] { (child.segment.isEmpty ? [] : [child.segment]) + (key.map { [$0] } ?? []) }
    }

    func cases() -> [Case] {
        var cases: [Case] = []
        var used = Set<String>()
        for (resource, route) in routes() {
            let all =
                resource.operations.enumerated().map { ($1, $0, false) }
                + resource.collectionOperations.enumerated().map { ($1, $0, true) }
            for (operation, index, onCollection) in all {
                // A write goes where the service allows it (capability restrictions), not only the shortest way.
                let path: [Step]?
                switch (operation.kind, onCollection) {
                case (.create, true): path = route.insertable
                case (.update, false), (.replace, false): path = route.updatable
                case (.delete, false): path = route.deletable
                default: path = onCollection ? route.collection : route.item
                }
                guard let steps = path else { continue }
                // `driveItem/copy.json`; overloads and same-named operations are told apart by method, then parameters.
                // Each part fitted to what file systems allow (`FileNames`), however long the spec's names.
                let folder = FileNames.fitted(resource.name.name)
                let base = "\(folder)/\(FileNames.fitted(operation.name))"
                let candidates = [
                    base, base + "-" + operation.method.rawValue.lowercased(),
                    "\(folder)/"
                        + FileNames.fitted(
                            operation.name + "-" + operation.parameters.map(\.name).joined(separator: "-")),
                ]
                // Never drop an operation: when every name is taken, number it.
                let name =
                    candidates.first { used.insert($0.lowercased()).inserted }
                    ?? (2...).lazy.map { "\(base)-\($0)" }.first { used.insert($0.lowercased()).inserted }!
                let (json, arguments) = fixture(operation, owner: resource, path: steps.flatMap(\.segments))
                cases.append(
                    Case(
                        name: name, owner: resource, operation: operation, index: index, onCollection: onCollection,
                        steps: steps, arguments: arguments, json: json))
            }
        }
        return cases.sorted { $0.name < $1.name }
    }

    // MARK: Paths

    /// The shortest ways from the root to each resource.
    struct Route {
        /// To one item (keys filled in) and to its collection.
        var item: [Step]?
        var collection: [Step]?
        /// The shortest ways whose last step allows adding to the collection, updating or deleting the item.
        var insertable: [Step]?
        var updatable: [Step]?
        var deletable: [Step]?
    }

    /// The shortest navigation from the root to each resource.
    private func routes() -> [(ResourceSpec, Route)] {
        var found: [QualifiedName: Route] = [spec.rootResource: Route(item: [])]
        var queue: [(QualifiedName, [Step])] = [(spec.rootResource, [])]
        var order: [QualifiedName] = [spec.rootResource]
        while !queue.isEmpty {
            let (name, itemPath) = queue.removeFirst()
            for child in resources[name]?.children ?? [] {
                // A step from the collection's URL starts where the collection is addressed.
                guard let path = child.isOnCollection ? found[name]?.collection : itemPath else { continue }
                let collection = child.isCollection ? path + [Step(owner: name, child: child)] : nil
                let item = path + [Step(owner: name, child: child, key: child.isCollection ? Self.key(child) : nil)]
                var entry = found[child.target] ?? Route()
                if entry.collection == nil, let collection { entry.collection = collection }
                if entry.insertable == nil, child.restrictions.insertable, let collection {
                    entry.insertable = collection
                }
                if entry.updatable == nil, child.restrictions.updatable { entry.updatable = item }
                if entry.deletable == nil, child.restrictions.deletable { entry.deletable = item }
                let isNew = entry.item == nil
                if isNew { entry.item = item }
                if found[child.target] == nil { order.append(child.target) }
                found[child.target] = entry
                if isNew { queue.append((child.target, item)) }
            }
        }
        return order.compactMap { name in resources[name].map { ($0, found[name]!) } }
    }

    private static func key(_ child: ChildSpec) -> String {
        "\(child.keyName ?? child.target.name)-1".replacingOccurrences(of: "{", with: "").replacingOccurrences(
            of: "}", with: "")
    }

    // MARK: One fixture

    /// The fixture, and the names of the parameters its request carries.
    private func fixture(_ operation: OperationSpec, owner: ResourceSpec, path: [String]) -> (JSONLiteral, Set<String>)
    {
        var segments = path
        var arguments: [JSONLiteral.Member] = []
        var query: [JSONLiteral.Member] = []
        var headers: [JSONLiteral.Member] = []
        var bodyMembers: [JSONLiteral.Member] = []
        var functionArguments: [String] = []
        var bodyParameters = Set<String>()
        for parameter in operation.parameters {
            // A path parameter's value is the segment it names (see below).
            let value =
                parameter.location == .path
                ? .string(parameter.name + "-1")
                : sample(parameter.type, depth: 1, loose: false, inRequest: true) ?? .string("text")
            // Optional query and header parameters are left out: a sample filter (`subject=text`) would leave lists empty.
            let isSent = parameter.isRequired || (parameter.location != .query && parameter.location != .header)
            guard isSent else { continue }
            switch parameter.location {
            case .query: query.append(.init(parameter.name, .string(value.queryText)))
            case .header: headers.append(.init(parameter.name, .string(value.queryText)))
            case .path: break
            case .body:
                // The call reads it from the request body: written once.
                bodyMembers.append(.init(parameter.name, value))
                bodyParameters.insert(parameter.name)
                continue
            case .function: functionArguments.append("\(parameter.name)=\(value.literalText)")
            }
            arguments.append(.init(parameter.name, value))
        }
        for (index, suffix) in operation.pathSuffix.enumerated() {
            if suffix.hasPrefix("{"), suffix.hasSuffix("}") {
                let variable = String(suffix.dropFirst().dropLast())
                if !arguments.contains(where: { $0.name == variable }) {
                    arguments.append(.init(variable, .string(variable + "-1")))
                }
                segments.append(variable + "-1")
                continue
            }
            if suffix.contains("{") {
                // `thumbnail.{extension}` → `thumbnail.extension-1`.
                var segment = ""
                for part in TemplateSegment.parts(of: suffix) {
                    switch part {
                    case .text(let text): segment += text
                    case .parameter(let variable):
                        if !arguments.contains(where: { $0.name == variable }) {
                            arguments.append(.init(variable, .string(variable + "-1")))
                        }
                        segment += variable + "-1"
                    }
                }
                segments.append(segment)
                continue
            }
            var segment = spec.urlSegment(suffix)
            if index == operation.pathSuffix.count - 1, operation.kind == .function,
                spec.conventions.queryOptions == .odata
            {
                segment += "(" + functionArguments.joined(separator: ",") + ")"
            }
            segments.append(segment)
        }
        var request: [JSONLiteral.Member] = [
            .init("method", .string(operation.method.rawValue)),
            .init("path", .string("/" + segments.joined(separator: "/"))),
        ]
        // A variant's fixed parameters come first: they name it.
        query.insert(
            contentsOf: operation.fixedQuery.sorted { $0.key < $1.key }.map { .init($0.key, .string($0.value)) }, at: 0)
        if !query.isEmpty { request.append(.init("query", .object(query))) }
        if !headers.isEmpty { request.append(.init("headers", .object(headers))) }
        if !bodyMembers.isEmpty {
            request.append(.init("body", wrapRequest(.object(bodyMembers), operation)))
        } else if let body = operation.requestBody {
            if body.contentType == "multipart/form-data" {
                request.append(.init("multipart", .array([.string("file")])))
            } else if case .primitive(.stream) = body.type {
                request.append(.init("bodyText", .string("bytes")))
            } else if var value = sample(body.type, depth: 0, loose: false, extra: true, inRequest: true) {
                // What the runtime sends of a model: its own read-only members left out (`requestMembers`).
                if case .named(let name) = body.type, case .object(let members) = value,
                    let structure = structures[name]
                {
                    let readOnly = Set(
                        structures.lineage(of: structure).flatMap(\.properties).filter(\.isLeftOutOfRequests).map(
                            \.name))
                    value = .object(members.filter { !readOnly.contains($0.name) })
                }
                request.append(.init("body", wrapRequest(value, operation)))
            }
        }
        var members: [JSONLiteral.Member] = [.init("operation", .string("\(owner.name)/\(operation.name)"))]
        // What the generated call passes, by spec name; body parameters and a single body value it reads from the
        // request's body.
        if !arguments.isEmpty { members.append(.init("arguments", .object(arguments))) }
        members += [.init("request", .object(request)), .init("response", response(operation))]
        return (.object(members), Set(arguments.map(\.name)).union(bodyParameters))
    }

    private func response(_ operation: OperationSpec) -> JSONLiteral {
        guard let response = operation.response else { return .object([.init("status", .number("204"))]) }
        let status = JSONLiteral.number(String(response.successCodes.first ?? 200))
        if response.isRawBody { return .object([.init("status", status), .init("bodyText", .string("bytes"))]) }
        // The spec's own example is what the service sends, envelope and all: it is used as it is.
        if let example = response.example {
            return .object([.init("status", status), .init("fromSpecExample", .bool(true)), .init("body", example)])
        }
        guard let type = response.type, let value = sample(type, depth: 0, loose: false, extra: true) else {
            return .object([.init("status", status)])
        }
        return .object([.init("status", status), .init("body", wrapResponse(value, type, operation))])
    }

    /// Where the service puts a payload: OData collections in `value`, an envelope's results path (a single item
    /// as a one-element array), everything else bare.
    private func wrapResponse(_ value: JSONLiteral, _ type: TypeRef, _ operation: OperationSpec) -> JSONLiteral {
        let isEnveloped: Bool
        if case .wrapped = spec.conventions.envelope { isEnveloped = true } else { isEnveloped = false }
        // Where the operation says (Spark's `D.Pagination`), beside the envelope's success flag if it has one.
        if let payloadPath = operation.response?.payloadPath {
            return Self.nest(value, at: payloadPath, successFlag: isEnveloped)
        }
        // A list inside an object of its own (`{"data": [...]}`), on its last page.
        if let itemsPath = operation.response?.itemsPath {
            return Self.nest(value, at: itemsPath, successFlag: false)
        }
        if operation.isEnveloped, case .wrapped(let results, _) = spec.conventions.envelope {
            return Self.nest(type.isCollection ? value : .array([value]), at: results, successFlag: true)
        }
        if spec.conventions.queryOptions == .odata, type.isCollection || type.namedTypes.isEmpty {
            return .object([.init("value", value)])
        }
        return value
    }

    /// `value` at `path` in nested objects; with `successFlag`, the innermost object of a path longer than one also
    /// says `"Success": true` (Spark's `{"D": {"Success": true, "Results": [...]}}`).
    private static func nest(_ value: JSONLiteral, at path: [String], successFlag: Bool) -> JSONLiteral {
        var wrapped = value
        for (index, key) in path.enumerated().reversed() {
            var members: [JSONLiteral.Member] = [.init(key, wrapped)]
            if successFlag, index == path.count - 1, path.count > 1 {
                members.insert(.init("Success", .bool(true)), at: 0)
            }
            wrapped = .object(members)
        }
        return wrapped
    }

    private func wrapRequest(_ value: JSONLiteral, _ operation: OperationSpec) -> JSONLiteral {
        guard operation.isEnveloped, case .wrapped(_, let path) = spec.conventions.envelope else { return value }
        return path.reversed().reduce(value) { inner, key in .object([.init(key, inner)]) }
    }

    // MARK: Sample values

    /// A value of `type`. `inRequest`: what the client sends, so dates have the milliseconds a `Date` keeps (the
    /// service's own answers carry seven fractional digits).
    private func sample(_ type: TypeRef, depth: Int, loose: Bool, extra: Bool = false, inRequest: Bool = false)
        -> JSONLiteral?
    {
        switch type {
        case .primitive(let primitive): return Self.sample(primitive, loose: loose, inRequest: inRequest)
        case .collection(let element):
            guard depth < 4 else { return .array([]) }
            if case .named(let name) = element, structures[name] != nil {
                // The base type, then a derived one where the base has any: polymorphism on the wire.
                var items: [JSONLiteral] = []
                if structures[name]?.isAbstract == false,
                    let base = object(name, as: name, depth: depth + 1, extra: extra, inRequest: inRequest)
                {
                    items.append(base)
                }
                if let concrete = structures.firstConcreteDescendant(of: name),
                    let item = object(concrete, as: name, depth: depth + 1, extra: extra, inRequest: inRequest)
                {
                    items.append(item)
                }
                return .array(items)
            }
            return sample(element, depth: depth + 1, loose: loose, inRequest: inRequest).map { .array([$0]) }
                ?? .array([])
        case .dictionary(let element):
            guard depth < 4 else { return .object([]) }
            return sample(element, depth: depth + 1, loose: loose, inRequest: inRequest).map {
                .object([.init("key", $0)])
            }
                ?? .object([])
        case .named(let name):
            if let enumeration = enums[name] { return .string(enumeration.members.first?.name ?? "value") }
            guard depth < 4 else { return nil }
            if let choice = choices[name] { return sample(choice, depth: depth, extra: extra, inRequest: inRequest) }
            let concrete =
                structures[name]?.isAbstract == true ? structures.firstConcreteDescendant(of: name) ?? name : name
            return object(concrete, as: name, depth: depth + 1, extra: extra, inRequest: inRequest)
        }
    }

    /// The choice's first member, named by the discriminator when the choice has one.
    private func sample(_ choice: ChoiceSpec, depth: Int, extra: Bool, inRequest: Bool) -> JSONLiteral? {
        guard let member = choice.members.first,
            let value = sample(member.type, depth: depth + 1, loose: false, extra: extra, inRequest: inRequest)
        else { return nil }
        guard let discriminator = choice.discriminator, let tag = member.tags.first, case .object(var members) = value
        else { return value }
        members.removeAll { $0.name == discriminator }
        members.insert(.init(discriminator, .string(tag)), at: 0)
        return .object(members)
    }

    /// Every property of `name` (inherited ones included); names its type when it stands in for `declared`.
    private func object(
        _ name: QualifiedName, as declared: QualifiedName, depth: Int, extra: Bool, inRequest: Bool
    ) -> JSONLiteral? {
        guard let structure = structures[name] else { return nil }
        var members: [JSONLiteral.Member] = []
        if name != declared {
            if let tagged = structures.lineage(of: structure).first(where: { $0.discriminatorProperty != nil })?
                .discriminatorProperty
            {
                members.append(.init(tagged, .string(structure.discriminatorValue ?? name.description)))
            } else if spec.conventions.queryOptions == .odata {
                members.append(.init("@odata.type", .string("#" + name.description)))
            }  // elsewhere an untagged derived object is only its members
        }
        // A service never answers with a write-only member (a password), so a response sample has none.
        for property in structures.lineage(of: structure).flatMap(\.properties)
        where !members.contains(where: { $0.name == property.name }) && (inRequest || !property.isWriteOnly) {
            if let value = sample(property.type, depth: depth, loose: property.acceptsLooseValues, inRequest: inRequest)
            {
                members.append(.init(property.name, value))
            }
        }
        if extra { members.append(.init("fieldUnknownToTheSpec", .object([.init("kept", .bool(true))]))) }
        return .object(members)
    }

    private static func sample(_ primitive: Primitive, loose: Bool, inRequest: Bool) -> JSONLiteral? {
        switch primitive {
        case .string: return loose ? .number("12345678901234567890123456") : .string("text")
        case .boolean: return loose ? .string("true") : .bool(true)
        case .byte: return .number("7")
        case .sbyte, .int16: return .number("-7")
        case .int32: return loose ? .string(" 42") : .number("42")
        case .int64: return loose ? .string("1099511627776") : .number("1099511627776")
        case .single, .double: return loose ? .string(" -116.3237") : .number("1.5")
        case .decimal: return .number("1.25")
        case .guid: return .string("00000000-0000-0000-0000-000000000001")
        case .binary: return .string("SGVsbG8=")
        case .date: return .string("2017-04-21")
        case .dateTimeOffset: return .string(inRequest ? "2017-04-21T10:00:00.123Z" : "2017-04-21T10:00:00.1234567Z")
        case .timeOfDay: return .string("10:00:00")
        case .duration: return .string("PT1H")
        case .stream: return nil
        case .untyped: return .object([.init("any", .string("value"))])
        }
    }
}

/// Fixture text: members in order, two-space indents.
extension JSONLiteral {
    /// The value as a URL query parameter carries it.
    var queryText: String {
        switch self {
        case .string(let text): return text
        case .number(let text): return text
        case .bool(let value): return value ? "true" : "false"
        default: return compactText
        }
    }

    /// JSON without whitespace: a collection or object inside a URL (`computeInheritance(labelIds=["text"])`).
    var compactText: String {
        switch self {
        case .array(let items): return "[" + items.map(\.compactText).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { Self.quoted($0.name) + ":" + $0.value.compactText }.joined(separator: ",") + "}"
        default: return rendered()
        }
    }

    /// The value as an OData literal in a function call: strings quoted.
    var literalText: String {
        if case .string(let text) = self { return "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return queryText
    }

    func rendered(indent: String = "") -> String {
        switch self {
        case .string(let text): return Self.quoted(text)
        case .number(let text): return text
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            if items.isEmpty { return "[]" }
            let inner = indent + "  "
            return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let inner = indent + "  "
            return "{\n"
                + members.map { inner + Self.quoted($0.name) + ": " + $0.value.rendered(indent: inner) }.joined(
                    separator: ",\n")
                + "\n" + indent + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 {
                    output += String(format: "\\u%04x", scalar.value)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }
}
