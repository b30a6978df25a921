import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

// MARK: - Helpers

/// The package root, found from this file's place in `Tests/GeneratorTests`.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let samplePath = packageRoot.appendingPathComponent("Tests/Golden/OpenAPI/spec.json").path

private func sampleText() throws -> String {
    try String(contentsOfFile: samplePath, encoding: .utf8)
}

private func readSample() throws -> (spec: ServiceSpec, diagnostics: [Diagnostic]) {
    let result = OpenAPIReader().read(bytes: Array(try sampleText().utf8), path: "spec.json")
    #expect(result.diagnostics.allSatisfy { $0.severity != .error }, "\(result.diagnostics)")
    return (try #require(result.spec), result.diagnostics)
}

/// An OpenAPI 3.1 document whose first three lines are fixed, so `members` starts on line 4.
private func document(_ members: String, version: String = "3.1.0") -> String {
    """
    {
    "openapi": "\(version)",
    "info": {"title": "Inline Test", "version": "1"},
    \(members)
    }
    """
}

private func read(_ text: String) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
    OpenAPIReader().read(bytes: Array(text.utf8), path: "inline.json")
}

private func errors(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .error }.map(\.description)
}

private func warnings(_ diagnostics: [Diagnostic]) -> [String] {
    diagnostics.filter { $0.severity == .warning }.map(\.description)
}

/// Where `needle` first occurs (after `anchor`), as `line:column` (1-based, columns in bytes): computed here
/// from the text, independently of the parser, to check the positions that diagnostics report.
private func position(of needle: String, after anchor: String? = nil, in text: String) -> String {
    let bytes = Array(text.utf8)
    func find(_ pattern: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
    let start = anchor.flatMap { find(Array($0.utf8), from: 0) } ?? 0
    guard let offset = find(Array(needle.utf8), from: start) else { return "not found" }
    return lineAndColumn(of: offset, in: bytes)
}

/// Where the value of the first `"key":` (after `anchor`) starts, as `line:column`.
private func valuePosition(ofKey key: String, after anchor: String? = nil, in text: String) -> String {
    let bytes = Array(text.utf8)
    let pattern = Array("\"\(key)\":".utf8)
    var index = 0
    if let anchor {
        let anchorBytes = Array(anchor.utf8)
        while index + anchorBytes.count <= bytes.count,
            !bytes[index..<index + anchorBytes.count].elementsEqual(anchorBytes)
        {
            index += 1
        }
    }
    while index + pattern.count <= bytes.count, !bytes[index..<index + pattern.count].elementsEqual(pattern) {
        index += 1
    }
    guard index + pattern.count <= bytes.count else { return "not found" }
    index += pattern.count
    while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n") { index += 1 }
    return lineAndColumn(of: index, in: bytes)
}

private func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> String {
    var line = 1
    var lineStart = 0
    for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
        line += 1
        lineStart = index + 1
    }
    return "\(line):\(offset - lineStart + 1)"
}

extension ServiceSpec {
    fileprivate func structure(_ name: String) -> StructureSpec? {
        structures.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }

    fileprivate func enumeration(_ name: String) -> EnumSpec? {
        enums.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }

    fileprivate func resource(_ name: String) -> ResourceSpec? {
        resources.first { $0.name == QualifiedName(namespace: primaryNamespace, name: name) }
    }
}

extension StructureSpec {
    fileprivate func property(_ name: String) -> PropertySpec? {
        properties.first { $0.name == name }
    }
}

extension ResourceSpec {
    fileprivate func child(_ name: String) -> ChildSpec? { children.first { $0.name == name } }
    fileprivate func operation(_ name: String) -> OperationSpec? { operations.first { $0.name == name } }
    fileprivate func collectionOperation(_ name: String) -> OperationSpec? {
        collectionOperations.first { $0.name == name }
    }
}

private func named(_ name: String, in namespace: String = "sample.mail") -> TypeRef {
    .named(QualifiedName(namespace: namespace, name: name))
}

