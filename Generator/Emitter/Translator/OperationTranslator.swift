import BinderySpec
import Foundation

/// Actions, functions and other operations → builder methods that return a request value.
///
/// Methods only build: `copy(name:)` returns an `OperationRequest` whose `execute()` sends it, and a function
/// that returns a collection returns a `CollectionRequest`, so it pages like any other collection.
struct OperationTranslator {
    let spec: ServiceSpec
    let symbols: SymbolTable
    let mapping: TypeMapping
    let modelNames: Set<QualifiedName>

    private var usesODataSyntax: Bool { spec.conventions.queryOptions == .odata }

    /// CRUD that the runtime's generic requests already cover (`request().get()`, `.update(_:)`, `.add(_:)`):
    /// no query or header parameters, and a body, if any, of the resource's own model. Anything else gets a method.
    static func isGenericCRUD(_ operation: OperationSpec, model: TypeRef?) -> Bool {
        let plainParameters = operation.parameters.allSatisfy { $0.location != .query && $0.location != .header }
        let bodyIsModel = operation.requestBody.map { $0.type == model } ?? true
        switch operation.kind {
        case .get, .list: return plainParameters
        // A DELETE with a body (Inbox sends a draft's `version`) needs a method that takes it.
        case _ where operation.response?.answers.isEmpty == false: return false
        case .delete: return plainParameters && operation.requestBody == nil
        case .update, .replace, .create: return plainParameters && bodyIsModel
        case .action, .function: return false
        }
    }

    /// Names the method's own code uses: a parameter that wants one is `bodyValue`.
    static let reservedParameterNames: Set<String> = ["request", "body", "path"]

    /// A translated operation: the method (nil when one with the same call surface is already written), and how a
    /// call site invokes it.
    struct Translation {
        var declaration: Declaration?
        var call: OperationCall
        /// Types the method's declaration uses, declared beside it (the enum of a per-status answer).
        var companions: [Declaration] = []
    }

