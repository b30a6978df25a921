import BinderyJSON
import BinderySpec

/// An operation's responses: the success statuses, the answer's type (unwrapped from the document's envelope, or the
/// list found inside it), and an answer per status where they differ.
extension OpenAPIOperationReader {
    /// The first 2xx response with content gives the type (or `default`'s, when no success or failure is listed);
    /// every listed 2xx code is a success code.
    func readResponses(
        _ responses: OpenAPINode?, operationName: String, list: ListReading, envelope: Envelope,
        into read: inout OpenAPIReadOperation
    ) {
        guard let responses else { return }
        guard responses.isObject else {
            context.error("responses must be an object, found \(responses.value.kindName)", at: responses)
            return
        }
        var successes: [(code: Int, node: OpenAPINode)] = []
        var anySuccess: OpenAPINode?
        var otherwise: OpenAPINode?
        var listsFailures = false
        for (key, node) in responses.members {
            if let code = Int(key), (200...299).contains(code) {
                successes.append((code, node))
            } else if key.uppercased() == "2XX" {
                anySuccess = node
            } else if key == "default" {
                otherwise = node
            } else if key.hasPrefix("4") || key.hasPrefix("5") {
                listsFailures = true
            }
        }
        successes.sort { $0.code < $1.code }
        // `default` answers every status not listed. With neither a success nor a failure listed, it is the
        // success's answer, and its body is read rather than dropped; beside listed failures it describes them.
        if successes.isEmpty, anySuccess == nil, !listsFailures { anySuccess = otherwise }
        let candidates = successes.map(\.node) + [anySuccess].compactMap { $0 }
        guard !candidates.isEmpty else { return }
        let successCodes = successes.isEmpty ? [200] : successes.map(\.code)

        var content: OpenAPINode?
        var resolved: [(code: Int, node: OpenAPINode)] = []
        for (index, candidate) in candidates.enumerated() {
            var node = candidate
            if let reference = candidate["$ref"] {
                guard let (_, target) = context.resolveReference(reference, in: .responses) else { continue }
                node = target
            }
            if index < successes.count { resolved.append((successes[index].code, node)) }
            if content == nil, let found = node["content"], !found.members.isEmpty { content = found }
        }
        guard let content else {
            read.response = ResponseSpec(type: nil, successCodes: successCodes)
            return
        }
        readContent(
            content, operationName: operationName, list: list, envelope: envelope, successCodes: successCodes,
            into: &read)
        guard resolved.count > 1, read.response != nil else { return }
        // Each status's own answer; the first with content is the one just read.
        var answers: [StatusAnswer] = []
        for (code, node) in resolved {
            var answer = StatusAnswer(status: code, type: nil, doc: node.documentation(summaryKey: "summary"))
            if let found = node["content"], !found.members.isEmpty {
                var scratch = read
                if found.pointer != content.pointer {
                    readContent(
                        found, operationName: operationName + String(code), list: list, envelope: envelope,
                        successCodes: successCodes, into: &scratch)
                }
                answer.type = scratch.response?.type
                answer.isRawBody = scratch.response?.isRawBody ?? false
            }
            answers.append(answer)
        }
        let first = answers[0]
        if answers.contains(where: { $0.type != first.type || $0.isRawBody != first.isRawBody }) {
            read.response?.answers = answers
        }
    }

    /// The response type from one response's `content`: JSON first, else text or bytes.
    func readContent(
        _ content: OpenAPINode, operationName: String, list: ListReading, envelope: Envelope, successCodes: [Int],
        into read: inout OpenAPIReadOperation
    ) {
        let media = content.members.map { (type: OpenAPIMediaType.base($0.key), node: $0.node) }
        guard let json = media.first(where: { OpenAPIMediaType.isJSON($0.type) }) else {
            // Text is read as a string; anything else (images, archives, PDFs) as bytes.
            let isText = media.contains {
                OpenAPIMediaType.isText($0.type) && $0.node["schema"]?["format"]?.string != "binary"
            }
            read.response = ResponseSpec(
                type: .primitive(isText ? .string : .stream), successCodes: successCodes, isRawBody: true)
            return
        }
        guard let schema = json.node["schema"] else {
            read.response = ResponseSpec(type: .primitive(.untyped), successCodes: successCodes)
            return
        }
        readResponseSchema(
            schema, operationName: operationName, list: list, envelope: envelope, successCodes: successCodes,
            example: example(of: json.node), into: &read)
    }

