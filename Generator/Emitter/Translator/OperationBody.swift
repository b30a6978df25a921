import BinderySpec

/// How an operation's method sends its request body: a value's encoding, and the typed overload of a multipart form.
extension OperationTranslator {
    /// How a method sends its request body.
    enum BodyEncoding: Equatable {
        /// Parameters that travel as members of a JSON object, set by these statements.
        case members([Statement])
        /// The `body` argument as JSON: a model without its read-only members, any other value as it is, both in
        /// the service's envelope.
        case json(isModel: Bool)
        /// The `body` argument's members as `application/x-www-form-urlencoded` fields (a model's read-only ones
        /// left out).
        case formFields(isModel: Bool)
        /// A `String` argument, in its `text/…` content type.
        case text(contentType: String)
        /// A `MultipartForm` argument.
        case multipart
        /// Raw content (`RequestBody`), in its content type.
        case content(contentType: String)

        /// The statements that set the body of `request`.
        var statements: [Statement] {
            let request = Expression.raw("request")
            switch self {
            case .members(let setters):
                return [.binding(.var, "body", .call("JSONObject"))] + setters + [
                    .expression(
                        request.call(
                            "setJSONBody",
                            [
                                .init(
                                    Expression.raw("client.conventions").call(
                                        "wrapRequestBody", [.init(.dot("object", [.init(.raw("body"))]))]))
                            ]))
                ]
            case .json(let isModel):
                let value =
                    isModel
                    ? Expression.raw("client").call("body", [.init("for", .raw("body"))])
                    : Expression.raw("client.conventions").call("wrapRequestBody", [.init(.raw("body.json"))])
                return [.expression(request.call("setJSONBody", [.init(value)]))]
            case .formFields(let isModel):
                let fields =
                    isModel ? Expression.dot("object", [.init(.raw("body.requestMembers"))]) : .raw("body.json")
                return [.expression(request.call("setFormBody", [.init(fields)]))]
            case .text(let contentType):
                return [
                    .expression(
                        request.call("setTextBody", [.init(.raw("body")), .init("contentType", .string(contentType))]))
                ]
            case .multipart:
                return [.expression(request.call("setMultipartBody", [.init(.raw("form"))]))]
            case .content(let contentType):
                return [
                    .assignment(request.dot("body"), .raw("content")),
                    .expression(
                        request.call(
                            "setHeader", [.init(.string("Content-Type")), .init("json", .string(contentType))])),
                ]
            }
        }
    }

    /// How the request body is sent, with the argument that carries it first in `signature` (`_ body:`): nil when
    /// the operation has none, or one with no Swift form.
    func bodyEncoding(of operation: OperationSpec, bodyMembers: [Statement], signature: inout Signature)
        -> BodyEncoding?
    {
        guard let requestBody = operation.requestBody else {
            return bodyMembers.isEmpty ? nil : .members(bodyMembers)
        }
        let encoding: BodyEncoding
        if requestBody.contentType == "multipart/form-data" {
            signature.insert((.init(label: "_", "form", "MultipartForm"), .multipartForm), at: 0)
            encoding = .multipart
        } else if case .primitive(.stream) = requestBody.type {
            signature.insert((.init(label: "_", "content", "RequestBody"), .content), at: 0)
            encoding = .content(contentType: requestBody.contentType)
        } else if let swiftType = mapping.swiftType(requestBody.type) {
            signature.insert((.init(label: "_", "body", swiftType), .body), at: 0)
            var isModel = false
            if case .named(let name) = requestBody.type { isModel = modelNames.contains(name) }
            if requestBody.contentType == "application/x-www-form-urlencoded" {
                encoding = .formFields(isModel: isModel)
            } else if requestBody.type == .primitive(.string), requestBody.contentType.hasPrefix("text/") {
                encoding = .text(contentType: requestBody.contentType)
            } else {
                encoding = .json(isModel: isModel)
            }
        } else {
            return bodyMembers.isEmpty ? nil : .members(bodyMembers)
        }
        // Parameters that travel in the body win over the body value they would be members of.
        return bodyMembers.isEmpty ? encoding : .members(bodyMembers)
    }