    /// - Parameter typePrefix: put before the names of the types the method declares beside it. Operations on a
    ///   collection are declared in an extension of the generic `CollectionRequestBuilder`, where a nested type
    ///   belongs to every specialization: two collections' `CreateAnswer` would be one type declared twice.
    func translate(
        _ operation: OperationSpec, owner: QualifiedName, typePrefix: String = "", usedNames: inout Set<String>,
        diagnostics: inout Diagnostics
    ) -> Translation? {
        let methodName = operation.kind == .list ? "list" : SwiftNames.memberName(operation.name)
        // Each parameter of the method, with where a call site's argument for it comes from.
        var signature: [(parameter: FunctionDeclaration.Parameter, source: OperationCall.Source)] = []
        var body: [Statement] = []
        var functionArguments: [Expression] = []
        var optionalFunctionArguments: [Statement] = []
        var bodyMembers: [Statement] = []
        var queryLines: [String] = []
        var headerLines: [String] = []
        var parameterNames: Set<String> = []

        var specParameters = operation.parameters
        // An OpenAPI operation in the OData delta dialect resumes from a token query parameter, declared or not.
        // CSDL functions say for themselves whether they take one (OneDrive's `delta(token=)` does, Outlook's
        // `messages/delta()` resumes from its delta link instead), so they are left as declared.
        if case .odata(let tokenParameter)? = operation.response?.delta, !usesODataSyntax,
            !specParameters.contains(where: { $0.name == tokenParameter })
        {
            specParameters.append(
                ParameterSpec(
                    name: tokenParameter, type: .primitive(.string), location: .query,
                    doc: Documentation(
                        summary: "A token from an earlier round's `deltaToken`, to get only later changes.")))
        }
        // Required parameters first, so optional ones can be left out at the call site.
        let ordered = specParameters.filter(\.isRequired) + specParameters.filter { !$0.isRequired }
        for parameter in ordered {
            guard let swiftType = mapping.swiftType(parameter.type) else {
                diagnostics.warning(
                    "skipped operation '\(operation.name)' on '\(owner)': parameter '\(parameter.name)' has no JSON form",
                    at: operation.location)
                return nil
            }
            let name = SwiftNames.unique(
                symbols.typeSafeMemberName(
                    SwiftNames.spellingComparisons(in: parameter.name, temporal: parameter.type.isTemporal), of: nil),
                reserved: Self.reservedParameterNames, in: &parameterNames)
            let plainName = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
            signature.append(
                (
                    parameter.isRequired ? .init(name, swiftType) : .init(name, swiftType + "?", default: "nil"),
                    parameter.location == .body ? .bodyMember(parameter.name) : .parameter(parameter.name)
                ))
            let wire = parameter.name.swiftLiteral
            let required = parameter.isRequired
            switch parameter.location {
            case .function:
                if required {
                    functionArguments.append(
                        .tuple([.init(.raw(wire)), .init(.call("ODataLiteral", [.init("json", .raw(name))]))]))
                } else {
                    optionalFunctionArguments.append(
                        .ifLet(
                            name,
                            [
                                .expression(
                                    Expression.raw("arguments").call(
                                        "append",
                                        [
                                            .init(
                                                .tuple([
                                                    .init(.raw(wire)),
                                                    .init(.call("ODataLiteral", [.init("json", .raw(plainName))])),
                                                ]))
                                        ]))
                            ]))
                }
            case .body:
                let set = Statement.raw("body.set(\(wire), \(name))")
                bodyMembers.append(required ? set : .ifLet(name, [set]))
            case .query:
                queryLines.append("request.setQuery(\(wire), json: \(name))")
            case .header:
                headerLines.append("request.setHeader(\(wire), json: \(name))")
            case .path:
                break  // substituted into the path below
            }
        }

        // The request body, when the operation takes one value rather than named parameters.
        var bodyExpression: String?
        if let requestBody = operation.requestBody {
            if requestBody.contentType == "multipart/form-data" {
                signature.insert((.init(label: "_", "form", "MultipartForm"), .multipartForm), at: 0)
                bodyExpression = "form"
            } else if case .primitive(.stream) = requestBody.type {
                signature.insert((.init(label: "_", "content", "RequestBody"), .content), at: 0)
                bodyExpression = "content"
            } else if let swiftType = mapping.swiftType(requestBody.type) {
                signature.insert((.init(label: "_", "body", swiftType), .body), at: 0)
                var isModel = false
                if case .named(let name) = requestBody.type { isModel = modelNames.contains(name) }
                if requestBody.contentType == "application/x-www-form-urlencoded" {
                    // A model's read-only members stay out of the form, as they do out of a JSON body.
                    bodyExpression = isModel ? "model form fields" : "form fields"
                } else if requestBody.type == .primitive(.string), requestBody.contentType.hasPrefix("text/") {
                    bodyExpression = "text"
                } else {
                    bodyExpression =
                        isModel ? "client.body(for: body)" : "client.conventions.wrapRequestBody(body.json)"
                }
            }
        }

        // The URL.
        var pathExpression = Expression.raw("path")
        for (index, segment) in operation.pathSuffix.enumerated() {
            let isLast = index == operation.pathSuffix.count - 1
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let variable = String(segment.dropFirst().dropLast())
                let name = SwiftNames.memberName(variable)
                if !operation.parameters.contains(where: { $0.name == variable }) {
                    signature.insert((.init(name, "String"), .parameter(variable)), at: 0)
                }
                pathExpression = pathExpression.call("appending", [.init(.raw(name))])
            } else if segment.utf8.contains(UInt8(ascii: "{")) {
                // `thumbnail.{extension}`: the text with each parameter's value in place, encoded as one segment.
                var interpolated = ""
                for part in TemplateSegment.parts(of: segment) {
                    switch part {
                    case .text(let text): interpolated += String(text.swiftLiteral.dropFirst().dropLast())
                    case .parameter(let variable):
                        let name = SwiftNames.memberName(variable)
                        if let declared = operation.parameters.first(where: { $0.name == variable }),
                            declared.type != .primitive(.string)
                        {
                            interpolated += "\\(ResourcePath.text(of: \(name)))"
                            continue
                        }
                        if !operation.parameters.contains(where: { $0.name == variable }),
                            !signature.contains(where: { $0.parameter.name == name })
                        {
                            signature.insert((.init(name, "String"), .parameter(variable)), at: 0)
                        }
                        interpolated += "\\(\(name))"
                    }
                }
                pathExpression = pathExpression.call("appending", [.init(.raw("\"" + interpolated + "\""))])
            } else if isLast, operation.kind == .function, usesODataSyntax {
                let function = Expression.Argument("function", .string(spec.urlSegment(segment)))
                if optionalFunctionArguments.isEmpty {
                    pathExpression = pathExpression.call(
                        "appending", [function, .init("parameters", .array(functionArguments))])
                } else {
                    body.append(.assignment("var arguments: [(String, ODataLiteral)]", .array(functionArguments)))
                    body += optionalFunctionArguments
                    pathExpression = pathExpression.call(
                        "appending", [function, .init("parameters", .raw("arguments"))])
                }
            } else {
                pathExpression = pathExpression.call("appending", [.init(.string(spec.urlSegment(segment)))])
            }
        }

