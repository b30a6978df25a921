import BinderyJSON
import BinderyMock
import Foundation

/// Inbox's drafts (created in a thread, sent or deleted at their version), messages read, tags, thread tags and files.
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
            let sent = call.store.insert(draft, into: namespace + ["messages"], key: draftID)
            // The thread holds the message now, not the draft, and is tagged sent.
            if let thread = draft["thread_id"]?.text {
                let threadPath = namespace + ["threads", thread]
                InboxThreads.move(draftID, from: "draft_ids", to: "message_ids", in: threadPath, store: call.store)
                InboxThreads.retag(threadPath, adding: ["sent"], removing: ["drafts"], store: call.store)
            }
            return call.server.single(sent.object)
        })

    /// `POST /n/{ns}/drafts`: a draft at version 0, in the thread it replies to or in a new thread tagged `drafts`.
    static let inboxCreateDraft = MockOperation { call in
        let response = call.standardAnswer()
        guard response.status < 300, let id = response.json?["id"]?.text else { return response }
        let namespace = InboxPaths.namespace(of: call.resourcePath)
        let draftPath = namespace + ["drafts", id]
        let draft = call.store.object(at: draftPath) ?? [:]
        let threads = namespace + ["threads"]
        var thread: String
        if let replying = draft["reply_to_thread"]?.text, call.store.object(at: threads + [replying]) != nil {
            thread = replying
            InboxThreads.move(id, from: nil, to: "draft_ids", in: threads + [replying], store: call.store)
        } else {
            thread =
                call.store.insert(
                    [
                        "object": "thread", "namespace_id": .string(namespace.last ?? ""),
                        "subject": draft["subject"] ?? .null, "tags": [InboxThreads.tag("drafts")],
                        "draft_ids": [.string(id)], "message_ids": [],
                    ],
                    into: threads
                ).key
        }
        let changes: JSONObject = [
            "object": "draft", "namespace_id": .string(namespace.last ?? ""), "thread_id": .string(thread),
        ]
        let stored = call.store.update(at: draftPath, merging: changes) ?? draft
        return call.server.single(stored, status: response.status)
    }

    /// `PUT /n/{ns}/messages/{id} {"unread"}`: the message changes, and its thread is tagged `unread` exactly
    /// while one of its messages is.
    static let inboxUpdateMessage = MockOperation { call in
        let response = call.standardAnswer()
        guard response.status < 300, let message = call.store.object(at: call.resourcePath),
            let thread = message["thread_id"]?.text
        else { return response }
        let namespace = InboxPaths.namespace(of: call.resourcePath)
        let anyUnread = call.store.items(in: namespace + ["messages"]).contains {
            $0.object["thread_id"]?.text == thread && $0.object["unread"] == .bool(true)
        }
        InboxThreads.retag(
            namespace + ["threads", thread], adding: anyUnread ? ["unread"] : [],
            removing: anyUnread ? [] : ["unread"], store: call.store)
        return response
    }

    /// `POST /n/{ns}/tags {"name"}`: a user tag, with an id of its own; a name already taken is refused.
    static let inboxCreateTag = MockOperation(prepare: InboxThreads.freeFixtureName) { call in
        guard let name = call.body?["name"]?.text, !name.isEmpty else {
            return call.server.errorResponse(400, code: "invalid_request_error", message: "a tag needs a name")
        }
        if let refusal = InboxThreads.refuseTakenName(name, in: call.resourcePath, call) { return refusal }
        let namespace = InboxPaths.namespace(of: call.resourcePath)
        let tag: JSONObject = [
            "object": "tag", "name": .string(name), "namespace_id": .string(namespace.last ?? ""), "readonly": false,
        ]
        let id = call.store.newKey(prefix: "tag")
        return call.server.single(call.store.insert(tag, into: call.resourcePath, key: id).object)
    }

    /// `PUT /n/{ns}/tags/{id} {"name"}`: renames a user tag; system tags (`inbox`, `unread`, …) keep their names.
    static let inboxRenameTag = MockOperation(prepare: InboxThreads.freeFixtureName) { call in
        guard let tag = call.store.object(at: call.resourcePath) else {
            return call.server.errorResponse(404, code: "not_found_error", message: "no such tag")
        }
        let id = call.resourcePath.last ?? ""
        if InboxThreads.systemTags.contains(id) || tag["readonly"] == .bool(true) {
            return call.server.errorResponse(
                400, code: "invalid_request_error", message: "the system tag \(id) cannot be renamed")
        }
        guard let name = call.body?["name"]?.text, !name.isEmpty else {
            return call.server.errorResponse(400, code: "invalid_request_error", message: "a tag needs a name")
        }
        let collection = Array(call.resourcePath.dropLast())
        if let refusal = InboxThreads.refuseTakenName(name, in: collection, call, except: id) { return refusal }
        return call.server.single(call.store.update(at: call.resourcePath, merging: ["name": .string(name)]) ?? tag)
    }

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
        guard call.store.object(at: call.resourcePath) != nil else {
            return call.server.errorResponse(404, code: "not_found_error", message: "no such thread")
        }
        let adding = call.body?["add_tags"]?.arrayValue?.compactMap(\.text) ?? []
        let removing = Set(call.body?["remove_tags"]?.arrayValue?.compactMap(\.text) ?? [])
        InboxThreads.retag(call.resourcePath, adding: adding, removing: removing, store: call.store)
        return call.server.single(call.store.object(at: call.resourcePath) ?? [:])
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

