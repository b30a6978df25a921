import BinderySpec

/// What an operation's method returns: the request value, its decoder, and the enum of a per-status answer.
extension OperationTranslator {
    /// What the method returns, with the enum it declares beside it when success statuses answer differently
    /// (named after the operation; an overload of the same name gets a numbered one). Nil when the answer has no
    /// Swift form.
    func outcome(of operation: OperationSpec, typePrefix: String, usedNames: Set<String>) -> (Outcome, Declaration?)? {
        guard let answers = operation.response?.answers, !answers.isEmpty else {
            return result(of: operation).map { ($0, nil) }
        }
        var typeName = typePrefix + SwiftNames.typeName(operation.name) + "Answer"
        if usedNames.contains(typeName) {
            typeName = (2...).lazy.map { "\(typeName)\($0)" }.first { !usedNames.contains($0) } ?? typeName
        }
        return answerEnum(operation, answers, typeName: typeName).map { declaration, outcome in (outcome, declaration) }
    }

    /// What a method returns, and the statement that ends it by wrapping `request` in that request value.
    struct Outcome {
        var type: SwiftType
        var statement: Statement

        /// `OperationRequest<Type>`, decoding the answer with `decoder` (`.model(DriveItem.self)`, `.empty`).
        static func operationRequest(_ type: SwiftType, decoder: Expression) -> Outcome {
            Outcome(
                type: .generic("OperationRequest", [type]),
                statement: .return(
                    .call(
                        "OperationRequest",
                        [
                            .init("client", .raw("client")), .init("request", .raw("request")),
                            .init("decoder", decoder),
                        ])))
        }
    }

    /// The enum of an operation whose success statuses answer differently, and the outcome that decodes each
    /// status its own way: `case ok([UInt8])`, `case accepted`.
    private func answerEnum(_ operation: OperationSpec, _ answers: [StatusAnswer], typeName: String)
        -> (Declaration, Outcome)?
    {
        var cases: [Declaration] = []
        var decoders: [Expression.DictionaryEntry] = []
        /// `ResponseDecoder<Type>`, on which `.text`, `.model(…)` and the others are called.
        func decoderType(_ type: SwiftType) -> Expression { .type(.generic("ResponseDecoder", [type])) }
        /// `decoder.map { closure }`: a trailing closure is text, the one place generated code writes one.
        func mapping(_ decoder: Expression, _ closure: String) -> Expression {
            .raw((decoder.flat ?? "") + ".map { \(closure) }")
        }
        for answer in answers {
            let name = Self.caseName(ofStatus: answer.status)
            var doc = DocComment.lines(answer.doc, remark: nil)
            doc.insert("`\(answer.status)`" + (doc.isEmpty ? "." : ": " + doc.removeFirst()), at: 0)
            let status = Expression.raw(String(answer.status))
            guard let type = answer.type else {
                cases.append(Declaration(doc: doc, .enumCase(name: name, associatedValues: [])))
                decoders.append(.init(status, mapping(decoderType("Void").dot("empty"), "_ in .\(name)")))
                continue
            }
            let decoder: Expression
            let swiftType: SwiftType
            if answer.isRawBody {
                swiftType = type == .primitive(.string) ? "String" : .array("UInt8")
                decoder = decoderType(swiftType).dot(type == .primitive(.string) ? "text" : "raw")
            } else if case .named(let model) = type, modelNames.contains(model) {
                swiftType = .named(symbols.typeName(model))
                decoder = decoderType(swiftType).call("model", [.init(.metatype(swiftType))])
            } else {
                guard let mapped = self.mapping.swiftType(type) else { return nil }
                swiftType = mapped
                decoder = decoderType(swiftType).call("value", [.init(.metatype(swiftType))])
            }
            cases.append(Declaration(doc: doc, .enumCase(name: name, associatedValues: [swiftType])))
            decoders.append(.init(status, mapping(decoder, ".\(name)($0)")))
        }
        // The first listed status also reads a success status the spec does not list.
        let outcome = Outcome.operationRequest(
            .named(typeName), decoder: .dot("byStatus", [.init(.dictionary(decoders))]))
        let declaration = Declaration(
            doc: [
                "What `\(SwiftNames.memberName(operation.name))` answers, by status: each success status the spec lists."
            ],
            .type(TypeDeclaration(.enum, typeName, conformances: ["Sendable", "Hashable"], members: cases)))
        return (declaration, outcome)
    }

    /// `200` → `ok`, `202` → `accepted`: the status's reason phrase; others `status` and the code.
    static func caseName(ofStatus status: Int) -> String {
        let names = [
            200: "ok", 201: "created", 202: "accepted", 203: "nonAuthoritative", 204: "noContent",
            205: "resetContent", 206: "partialContent", 207: "multiStatus", 208: "alreadyReported", 226: "imUsed",
        ]
        return names[status] ?? "status\(status)"
    }

    /// What the method returns when every success status answers alike; nil when the answer has no Swift form.
    private func result(of operation: OperationSpec) -> Outcome? {
        guard let response = operation.response else { return .operationRequest("Void", decoder: .raw(".empty")) }
        if case .named(let status)? = response.monitor, modelNames.contains(status) {
            let statusType = SwiftType.named(symbols.typeName(status))
            return .operationRequest(
                .generic("OperationMonitor", [statusType]), decoder: .dot("monitor", [.init(.metatype(statusType))]))
        }
        if response.isRawBody {
            if response.type == .primitive(.string) { return .operationRequest("String", decoder: .raw(".text")) }
            return .operationRequest(.array("UInt8"), decoder: .raw(".raw"))
        }
        guard let type = response.type else { return .operationRequest("Void", decoder: .raw(".empty")) }
        if case .collection(.named(let element)) = type, modelNames.contains(element),
            operation.method == .get || response.delta != nil || operation.kind == .list
        {
            var arguments: [Expression.Argument] = [.init("client", .raw("client")), .init("request", .raw("request"))]
            if let listing = ConventionExpressions.listing(of: response) { arguments.append(.init("listing", listing)) }
            return Outcome(
                type: .generic("CollectionRequest", [.named(symbols.typeName(element))]),
                statement: .return(.call("CollectionRequest", arguments)))
        }
        guard let swiftType = mapping.swiftType(type) else { return nil }
        var arguments: [Expression.Argument] = [.init(.metatype(swiftType))]
        // Elsewhere than the envelope's results: Spark's `_pagination=count` answers `D.Pagination`.
        if let payloadPath = response.payloadPath {
            arguments.append(.init("at", .array(payloadPath.map(Expression.string))))
        }
        if case .named(let name) = type, modelNames.contains(name) {
            return .operationRequest(swiftType, decoder: .dot("model", arguments))
        }
        return .operationRequest(swiftType, decoder: .dot("value", arguments))
    }
}
