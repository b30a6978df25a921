import BinderyJSON
import BinderySpec

/// An operation as read from the document, before the path tree decides its kind and where it belongs.
struct OpenAPIReadOperation {
    var method: HTTPMethod
    var name: String
    var parameters: [ParameterSpec]
    var requestBody: BodySpec?
    var response: ResponseSpec?
    /// The response payload (after envelope unwrapping) is an object schema, not a list: a GET of it reads
    /// something one can navigate to.
    var returnsJSONObject: Bool
    /// The response type is a list (an array, the envelope's results, an OData `value` array, or a list inside an
    /// object that `ListEnvelopeRecognizer` or `x-bindery-paging` tells).
    var returnsList: Bool
    /// Why an object answer with a list in it is not read as a list, for the warning of a collection's GET.
    var listWarning: String?
    /// A list found inside the object this GET answers, read as the answer where the GET lists (`adoptList`).
    var listCandidate: ListCandidate?
    /// The component name of the response's (element) schema, which names the resource when nothing else does.
    var responseSchemaName: String?
    /// False under `x-bindery-envelope: "none"`.
    var isEnveloped = true
    /// The query parameters a variant always sends (`x-bindery-variants`).
    var fixedQuery: [String: String] = [:]
    /// Operations at the same URL whose answer has another shape, selected by fixed query parameters.
    var variants: [OpenAPIReadOperation] = []
    /// Written under a path with a `#fragment` (`/files/{id}#get_shared_link`): another operation at a URL that
    /// already has one for this method, so it becomes a named method rather than the resource's own get or update.
    var isAlternative = false
    var doc: Documentation
    var location: SourceLocation

    /// The named type a GET returns (the element of a list): the model of the resource it reads.
    var model: TypeRef? {
        guard let type = response?.type?.elementType, case .named = type else { return nil }
        return type
    }

    var isDeprecated = false
    /// The `operationId` only spells the method and the path (`get_files_id`, `post_files_id_copy`): the path tree
    /// names the operation by its place instead (`OpenAPIOperationNames`).
    var isNamedByPath = false
    /// The path parameters, which are keys of the builder chain rather than arguments, kept for an operation that
    /// takes its key as an argument instead (`OpenAPIPathTreeReader.takeViews`).
    var pathParameters: [ParameterSpec] = []

    func spec(kind: OperationSpec.Kind, pathSuffix: [String] = []) -> OperationSpec {
        var spec = OperationSpec(
            name: name, kind: kind, method: method, pathSuffix: pathSuffix, parameters: parameters,
            requestBody: requestBody, response: response, isEnveloped: isEnveloped, fixedQuery: fixedQuery, doc: doc,
            location: location)
        spec.isDeprecated = isDeprecated
        spec.isAlternative = isAlternative
        return spec
    }

    /// This operation as `kind`, followed by its variants: each is a function (GET) or an action of its own.
    func specs(kind: OperationSpec.Kind, pathSuffix: [String] = []) -> [OperationSpec] {
        [spec(kind: kind, pathSuffix: pathSuffix)]
            + variants.map { $0.spec(kind: $0.method == .get ? .function : .action, pathSuffix: pathSuffix) }
    }
}

/// Reads one operation: name, parameters, request body and response, applying the document's envelope.
/// Responses are read in `ResponseReader.swift`, lists inside an answer in `ListEnvelopes.swift`, names in
/// `OperationNames.swift`.
final class OpenAPIOperationReader {
    let context: OpenAPIContext
    let schemas: OpenAPISchemaReader
    private let extensions: OpenAPIExtensionReader
    private let conventions: Conventions
    private var operationIds: [String: SourceLocation] = [:]

    init(context: OpenAPIContext, schemas: OpenAPISchemaReader, conventions: Conventions) {
        self.context = context
        self.schemas = schemas
        self.extensions = OpenAPIExtensionReader(context: context)
        self.conventions = conventions
    }