        var companions: [Declaration] = []
        let outcome: (String, Statement)?
        if let answers = operation.response?.answers, !answers.isEmpty {
            // Nested in the builder; an overload of the same name gets a numbered one.
            var typeName = typePrefix + SwiftNames.typeName(operation.name) + "Answer"
            if usedNames.contains(typeName) {
                typeName = (2...).lazy.map { "\(typeName)\($0)" }.first { !usedNames.contains($0) } ?? typeName
            }
            outcome = answerEnum(operation, answers, typeName: typeName).map { declaration, finish in
                companions.append(declaration)
                return ("OperationRequest<\(typeName)>", finish)
            }
        } else {
            outcome = result(of: operation)
        }
        guard let (returnType, finish) = outcome else {
            diagnostics.warning(
                "skipped operation '\(operation.name)' on '\(owner)': its response type has no Swift form",
                at: operation.location)
            return nil
        }
        let parameters = signature.map(\.parameter)
        // Swift picks an overload by name and labels; two that a call cannot tell apart keep the first.
        let callKey = signatureKey(methodName, parameters, includingDefaulted: false)
        let fullKey = signatureKey(methodName, parameters, includingDefaulted: true)
        let call = OperationCall(
            methodName: methodName,
            arguments: signature.map {
                ($0.parameter.label ?? $0.parameter.name, $0.source, $0.parameter.defaultValue != nil)
            },
            sendsWith: returnType.hasPrefix("CollectionRequest") ? "get" : "execute")
        // The same call surface as a method already written: nothing is lost, and a call site reaches it through that one.
        if usedNames.contains(fullKey) { return Translation(declaration: nil, call: call) }
        guard !usedNames.contains(callKey) else {
            diagnostics.warning(
                "skipped an overload of '\(operation.name)' on '\(owner)': Swift cannot tell it from another one",
                at: operation.location)
            return nil
        }
        usedNames.insert(callKey)
        usedNames.insert(fullKey)
        if let companion = companions.first, case .type(let type) = companion.kind { usedNames.insert(type.name) }