// MARK: - The sample

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
        #expect(thread.property("tags")?.type == .collection(named("Tag")))

        let participant = try #require(spec.structure("Participant"))
        #expect(participant.kind == .complex && participant.key.isEmpty)
    }

    @Test func namesInlineSchemasAfterTheirParent() throws {
        let (spec, _) = try readSample()
        #expect(spec.structure("Thread")?.property("participants")?.type == .collection(named("ThreadParticipants")))
        #expect(spec.structure("ThreadParticipants")?.properties.map(\.name) == ["name", "email"])
        #expect(spec.structure("Thread")?.property("state")?.type == named("ThreadState"))
        #expect(spec.enumeration("ThreadState")?.members.map(\.name) == ["open", "archived", "trashed"])
        #expect(spec.structure("DeltaPageDeltas")?.property("event")?.type == named("DeltaPageDeltasEvent"))
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
        #expect(draft.property("state")?.type == named("DraftState"))
        #expect(spec.structure("VersionedReference")?.property("version")?.isNullable == false)
        #expect(spec.structure("Timespan")?.baseType == QualifiedName(namespace: "sample.mail", name: "When"))
        // oneOf of Time and Timespan, both allOf When.
        #expect(spec.structure("Event")?.property("when")?.type == named("When"))
        // oneOf of Thread, Draft and Message, which share nothing: a choice tried in order (no member fixes a tag).
        #expect(spec.structure("DeltaPageDeltas")?.property("attributes")?.type == named("DeltaPageDeltasAttributes"))
        let choice = try #require(spec.choices.first { $0.name.name == "DeltaPageDeltasAttributes" })
        #expect(choice.members.map(\.type) == [named("Thread"), named("Draft"), named("Message")])
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
        #expect(namespace.model == named("Namespace"))
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
        #expect(thread.model == named("Thread"))
        let list = try #require(thread.collectionOperation("listThreads"))
        #expect(list.kind == .list && list.method == .get && list.pathSuffix.isEmpty)
        #expect(list.parameters.map(\.name) == ["to", "from", "subject", "tag", "limit", "offset"])
        #expect(list.parameters.allSatisfy { $0.location == .query && !$0.isRequired })
        #expect(list.parameters.first?.doc.summary == "Threads with a message to this address.")
        #expect(list.parameters.last?.type == .primitive(.int32))
        #expect(list.response == ResponseSpec(type: .collection(named("Thread")), successCodes: [200]))
        // The paging comes from the document: offset and limit, which the list declares.
        #expect(spec.conventions.paging == .offset(offsetParameter: "offset", limitParameter: "limit"))
        #expect(list.response?.paging == nil)

        let get = try #require(thread.operation("getThread"))
        #expect(get.kind == .get && get.parameters.isEmpty)
        let tags = try #require(thread.operation("updateThreadTags"))
        #expect(tags.kind == .replace && tags.method == .put)
        #expect(tags.requestBody == BodySpec(type: named("updateThreadTagsRequest"), isRequired: true))
    }

    @Test func readsDraftsSendAndDownload() throws {
        let (spec, _) = try readSample()
        let draft = try #require(spec.resource("Draft"))
        #expect(draft.collectionOperations.map(\.kind) == [.list, .create])
        #expect(draft.collectionOperation("createDraft")?.requestBody?.type == named("Draft"))
        #expect(draft.collectionOperation("createDraft")?.response?.successCodes == [201])
        #expect(draft.operations.map(\.kind) == [.get, .replace, .delete])
        let delete = try #require(draft.operation("deleteDraft"))
        #expect(delete.requestBody?.type == named("VersionedReference"))
        #expect(delete.response == ResponseSpec(type: nil, successCodes: [200]))

        let send = try #require(spec.resource("Namespace")?.operation("sendDraft"))
        #expect(send.kind == .action && send.method == .post && send.pathSuffix == ["send"])
        #expect(send.requestBody?.type == named("sendDraftRequest"))
        #expect(
            spec.structure("sendDraftRequest")?.properties.map { "\($0.name):\($0.type):\($0.isNullable)" } == [
                "draft_id:Edm.String:false", "version:Edm.Int32:false",
            ])
        #expect(send.response?.type == named("Message"))

        let file = try #require(spec.resource("File"))
        #expect(file.collectionOperations.isEmpty)
        let download = try #require(file.operation("downloadFile"))
        #expect(download.kind == .function && download.method == .get && download.pathSuffix == ["download"])
        #expect(download.response == ResponseSpec(type: .primitive(.stream), successCodes: [200], isRawBody: true))
    }

    @Test func readsTheDeltaResource() throws {
        let (spec, _) = try readSample()
        let delta = try #require(spec.resource("delta"))
        #expect(delta.model == named("DeltaPage"))
        // A delta query, not a read of the resource: a function on the resource's own URL.
        let get = try #require(delta.operation("getDelta"))
        #expect(get.kind == .function && get.method == .get && get.pathSuffix.isEmpty)
        #expect(get.parameters.map { "\($0.name):\($0.isRequired)" } == ["cursor:true", "exclude_types:false"])
        #expect(
            get.response?.delta
                == .cursor(requestParameter: "cursor", startField: "cursor_start", endField: "cursor_end"))
        let generate = try #require(delta.operation("generateCursor"))
        #expect(generate.kind == .action && generate.pathSuffix == ["generate_cursor"])
        #expect(generate.response?.type == named("generateCursorResponse"))
        #expect(generate.response?.delta == nil)
        let deltas = try #require(spec.structure("DeltaPage")?.property("deltas"))
        #expect(deltas.type == .collection(named("DeltaPageDeltas")) && !deltas.isNullable)
    }

    @Test func keepsAResponseExampleAsWritten() throws {
        let text = document(
            #"""
            "paths": {"/notes": {"get": {"operationId": "listNotes", "responses": {"200": {"description": "Notes.",
              "content": {"application/json": {
                "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Note"}},
                "examples": {"two": {"value": [{"id": "n1", "size": 1.50, "tags": [], "parent": null, "done": true}]}}
              }}}}}}},
            "components": {"schemas": {"Note": {"type": "object", "properties": {"id": {"type": "string"}}}}}
            """#)
        let spec = try #require(read(text).spec)
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

// MARK: - Schemas

@Suite("OpenAPI reader: schemas")
struct OpenAPISchemaTests {
    @Test func mapsPrimitiveTypesAndFormats() throws {
        let text = document(
            """
            "components": {"schemas": {"Sample": {"type": "object", "properties": {
              "text": {"type": "string"},
              "moment": {"type": "string", "format": "date-time"},
              "day": {"type": "string", "format": "date"},
              "bytes": {"type": "string", "format": "byte"},
              "content": {"type": "string", "format": "binary"},
              "uuid": {"type": "string", "format": "uuid"},
              "email": {"type": "string", "format": "email"},
              "big": {"type": "integer"},
              "small": {"type": "integer", "format": "int32"},
              "wide": {"type": "integer", "format": "int64"},
              "real": {"type": "number"},
              "float": {"type": "number", "format": "float"},
              "flag": {"type": "boolean"},
              "anything": {},
              "list": {"type": "array", "items": {"type": "integer", "format": "int32"}},
              "free": {"type": "object"}
            }}}}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let sample = try #require(result.spec?.structure("Sample"))
        #expect(
            sample.properties.map(\.type.description) == [
                "Edm.String", "Edm.DateTimeOffset", "Edm.Date", "Edm.Binary", "Edm.Stream", "Edm.Guid", "Edm.String",
                "Edm.Int64", "Edm.Int32", "Edm.Int64", "Edm.Double", "Edm.Single", "Edm.Boolean", "Edm.Untyped",
                "Collection(Edm.Int32)", "Edm.Untyped",
            ])
        #expect(sample.kind == .complex)
    }

    @Test func readsNullabilityIn30And31() throws {
        let text = document(
            """
            "components": {"schemas": {"Sample": {"type": "object", "required": ["a", "b", "c", "d"], "properties": {
              "a": {"type": "string"},
              "b": {"type": "string", "nullable": true},
              "c": {"type": ["integer", "null"]},
              "d": {"oneOf": [{"$ref": "#/components/schemas/Other"}, {"type": "null"}]},
              "e": {"type": "string"}
            }}, "Other": {"type": "object", "properties": {"x": {"type": "string"}}}}}
            """, version: "3.0.3")
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let sample = try #require(result.spec?.structure("Sample"))
        #expect(sample.properties.map(\.isNullable) == [false, true, true, true, true])
        #expect(sample.property("c")?.type == .primitive(.int64))
        #expect(sample.property("d")?.type == named("Other", in: "inline.test"))
    }

    @Test func readsOpenObjectsKeysAndLooseValues() throws {
        let text = document(
            """
            "components": {"schemas": {
              "Listing": {"type": "object", "x-bindery-key": ["ListingKey"], "additionalProperties": true,
                "title": "A listing", "description": "For sale or rent.",
                "properties": {
                  "ListingKey": {"type": "string"},
                  "Latitude": {"type": "number", "x-bindery-loose": true},
                  "Ids": {"type": "array", "items": {"type": "integer", "x-bindery-loose": true}}
                }},
              "Closed": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}}
            }}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let listing = try #require(result.spec?.structure("Listing"))
        #expect(listing.kind == .entity && listing.key == ["ListingKey"] && listing.isOpen)
        #expect(listing.doc == Documentation(summary: "A listing", details: "For sale or rent."))
        #expect(listing.property("Latitude")?.acceptsLooseValues == true)
        #expect(listing.property("Ids")?.acceptsLooseValues == true)
        #expect(listing.property("ListingKey")?.acceptsLooseValues == false)
        #expect(result.spec?.structure("Closed")?.isOpen == false)
    }

    @Test func mergesAllOfReferencesAfterTheFirst() throws {
        let text = document(
            """
            "components": {"schemas": {
              "Entity": {"type": "object", "properties": {"id": {"type": "string"}}},
              "Audited": {"type": "object", "properties": {"created": {"type": "string", "format": "date-time"}}},
              "Doc": {"allOf": [
                {"$ref": "#/components/schemas/Entity"},
                {"$ref": "#/components/schemas/Audited"},
                {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
              ]}
            }}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let doc = try #require(result.spec?.structure("Doc"))
        #expect(doc.baseType == QualifiedName(namespace: "inline.test", name: "Entity"))
        #expect(doc.properties.map(\.name) == ["created", "title"])
        #expect(doc.property("title")?.isNullable == false)
        #expect(doc.doc.details?.contains("Audited") == true)
        // Derived from an entity: an entity whose key is inherited.
        #expect(doc.kind == .entity && doc.key.isEmpty)
    }

    @Test func keepsInlineNamesUniqueAgainstComponents() throws {
        let text = document(
            """
            "components": {"schemas": {
              "Thread": {"type": "object", "properties": {
                "participants": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}
              }},
              "ThreadParticipants": {"type": "string", "enum": ["x"]}
            }}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(
            spec.structure("Thread")?.property("participants")?.type
                == .collection(named("ThreadParticipants2", in: "inline.test")))
        #expect(spec.enumeration("ThreadParticipants") != nil)
    }

    @Test func resolvesAliasComponentsToTheirType() throws {
        let text = document(
            """
            "components": {"schemas": {
              "Ids": {"type": "array", "items": {"type": "string"}},
              "Holder": {"type": "object", "properties": {"ids": {"$ref": "#/components/schemas/Ids"}}}
            }}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.spec?.structure("Holder")?.property("ids")?.type == .collection(.primitive(.string)))
        #expect(result.spec?.structures.map(\.name.name) == ["Holder"])
    }

    @Test func usesTheNamespaceExtensionOverTheTitle() throws {
        let text = """
            {"openapi": "3.0.0", "info": {"title": "Whatever It Is", "version": "1"}, "x-bindery-namespace": "com.example.mail"}
            """
        #expect(read(text).spec?.primaryNamespace == "com.example.mail")
        let untitled = #"{"openapi": "3.0.0", "info": {"title": "Spark API (v1)", "version": "1"}}"#
        #expect(read(untitled).spec?.primaryNamespace == "spark.api.v1")
        // A part that starts with a digit joins the one before it: namespace parts are identifiers.
        let versioned = #"{"openapi": "3.0.0", "info": {"title": "Swagger Petstore - OpenAPI 3.0", "version": "1"}}"#
        #expect(read(versioned).spec?.primaryNamespace == "swagger.petstore.openapi30")
    }
}

// MARK: - Paths, envelopes and paging

@Suite("OpenAPI reader: paths and conventions")
struct OpenAPIPathTests {
    /// Spark: every response is `{"D": {"Success", "Results": [...]}}`, paged by page number.
    private let spark = document(
        """
        "x-bindery-conventions": {
          "envelope": {"results": ["D", "Results"], "request": ["D"]},
          "paging": {"style": "pageNumber", "page": "_page", "size": "_limit", "extraQuery": {"_pagination": "1"},
                     "totalPages": ["D", "Pagination", "TotalPages"]},
          "errors": {"code": ["D", "Code"], "message": ["D", "Message"], "details": ["D", "Details"]}
        },
        "paths": {
          "/listings": {
            "get": {"operationId": "listListings", "responses": {"200": {"description": "ok",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ListingsEnvelope"}}}}}},
            "post": {"operationId": "createListing",
              "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                "properties": {"D": {"$ref": "#/components/schemas/Listing"}}}}}},
              "responses": {"201": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
                "properties": {"D": {"type": "object", "properties": {"Success": {"type": "boolean"}}}}}}}}}}
          },
          "/listings/{Id}": {
            "parameters": [{"name": "Id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "get": {"operationId": "getListing", "responses": {"200": {"description": "ok",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ListingsEnvelope"}}}}}}
          },
          "/my/account": {
            "get": {"operationId": "getMyAccount", "responses": {"200": {"description": "ok",
              "content": {"application/json": {"schema": {"type": "object", "properties": {"D": {"type": "object",
                "properties": {"Results": {"type": "array", "items": {"$ref": "#/components/schemas/Account"}}}}}}}}}}}
          }
        },
        "components": {"schemas": {
          "Listing": {"type": "object", "properties": {"Id": {"type": "string"}, "ListPrice": {"type": "number", "x-bindery-loose": true}}},
          "Account": {"type": "object", "properties": {"Name": {"type": "string"}}},
          "ListingsEnvelope": {"type": "object", "properties": {"D": {"type": "object", "properties": {
            "Success": {"type": "boolean"},
            "Results": {"type": "array", "items": {"$ref": "#/components/schemas/Listing"}}
          }}}}
        }}
        """)

    @Test func unwrapsTheSparkEnvelope() throws {
        let result = read(spark)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(spec.conventions.envelope == .wrapped(resultsPath: ["D", "Results"], requestPath: ["D"]))
        #expect(
            spec.conventions.errors
                == ErrorShape(code: [["D", "Code"]], message: [["D", "Message"]], details: [["D", "Details"]]))
        #expect(
            spec.conventions.paging
                == .pageNumber(
                    pageParameter: "_page", sizeParameter: "_limit", extraQuery: ["_pagination": "1"],
                    totalPagesPath: ["D", "Pagination", "TotalPages"]))
        let listing = try #require(spec.resource("Listing"))
        let list = try #require(listing.collectionOperation("listListings"))
        #expect(list.kind == .list)
        #expect(list.response?.type == .collection(named("Listing", in: "inline.test")))
        let create = try #require(listing.collectionOperation("createListing"))
        #expect(create.kind == .create)
        #expect(create.requestBody?.type == named("Listing", in: "inline.test"))
        // `{"D": {"Success": true}}` carries no results.
        #expect(create.response == ResponseSpec(type: nil, successCodes: [201]))
        // Spark answers a single item as a one-element array.
        #expect(listing.operation("getListing")?.response?.type == .collection(named("Listing", in: "inline.test")))
        #expect(listing.model == named("Listing", in: "inline.test"))
        // `/my` has deeper paths: a single step. `/my/account` returns a list once unwrapped: a function of `my`.
        let my = try #require(spec.resource("my"))
        #expect(spec.resource("Service")?.child("my")?.isCollection == false)
        #expect(my.children.isEmpty)
        let account = try #require(my.operation("getMyAccount"))
        #expect(account.kind == .function && account.pathSuffix == ["account"])
        #expect(account.response?.type == .collection(named("Account", in: "inline.test")))
        // The component envelope is declared like any component; the inline one of getMyAccount is not.
        #expect(spec.structures.map(\.name.name) == ["Listing", "Account", "ListingsEnvelope", "ListingsEnvelopeD"])
    }

    @Test func readsCursorPagingAndOperationOverrides() throws {
        let text = document(
            """
            "x-bindery-conventions": {
              "envelope": {"results": ["data"]},
              "paging": {"style": "cursor", "field": "next_cursor", "parameter": "page_token"},
              "delta": {"style": "odata", "token": "token"},
              "errors": {"code": [["error", "type"], ["error", "code"]], "message": ["error", "message"],
                         "requestID": ["request_id"]},
              "queryOptions": "odata"
            },
            "paths": {
              "/grants/{grant_id}/messages": {
                "parameters": [{"name": "grant_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "listMessages", "x-bindery-paging": {"style": "offset", "offset": "skip", "limit": "top"},
                  "x-bindery-delta": {"style": "cursor", "parameter": "c", "start": "s", "end": "e"},
                  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
                    "properties": {"data": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
                      "next_cursor": {"type": "string"}}}}}}}}
              },
              "/grants/{grant_id}": {
                "parameters": [{"name": "grant_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
                  "properties": {"data": {"type": "array", "items": {"type": "string"}}}}}}}}}
              },
              "/grants/{grant_id}/messages/{message_id}": {
                "parameters": [{"name": "grant_id", "in": "path", "required": true, "schema": {"type": "string"}},
                  {"name": "message_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "delete": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
                  "properties": {"request_id": {"type": "string"}}}}}}}}
              },
              "/grants/{grant_id}/folders": {
                "parameters": [{"name": "grant_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "listFolders", "responses": {"200": {"description": "ok", "content": {"application/json": {
                  "schema": {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "string"}}}}}}}}}
              }
            }
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(spec.conventions.paging == .cursor(responsePath: ["next_cursor"], requestParameter: "page_token"))
        #expect(spec.conventions.delta == .odata(tokenParameter: "token"))
        // One path, or several tried in order.
        #expect(
            spec.conventions.errors
                == ErrorShape(
                    code: [["error", "type"], ["error", "code"]], message: [["error", "message"]],
                    requestID: [["request_id"]]))
        #expect(spec.conventions.queryOptions == .odata)
        #expect(spec.conventions.envelope == .wrapped(resultsPath: ["data"], requestPath: []))
        // Grants and messages are named from their segments (the items are inline).
        let message = try #require(spec.resource("message"))
        let list = try #require(message.collectionOperation("listMessages"))
        #expect(list.response?.paging == .offset(offsetParameter: "skip", limitParameter: "top"))
        #expect(list.response?.delta == .cursor(requestParameter: "c", startField: "s", endField: "e"))
        #expect(list.response?.type == .collection(named("listMessagesItem", in: "inline.test")))
        // A DELETE answering `{"request_id"}`, an envelope without `data`: nothing to decode.
        #expect(message.operations.map { "\($0.name) \($0.kind)" } == ["deleteMessagesItem delete"])
        #expect(message.operations.first?.response == ResponseSpec(type: nil, successCodes: [200]))
        // Without an operationId: `<method><Segment>`, `Item` for a key segment. A leaf list is a function.
        let grant = try #require(spec.resource("grant"))
        #expect(
            grant.operations.map { "\($0.name) \($0.kind) \($0.pathSuffix)" } == [
                "getGrantsItem get []", "listFolders function [\"folders\"]",
            ])
        #expect(grant.operations.last?.response?.type == .collection(.primitive(.string)))
    }

    @Test func namesResourcesAndOperations() throws {
        let text = document(
            """
            "paths": {
              "/a/items/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"responses": {"200": {"description": "ok"}}}},
              "/b/items/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "x-bindery-resource": "entry",
                "get": {"responses": {"200": {"description": "ok"}}}},
              "/c/items/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "delete": {"responses": {"204": {"description": "gone"}}}},
              "/c/items": {"get": {"responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}},
              "/c/items/search": {"get": {"responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}},
              "/c/send": {"post": {"responses": {"202": {"description": "queued"}}}},
              "/c/count": {"get": {"responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "integer"}}}}}}}
            }
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(spec.resources.map(\.name.name) == ["Service", "a", "item", "b", "entry", "c", "cItem"])
        let c = try #require(spec.resource("c"))
        #expect(
            c.operations.map { "\($0.name) \($0.kind) \($0.pathSuffix)" } == [
                "postSend action [\"send\"]", "getCount function [\"count\"]",
            ])
        #expect(c.operations.last?.response?.type == .primitive(.int64))
        let cItem = try #require(spec.resource("cItem"))
        #expect(
            cItem.collectionOperations.map { "\($0.name) \($0.kind) \($0.pathSuffix)" } == [
                "getItems list []", "getSearch function [\"search\"]",
            ])
        #expect(cItem.operations.map { "\($0.name) \($0.kind)" } == ["deleteItemsItem delete"])
        #expect(cItem.operations.first?.response == ResponseSpec(type: nil, successCodes: [204]))
    }

    @Test func skipsPathsThatCannotBeResources() throws {
        let text = document(
            """
            "paths": {
              "/{tenant}/users": {"parameters": [{"name": "tenant", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"responses": {"200": {"description": "ok"}}}},
              "/files/{name}.{ext}/{x}": {"get": {"responses": {"200": {"description": "ok"}}}},
              "/ok": {"post": {"responses": {"204": {"description": "done"}}}}
            }
            """)
        let result = read(text)
        // A segment that mixes text and parameters can only be a leaf. (Its undeclared parameters are warned about
        // first, as they are read as strings.)
        #expect(
            warnings(result.diagnostics).filter { !$0.contains("is not declared") } == [
                "inline.json:5:22: warning: path '/{tenant}/users' and the others that share its prefix are skipped: '{tenant}' does not follow a collection segment",
                "inline.json:7:30: warning: path '/files/{name}.{ext}/{x}' and the others that share its prefix are skipped: '{name}.{ext}' mixes text and parameters and has deeper paths",
            ])
        #expect(valuePosition(ofKey: "/{tenant}/users", in: text) == "5:22")
        #expect(valuePosition(ofKey: "/files/{name}.{ext}/{x}", in: text) == "7:30")
    }

    @Test func readsChoicesMapsAndPropertyFacts() throws {
        let text = document(
            """
            "servers": [{"url": "https://{region}.example.com", "variables": {"region": {"default": "us", "enum": ["us", "eu"]}}}],
            "paths": {},
            "components": {"schemas": {
              "A": {"type": "object", "properties": {"kind": {"const": "a"}, "secret": {"type": "string", "writeOnly": true}}},
              "B": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["b"]},
                "old": {"type": "string", "deprecated": true}, "tags": {"type": "object", "additionalProperties": {"type": "integer"}}}},
              "AOrB": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}, {"type": "null"}]},
              "Mapped": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}],
                "discriminator": {"propertyName": "kind", "mapping": {"first": "#/components/schemas/A"}}},
              "Loose": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
            }}
            """)
        let result = read(text)
        #expect(errors(result.diagnostics).isEmpty)
        #expect(warnings(result.diagnostics).isEmpty)
        let spec = try #require(result.spec)
        let choices = Dictionary(uniqueKeysWithValues: spec.choices.map { ($0.name.name, $0) })
        // Implied by a member every object fixes to its own value.
        #expect(choices["AOrB"]?.discriminator == "kind")
        #expect(choices["AOrB"]?.members.map(\.tags) == [["a"], ["b"]])
        // Declared: the mapping names A, and B is named by its component name.
        #expect(choices["Mapped"]?.members.map(\.tags) == [["first"], ["B"]])
        #expect(choices["Loose"]?.discriminator == nil)
        #expect(choices["Loose"]?.members.map(\.type) == [.primitive(.string), .collection(.primitive(.string))])
        let b = try #require(spec.structure("B"))
        #expect(b.property("tags")?.type == .dictionary(.primitive(.int64)))
        #expect(b.property("old")?.isDeprecated == true)
        #expect(b.property("kind")?.constant == "b")
        #expect(spec.structure("A")?.property("secret")?.isWriteOnly == true)
        #expect(spec.structure("A")?.property("kind")?.constant == "a")
        #expect(spec.servers.first?.defaultURL == "https://us.example.com")
        #expect(spec.servers.first?.variables.first?.values == ["us", "eu"])
    }

    @Test func readsMixedSegmentsFragmentsAndEveryMethod() throws {
        let parameter = #"{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}"#
        let text = document(
            """
            "paths": {
              "/files/{id}": {"parameters": [\(parameter)],
                "get": {"operationId": "getFile", "responses": {"200": {"description": "ok"}}},
                "options": {"operationId": "preflight", "responses": {"200": {"description": "ok"}}},
                "head": {"operationId": "probe", "responses": {"200": {"description": "ok"}}},
                "trace": {"operationId": "echo", "responses": {"200": {"description": "ok"}}}},
              "/files/{id}#get_link": {"parameters": [\(parameter)],
                "get": {"operationId": "getFileLink", "responses": {"200": {"description": "ok"}}}},
              "/files/{id}/thumb.{ext}": {"parameters": [\(parameter),
                {"name": "ext", "in": "path", "required": true, "schema": {"type": "string", "enum": ["png"]}}],
                "get": {"operationId": "thumb", "responses": {"200": {"description": "ok",
                  "content": {"text/plain": {"schema": {"type": "string"}}}}}}}
            }
            """)
        let result = read(text)
        #expect(errors(result.diagnostics).isEmpty)
        #expect(warnings(result.diagnostics).isEmpty)
        let target = try #require(result.spec?.resource("Service")?.child("files")?.target)
        let file = try #require(result.spec?.resources.first { $0.name == target })
        #expect(
            file.operations.map { "\($0.name) \($0.kind) \($0.method.rawValue) \($0.pathSuffix)" } == [
                "getFile get GET []", "preflight action OPTIONS []", "probe function HEAD []", "echo action TRACE []",
                "get_link function GET []", "thumb function GET [\"thumb.{ext}\"]",
            ])
        let thumb = try #require(file.operations.last)
        #expect(thumb.parameters.map(\.name) == ["ext"])  // typed: it is an argument, not a key
        #expect(thumb.response == ResponseSpec(type: .primitive(.string), isRawBody: true))
    }

    @Test func readsRequestBodyMediaTypes() throws {
        let text = document(
            """
            "paths": {
              "/uploads": {
                "post": {"operationId": "upload", "requestBody": {"required": true,
                  "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}},
                  "responses": {"200": {"description": "ok"}}},
                "put": {"operationId": "uploadForm", "requestBody": {
                  "content": {"multipart/form-data": {"schema": {"type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}, "name": {"type": "string"}}}}}},
                  "responses": {"200": {"description": "ok"}}}
              }
            }
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let operations = try #require(result.spec?.resource("Service")?.operations)
        #expect(operations.map(\.name) == ["upload", "uploadForm"])
        #expect(
            operations.first?.requestBody
                == BodySpec(type: .primitive(.stream), contentType: "application/octet-stream", isRequired: true))
        #expect(operations.first?.pathSuffix == ["uploads"])
        var form = BodySpec(
            type: named("uploadFormRequest", in: "inline.test"), contentType: "multipart/form-data", isRequired: false)
        form.parts = [
            FormPart(
                name: "file", isFile: true, contentType: "application/octet-stream", type: .primitive(.stream),
                isRequired: false),
            FormPart(
                name: "name", isFile: false, contentType: "text/plain", type: .primitive(.string), isRequired: false),
        ]
        #expect(operations.last?.requestBody == form)
        #expect(result.spec?.structure("uploadFormRequest")?.property("file")?.type == .primitive(.stream))
    }

    @Test func readsODataStyleCollectionsWithNextLinkPaging() throws {
        let text = document(
            """
            "x-bindery-conventions": {"paging": {"style": "nextLink", "field": "@odata.nextLink"}, "errors": "odata"},
            "paths": {
              "/users": {"get": {"operationId": "listUsers", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "object", "properties": {
                  "value": {"type": "array", "items": {"$ref": "#/components/schemas/user"}},
                  "@odata.nextLink": {"type": "string"}}}}}}}}},
              "/users/{user-id}": {"parameters": [{"name": "user-id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "patch": {"operationId": "updateUser", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/user"}}}},
                  "responses": {"204": {"description": "done"}}}}
            },
            "components": {"schemas": {"user": {"type": "object", "properties": {"id": {"type": "string"}}}}}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let user = try #require(result.spec?.resource("user"))
        #expect(user.collectionOperation("listUsers")?.response?.type == .collection(named("user", in: "inline.test")))
        #expect(user.operation("updateUser")?.kind == .update)
        #expect(result.spec?.resource("Service")?.child("users")?.keyName == "user-id")
    }

    @Test func warnsAndSkipsUnsupportedConstructs() throws {
        let text = document(
            """
            "webhooks": {"newThing": {}},
            "paths": {
              "/things": {
                "options": {"responses": {"200": {"description": "ok"}}},
                "get": {"operationId": "listThings",
                  "parameters": [{"name": "session", "in": "cookie", "schema": {"type": "string"}}],
                  "callbacks": {"onDone": {}},
                  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema":
                    {"type": "array", "items": {"not": {"type": "string"}}}}}}}},
                "post": {"operationId": "postForm", "requestBody": {"content": {"application/x-www-form-urlencoded": {}}},
                  "responses": {"200": {"description": "ok"}}}
              }
            }
            """)
        let result = read(text)
        #expect(errors(result.diagnostics).isEmpty)
        #expect(result.spec != nil)
        #expect(
            warnings(result.diagnostics) == [
                "inline.json:\(position(of: "{\"name\": \"session\"", in: text)): warning: cookie parameter 'session' is not supported; skipped",
                "inline.json:\(valuePosition(ofKey: "callbacks", in: text)): warning: callbacks are not supported; skipped",
                "inline.json:\(valuePosition(ofKey: "not", in: text)): warning: 'not' is not supported; the constraint is ignored",
            ])
        // The GET is kept (without the cookie). A leaf GET of an array is a function; OPTIONS and a form POST are
        // actions.
        let operations = try #require(result.spec?.resource("Service")?.operations)
        #expect(
            operations.map { "\($0.name) \($0.kind) \($0.pathSuffix)" } == [
                "optionsThings action [\"things\"]", "listThings function [\"things\"]", "postForm action [\"things\"]",
            ])
        let list = try #require(operations.first { $0.name == "listThings" })
        #expect(list.parameters.isEmpty)
        #expect(list.response?.type == .collection(.primitive(.untyped)))
        #expect(operations.last?.requestBody?.contentType == "application/x-www-form-urlencoded")
    }
}