    /// Reads one operation, or returns nil when it has to be skipped (reported).
    ///
    /// - Parameters:
    ///   - templateParameters: the `{names}` in the path template, each of which must be declared.
    ///   - mixedSegmentParameters: those of them in a segment that also has text.
    ///   - fallbackName: the name to use without an `operationId` (`<method><Segment>`).
    func read(
        method: HTTPMethod, operation: OpenAPINode, pathItem: OpenAPINode, template: String,
        templateParameters: [String], mixedSegmentParameters: Set<String> = [], fallbackName: String
    ) -> OpenAPIReadOperation? {
        guard operation.isObject else {
            context.error("an operation must be an object, found \(operation.value.kindName)", at: operation)
            return nil
        }
        extensions.checkExtensionNames(of: operation, at: .operation)
        let name = operationName(operation, fallback: fallbackName)

        var parameters = readParameters(pathItem: pathItem, operation: operation, operationName: name)
        let declaredPathNames = Set(parameters.filter { $0.location == .path }.map(\.name))
        // The path says the parameter exists, and every path parameter is a required string on the wire.
        for parameter in templateParameters where !declaredPathNames.contains(parameter) {
            context.warning(
                "path parameter '\(parameter)' of '\(template)' is not declared in the parameters of \(method.rawValue) or its path item; read as a required string",
                at: operation)
            parameters.append(
                ReadParameter(
                    spec: ParameterSpec(name: parameter, type: .primitive(.string), location: .path, isRequired: true)))
        }
        if let callbacks = operation["callbacks"] {
            context.warning("callbacks are not supported; skipped", at: callbacks)
        }

        var envelope = conventions.envelope
        if let envelopeNode = operation["x-bindery-envelope"] {
            if envelopeNode.string == "none" {
                envelope = .none
            } else {
                context.error(
                    "x-bindery-envelope must be \"none\" (this operation's bodies are not wrapped), found \(envelopeNode.value.kindName)",
                    at: envelopeNode)
            }
        }

        var requestBody: BodySpec?
        if let bodyNode = operation["requestBody"] {
            switch readRequestBody(bodyNode, operationName: name, envelope: envelope) {
            case .body(let body): requestBody = body
            case .absent: break
            case .unsupported: return nil
            }
        }

        var pagingOverride: PagingStyle?
        var list = ListReading(paging: conventions.paging)
        if let pagingNode = operation["x-bindery-paging"] {
            let read = extensions.paging(pagingNode, name: "x-bindery-paging", items: true)
            pagingOverride = read?.paging
            list = ListReading(
                paging: read?.paging ?? conventions.paging, explicitPaging: read?.paging, items: read?.items)
        }
        if method == .get {
            list.queryParameters = parameters.filter { $0.location == .query }.map {
                ListEnvelopeRecognizer.Parameter(name: $0.name, type: $0.spec.type, schema: $0.schema)
            }
        }
        var deltaOverride: DeltaStyle??
        if let deltaNode = operation["x-bindery-delta"] {
            deltaOverride = extensions.operationDelta(deltaNode, documentDelta: conventions.delta)
        }

        // Path parameters are the keys of the builder chain (`ChildSpec.keyName`), so they are not call arguments.
        var read = OpenAPIReadOperation(
            method: method, name: name,
            // Except those inside a segment with text (`thumbnail.{extension}`), which are arguments of the call.
            parameters: parameters.filter { $0.location != .path || mixedSegmentParameters.contains($0.name) }
                .map(\.spec),
            requestBody: requestBody, response: nil,
            returnsJSONObject: false, returnsList: false, responseSchemaName: nil,
            doc: operation.documentation(summaryKey: "summary"),
            location: context.location(of: operation))
        read.pathParameters = parameters.filter { $0.location == .path }.map(\.spec)
        read.isEnveloped = envelope == conventions.envelope
        if name != fallbackName, operation["operationId"] != nil {
            read.isNamedByPath = OpenAPIOperationNames.spellsMethodAndPath(name, method: method, template: template)
        }
        read.isDeprecated = operation["deprecated"]?.bool == true
        // A required query parameter with one allowed value is sent always and names the operation, as a variant's.
        for parameter in parameters where parameter.location == .query && parameter.spec.isRequired {
            guard let value = parameter.fixedValue else { continue }
            read.fixedQuery[parameter.name] = value
            read.parameters.removeAll { $0.location == .query && $0.name == parameter.name }
        }
        readResponses(
            operation["responses"], operationName: name, list: list, envelope: envelope, into: &read)
        // `x-bindery-paging`'s `items` decides the answer: a `204` beside it is an empty page, as where the list is
        // recognised (`adoptList`).
        if read.response?.itemsPath != nil { _ = read.response?.keepsOnlyTheListAnswer() }

        if let pagingOverride {
            if read.response == nil, let node = operation["x-bindery-paging"] {
                context.error("x-bindery-paging needs an operation with a 2xx response", at: node)
            }
            read.response?.paging = pagingOverride
        }
        if let deltaOverride, let delta = deltaOverride {
            if read.response == nil, let node = operation["x-bindery-delta"] {
                context.error("x-bindery-delta needs an operation with a 2xx response", at: node)
            }
            read.response?.delta = delta
        }
        if let variantsNode = operation["x-bindery-variants"] {
            read.variants = readVariants(
                variantsNode, of: read, paging: pagingOverride ?? conventions.paging, envelope: envelope)
        }
        return read
    }

