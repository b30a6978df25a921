import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("OpenAPI reader: paths and conventions")
struct OpenAPIPathTests {
    /// Spark: every response is `{"D": {"Success", "Results": [...]}}`, paged by page number.
    private let spark = openAPIDocument(
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
        let result = readOpenAPI(spark)
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
        #expect(list.response?.type == .collection(openAPINamed("Listing", in: "inline.test")))
        let create = try #require(listing.collectionOperation("createListing"))
        #expect(create.kind == .create)
        #expect(create.requestBody?.type == openAPINamed("Listing", in: "inline.test"))
        // `{"D": {"Success": true}}` carries no results.
        #expect(create.response == ResponseSpec(type: nil, successCodes: [201]))
        // Spark answers a single item as a one-element array.
        #expect(
            listing.operation("getListing")?.response?.type == .collection(openAPINamed("Listing", in: "inline.test")))
        #expect(listing.model == openAPINamed("Listing", in: "inline.test"))
        // `/my` has deeper paths: a single step. `/my/account` returns a list once unwrapped: a function of `my`.
        let my = try #require(spec.resource("my"))
        #expect(spec.resource("Service")?.child("my")?.isCollection == false)
        #expect(my.children.isEmpty)
        let account = try #require(my.operation("getMyAccount"))
        #expect(account.kind == .function && account.pathSuffix == ["account"])
        #expect(account.response?.type == .collection(openAPINamed("Account", in: "inline.test")))
        // The component envelope is declared like any component; the inline one of getMyAccount is not.
        #expect(spec.structures.map(\.name.name) == ["Listing", "Account", "ListingsEnvelope", "ListingsEnvelopeD"])
    }

    @Test func readsCursorPagingAndOperationOverrides() throws {
        let text = openAPIDocument(
            """
            "x-bindery-conventions": {
              "envelope": {"results": ["data"]},
              "paging": {"style": "cursor", "field": "next_cursor", "parameter": "page_token"},
              "delta": {"style": "odata", "token": "token"},
              "errors": {"code": [["error", "type"], ["error", "code"]], "message": ["error", "message"],
                         "requestID": ["request_id"]},
              "queryOptions": "odata",
              "select": "fields"
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
        let result = readOpenAPI(text)
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
        #expect(spec.conventions.selectParameter == "fields")
        #expect(spec.conventions.envelope == .wrapped(resultsPath: ["data"], requestPath: []))
        // Grants and messages are named from their segments (the items are inline).
        let message = try #require(spec.resource("message"))
        let list = try #require(message.collectionOperation("listMessages"))
        #expect(list.response?.paging == .offset(offsetParameter: "skip", limitParameter: "top"))
        #expect(list.response?.delta == .cursor(requestParameter: "c", startField: "s", endField: "e"))
        #expect(list.response?.type == .collection(openAPINamed("listMessagesItem", in: "inline.test")))
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
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
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

    /// Spark's `contacts/tags/{TagName}`, `accounts/by/office/{Id}` and `contacts/export/all`: a leaf below literals
    /// under a collection that lists the collection's own items is the collection filtered; a key whose GET answers something else is a
    /// collection of its own (`contacts/uploads/{Id}`).
    @Test func readsFilteredListsBelowACollectionAsItsFunctions() throws {
        let list =
            ##"{"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Contact"}}}}}}"##
        let rules = list.replacingOccurrences(of: "Contact", with: "Rule")
        let text = openAPIDocument(
            """
            "paths": {
              "/contacts": {"get": {"operationId": "listContacts", "responses": \(list)}},
              "/contacts/{Id}": {"parameters": [{"name": "Id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "getContact", "responses": \(list)}},
              "/contacts/tags": {"get": {"operationId": "listTags", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string"}}}}}}}},
              "/contacts/tags/{TagName}": {"parameters": [{"name": "TagName", "in": "path", "required": true,
                "description": "A tag's name.", "schema": {"type": "string"}}],
                "get": {"operationId": "listByTag", "responses": \(list)}},
              "/contacts/export": {"get": {"operationId": "exportContacts", "responses": \(list)}},
              "/contacts/rules": {"get": {"operationId": "listRules", "responses": \(rules)}},
              "/contacts/rules/kinds/{Kind}": {"parameters": [{"name": "Kind", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "listRulesOfKind", "responses": \(rules)}},
              "/contacts/export/all": {"get": {"operationId": "exportAll", "responses": \(list)}},
              "/contacts/by/office/{OfficeId}": {"parameters": [{"name": "OfficeId", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "listByOffice", "responses": \(list)}},
              "/contacts/uploads/{Id}": {"parameters": [{"name": "Id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "get": {"operationId": "getUpload", "responses": {"200": {"description": "ok",
                  "content": {"application/json": {"schema": {"type": "object", "properties": {"state": {"type": "string"}}}}}}}}}
            },
            "components": {"schemas": {"Contact": {"type": "object", "properties": {"Id": {"type": "string"}}},
              "Rule": {"type": "object", "properties": {"Id": {"type": "string"}}}}}
            """)
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        let contact = try #require(spec.resource("Contact"))
        // What a literal lists, filtered below it, is a function too: `contacts/rules` stays a function.
        #expect(
            contact.collectionOperations.filter { $0.name.contains("Rules") }.map { "\($0.name) \($0.pathSuffix)" } == [
                "listRulesOfKind [\"rules\", \"kinds\", \"{Kind}\"]", "listRules [\"rules\"]",
            ])
        #expect(
            contact.collectionOperations.filter { !$0.name.contains("Rules") }.map {
                "\($0.name) \($0.kind) \($0.pathSuffix)"
            } == [
                "listByTag function [\"tags\", \"{TagName}\"]", "exportAll function [\"export\", \"all\"]",
                "listByOffice function [\"by\", \"office\", \"{OfficeId}\"]", "listContacts list []",
                "listTags function [\"tags\"]", "exportContacts function [\"export\"]",
            ])
        // The key is the function's argument, documented as the spec documents it.
        let byTag = try #require(contact.collectionOperation("listByTag"))
        #expect(byTag.parameters.map { "\($0.name) \($0.location)" } == ["TagName path"])
        #expect(byTag.parameters.first?.doc.summary == "A tag's name.")
        #expect(byTag.response?.type == .collection(openAPINamed("Contact", in: "inline.test")))
        // Nothing is left of `by/office`, and an upload is not a contact: its key stays a collection's.
        #expect(spec.resource("Service")?.child("contacts") != nil)
        #expect(contact.children.map(\.name) == ["uploads"])
        #expect(contact.children.first?.isOnCollection == true)
    }

    @Test func skipsPathsThatCannotBeResources() throws {
        let text = openAPIDocument(
            """
            "paths": {
              "/files/{name}.{ext}/{x}": {"get": {"responses": {"200": {"description": "ok"}}}},
              "/ok": {"post": {"responses": {"204": {"description": "done"}}}}
            }
            """)
        let result = readOpenAPI(text)
        // A segment that mixes text and parameters can only be a leaf. (Its undeclared parameters are warned about
        // first, as they are read as strings.)
        #expect(
            openAPIWarnings(result.diagnostics).filter { !$0.contains("is not declared") } == [
                "inline.json:5:30: warning: path '/files/{name}.{ext}/{x}' and the others that share its prefix are skipped: '{name}.{ext}' mixes text and parameters and has deeper paths"
            ])
        #expect(openAPIValuePosition(ofKey: "/files/{name}.{ext}/{x}", in: text) == "5:30")
    }

    /// Elasticsearch: a key first in the path (`/{index}/_search`) is a collection without a segment, named after
    /// the key; a path of the same URL shape as another (`/{index}/{ai21_id}` beside `/{index}/{doc_id}`, a body
    /// per provider) adds named methods; items no model describes are still addressed.
    @Test func readsKeysFirstInThePathAndPathsOfTheSameShape() throws {
        let key = #"{"name": "index", "in": "path", "required": true, "schema": {"type": "string"}}"#
        let text = openAPIDocument(
            """
            "paths": {
              "/{index}/_search": {"parameters": [\(key)],
                "post": {"operationId": "search", "responses": {"200": {"description": "ok"}}}},
              "/{index}/{doc_id}": {"parameters": [\(key), {"name": "doc_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "put": {"operationId": "putDocument", "responses": {"200": {"description": "ok"}}},
                "delete": {"operationId": "deleteDocument", "responses": {"200": {"description": "ok"}}}},
              "/{index}/{ai21_id}": {"parameters": [\(key), {"name": "ai21_id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "put": {"operationId": "putAi21", "responses": {"200": {"description": "ok"}}}}
            }
            """)
        let result = readOpenAPI(text)
        // The second description's own name for the key is not worth a warning.
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(
            spec.resource("Service")?.children.map { "\($0.name) '\($0.segment)' \($0.keyName ?? "")" } == [
                "indexes '' index"
            ])
        let index = try #require(spec.resource("index"))
        #expect(index.operations.map { "\($0.name) \($0.kind) \($0.pathSuffix)" } == ["search action [\"_search\"]"])
        let document = try #require(spec.resource("doc"))
        #expect(
            document.operations.map { "\($0.name) \($0.kind) \($0.isAlternative)" } == [
                "putDocument replace false", "deleteDocument delete false", "putAi21 action true",
            ])
    }

    @Test func readsChoicesMapsAndPropertyFacts() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(openAPIErrors(result.diagnostics).isEmpty)
        #expect(openAPIWarnings(result.diagnostics).isEmpty)
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
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(openAPIErrors(result.diagnostics).isEmpty)
        #expect(openAPIWarnings(result.diagnostics).isEmpty)
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
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let operations = try #require(result.spec?.resource("Service")?.operations)
        #expect(operations.map(\.name) == ["upload", "uploadForm"])
        #expect(
            operations.first?.requestBody
                == BodySpec(type: .primitive(.stream), contentType: "application/octet-stream", isRequired: true))
        #expect(operations.first?.pathSuffix == ["uploads"])
        var form = BodySpec(
            type: openAPINamed("uploadFormRequest", in: "inline.test"), contentType: "multipart/form-data",
            isRequired: false)
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
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let user = try #require(result.spec?.resource("user"))
        #expect(
            user.collectionOperation("listUsers")?.response?.type
                == .collection(openAPINamed("user", in: "inline.test")))
        #expect(user.operation("updateUser")?.kind == .update)
        #expect(result.spec?.resource("Service")?.child("users")?.keyName == "user-id")
    }

    @Test func warnsAndSkipsUnsupportedConstructs() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(openAPIErrors(result.diagnostics).isEmpty)
        #expect(result.spec != nil)
        #expect(
            openAPIWarnings(result.diagnostics) == [
                "inline.json:\(openAPIPosition(of: "{\"name\": \"session\"", in: text)): warning: cookie parameter 'session' is not supported; skipped",
                "inline.json:\(openAPIValuePosition(ofKey: "callbacks", in: text)): warning: callbacks are not supported; skipped",
                "inline.json:\(openAPIValuePosition(ofKey: "not", in: text)): warning: 'not' is not supported; the constraint is ignored",
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