// MARK: - Robustness

@Suite("OpenAPI reader: mutated documents")
struct OpenAPIRobustnessTests {
    /// A string literal of the sample: its byte range, and whether it is a member name.
    private struct Literal {
        var range: Range<Int>
        var isKey: Bool
    }

    private static func literals(in bytes: [UInt8]) -> [Literal] {
        var result: [Literal] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            var next = end + 1
            while next < bytes.count, bytes[next] == UInt8(ascii: " ") { next += 1 }
            result.append(
                Literal(
                    range: index..<min(end + 1, bytes.count),
                    isKey: next < bytes.count && bytes[next] == UInt8(ascii: ":")))
            index = end + 1
        }
        return result
    }

    private static let valueReplacements = [
        "null", "{}", "[]", "0", "true", "\"object\"", "\"array\"", "\"#/components/schemas/Thread\"",
        "\"#/components/schemas/Nope\"", "{\"$ref\": \"#/components/schemas/Draft\"}",
        "{\"allOf\": [{\"$ref\": \"#/components/schemas/Draft\"}, {\"$ref\": \"#/components/schemas/Draft\"}]}",
        "{\"oneOf\": [{\"$ref\": \"#/components/schemas/Time\"}, {\"type\": \"null\"}]}", "[\"a\", 1]",
    ]
    private static let keyReplacements = [
        "allOf", "oneOf", "anyOf", "items", "properties", "$ref", "type", "enum", "required", "parameters", "responses",
        "content", "schema", "x-bindery-key", "x-bindery-loose", "x-bindery-resource", "x-bindery-delta",
        "x-bindery-paging",
        "additionalProperties", "/n/{other}", "{x}",
    ]

    /// Replaces a few literals at a time, hundreds of times: the reader must never crash, must return a spec
    /// exactly when it reported no error, and must place every diagnostic inside the file.
    @Test func neverCrashesOnMutatedSamples() throws {
        let bytes = Array(try sampleText().utf8)
        let literals = Self.literals(in: bytes)
        let lineCount = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<200 {
            var picks: [(Literal, String)] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let literal = literals[Int.random(in: 0..<literals.count, using: &generator)]
                let replacement =
                    literal.isKey
                    ? "\"\(Self.keyReplacements[Int.random(in: 0..<Self.keyReplacements.count, using: &generator)])\""
                    : Self.valueReplacements[Int.random(in: 0..<Self.valueReplacements.count, using: &generator)]
                if !picks.contains(where: { $0.0.range.overlaps(literal.range) }) {
                    picks.append((literal, replacement))
                }
            }
            var mutated = bytes
            for (literal, replacement) in picks.sorted(by: { $0.0.range.lowerBound > $1.0.range.lowerBound }) {
                mutated.replaceSubrange(literal.range, with: Array(replacement.utf8))
            }
            let result = OpenAPIReader().read(bytes: mutated, path: "mutated.json")
            let hasErrors = result.diagnostics.contains { $0.severity == .error }
            #expect((result.spec == nil) == hasErrors, "\(String(decoding: mutated, as: UTF8.self))")
            for diagnostic in result.diagnostics {
                let line = diagnostic.location?.line ?? 0
                #expect(line >= 1 && line <= lineCount, "\(diagnostic)")
            }
        }
    }
}

