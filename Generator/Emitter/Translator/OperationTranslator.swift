import BinderySpec
import Foundation

/// Actions, functions and other operations → builder methods that return a request value.
///
/// Methods only build: `copy(name:)` returns an `OperationRequest` whose `send()` sends it, and a function
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
        guard var parameters = parameters(of: operation, owner: owner, diagnostics: &diagnostics) else { return nil }
        let encoding = bodyEncoding(
            of: operation, bodyMembers: parameters.bodyMembers, signature: &parameters.signature)
        var body: [Statement] = []
        let path = path(of: operation, parameters: &parameters, prelude: &body)

        guard let (outcome, answerType) = outcome(of: operation, typePrefix: typePrefix, usedNames: usedNames) else {
            diagnostics.warning(
                "skipped operation '\(operation.name)' on '\(owner)': its response type has no Swift form",
                at: operation.location)
            return nil
        }
        let signature = parameters.signature
        let functionParameters = signature.map(\.parameter)
        // Swift picks an overload by name and labels; two that a call cannot tell apart keep the first.
        let callKey = signatureKey(methodName, functionParameters, includingDefaulted: false)
        let fullKey = signatureKey(methodName, functionParameters, includingDefaulted: true)
        let call = OperationCall(
            methodName: methodName,
            arguments: signature.map {
                ($0.parameter.label ?? $0.parameter.name, $0.source, $0.parameter.defaultValue != nil)
            })
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
        var companions: [Declaration] = []
        if let answerType, case .type(let type) = answerType.kind {
            companions.append(answerType)
            usedNames.insert(type.name)
        }

        // A variant's fixed parameters select the shape of its answer (`view=count`).
        let fixedQuery = operation.fixedQuery.sorted { $0.key < $1.key }.map {
            Statement.expression(.raw("request").call("setQuery", [.init(.string($0.key)), .init(.string($0.value))]))
        }
        let mutations = (encoding?.statements ?? []) + fixedQuery + parameters.querySettings + parameters.headerSettings
        if !operation.isEnveloped {
            // This operation's bodies travel bare, outside the service's envelope.
            body.insert(.binding(.let, "client", .raw("self.client.withoutEnvelope")), at: 0)
        }
        let method = Expression.raw(".\(operation.method.rawValue.lowercased())")
        body.append(
            .binding(
                mutations.isEmpty ? .let : .var, "request",
                .call("APIRequest", [.init("method", method), .init("path", path)])))
        body += mutations
        body.append(outcome.statement)

        if let parts = operation.requestBody?.parts, !parts.isEmpty,
            let typed = typedForm(
                operation, parts: parts, methodName: methodName, signature: signature, returnType: outcome.type,
                usedNames: &usedNames)
        {
            companions.append(typed)
        }

        let declaration = Declaration(
            doc: documentation(of: operation, owner: owner, parameters: parameters.ordered),
            attributes: operation.isDeprecated ? [.deprecated] : [],
            .function(
                FunctionDeclaration(methodName, parameters: functionParameters, returns: outcome.type, body: body)))
        return Translation(declaration: declaration, call: call, companions: companions)
    }

    /// The spec's description, the documented parameters and where the method came from.
    private func documentation(of operation: OperationSpec, owner: QualifiedName, parameters: [ParameterSpec])
        -> [String]
    {
        var doc = DocComment.lines(operation.doc, remark: nil)
        let documented = parameters.filter { $0.doc.summary != nil }
        if !documented.isEmpty {
            if !doc.isEmpty { doc.append("") }
            doc.append("- Parameters:")
            for parameter in documented {
                doc.append("  - \(SwiftNames.identifier(parameter.name)): \(parameter.doc.summary ?? "")")
            }
        }
        if !doc.isEmpty { doc.append("") }
        doc.append("- Remark: Generated from `\(owner)/\(operation.name)` (\(operation.method.rawValue)).")
        return doc
    }

    /// Each parameter of the method, with where a call site's argument for it comes from.
    typealias Signature = [(parameter: FunctionDeclaration.Parameter, source: OperationCall.Source)]

    /// The spec's parameters as the method takes and sends them.
    struct Parameters {
        /// Required first, so optional ones can be left out at the call site.
        var ordered: [ParameterSpec]
        var signature: Signature = []
        /// An OData function's required arguments, `("name", ODataLiteral(json: name))`, and statements that append
        /// the optional ones to `arguments`.
        var functionArguments: [Expression] = []
        var optionalFunctionArguments: [Statement] = []
        /// Statements that set members of a JSON body `body`, for parameters that travel in it.
        var bodyMembers: [Statement] = []
        var querySettings: [Statement] = []
        var headerSettings: [Statement] = []
    }

    private func parameters(of operation: OperationSpec, owner: QualifiedName, diagnostics: inout Diagnostics)
        -> Parameters?
    {
        var specParameters = operation.parameters
        // An OpenAPI operation in the OData delta style resumes from a token query parameter, declared or not.
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
        var result = Parameters(ordered: specParameters.filter(\.isRequired) + specParameters.filter { !$0.isRequired })
        var names: Set<String> = []
        for parameter in result.ordered {
            guard let swiftType = mapping.swiftType(parameter.type) else {
                diagnostics.warning(
                    "skipped operation '\(operation.name)' on '\(owner)': parameter '\(parameter.name)' has no JSON form",
                    at: operation.location)
                return nil
            }
            let name = SwiftNames.unique(
                symbols.typeSafeMemberName(
                    SwiftNames.spellingComparisons(in: parameter.name, temporal: parameter.type.isTemporal), of: nil),
                reserved: Self.reservedParameterNames, in: &names)
            let plainName = name.hasPrefix("`") ? String(name.dropFirst().dropLast()) : name
            result.signature.append(
                (
                    parameter.isRequired ? .init(name, swiftType) : .optional(name, swiftType),
                    parameter.location == .body ? .bodyMember(parameter.name) : .parameter(parameter.name)
                ))
            let wire = Expression.string(parameter.name)
            switch parameter.location {
            case .function:
                let argument = Expression.tuple([
                    .init(wire),
                    .init(.call("ODataLiteral", [.init("json", .raw(parameter.isRequired ? name : plainName))])),
                ])
                if parameter.isRequired {
                    result.functionArguments.append(argument)
                } else {
                    result.optionalFunctionArguments.append(
                        .ifLet(name, [.expression(Expression.raw("arguments").call("append", [.init(argument)]))]))
                }
            case .body:
                let set = Statement.expression(.raw("body").call("set", [.init(wire), .init(.raw(name))]))
                result.bodyMembers.append(parameter.isRequired ? set : .ifLet(name, [set]))
            case .query:
                result.querySettings.append(
                    .expression(.raw("request").call("setQuery", [.init(wire), .init("json", .raw(name))])))
            case .header:
                result.headerSettings.append(
                    .expression(.raw("request").call("setHeader", [.init(wire), .init("json", .raw(name))])))
            case .path:
                break  // substituted into the path
            }
        }
        return result
    }

    /// The URL: `path.appending(…)` for each segment after the builder's. A path variable the spec does not
    /// declare becomes a `String` parameter; an OData function's optional arguments are gathered in `prelude`.
    private func path(of operation: OperationSpec, parameters: inout Parameters, prelude: inout [Statement])
        -> Expression
    {
        var path = Expression.raw("path")
        for (index, segment) in operation.pathSuffix.enumerated() {
            let isLast = index == operation.pathSuffix.count - 1
            if segment.hasPrefix("{"), segment.hasSuffix("}") {
                let variable = String(segment.dropFirst().dropLast())
                let name = SwiftNames.memberName(variable)
                if !operation.parameters.contains(where: { $0.name == variable }) {
                    parameters.signature.insert((.init(name, "String"), .parameter(variable)), at: 0)
                }
                path = path.call("appending", [.init(.raw(name))])
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
                            !parameters.signature.contains(where: { $0.parameter.name == name })
                        {
                            parameters.signature.insert((.init(name, "String"), .parameter(variable)), at: 0)
                        }
                        interpolated += "\\(\(name))"
                    }
                }
                path = path.call("appending", [.init(.raw("\"" + interpolated + "\""))])
            } else if isLast, operation.kind == .function, usesODataSyntax {
                let function = Expression.Argument("function", .string(spec.urlSegment(segment)))
                if parameters.optionalFunctionArguments.isEmpty {
                    path = path.call(
                        "appending", [function, .init("parameters", .array(parameters.functionArguments))])
                } else {
                    prelude.append(
                        .binding(
                            .var, "arguments", type: .array(.tuple(["String", "ODataLiteral"])),
                            .array(parameters.functionArguments)))
                    prelude += parameters.optionalFunctionArguments
                    path = path.call("appending", [function, .init("parameters", .raw("arguments"))])
                }
            } else {
                path = path.call("appending", [.init(.string(spec.urlSegment(segment)))])
            }
        }
        return path
    }

    /// The segment as a URL carries it (the route table matches on this).
    func routeSegment(_ segment: String) -> String { spec.urlSegment(segment) }

    /// Swift tells overloads apart by name and argument labels (types too, but not for defaulted calls).
    func signatureKey(_ name: String, _ parameters: [FunctionDeclaration.Parameter], includingDefaulted: Bool)
        -> String
    {
        let labels = parameters.filter { includingDefaulted || $0.defaultValue == nil }.map {
            ($0.label ?? $0.name) + ":"
        }
        return name + "(" + labels.joined() + ")"
    }
}

/// How a call site invokes a generated operation method: `copy(parentReference: …, name: …).send()`.
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
