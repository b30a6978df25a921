import BinderySpec

extension OpenAPISchemaReader {
    /// OpenAPI 3.1 `webhooks`: the JSON body of each is a model (`<Webhook>Payload` when inline), and one choice,
    /// `Webhook`, reads an incoming body as any of them (by a discriminator the payloads imply, else by trying
    /// them), so a server decodes what it is sent with one call.
    func readWebhooks(_ webhooks: OpenAPINode) {
        guard webhooks.isObject else {
            context.error("webhooks must be an object, found \(webhooks.value.kindName)", at: webhooks)
            return
        }
        var payloads: [OpenAPINode] = []
        var members: [ChoiceSpec.Member] = []
        for (name, written) in webhooks.members {
            // 3.1 lets a webhook be a reference to `#/components/pathItems/<name>`.
            var item = written
            if let text = written["$ref"]?.string {
                let prefix = "#/components/pathItems/"
                guard text.hasPrefix(prefix),
                    let target = context.root["components"]?["pathItems"]?[
                        OpenAPIReferences.unescape(String(text.dropFirst(prefix.count)))]
                else {
                    context.warning("webhook '\(name)': unsupported $ref '\(text)'; skipped", at: written)
                    continue
                }
                item = target
            }
            for (method, operation) in item.members where HTTPMethod(rawValue: method.uppercased()) != nil {
                var body = operation["requestBody"]
                if let reference = body?["$ref"] {
                    body = context.resolveReference(reference, in: .requestBodies)?.node
                }
                guard let content = body?["content"],
                    let json = content.members.first(where: { OpenAPIMediaType.isJSON(OpenAPIMediaType.base($0.key)) }),
                    let schema = json.node["schema"]
                else { continue }
                let type = resolve(schema, nameHint: OpenAPINaming.joined(name, "Payload")).type
                guard type != .primitive(.untyped), !members.contains(where: { $0.type == type }) else { continue }
                payloads.append(schema)
                members.append(ChoiceSpec.Member(type: type))
            }
        }
        guard !members.isEmpty else { return }
        var discriminator: String?
        if let implied = impliedDiscriminator(payloads) {
            discriminator = implied.property
            for index in members.indices { members[index].tags = implied.tags[index] }
        }
        choices.append(
            ChoiceSpec(
                name: qualified(typeNames.unique("Webhook")), members: members, discriminator: discriminator,
                doc: Documentation(summary: "A body that one of the service's webhooks sends."),
                location: context.location(of: webhooks)))
    }
}