/// What a thread holds and how it is tagged, kept in step with its drafts and messages.
enum InboxThreads {
    /// The tags Inbox keeps itself: their ids are their names, and they cannot be renamed.
    static let systemTags: Set = [
        "inbox", "archive", "drafts", "sending", "sent", "spam", "starred", "trash", "unread", "unseen",
        "attachment", "replied", "file", "all",
    ]

    /// A system tag as a thread lists it.
    static func tag(_ name: String) -> JSONValue { ["id": .string(name), "name": .string(name)] }

    /// Adds and removes tags on the thread at `path` (by id or name), each tag listed once.
    static func retag(_ path: [String], adding: [String], removing: Set<String>, store: MockStore) {
        guard let thread = store.object(at: path) else { return }
        var tags = (thread["tags"]?.arrayValue ?? []).filter { tag in
            !removing.contains(tag["id"]?.text ?? "") && !removing.contains(tag["name"]?.text ?? "")
        }
        for name in adding where !tags.contains(where: { $0["id"]?.text == name || $0["name"]?.text == name }) {
            tags.append(tag(name))
        }
        _ = store.update(at: path, merging: ["tags": .array(tags)])
    }

    /// Moves an id from one of the thread's lists (`draft_ids`) to another (`message_ids`).
    static func move(_ id: String, from source: String?, to target: String, in path: [String], store: MockStore) {
        guard let thread = store.object(at: path) else { return }
        var changes = JSONObject()
        if let source {
            changes[source] = .array((thread[source]?.arrayValue ?? []).filter { $0.text != id })
        }
        let ids = thread[target]?.arrayValue ?? []
        changes[target] = .array(ids.contains(.string(id)) ? ids : ids + [.string(id)])
        _ = store.update(at: path, merging: changes)
    }

    /// A recorded create or rename names a tag the store may already hold under that name (a fixture's sample
    /// text): that other tag goes, so the name is free as it was when the call was recorded.
    @Sendable static func freeFixtureName(_ fixture: MockFixture, _ server: MockServer) {
        guard let name = fixture.requestBody?["name"]?.text else { return }
        let tags = InboxPaths.namespace(of: fixture.segments) + ["tags"]
        for tag in server.store.items(in: tags)
        where tag.object["name"]?.text == name && tag.key != fixture.segments.last {
            server.store.remove(at: tags + [tag.key])
        }
    }

    /// A 400 when another tag of the namespace is already called `name`.
    static func refuseTakenName(_ name: String, in tags: [String], _ call: MockCall, except id: String? = nil)
        -> MockResponse?
    {
        let taken = call.store.items(in: tags).contains {
            $0.key != id && $0.object["name"]?.text?.lowercased() == name.lowercased()
        }
        guard taken else { return nil }
        return call.server.errorResponse(
            400, code: "invalid_request_error", message: "a tag called \(name) already exists")
    }
}