        let method = Expression.raw(".\(operation.method.rawValue.lowercased())")
        var mutations: [Statement] = []
        if !bodyMembers.isEmpty {
            mutations.append("var body = JSONObject()")
            mutations += bodyMembers
            mutations.append("request.setJSONBody(client.conventions.wrapRequestBody(.object(body)))")
        } else if let bodyExpression {
            let contentType = (operation.requestBody?.contentType ?? "application/octet-stream").swiftLiteral
            if bodyExpression == "form" {
                mutations.append("request.setMultipartBody(form)")
            } else if bodyExpression == "form fields" {
                mutations.append("request.setFormBody(body.json)")
            } else if bodyExpression == "model form fields" {
                mutations.append("request.setFormBody(.object(body.requestMembers))")
            } else if bodyExpression == "text" {
                mutations.append("request.setTextBody(body, contentType: \(contentType))")
            } else if bodyExpression == "content" {
                mutations.append("request.body = content")
                mutations.append("request.setHeader(\"Content-Type\", json: \(contentType))")
            } else {
                mutations.append("request.setJSONBody(\(bodyExpression))")
            }
        }
        // A variant's fixed parameters select the shape of its answer (`view=count`).
        let fixedLines = operation.fixedQuery.sorted { $0.key < $1.key }.map {
            "request.setQuery(\($0.key.swiftLiteral), \($0.value.swiftLiteral))"
        }
        mutations += (fixedLines + queryLines + headerLines).map(Statement.raw)
        if !operation.isEnveloped {
            // This operation's bodies travel bare, outside the service's envelope.
            body.insert("let client = self.client.withoutEnvelope", at: 0)
        }
        body.append(
            .assignment(
                mutations.isEmpty ? "let request" : "var request",
                .call("APIRequest", [.init("method", method), .init("path", pathExpression)])))
        body += mutations
        body.append(finish)

        if let parts = operation.requestBody?.parts, !parts.isEmpty,
            let typed = typedForm(
                operation, parts: parts, methodName: methodName, signature: signature, returnType: returnType,
                usedNames: &usedNames)
        {
            companions.append(typed)
        }