    // MARK: Variants

    /// `x-bindery-variants`: `{"count": {"query": {"view": "count"}, "response": {schema}, "results": [...]}}`.
    /// Each variant is the same request with fixed query parameters, whose answer has a shape of its own.
    private func readVariants(
        _ node: OpenAPINode, of base: OpenAPIReadOperation, paging: PagingStyle, envelope: Envelope
    ) -> [OpenAPIReadOperation] {
        let name = "x-bindery-variants"
        guard node.isObject, !node.members.isEmpty else {
            context.error(
                "\(name) must be an object of variants by name, such as {\"count\": {\"query\": {\"view\": \"count\"}, \"response\": {...}}}, found \(node.value.kindName)",
                at: node)
            return []
        }
        var variants: [OpenAPIReadOperation] = []
        for (key, variantNode) in node.members {
            guard OpenAPINaming.isIdentifierLike(key) else {
                context.error("\(name): '\(key)' is not a name (letters, digits, '_', '-')", at: variantNode)
                continue
            }
            guard let parts = extensions.variant(variantNode, name: "\(name).\(key)") else { continue }
            // Variants are named within their resource (`threads.count`, `messages.count`), not the document.
            guard key != base.name else {
                context.error("\(name): '\(key)' is the name of the operation it varies", at: variantNode)
                continue
            }
            var variant = base
            variant.name = key
            variant.variants = []
            variant.fixedQuery = parts.query
            variant.parameters.removeAll { $0.location == .query && parts.query[$0.name] != nil }
            if let summary = parts.summary { variant.doc = Documentation(summary: summary) }
            var variantEnvelope = envelope
            if let results = parts.results {
                variantEnvelope = .wrapped(resultsPath: results, requestPath: [])
            }
            let codes = base.response?.successCodes ?? [200]
            // Inline schemas are named after the base and the variant: `listThreadsCountResponse`.
            readResponseSchema(
                parts.response, operationName: OpenAPINaming.joined(base.name, key), list: ListReading(paging: paging),
                envelope: variantEnvelope, successCodes: codes, example: nil, into: &variant)
            variant.response?.paging = base.response?.paging
            variant.response?.delta = nil
            variant.response?.payloadPath = parts.results
            variants.append(variant)
        }
        return variants
    }

    private func operationName(_ operation: OpenAPINode, fallback: String) -> String {
        guard let idNode = operation["operationId"] else { return fallback }
        guard let id = idNode.string, !id.isEmpty else {
            context.error("operationId must be a non-empty string", at: idNode)
            return fallback
        }
        let location = context.location(of: idNode)
        if let first = operationIds[id] {
            context.error("duplicate operationId '\(id)' (first used at \(first))", at: idNode)
        } else {
            operationIds[id] = location
        }
        return id
    }

    // MARK: Parameters

    private struct ReadParameter {
        var spec: ParameterSpec
        /// The one value its schema allows (`const`, or an `enum` of one value).
        var fixedValue: String?
        /// Its schema, references followed.
        var schema: OpenAPINode?
        var location: ParameterSpec.Location { spec.location }
        var name: String { spec.name }
    }

