import BinderySpec

/// Names for operations whose `operationId` only spells their method and path.
///
/// Specs generated from server code often have ids such as `get_files_id` (`GET /files/{file_id}`) or
/// `post_files_id_copy`. Used as they are, every call repeats its own URL: `client.files("1").getFilesId()`,
/// `client.files("1").postFilesIdCopy(...)`. The place of the method already says all of that, so such an operation is
/// named by what it is there instead: `get`, `update`, `delete` and `create` on a resource or its collection, the
/// last segment for a POST below it (`copy`, `commit`; `uploadContent` when it sends a file), the method and the
/// segment for the rest (`getThumbnail`, `updateWatermark`, `deleteAvatar`). A name that would clash with another member of the same builder keeps the id.
enum OpenAPIOperationNames {
    /// Whether `id` is the method and the path's segments run together, each parameter as `id` or by its name
    /// (`get_files_id_thumbnail_id` for `GET /files/{file_id}/thumbnail.{extension}`), ignoring case and punctuation.
    /// Only ids written as words joined by `_` or `-` with the method first, as tools write them: a camel-case id
    /// that happens to spell its path (`getMyContact` for `GET /my/contact`) was chosen by a person and stays.
    static func spellsMethodAndPath(_ id: String, method: HTTPMethod, template: String) -> Bool {
        let words = id.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard words.count > 1, words[0].lowercased() == method.rawValue.lowercased() else { return false }
        let path = template.split(separator: "#", maxSplits: 1).first.map(String.init) ?? template
        let target = letters(id)
        let prefix = letters(method.rawValue)
        return [true, false].contains { asID in
            target == prefix + letters(spelled(path, parametersAsID: asID))
        }
    }

    /// The path with each `{name}` written as `id` or as its name.
    private static func spelled(_ path: String, parametersAsID: Bool) -> String {
        var text = ""
        var parameter: String?
        for character in path {
            switch character {
            case "{": parameter = ""
            case "}":
                text += parametersAsID ? "id" : parameter ?? ""
                parameter = nil
            default:
                if parameter != nil { parameter?.append(character) } else { text.append(character) }
            }
        }
        return text
    }

    private static func letters(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
    }

    /// The name of a path-spelled operation at its place: its kind on the resource's own URL, else its suffix.
    static func readableName(_ operation: OperationSpec) -> String {
        guard let suffix = operation.pathSuffix.last else {
            switch operation.kind {
            case .get: return "get"
            case .list: return "list"
            case .create: return "create"
            case .update, .replace: return "update"
            case .delete: return "delete"
            case .action, .function: return operation.method.rawValue.lowercased()
            }
        }
        // `thumbnail.{extension}` is named by its text.
        let stem = String(suffix.prefix { $0 != "{" }.trimmingSuffix { !$0.isLetter && !$0.isNumber })
        // A segment without a letter (`/users/{id}/folders/0`) names nothing: the id stays.
        guard stem.contains(where: \.isLetter) else { return operation.name }
        switch operation.method {
        // A POST that sends a file puts it somewhere: `uploadContent`, `uploadAvatar`.
        case .post where operation.requestBody.map(Self.sendsAFile) == true:
            return OpenAPINaming.joined("upload", stem)
        // Below a resource, a POST's segment is mostly a verb (`copy`, `commit`, `terminate_sessions`).
        case .post: return stem
        case .put, .patch: return OpenAPINaming.joined("update", stem)
        default: return OpenAPINaming.joined(operation.method.rawValue.lowercased(), stem)
        }
    }

    private static func sendsAFile(_ body: BodySpec) -> Bool {
        body.contentType == "multipart/form-data" || body.type == .primitive(.stream)
    }

    /// Renames the operations named in `names` (path-spelled ids) wherever the readable name is free on its builder:
    /// a resource's own operations share one with its steps, its collection's with the steps from the collection.
    static func renamePathSpelledOperations(in resources: inout [ResourceSpec], names: Set<String>) {
        guard !names.isEmpty else { return }
        for index in resources.indices {
            let resource = resources[index]
            var itemNames = taken(resource.operations, resource.children.filter { !$0.isOnCollection }, names)
            rename(&resources[index].operations, names: names, taken: &itemNames)
            var collectionNames = taken(
                resource.collectionOperations, resource.children.filter(\.isOnCollection), names)
            rename(&resources[index].collectionOperations, names: names, taken: &collectionNames)
        }
    }

    private static func taken(_ operations: [OperationSpec], _ children: [ChildSpec], _ names: Set<String>)
        -> Set<String>
    {
        var taken = Set(children.map { letters($0.name) })
        // The ids about to be replaced are not taken: `get_authorize` may become `getAuthorize`.
        for operation in operations where operation.kind == .list || !names.contains(operation.name) {
            taken.insert(letters(operation.kind == .list ? "list" : operation.name))
        }
        return taken
    }

    private static func rename(_ operations: inout [OperationSpec], names: Set<String>, taken: inout Set<String>) {
        for index in operations.indices where names.contains(operations[index].name) {
            let readable = readableName(operations[index])
            // A collection's one GET is its `list` whatever it is called; it cannot clash with another.
            if operations[index].kind == .list || taken.insert(letters(readable)).inserted {
                operations[index].name = readable
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