    /// For a multipart body whose schema lists its parts, an overload that takes each part as a typed argument
    /// (`attributes: UploadAttributes, file: MultipartFile`), builds the form and calls the form method: a file part
    /// in the content type the spec declares unless the file names its own, a JSON part as a document in its type,
    /// a plain text part as a field.
    func typedForm(
        _ operation: OperationSpec, parts: [FormPart], methodName: String,
        signature: Signature, returnType: SwiftType, usedNames: inout Set<String>
    ) -> Declaration? {
        var parameters: [FunctionDeclaration.Parameter] = []
        var body: [Statement] = [.binding(.var, "form", .call("MultipartForm"))]
        var names = Set(signature.map(\.parameter.name)).union(["form"])
        var documented: [String] = []
        let ordered = parts.filter(\.isRequired) + parts.filter { !$0.isRequired }
        for part in ordered {
            var name = SwiftNames.memberName(part.name)
            if names.contains(name) { name += "Part" }
            names.insert(name)
            let plain = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
            let swiftType: SwiftType
            let partExpression: Expression
            let wire = Expression.string(part.name)
            if part.isFile {
                swiftType = "MultipartFile"
                var arguments: [Expression.Argument] = [.init(wire), .init(.raw(plain))]
                if part.contentType != "application/octet-stream" {
                    arguments.append(.init("declaredType", .string(part.contentType)))
                }
                partExpression = .dot("file", arguments)
            } else {
                guard let mapped = mapping.swiftType(part.type) else { return nil }
                swiftType = mapped
                if part.contentType == "text/plain" {
                    let text =
                        part.type == .primitive(.string)
                        ? Expression.raw(plain) : .call("ResourcePath.text", [.init("of", .raw(plain))])
                    partExpression = .dot("field", [.init("name", wire), .init("value", text)])
                } else {
                    partExpression = .dot(
                        "text",
                        [
                            .init("name", wire), .init("contentType", .string(part.contentType)),
                            .init("value", .raw("\(plain).json.jsonText")),
                        ])
                }
            }
            let append = Statement.expression(Expression.raw("form.parts").call("append", [.init(partExpression)]))
            parameters.append(part.isRequired ? .init(name, swiftType) : .optional(name, swiftType))
            body.append(part.isRequired ? append : .ifLet(name, [append]))
            var line = "  - \(plain): the `\(part.name)` part" + (part.isFile ? ", a file (`\(part.contentType)`)" : "")
            if let summary = part.doc.summary { line += ": " + summary } else { line += "." }
            documented.append(line)
        }
        // The form method's other arguments, passed on as they are.
        var forwarded: [Expression.Argument] = []
        for (parameter, source) in signature {
            if source == .multipartForm {
                forwarded.append(.init(.raw("form")))
                continue
            }
            parameters.append(parameter)
            let label = parameter.label ?? parameter.name
            forwarded.append(label == "_" ? .init(.raw(parameter.name)) : .init(label, .raw(parameter.name)))
        }
        let key = signatureKey(methodName, parameters, includingDefaulted: false)
        guard usedNames.insert(key).inserted else { return nil }
        usedNames.insert(signatureKey(methodName, parameters, includingDefaulted: true))
        body.append(.return(.call(methodName, forwarded)))
        var doc = DocComment.lines(operation.doc, remark: nil)
        if !doc.isEmpty { doc.append("") }
        doc.append("The form's parts as typed arguments; `\(methodName)(_:)` takes any `MultipartForm`.")
        doc += ["", "- Parameters:"] + documented
        return Declaration(
            doc: doc, attributes: operation.isDeprecated ? [.deprecated] : [],
            .function(FunctionDeclaration(methodName, parameters: parameters, returns: returnType, body: body)))
    }
}