    /// Path-item parameters, then the operation's, which replace those with the same name and location.
    private func readParameters(pathItem: OpenAPINode, operation: OpenAPINode, operationName: String) -> [ReadParameter]
    {
        var parameters: [ReadParameter] = []
        for list in [pathItem["parameters"], operation["parameters"]].compactMap({ $0 }) {
            guard let elements = list.elements else {
                context.error("parameters must be an array, found \(list.value.kindName)", at: list)
                continue
            }
            for element in elements {
                guard let parameter = readParameter(element, operationName: operationName) else { continue }
                if let existing = parameters.firstIndex(where: {
                    $0.name == parameter.name && $0.location == parameter.location
                }) {
                    parameters[existing] = parameter
                } else {
                    parameters.append(parameter)
                }
            }
        }
        return parameters
    }

    private func readParameter(_ element: OpenAPINode, operationName: String) -> ReadParameter? {
        var node = element
        if let reference = element["$ref"] {
            guard let (_, target) = context.resolveReference(reference, in: .parameters) else { return nil }
            node = target
        }
        guard node.isObject else {
            context.error("a parameter must be an object, found \(node.value.kindName)", at: node)
            return nil
        }
        guard let name = node["name"]?.string, !name.isEmpty else {
            context.error("a parameter needs a \"name\"", at: node)
            return nil
        }
        let location: ParameterSpec.Location
        switch node["in"]?.string {
        case "path": location = .path
        case "query": location = .query
        case "header": location = .header
        case "cookie":
            context.warning("cookie parameter '\(name)' is not supported; skipped", at: node)
            return nil
        case let other:
            context.error(
                "parameter '\(name)' needs \"in\": path, query, header or cookie\(other.map { ", found '\($0)'" } ?? "")",
                at: node["in"] ?? node)
            return nil
        }
        let hint = OpenAPINaming.joined(operationName, name)
        var type = OpenAPIResolvedType.untyped
        if let schema = node["schema"] {
            type = schemas.resolve(schema, nameHint: hint)
        } else if let schema = node["content"]?.members.first?.node["schema"] {
            type = schemas.resolve(schema, nameHint: hint)
        }
        let isRequired = location == .path || node["required"]?.bool == true
        let doc = node.documentation(summaryKey: "summary")
        return ReadParameter(
            spec: ParameterSpec(name: name, type: type.type, location: location, isRequired: isRequired, doc: doc),
            fixedValue: node["schema"].map { OpenAPISchemaReader.fixedString(of: schemas.lookup.dereferenced($0)) }
                ?? nil,
            schema: node["schema"].map(schemas.lookup.dereferenced))
    }

    // MARK: Request body

    private enum BodyOutcome {
        case body(BodySpec)
        /// Nothing usable, already reported as an error (a bad `$ref`, no content).
        case absent
        /// A media type Bindery cannot send: the operation is skipped.
        case unsupported
    }

    /// JSON first, then a form (urlencoded fields, typed by the schema; multipart), then text, then a binary upload;
    /// anything else cannot be sent.
    private func readRequestBody(_ element: OpenAPINode, operationName: String, envelope: Envelope) -> BodyOutcome {
        var node = element
        if let reference = element["$ref"] {
            guard let (_, target) = context.resolveReference(reference, in: .requestBodies) else { return .absent }
            node = target
        }
        guard let content = node["content"], !content.members.isEmpty else {
            context.error("a requestBody needs \"content\" with at least one media type", at: node)
            return .absent
        }
        let isRequired = node["required"]?.bool == true
        let media = content.members.map { (type: OpenAPIMediaType.base($0.key), node: $0.node) }
        let hint = operationName + "Request"
        if let json = media.first(where: { OpenAPIMediaType.isJSON($0.type) }) {
            guard let schema = json.node["schema"] else {
                return .body(BodySpec(type: .primitive(.untyped), contentType: json.type, isRequired: isRequired))
            }
            var payload = schema
            if case .wrapped(_, let requestPath) = envelope, !requestPath.isEmpty,
                let inner = schemas.lookup.schema(at: requestPath, in: schema)
            {
                payload = inner
            }
            let type = schemas.resolve(payload, nameHint: hint).type
            return .body(BodySpec(type: type, contentType: json.type, isRequired: isRequired))
        }
        if let form = media.first(where: { $0.type == "application/x-www-form-urlencoded" }) {
            let type = form.node["schema"].map { schemas.resolve($0, nameHint: hint).type } ?? .primitive(.untyped)
            return .body(BodySpec(type: type, contentType: form.type, isRequired: isRequired))
        }
        if let form = media.first(where: { $0.type == "multipart/form-data" }) {
            let type = form.node["schema"].map { schemas.resolve($0, nameHint: hint).type } ?? .primitive(.stream)
            var body = BodySpec(type: type, contentType: form.type, isRequired: isRequired)
            if let schema = form.node["schema"] {
                body.parts = formParts(schemas.lookup.dereferenced(schema), encoding: form.node["encoding"], hint: hint)
            }
            return .body(body)
        }
        if let binary = media.first(where: { OpenAPIMediaType.isBinary($0.type, schema: $0.node["schema"]) }) {
            return .body(BodySpec(type: .primitive(.stream), contentType: binary.type, isRequired: isRequired))
        }
        if let text = media.first(where: { OpenAPIMediaType.isText($0.type) }) {
            return .body(BodySpec(type: .primitive(.string), contentType: text.type, isRequired: isRequired))
        }
        let types = media.map(\.type).joined(separator: ", ")
        context.warning(
            "request body media type \(types) is not supported (JSON, forms, text or binary); operation '\(operationName)' skipped",
            at: content)
        return .unsupported
    }

