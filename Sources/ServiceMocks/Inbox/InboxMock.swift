import BinderyJSON
import BinderyMock
import Foundation

/// Inbox's drafts (sent or deleted at their version), thread tags and files.
extension MockOperation {
    /// `POST /n/{ns}/send {"draft_id", "version"}`: the draft (at its current version) becomes a message.
    static let inboxSend = MockOperation(
        prepare: { fixture, server in
            guard let draftID = fixture.requestBody?["draft_id"]?.text else { return }
            let drafts = InboxPaths.namespace(of: fixture.segments) + ["drafts"]
            server.store.insert(
                ["object": "draft", "version": fixture.requestBody?["version"] ?? 0], into: drafts, key: draftID)
        },
        handle: { call in
            let namespace = InboxPaths.namespace(of: call.resourcePath)
            guard let draftID = call.body?["draft_id"]?.text else {
                // Sending without a draft: the body is the message.
                guard case .object(var message)? = call.body else {
                    return call.server.errorResponse(
                        400, code: "invalid_request_error", message: "send needs a draft_id or a message")
                }
                message["object"] = "message"
                return call.server.single(call.store.insert(message, into: namespace + ["messages"]).object)
            }
            let draftPath = namespace + ["drafts", draftID]
            guard var draft = call.store.object(at: draftPath) else {
                return call.server.errorResponse(404, code: "not_found_error", message: "no draft \(draftID)")
            }
            if let version = call.body?["version"], version != draft["version"] {
                return call.server.errorResponse(
                    409, code: "invalid_request_error",
                    message: "draft \(draftID) has changed since version \(version.text ?? "?")")
            }
            call.store.remove(at: draftPath)
            draft["object"] = "message"
            draft["version"] = nil
            draft["date"] = .number(JSONNumber(Int(Date().timeIntervalSince1970)))
            return call.server.single(call.store.insert(draft, into: namespace + ["messages"], key: draftID).object)
        })

    /// `DELETE /n/{ns}/drafts/{id} {"version"}`: only the current version may be deleted.
    static let inboxDeleteDraft = MockOperation { call in
        guard let draft = call.store.object(at: call.resourcePath) else {
            return call.server.errorResponse(404, code: "not_found_error", message: "no such draft")
        }
        if let version = call.body?["version"], version != draft["version"] {
            return call.server.errorResponse(
                409, code: "invalid_request_error", message: "the draft has changed since that version")
        }
        call.store.remove(at: call.resourcePath)
        return MockResponse(json: [:])
    }

    /// `PUT /n/{ns}/threads/{id} {"add_tags", "remove_tags"}`.
    static let inboxUpdateTags = MockOperation { call in
        guard let thread = call.store.object(at: call.resourcePath) else {
            return call.server.errorResponse(404, code: "not_found_error", message: "no such thread")
        }
        let adding = call.body?["add_tags"]?.arrayValue?.compactMap(\.text) ?? []
        let removing = Set(call.body?["remove_tags"]?.arrayValue?.compactMap(\.text) ?? [])
        var tags = (thread["tags"]?.arrayValue ?? []).filter { tag in
            !removing.contains(tag["id"]?.text ?? "") && !removing.contains(tag["name"]?.text ?? "")
        }
        for name in adding where !tags.contains(where: { $0["name"]?.text == name || $0["id"]?.text == name }) {
            tags.append(["id": .string(name), "name": .string(name)])
        }
        var changes = JSONObject()
        changes["tags"] = .array(tags)
        return call.server.single(call.store.update(at: call.resourcePath, merging: changes) ?? thread)
    }

    /// `POST /n/{ns}/files` (multipart): each file part becomes a file; the answer lists them.
    static let inboxUpload = MockOperation { call in
        let parts = MultipartParts(call.request)
        guard !parts.files.isEmpty else {
            return call.server.errorResponse(400, code: "invalid_request_error", message: "no file part in the upload")
        }
        var created: [JSONValue] = []
        for part in parts.files {
            let object: JSONObject = [
                "object": "file", "namespace_id": .string(call.resourcePath.dropFirst().first ?? ""),
                "filename": .string(part.filename), "size": .number(JSONNumber(part.bytes.count)),
                "content_type": .string(part.contentType),
            ]
            let stored = call.store.insert(object, into: call.resourcePath)
            call.store.setBlob(part.bytes, at: call.resourcePath + [stored.key, "download"])
            created.append(.object(stored.object))
        }
        return MockResponse(json: .array(created))
    }

    /// `GET /n/{ns}/files/{id}/download`: the uploaded bytes.
    static let inboxDownload = MockOperation(
        prepare: { fixture, server in
            server.store.setBlob(Array((fixture.responseText ?? "bytes").utf8), at: fixture.segments)
        },
        handle: { call in
            guard let bytes = call.store.blob(at: call.resourcePath + ["download"]) else {
                return call.server.errorResponse(404, code: "not_found_error", message: "no such file")
            }
            return MockResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: bytes)
        })
}