/// A small seeded generator, so the mutations are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Bad input

@Suite("OpenAPI reader: errors")
struct OpenAPIErrorTests {
    @Test func rejectsTextThatIsNotJSON() {
        let result = read("openapi: 3.1.0\n")
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == ["inline.json:1:1: error: invalid JSON: unexpected 'o', expected a value"])
    }

    @Test func reportsJSONSyntaxErrorsWhereTheyAre() {
        let text = """
            {
              "openapi": "3.1.0",
              "info": {"title": "x" "version": "1"}
            }
            """
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:3:25: error: invalid JSON: expected ',' or '}' in an object, found '\"'"
            ])
    }

    @Test func rejectsADocumentWithoutAVersion() {
        let result = read("\n  {\"info\": {\"title\": \"x\", \"version\": \"1\"}}")
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:2:3: error: missing \"openapi\": expected an OpenAPI 3.0 or 3.1 document"
            ])
    }

    @Test func rejectsUnsupportedVersions() {
        let text = document("\"paths\": {}", version: "3.2.0")
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:2:12: error: unsupported OpenAPI version '3.2.0': expected 3.0.x or 3.1.x"
            ])

        let swagger = read("{\n\"swagger\": \"2.0\"}")
        #expect(swagger.spec == nil)
        #expect(
            errors(swagger.diagnostics) == [
                "inline.json:2:12: error: Swagger 2.0 documents are not supported; convert to OpenAPI 3.0 or 3.1"
            ])
    }

    @Test func rejectsADocumentThatIsNotAnObject() {
        let result = read("[1, 2]")
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:1:1: error: an OpenAPI document must be an object, found an array"
            ])
    }

    @Test func reportsAnUnknownReferenceAtTheReference() {
        let text = document(
            """
            "components": {"schemas": {
              "Thread": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}}
              }}
            }}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(errors(result.diagnostics) == ["inline.json:6:49: error: unknown $ref '#/components/schemas/Tag'"])
        #expect(valuePosition(ofKey: "$ref", in: text) == "6:49")
    }

    @Test func reportsAReferenceIntoTheWrongSection() {
        let text = document(
            """
            "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/schemas/limit"}],
              "responses": {"200": {"description": "ok"}}}}}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:\(valuePosition(ofKey: "$ref", in: text)): error: unsupported $ref '#/components/schemas/limit': expected a reference to #/components/parameters/<name>"
            ])
    }

    @Test func reportsABaseTypeCycle() {
        let text = document(
            """
            "components": {"schemas": {
              "A": {"allOf": [{"$ref": "#/components/schemas/B"}, {"type": "object", "properties": {"a": {"type": "string"}}}]},
              "B": {"allOf": [{"$ref": "#/components/schemas/A"}, {"type": "object", "properties": {"b": {"type": "string"}}}]}
            }}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(errors(result.diagnostics) == ["inline.json:5:28: error: $ref cycle in allOf base types: A → B → A"])
        #expect(valuePosition(ofKey: "$ref", in: text) == "5:28")
    }

    @Test func reportsAnAllOfCycleThroughMergedReferences() {
        let text = document(
            """
            "x-bindery-conventions": {"envelope": {"results": ["D", "Results"]}},
            "paths": {"/a": {"get": {"responses": {"200": {"description": "ok",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}}},
            "components": {"schemas": {
              "Base": {"type": "object", "properties": {"id": {"type": "string"}}},
              "A": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"$ref": "#/components/schemas/B"}]},
              "B": {"allOf": [{"$ref": "#/components/schemas/Base"}, {"$ref": "#/components/schemas/A"}]}
            }}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        // At B's reference to A, met while A is being read.
        #expect(
            errors(result.diagnostics) == ["inline.json:10:67: error: $ref cycle: the allOf of 'A' includes 'A' itself"]
        )
        #expect(position(of: "\"#/components/schemas/A\"}]}", in: text) == "10:67")
    }

    @Test func reportsAReferenceCycleBetweenAliases() {
        let text = document(
            """
            "components": {"schemas": {
              "A": {"$ref": "#/components/schemas/B"},
              "B": {"allOf": [{"$ref": "#/components/schemas/A"}], "description": "B is A"}
            }}
            """)
        // Nothing in between: `A` is `B` and `B` is `A`. (An array in between is a type: PublicSpecShapesTests.)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:\(valuePosition(ofKey: "$ref", after: "\"B\":", in: text)): error: $ref cycle: 'A' refers to itself with no type in between"
            ])
    }

    /// The path names it, so it exists: a required string, as every path parameter is on the wire.
    @Test func readsAnUndeclaredPathParameterAsARequiredString() throws {
        let text = document(
            """
            "paths": {
              "/n/{namespace_id}/threads": {
                "get": {"responses": {"200": {"description": "ok"}}}
              }
            }
            """)
        let result = read(text)
        #expect(errors(result.diagnostics) == [])
        #expect(
            warnings(result.diagnostics) == [
                "inline.json:6:12: warning: path parameter 'namespace_id' of '/n/{namespace_id}/threads' is not declared in the parameters of GET or its path item; read as a required string"
            ])
        #expect(try #require(result.spec).resources.isEmpty == false)
    }

    @Test func reportsADuplicateOperationId() {
        let text = document(
            """
            "paths": {
              "/a": {"get": {"operationId": "fetch", "responses": {"200": {"description": "ok"}}}},
              "/b": {"get": {"operationId": "fetch", "responses": {"200": {"description": "ok"}}}}
            }
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:6:33: error: duplicate operationId 'fetch' (first used at inline.json:5:33)"
            ])
    }

    @Test func reportsABadPagingStyle() {
        let text = document(
            """
            "x-bindery-conventions": {
              "paging": {"style": "pages", "page": "p"}
            }
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:5:23: error: x-bindery-conventions.paging.style 'pages' is not one of pageNumber, offset, cursor, afterLastItem, nextLink, none"
            ])
    }

    @Test func reportsUnknownConventionKeysAndValues() {
        let text = document(
            """
            "x-bindery-conventions": {
              "errors": "graph",
              "pagination": {"style": "none"},
              "paging": {"style": "offset", "offset": "offset"}
            }
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:6:17: error: x-bindery-conventions: unknown key 'pagination' (expected one of: envelope, paging, delta, errors, queryOptions)",
                "inline.json:7:13: error: x-bindery-conventions.paging needs \"limit\"",
                "inline.json:5:13: error: x-bindery-conventions.errors must be \"odata\", \"common\" or an object of paths, found \"graph\"",
            ])
    }

    @Test func reportsBadErrorShapes() {
        let text = document(
            """
            "x-bindery-conventions": {
              "errors": {"code": "D.Code", "mesage": ["D", "Message"]}
            }
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:5:42: error: x-bindery-conventions.errors: unknown key 'mesage' (expected one of: code, message, details, requestID, date, helpURL)",
                "inline.json:5:22: error: x-bindery-conventions.errors.code must be a non-empty array of member names, found \"D.Code\"",
            ])
    }

    @Test func reportsBadValuesOfPerObjectExtensions() {
        let text = document(
            """
            "x-bindery-namspace": "typo",
            "paths": {
              "/a": {"x-bindery-resource": "two words", "get": {"x-bindery-delta": true, "responses": {"200": {"description": "ok"}}}}
            },
            "components": {"schemas": {"S": {"type": "object", "x-bindery-key": ["missing"],
              "properties": {"a": {"type": "string", "x-bindery-loose": "yes"}}}}}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:4:23: error: unknown extension 'x-bindery-namspace' on the document root (allowed here: x-bindery-namespace, x-bindery-conventions)",
                "inline.json:9:61: error: x-bindery-loose must be true or false, found \"yes\"",
                "inline.json:8:70: error: x-bindery-key names 'missing', which is not a property of S",
                "inline.json:6:32: error: x-bindery-resource must be a name such as \"thread\" (letters, digits, '_', '-'), found \"two words\"",
                "inline.json:6:72: error: x-bindery-delta: true needs a document delta style in x-bindery-conventions.delta",
            ])
        #expect(position(of: "\"missing\"", in: text) == "8:70")
        #expect(valuePosition(ofKey: "x-bindery-loose", in: text) == "9:61")
    }

    @Test func readsVariantsWhoseAnswerDependsOnTheQuery() throws {
        let text = document(
            """
            "x-bindery-conventions": {"envelope": {"results": ["D", "Results"]}},
            "paths": {
              "/listings": {"get": {"operationId": "listListings",
                "parameters": [{"name": "_filter", "in": "query", "schema": {"type": "string"}}],
                "x-bindery-variants": {
                  "count": {"summary": "Counts them.", "query": {"_pagination": "count"}, "results": ["D", "Pagination"],
                    "response": {"type": "object", "properties": {"D": {"type": "object", "properties": {
                      "Pagination": {"$ref": "#/components/schemas/Pagination"}}}}}},
                  "ids": {"query": {"_select": "Id"}, "response": {"type": "object", "properties": {"D": {"type": "object",
                    "properties": {"Results": {"type": "array", "items": {"type": "string"}}}}}}}
                },
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
                  "properties": {"D": {"type": "object", "properties": {"Results": {"type": "array",
                    "items": {"$ref": "#/components/schemas/Listing"}}}}}}}}}}}},
              "/listings/{Id}": {"parameters": [{"name": "Id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"responses": {"200": {"description": "ok"}}}}
            },
            "components": {"schemas": {
              "Listing": {"type": "object", "properties": {"Id": {"type": "string"}}},
              "Pagination": {"type": "object", "properties": {"TotalRows": {"type": "integer"}}}
            }}
            """)
        let result = read(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let listing = try #require(result.spec?.resource("Listing"))
        #expect(listing.collectionOperations.map(\.name) == ["listListings", "count", "ids"])
        let count = try #require(listing.collectionOperation("count"))
        #expect(count.kind == .function && count.method == .get && count.pathSuffix.isEmpty)
        #expect(count.fixedQuery == ["_pagination": "count"])
        #expect(count.doc.summary == "Counts them.")
        // The payload sits where the variant says, not in the envelope's results.
        #expect(count.response?.type == named("Pagination", in: "inline.test"))
        #expect(count.response?.payloadPath == ["D", "Pagination"])
        // The base's parameters carry over.
        #expect(count.parameters.map(\.name) == ["_filter"])
        let ids = try #require(listing.collectionOperation("ids"))
        #expect(ids.response?.type == .collection(.primitive(.string)))
        #expect(ids.response?.payloadPath == nil)
        #expect(listing.collectionOperation("listListings")?.fixedQuery.isEmpty == true)
    }

    @Test func reportsBadVariants() {
        let text = document(
            """
            "paths": {
              "/a": {"get": {"operationId": "listA", "x-bindery-variants": {
                "listA": {"query": {"v": "1"}, "response": {"type": "string"}},
                "noQuery": {"response": {"type": "string"}},
                "emptyQuery": {"query": {}, "response": {"type": "string"}},
                "badKey": {"query": {"v": "2"}, "response": {"type": "string"}, "where": 1}
              }, "responses": {"200": {"description": "ok"}}}},
              "/b": {"get": {"x-bindery-variants": [], "responses": {"200": {"description": "ok"}}}}
            }
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:6:14: error: x-bindery-variants: 'listA' is the name of the operation it varies",
                "inline.json:7:16: error: x-bindery-variants.noQuery needs \"query\": the parameters that select it, such as {\"view\": \"count\"}",
                "inline.json:8:29: error: x-bindery-variants.emptyQuery.query must name at least one parameter",
                "inline.json:9:78: error: x-bindery-variants.badKey: unknown key 'where' (expected one of: query, response, results, summary)",
                "inline.json:11:40: error: x-bindery-variants must be an object of variants by name, such as {\"count\": {\"query\": {\"view\": \"count\"}, \"response\": {...}}}, found an array",
            ])
    }

    @Test func anOperationCanOptOutOfTheEnvelope() throws {
        let text = document(
            """
            "x-bindery-conventions": {"envelope": {"results": ["D", "Results"], "request": ["D"]}},
            "paths": {
              "/oauth2/grant": {"post": {"operationId": "grant", "x-bindery-envelope": "none",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Grant"}}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Tokens"}}}}}}},
              "/bad": {"post": {"x-bindery-envelope": {"results": ["x"]}, "responses": {"204": {"description": "ok"}}}}
            },
            "components": {"schemas": {
              "Grant": {"type": "object", "properties": {"grant_type": {"type": "string"}}},
              "Tokens": {"type": "object", "properties": {"access_token": {"type": "string"}}}
            }}
            """)
        let result = read(text)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:9:43: error: x-bindery-envelope must be \"none\" (this operation's bodies are not wrapped), found an object"
            ])
        #expect(position(of: #"{"results": ["x"]}"#, in: text) == "9:43")
        let fixed = read(text.replacingOccurrences(of: #""x-bindery-envelope": {"results": ["x"]}, "#, with: ""))
        let spec = try #require(fixed.spec)
        let grant = try #require(spec.resources.flatMap(\.operations).first { $0.name == "grant" })
        #expect(grant.isEnveloped == false)
        // Read bare: the body and the answer are the declared schemas, not unwrapped from `D`.
        #expect(grant.requestBody?.type == named("Grant", in: "inline.test"))
        #expect(grant.response?.type == named("Tokens", in: "inline.test"))
        #expect(spec.resources.flatMap(\.operations).first { $0.name != "grant" }?.isEnveloped == true)
    }

    @Test func readsDiscriminatorsWithAndWithoutAMapping() throws {
        let text = document(
            """
            "paths": {},
            "components": {"schemas": {
              "When": {"type": "object", "required": ["object"], "properties": {"object": {"type": "string"}}},
              "Time": {"allOf": [{"$ref": "#/components/schemas/When"}, {"type": "object", "properties": {"time": {"type": "integer"}}}]},
              "Datespan": {"allOf": [{"$ref": "#/components/schemas/When"}, {"type": "object", "properties": {"start_date": {"type": "string"}}}]},
              "Event": {"type": "object", "properties": {"when": {
                "oneOf": [{"$ref": "#/components/schemas/Time"}, {"$ref": "#/components/schemas/Datespan"}],
                "discriminator": {"propertyName": "object", "mapping": {"time": "#/components/schemas/Time"}}}}},
              "Pet": {"type": "object", "discriminator": {"propertyName": "kind"}, "properties": {"kind": {"type": "string"}}},
              "Cat": {"allOf": [{"$ref": "#/components/schemas/Pet"}, {"type": "object", "properties": {"purrs": {"type": "boolean"}}}]},
              "Bad": {"type": "object", "properties": {"x": {
                "oneOf": [{"$ref": "#/components/schemas/Time"}, {"$ref": "#/components/schemas/Datespan"}],
                "discriminator": {"propertyName": "object", "mapping": {"cat": "#/components/schemas/Cat"}}}}}
            }}
            """)
        let result = read(text)
        #expect(
            errors(result.diagnostics) == [
                "inline.json:16:68: error: discriminator.mapping 'cat' names 'Cat', which does not derive from 'When'"
            ])
        #expect(valuePosition(ofKey: "cat", in: text) == "16:68")
        let fixed = read(
            text.replacingOccurrences(
                of: ##""cat": "#/components/schemas/Cat""##, with: ##""time": "#/components/schemas/Time""##))
        let spec = try #require(fixed.spec)
        #expect(spec.structure("When")?.discriminatorProperty == "object")
        #expect(spec.structure("Time")?.discriminatorValue == "time")
        // Left out of the mapping: named by its component name, as OpenAPI says.
        #expect(spec.structure("Datespan")?.discriminatorValue == "Datespan")
        #expect(spec.structure("Pet")?.discriminatorProperty == "kind")
        #expect(spec.structure("Cat")?.discriminatorValue == "Cat")
        #expect(spec.structure("Event")?.properties.first?.type == named("When", in: "inline.test"))
    }

    @Test func reportsTypeErrorsInSchemas() {
        let text = document(
            """
            "components": {"schemas": {"S": {"type": "object", "properties": {"a": {"type": "strng"}}}}}
            """)
        let result = read(text)
        #expect(result.spec == nil)
        #expect(errors(result.diagnostics) == ["inline.json:4:81: error: unknown schema type 'strng'"])
        #expect(valuePosition(ofKey: "type", after: "\"a\"", in: text) == "4:81")
    }
}