    /// The parts a multipart schema lists: each property, a file when its schema is binary.
    private func formParts(_ schema: OpenAPINode, encoding: OpenAPINode?, hint: String) -> [FormPart] {
        let required = Set(schema["required"]?.elements?.compactMap(\.string) ?? [])
        return schemas.lookup.allProperties(of: schema).map { name, node in
            let property = schemas.lookup.dereferenced(node)
            let mediaType = property["contentMediaType"]?.string.map(OpenAPIMediaType.base)
            let isFile =
                property["format"]?.string == "binary"
                || mediaType.map { !OpenAPIMediaType.isJSON($0) && !OpenAPIMediaType.isText($0) } == true
            // `encoding` may list several types (`image/png, image/jpeg`): the first is the one sent.
            let declared = encoding?[name]?["contentType"]?.string?.split(separator: ",").first.map {
                OpenAPIMediaType.base(String($0))
            }
            let isStructured =
                ["object", "array"].contains(property["type"]?.string ?? "")
                || property["properties"] != nil || property["items"] != nil
            let contentType =
                declared ?? mediaType
                ?? (isFile ? "application/octet-stream" : isStructured ? "application/json" : "text/plain")
            // The same node the form's model read, so an inline type is the one it declared.
            let type =
                isFile
                ? TypeRef.primitive(.stream) : schemas.resolve(node, nameHint: OpenAPINaming.joined(hint, name)).type
            return FormPart(
                name: name, isFile: isFile, contentType: contentType, type: type, isRequired: required.contains(name),
                doc: node.documentation())
        }
    }
}

/// Media type names, as the reader classifies them.
enum OpenAPIMediaType {
    /// `Application/JSON; charset=utf-8` → `application/json`.
    static func base(_ mediaType: String) -> String {
        let head = mediaType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? mediaType
        return String(head.filter { !$0.isWhitespace }).lowercased()
    }

    static func isJSON(_ type: String) -> Bool {
        type == "application/json" || type == "text/json" || type.hasSuffix("+json")
    }

    /// `text/plain`, `text/csv`, `text/html`, `application/xml`: content read and written as a string.
    static func isText(_ type: String) -> Bool {
        type.hasPrefix("text/") || type == "application/xml" || type.hasSuffix("+xml")
    }

    /// Bytes sent as they are: `application/octet-stream`, any wildcard, images, audio, video, PDF, or a
    /// schema that says `format: binary`.
    static func isBinary(_ type: String, schema: OpenAPINode?) -> Bool {
        if let schema, schema["format"]?.string == "binary" { return true }
        if type == "application/octet-stream" || type == "application/pdf" || type == "application/zip"
            || type.hasSuffix("/*")
        {
            return true
        }
        return ["image/", "audio/", "video/"].contains { type.hasPrefix($0) }
    }
}