    /// The response type from the JSON schema of the whole body, unwrapped from the envelope.
    func readResponseSchema(
        _ schema: OpenAPINode, operationName: String, list: ListReading, envelope: Envelope, successCodes: [Int],
        example: JSONLiteral?, into read: inout OpenAPIReadOperation
    ) {
        var payload = schema
        if case .wrapped(let resultsPath, _) = envelope {
            if let inner = schemas.lookup.schema(at: resultsPath, in: schema) {
                payload = inner
            } else if isEnvelopeWithoutResults(schema, resultsPath: resultsPath) {
                // `{"D": {"Success": true}}`, `{"request_id": "..."}`: nothing to decode.
                read.response = ResponseSpec(type: nil, successCodes: successCodes)
                return
            } else {
                context.warning(
                    "the response schema has no envelope member \(resultsPath.joined(separator: "/")); its type is used as declared",
                    at: schema)
            }
        }

        var items: OpenAPINode?
        var isList = false
        var itemsPath: [String]?
        let array = schemas.lookup.arrayShape(of: payload)
        let prefix: [String]
        if case .wrapped(let resultsPath, _) = envelope, payload.pointer != schema.pointer {
            prefix = resultsPath
        } else {
            prefix = []
        }
        if array.isArray {
            isList = true
            items = array.items
        } else if let path = list.items {
            // `x-bindery-paging`'s `items`: where the operation says its list is.
            guard let found = schemas.lookup.schema(at: path, in: payload), schemas.lookup.arrayShape(of: found).isArray
            else {
                context.error(
                    "x-bindery-paging.items: the response has no list at \(path.joined(separator: "/"))", at: schema)
                return
            }
            isList = true
            items = schemas.lookup.arrayShape(of: found).items
            itemsPath = prefix + path
        } else if case .none = envelope, case .nextLink = list.paging, list.explicitPaging == nil,
            let value = schemas.lookup.schema(at: ["value"], in: payload), schemas.lookup.arrayShape(of: value).isArray
        {
            // OData-style collection object `{"value": [...], "@odata.nextLink": ...}`.
            isList = true
            items = schemas.lookup.arrayShape(of: value).items
        } else if let queryParameters = list.queryParameters {
            noteListInside(
                payload, at: prefix, queryParameters: queryParameters, explicitPaging: list.explicitPaging,
                nameHint: operationName + "Item", into: &read)
        }
        let type: TypeRef
        if isList {
            let element =
                items.map { schemas.resolve($0, nameHint: operationName + "Item").type } ?? .primitive(.untyped)
            type = .collection(element)
            read.responseSchemaName = items.flatMap(schemas.lookup.referencedComponentName)
        } else {
            type = schemas.resolve(payload, nameHint: operationName + "Response").type
            read.responseSchemaName = schemas.lookup.referencedComponentName(payload)
        }
        read.returnsList = isList
        // Judged on the payload, so that under an envelope a list is still a list and not "an object".
        if !isList, case .named = type, schemas.lookup.isObjectSchema(payload) { read.returnsJSONObject = true }
        read.response = ResponseSpec(type: type, successCodes: successCodes, example: example)
        read.response?.itemsPath = itemsPath
    }

    /// The media type's `example`, or the first of its `examples` (the whole body, envelope included).
    func example(of media: OpenAPINode) -> JSONLiteral? {
        if let example = media["example"] { return Self.exampleValue(example.value) }
        return media["examples"]?.members.first.flatMap { $0.node["value"] }.map { Self.exampleValue($0.value) }
    }

    private static func exampleValue(_ json: JSONValue) -> JSONLiteral {
        switch json {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let number): return .number(number.text)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(exampleValue))
        case .object(let object): return .object(object.members.map { .init($0.key, exampleValue($0.value)) })
        }
    }

    /// The object that would hold the results is there, but the results member is not.
    func isEnvelopeWithoutResults(_ schema: OpenAPINode, resultsPath: [String]) -> Bool {
        let parentPath = Array(resultsPath.dropLast())
        guard let parent = parentPath.isEmpty ? schema : schemas.lookup.schema(at: parentPath, in: schema) else {
            return false
        }
        return schemas.lookup.isObjectSchema(parent)
    }
}