        var doc = DocComment.lines(operation.doc, remark: nil)
        let documented = ordered.filter { $0.doc.summary != nil }
        if !documented.isEmpty {
            if !doc.isEmpty { doc.append("") }
            doc.append("- Parameters:")
            for parameter in documented {
                doc.append("  - \(SwiftNames.identifier(parameter.name)): \(parameter.doc.summary ?? "")")
            }
        }
        if !doc.isEmpty { doc.append("") }
        doc.append("- Remark: Generated from `\(owner)/\(operation.name)` (\(operation.method.rawValue)).")
        let declaration = Declaration(
            doc: doc, attributes: operation.isDeprecated ? ["@available(*, deprecated)"] : [],
            .function(FunctionDeclaration(methodName, parameters: parameters, returns: returnType, body: body)))
        return Translation(declaration: declaration, call: call, companions: companions)
    }

    /// For a multipart body whose schema lists its parts, an overload that takes each part as a typed argument
    /// (`attributes: UploadAttributes, file: MultipartFile`), builds the form and calls the form method: a file part
    /// in the content type the spec declares unless the file names its own, a JSON part as a document in its type,
    /// a plain text part as a field.
    private func typedForm(
        _ operation: OperationSpec, parts: [FormPart], methodName: String,
        signature: [(parameter: FunctionDeclaration.Parameter, source: OperationCall.Source)], returnType: String,
        usedNames: inout Set<String>
    ) -> Declaration? {
        var parameters: [FunctionDeclaration.Parameter] = []
        var body: [Statement] = ["var form = MultipartForm()"]
        var names = Set(signature.map(\.parameter.name)).union(["form"])
        var documented: [String] = []
        let ordered = parts.filter(\.isRequired) + parts.filter { !$0.isRequired }
        for part in ordered {
            var name = SwiftNames.memberName(part.name)
            if names.contains(name) { name += "Part" }
            names.insert(name)
            let plain = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
            let swiftType: String
            let partExpression: Expression
            let wire = Expression.string(part.name)
            if part.isFile {
                swiftType = "MultipartFile"
                var arguments: [Expression.Argument] = [.init(wire), .init(.raw(plain))]
                if part.contentType != "application/octet-stream" {
                    arguments.append(.init("declaredType", .string(part.contentType)))
                }
                partExpression = .call(".file", arguments)
            } else {
                guard let mapped = mapping.swiftType(part.type) else { return nil }
                swiftType = mapped
                if part.contentType == "text/plain" {
                    let text = part.type == .primitive(.string) ? plain : "ResourcePath.text(of: \(plain))"
                    partExpression = .call(".field", [.init("name", wire), .init("value", .raw(text))])
                } else {
                    partExpression = .call(
                        ".text",
                        [
                            .init("name", wire), .init("contentType", .string(part.contentType)),
                            .init("value", .raw("\(plain).json.jsonText")),
                        ])
                }
            }
            let append = Statement.expression(Expression.raw("form.parts").call("append", [.init(partExpression)]))
            parameters.append(part.isRequired ? .init(name, swiftType) : .init(name, swiftType + "?", default: "nil"))
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
            doc: doc, attributes: operation.isDeprecated ? ["@available(*, deprecated)"] : [],
            .function(FunctionDeclaration(methodName, parameters: parameters, returns: returnType, body: body)))
    }

    /// The enum of an operation whose success statuses answer differently, and the statement that decodes each
    /// status its own way: `case ok([UInt8])`, `case accepted`.
    private func answerEnum(_ operation: OperationSpec, _ answers: [StatusAnswer], typeName: String)
        -> (Declaration, Statement)?
    {
        var cases: [Declaration] = []
        var decoders: [Expression.DictionaryEntry] = []
        for answer in answers {
            let name = Self.caseName(ofStatus: answer.status)
            var doc = DocComment.lines(answer.doc, remark: nil)
            doc.insert("`\(answer.status)`" + (doc.isEmpty ? "." : ": " + doc.removeFirst()), at: 0)
            let status = Expression.raw(String(answer.status))
            guard let type = answer.type else {
                cases.append(Declaration(doc: doc, .enumCase(name)))
                decoders.append(.init(status, .raw("ResponseDecoder<Void>.empty.map { _ in .\(name) }")))
                continue
            }
            let decoder: String
            let swiftType: String
            if answer.isRawBody {
                swiftType = type == .primitive(.string) ? "String" : "[UInt8]"
                decoder = "ResponseDecoder<\(swiftType)>" + (swiftType == "String" ? ".text" : ".raw")
            } else if case .named(let model) = type, modelNames.contains(model) {
                swiftType = symbols.typeName(model)
                decoder = "ResponseDecoder<\(swiftType)>.model(\(swiftType).self)"
            } else {
                guard let mapped = mapping.swiftType(type) else { return nil }
                swiftType = mapped
                decoder = "ResponseDecoder<\(swiftType)>.value(\(swiftType).self)"
            }
            cases.append(Declaration(doc: doc, .enumCase("\(name)(\(swiftType))")))
            decoders.append(.init(status, .raw(decoder + ".map { .\(name)($0) }")))
        }
        // The first listed status also reads a success status the spec does not list.
        let finish = Statement.return(
            .call(
                "OperationRequest",
                [
                    .init("client", .raw("client")), .init("request", .raw("request")),
                    .init("decoder", .call(.raw(".byStatus"), [.init(.dictionary(decoders))])),
                ]))
        let declaration = Declaration(
            doc: [
                "What `\(SwiftNames.memberName(operation.name))` answers, by status: each success status the spec lists."
            ],
            .type(TypeDeclaration(.enum, typeName, conformances: ["Sendable", "Hashable"], members: cases)))
        return (declaration, finish)
    }

    /// `200` → `ok`, `202` → `accepted`: the status's reason phrase; others `status` and the code.
    static func caseName(ofStatus status: Int) -> String {
        let names = [
            200: "ok", 201: "created", 202: "accepted", 203: "nonAuthoritative", 204: "noContent",
            205: "resetContent", 206: "partialContent", 207: "multiStatus", 208: "alreadyReported", 226: "imUsed",
        ]
        return names[status] ?? "status\(status)"
    }

    /// The return type and the last statement, which wraps `request` in the right request value.
    private func result(of operation: OperationSpec) -> (String, Statement)? {
        func operationRequest(_ type: String, decoder: String) -> (String, Statement) {
            (
                "OperationRequest<\(type)>",
                .return(
                    .call(
                        "OperationRequest",
                        [
                            .init("client", .raw("client")), .init("request", .raw("request")),
                            .init("decoder", .raw(decoder)),
                        ]))
            )
        }
        guard let response = operation.response else { return operationRequest("Void", decoder: ".empty") }
        if case .named(let status)? = response.monitor, modelNames.contains(status) {
            let statusType = symbols.typeName(status)
            return operationRequest("OperationMonitor<\(statusType)>", decoder: ".monitor(\(statusType).self)")
        }
        if response.isRawBody {
            if response.type == .primitive(.string) { return operationRequest("String", decoder: ".text") }
            return operationRequest("[UInt8]", decoder: ".raw")
        }
        guard let type = response.type else { return operationRequest("Void", decoder: ".empty") }
        if case .collection(.named(let element)) = type, modelNames.contains(element),
            operation.method == .get || response.delta != nil || operation.kind == .list
        {
            let swiftType = symbols.typeName(element)
            return (
                "CollectionRequest<\(swiftType)>",
                .return(
                    .call(
                        "CollectionRequest",
                        [
                            .init("client", .raw("client")), .init("request", .raw("request")),
                        ]))
            )
        }
        guard let swiftType = mapping.swiftType(type) else { return nil }
        // Elsewhere than the envelope's results: Spark's `_pagination=count` answers `D.Pagination`.
        let place = response.payloadPath.map { ", at: [" + $0.map(\.swiftLiteral).joined(separator: ", ") + "]" } ?? ""
        if case .named(let name) = type, modelNames.contains(name) {
            return operationRequest(swiftType, decoder: ".model(\(swiftType).self\(place))")
        }
        return operationRequest(swiftType, decoder: ".value(\(swiftType).self\(place))")
    }

    /// The segment as a URL carries it (the route table matches on this).
    func routeSegment(_ segment: String) -> String { spec.urlSegment(segment) }

    /// Swift tells overloads apart by name and argument labels (types too, but not for defaulted calls).
    private func signatureKey(_ name: String, _ parameters: [FunctionDeclaration.Parameter], includingDefaulted: Bool)
        -> String
    {
        let labels = parameters.filter { includingDefaulted || $0.defaultValue == nil }.map {
            ($0.label ?? $0.name) + ":"
        }
        return name + "(" + labels.joined() + ")"
    }
}

/// How a call site invokes a generated operation method: `copy(parentReference: …, name: …).execute()`.
/// The conformance calls are written from it, so they call exactly what the builders declare.
struct OperationCall {
    enum Source: Equatable {
        /// A spec parameter (or a path variable), by its name in the spec.
        case parameter(String)
        /// A spec parameter that travels as a member of the JSON body.
        case bodyMember(String)
        /// The operation's one body value, a multipart form, or raw content.
        case body, multipartForm, content
    }

    var methodName: String
    /// In declaration order; the label is `_` for an unlabelled argument.
    var arguments: [(label: String, source: Source, isOptional: Bool)]
    /// `execute` for an `OperationRequest`, `get` for a `CollectionRequest`.
    var sendsWith: String
}

/// A path segment that mixes text and parameters (`thumbnail.{extension}`), split into its parts.
enum TemplateSegment {
    enum Part: Equatable {
        case text(String)
        case parameter(String)
    }

    static func parts(of segment: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(segment)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            parts.append(.parameter(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }
}
