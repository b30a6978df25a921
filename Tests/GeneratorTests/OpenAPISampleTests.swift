import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

private func readSample() throws -> (spec: ServiceSpec, diagnostics: [Diagnostic]) {
    let result = OpenAPIReader().read(bytes: Array(try openAPISampleText().utf8), path: "spec.json")
    #expect(result.diagnostics.allSatisfy { $0.severity != .error }, "\(result.diagnostics)")
    return (try #require(result.spec), result.diagnostics)
}

@Suite("OpenAPI reader: sample mail service")
struct OpenAPISampleTests {
    @Test func readsTheDocumentLevelFacts() throws {
        let (spec, _) = try readSample()
        #expect(spec.source == "spec.json")
        #expect(spec.primaryNamespace == "sample.mail")
        #expect(spec.doc.summary == "Sample Mail")
        #expect(spec.rootResource == QualifiedName(namespace: "sample.mail", name: "Service"))
        #expect(
            spec.conventions
                == Conventions(
                    envelope: .none, paging: .offset(offsetParameter: "offset", limitParameter: "limit"),
                    delta: .cursor(requestParameter: "cursor", startField: "cursor_start", endField: "cursor_end"),
                    errors: ErrorShape(code: [["type"]], message: [["message"]]), queryOptions: .declared))
    }

    @Test func readsTheSampleWithoutAWarning() throws {
        let (_, diagnostics) = try readSample()
        #expect(diagnostics.map(\.description) == [])
    }

    @Test func readsObjectSchemas() throws {
        let (spec, _) = try readSample()
        let thread = try #require(spec.structure("Thread"))
        #expect(thread.kind == .entity)
        #expect(thread.key == ["id"])
        #expect(thread.doc.summary == "A conversation.")
        #expect(
            thread.properties.map(\.name) == [
                "id", "subject", "snippet", "participants", "last_message_timestamp", "unread", "tags", "state",
            ])
        let id = try #require(thread.property("id"))
        #expect(id.type == .primitive(.string) && !id.isNullable && id.isReadOnly)
        // Required, but `type: ["string", "null"]`.
        #expect(thread.property("subject")?.isNullable == true)
        let timestamp = try #require(thread.property("last_message_timestamp"))
        #expect(timestamp.type == .primitive(.int64) && timestamp.isNullable && !timestamp.isReadOnly)
        #expect(timestamp.doc.summary == "Unix seconds.")
        let unread = try #require(thread.property("unread"))
        #expect(unread.type == .primitive(.boolean) && unread.acceptsLooseValues)
        #expect(thread.property("snippet")?.acceptsLooseValues == false)
        #expect(thread.property("tags")?.type == .collection(openAPINamed("Tag")))

        let participant = try #require(spec.structure("Participant"))
        #expect(participant.kind == .complex && participant.key.isEmpty)
    }

    @Test func namesInlineSchemasAfterTheirParent() throws {
        let (spec, _) = try readSample()
        #expect(
            spec.structure("Thread")?.property("participants")?.type == .collection(openAPINamed("ThreadParticipants")))
        #expect(spec.structure("ThreadParticipants")?.properties.map(\.name) == ["name", "email"])
        #expect(spec.structure("Thread")?.property("state")?.type == openAPINamed("ThreadState"))
        #expect(spec.enumeration("ThreadState")?.members.map(\.name) == ["open", "archived", "trashed"])
        #expect(spec.structure("DeltaPageDeltas")?.property("event")?.type == openAPINamed("DeltaPageDeltasEvent"))
        #expect(spec.enumeration("DeltaPageDeltasEvent")?.members.map(\.name) == ["create", "modify", "delete"])
        #expect(spec.enumeration("DraftState")?.members.map(\.name) == ["draft", "sending", "sent"])
        // Components first, in document order; then inline types as they were met.
        #expect(
            spec.structures.map(\.name.name) == [
                "Namespace", "Participant", "Tag", "Thread", "VersionedReference", "Draft", "Message", "File", "When",
                "Time",
                "Timespan", "Event", "DeltaPage", "ThreadParticipants", "DeltaPageDeltas", "listThreadsCountResponse",
                "updateThreadTagsRequest", "sendDraftRequest", "generateCursorRequest", "generateCursorResponse",
            ])
        #expect(spec.enums.map(\.name.name) == ["DraftState", "ThreadState", "DeltaPageDeltasEvent"])
    }

    @Test func readsAllOfAndOneOf() throws {
        let (spec, _) = try readSample()
        let draft = try #require(spec.structure("Draft"))
        #expect(draft.baseType == QualifiedName(namespace: "sample.mail", name: "VersionedReference"))
        #expect(draft.property("version") == nil)  // inherited, not copied
        #expect(draft.property("state")?.type == openAPINamed("DraftState"))
        #expect(spec.structure("VersionedReference")?.property("version")?.isNullable == false)
        #expect(spec.structure("Timespan")?.baseType == QualifiedName(namespace: "sample.mail", name: "When"))
        // oneOf of Time and Timespan, both allOf When.
        #expect(spec.structure("Event")?.property("when")?.type == openAPINamed("When"))
        // oneOf of Thread, Draft and Message, which share nothing: a choice tried in order (no member fixes a tag).
        #expect(
            spec.structure("DeltaPageDeltas")?.property("attributes")?.type == openAPINamed("DeltaPageDeltasAttributes")
        )
        let choice = try #require(spec.choices.first { $0.name.name == "DeltaPageDeltasAttributes" })
        #expect(choice.members.map(\.type) == [openAPINamed("Thread"), openAPINamed("Draft"), openAPINamed("Message")])
        #expect(choice.discriminator == nil)
    }

    @Test func buildsTheResourceTree() throws {
        let (spec, _) = try readSample()
        #expect(
            spec.resources.map(\.name.name) == ["Service", "Namespace", "Thread", "Draft", "Event", "File", "delta"])
        let root = try #require(spec.resource("Service"))
        #expect(root.model == nil)
        #expect(
            root.children == [
                ChildSpec(
                    name: "n", segment: "n", target: QualifiedName(namespace: "sample.mail", name: "Namespace"),
                    isCollection: true, keyName: "namespace_id")
            ])

        let namespace = try #require(spec.resource("Namespace"))
        #expect(namespace.model == openAPINamed("Namespace"))
        #expect(namespace.collectionOperations.map(\.name) == ["listNamespaces"])
        #expect(namespace.collectionOperations.first?.kind == .list)
        #expect(namespace.operations.map(\.name) == ["getNamespace", "sendDraft"])
        #expect(namespace.children.map(\.name) == ["threads", "drafts", "events", "files", "delta"])
        #expect(namespace.children.map(\.isCollection) == [true, true, true, true, false])
        #expect(namespace.children.map(\.keyName) == ["thread_id", "draft_id", "event_id", "file_id", nil])
        #expect(namespace.child("threads")?.doc.summary == "Threads of a namespace.")
    }

    @Test func readsTheThreadsCollection() throws {
        let (spec, _) = try readSample()
        let thread = try #require(spec.resource("Thread"))
        #expect(thread.model == openAPINamed("Thread"))
        let list = try #require(thread.collectionOperation("listThreads"))
        #expect(list.kind == .list && list.method == .get && list.pathSuffix.isEmpty)
        #expect(list.parameters.map(\.name) == ["to", "from", "subject", "tag", "limit", "offset"])
        #expect(list.parameters.allSatisfy { $0.location == .query && !$0.isRequired })
        #expect(list.parameters.first?.doc.summary == "Threads with a message to this address.")
        #expect(list.parameters.last?.type == .primitive(.int32))
        #expect(list.response == ResponseSpec(type: .collection(openAPINamed("Thread")), successCodes: [200]))
        // The paging comes from the document: offset and limit, which the list declares.
        #expect(spec.conventions.paging == .offset(offsetParameter: "offset", limitParameter: "limit"))
        #expect(list.response?.paging == nil)

        let get = try #require(thread.operation("getThread"))
        #expect(get.kind == .get && get.parameters.isEmpty)
        let tags = try #require(thread.operation("updateThreadTags"))
        #expect(tags.kind == .replace && tags.method == .put)
        #expect(tags.requestBody == BodySpec(type: openAPINamed("updateThreadTagsRequest"), isRequired: true))
    }

    @Test func readsDraftsSendAndDownload() throws {
        let (spec, _) = try readSample()
        let draft = try #require(spec.resource("Draft"))
        #expect(draft.collectionOperations.map(\.kind) == [.list, .create])
        #expect(draft.collectionOperation("createDraft")?.requestBody?.type == openAPINamed("Draft"))
        #expect(draft.collectionOperation("createDraft")?.response?.successCodes == [201])
        #expect(draft.operations.map(\.kind) == [.get, .replace, .delete])
        let delete = try #require(draft.operation("deleteDraft"))
        #expect(delete.requestBody?.type == openAPINamed("VersionedReference"))
        #expect(delete.response == ResponseSpec(type: nil, successCodes: [200]))

        let send = try #require(spec.resource("Namespace")?.operation("sendDraft"))
        #expect(send.kind == .action && send.method == .post && send.pathSuffix == ["send"])
        #expect(send.requestBody?.type == openAPINamed("sendDraftRequest"))
        #expect(
            spec.structure("sendDraftRequest")?.properties.map { "\($0.name):\($0.type):\($0.isNullable)" } == [
                "draft_id:Edm.String:false", "version:Edm.Int32:false",
            ])
        #expect(send.response?.type == openAPINamed("Message"))

        let file = try #require(spec.resource("File"))
        #expect(file.collectionOperations.isEmpty)
        let download = try #require(file.operation("downloadFile"))
        #expect(download.kind == .function && download.method == .get && download.pathSuffix == ["download"])
        #expect(download.response == ResponseSpec(type: .primitive(.stream), successCodes: [200], isRawBody: true))
    }

    @Test func readsTheDeltaResource() throws {
        let (spec, _) = try readSample()
        let delta = try #require(spec.resource("delta"))
        #expect(delta.model == openAPINamed("DeltaPage"))
        // A delta query, not a read of the resource: a function on the resource's own URL.
        let get = try #require(delta.operation("getDelta"))
        #expect(get.kind == .function && get.method == .get && get.pathSuffix.isEmpty)
        #expect(get.parameters.map { "\($0.name):\($0.isRequired)" } == ["cursor:true", "exclude_types:false"])
        #expect(
            get.response?.delta
                == .cursor(requestParameter: "cursor", startField: "cursor_start", endField: "cursor_end"))
        let generate = try #require(delta.operation("generateCursor"))
        #expect(generate.kind == .action && generate.pathSuffix == ["generate_cursor"])
        #expect(generate.response?.type == openAPINamed("generateCursorResponse"))
        #expect(generate.response?.delta == nil)
        let deltas = try #require(spec.structure("DeltaPage")?.property("deltas"))
        #expect(deltas.type == .collection(openAPINamed("DeltaPageDeltas")) && !deltas.isNullable)
    }

    @Test func keepsAResponseExampleAsWritten() throws {
        let text = openAPIDocument(
            #"""
            "paths": {"/notes": {"get": {"operationId": "listNotes", "responses": {"200": {"description": "Notes.",
              "content": {"application/json": {
                "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Note"}},
                "examples": {"two": {"value": [{"id": "n1", "size": 1.50, "tags": [], "parent": null, "done": true}]}}
              }}}}}}},
            "components": {"schemas": {"Note": {"type": "object", "properties": {"id": {"type": "string"}}}}}
            """#)
        let spec = try #require(readOpenAPI(text).spec)
        let list = try #require(
            spec.resources.flatMap { $0.operations + $0.collectionOperations }.first { $0.name == "listNotes" })
        #expect(
            list.response?.example
                == .array([
                    .object([
                        .init("id", .string("n1")), .init("size", .number("1.50")), .init("tags", .array([])),
                        .init("parent", .null),
                        .init("done", .bool(true)),
                    ])
                ]))
    }
}
