import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("OpenAPI reader: errors")
struct OpenAPIErrorTests {
    @Test func rejectsTextThatIsNotJSON() {
        let result = readOpenAPI("openapi: 3.1.0\n")
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:1:1: error: invalid JSON: unexpected 'o', expected a value"
            ])
    }

    @Test func reportsJSONSyntaxErrorsWhereTheyAre() {
        let text = """
            {
              "openapi": "3.1.0",
              "info": {"title": "x" "version": "1"}
            }
            """
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:3:25: error: invalid JSON: expected ',' or '}' in an object, found '\"'"
            ])
    }

    @Test func rejectsADocumentWithoutAVersion() {
        let result = readOpenAPI("\n  {\"info\": {\"title\": \"x\", \"version\": \"1\"}}")
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:2:3: error: missing \"openapi\": expected an OpenAPI 3.0 or 3.1 document"
            ])
    }

    @Test func rejectsUnsupportedVersions() {
        let text = openAPIDocument("\"paths\": {}", version: "3.2.0")
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:2:12: error: unsupported OpenAPI version '3.2.0': expected 3.0.x or 3.1.x"
            ])

        let swagger = readOpenAPI("{\n\"swagger\": \"2.0\"}")
        #expect(swagger.spec == nil)
        #expect(
            openAPIErrors(swagger.diagnostics) == [
                "inline.json:2:12: error: Swagger 2.0 documents are not supported; convert to OpenAPI 3.0 or 3.1"
            ])
    }

    @Test func rejectsADocumentThatIsNotAnObject() {
        let result = readOpenAPI("[1, 2]")
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:1:1: error: an OpenAPI document must be an object, found an array"
            ])
    }

    @Test func reportsAnUnknownReferenceAtTheReference() {
        let text = openAPIDocument(
            """
            "components": {"schemas": {
              "Thread": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}}
              }}
            }}
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == ["inline.json:6:49: error: unknown $ref '#/components/schemas/Tag'"])
        #expect(openAPIValuePosition(ofKey: "$ref", in: text) == "6:49")
    }

    @Test func reportsAReferenceIntoTheWrongSection() {
        let text = openAPIDocument(
            """
            "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/schemas/limit"}],
              "responses": {"200": {"description": "ok"}}}}}
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:\(openAPIValuePosition(ofKey: "$ref", in: text)): error: unsupported $ref '#/components/schemas/limit': expected a reference to #/components/parameters/<name>"
            ])
    }

    @Test func reportsABaseTypeCycle() {
        let text = openAPIDocument(
            """
            "components": {"schemas": {
              "A": {"allOf": [{"$ref": "#/components/schemas/B"}, {"type": "object", "properties": {"a": {"type": "string"}}}]},
              "B": {"allOf": [{"$ref": "#/components/schemas/A"}, {"type": "object", "properties": {"b": {"type": "string"}}}]}
            }}
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == ["inline.json:5:28: error: $ref cycle in allOf base types: A → B → A"])
        #expect(openAPIValuePosition(ofKey: "$ref", in: text) == "5:28")
    }

    @Test func reportsAnAllOfCycleThroughMergedReferences() {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        // At B's reference to A, met while A is being read.
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:10:67: error: $ref cycle: the allOf of 'A' includes 'A' itself"
            ]
        )
        #expect(openAPIPosition(of: "\"#/components/schemas/A\"}]}", in: text) == "10:67")
    }

    @Test func reportsAReferenceCycleBetweenAliases() {
        let text = openAPIDocument(
            """
            "components": {"schemas": {
              "A": {"$ref": "#/components/schemas/B"},
              "B": {"allOf": [{"$ref": "#/components/schemas/A"}], "description": "B is A"}
            }}
            """)
        // Nothing in between: `A` is `B` and `B` is `A`. (An array in between is a type: PublicSpecShapesTests.)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:\(openAPIValuePosition(ofKey: "$ref", after: "\"B\":", in: text)): error: $ref cycle: 'A' refers to itself with no type in between"
            ])
    }

    /// The path names it, so it exists: a required string, as every path parameter is on the wire.
    @Test func readsAnUndeclaredPathParameterAsARequiredString() throws {
        let text = openAPIDocument(
            """
            "paths": {
              "/n/{namespace_id}/threads": {
                "get": {"responses": {"200": {"description": "ok"}}}
              }
            }
            """)
        let result = readOpenAPI(text)
        #expect(openAPIErrors(result.diagnostics) == [])
        #expect(
            openAPIWarnings(result.diagnostics) == [
                "inline.json:6:12: warning: path parameter 'namespace_id' of '/n/{namespace_id}/threads' is not declared in the parameters of GET or its path item; read as a required string"
            ])
        #expect(try #require(result.spec).resources.isEmpty == false)
    }

    @Test func reportsADuplicateOperationId() {
        let text = openAPIDocument(
            """
            "paths": {
              "/a": {"get": {"operationId": "fetch", "responses": {"200": {"description": "ok"}}}},
              "/b": {"get": {"operationId": "fetch", "responses": {"200": {"description": "ok"}}}}
            }
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:6:33: error: duplicate operationId 'fetch' (first used at inline.json:5:33)"
            ])
    }

    @Test func reportsABadPagingStyle() {
        let text = openAPIDocument(
            """
            "x-bindery-conventions": {
              "paging": {"style": "pages", "page": "p"}
            }
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:5:23: error: x-bindery-conventions.paging.style 'pages' is not one of pageNumber, offset, cursor, afterLastItem, nextLink, none"
            ])
    }

    @Test func reportsUnknownConventionKeysAndValues() {
        let text = openAPIDocument(
            """
            "x-bindery-conventions": {
              "errors": "graph",
              "pagination": {"style": "none"},
              "paging": {"style": "offset", "offset": "offset"},
              "select": 12
            }
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:6:17: error: x-bindery-conventions: unknown key 'pagination' (expected one of: envelope, paging, delta, errors, queryOptions, select)",
                "inline.json:7:13: error: x-bindery-conventions.paging needs \"limit\"",
                "inline.json:5:13: error: x-bindery-conventions.errors must be \"odata\", \"common\" or an object of paths, found \"graph\"",
                "inline.json:8:13: error: x-bindery-conventions.select must be the name of a query parameter, found a number",
            ])
    }

    @Test func reportsBadErrorShapes() {
        let text = openAPIDocument(
            """
            "x-bindery-conventions": {
              "errors": {"code": "D.Code", "mesage": ["D", "Message"]}
            }
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:5:42: error: x-bindery-conventions.errors: unknown key 'mesage' (expected one of: code, message, details, requestID, date, helpURL)",
                "inline.json:5:22: error: x-bindery-conventions.errors.code must be a non-empty array of member names, found \"D.Code\"",
            ])
    }

    @Test func reportsBadValuesOfPerObjectExtensions() {
        let text = openAPIDocument(
            """
            "x-bindery-namspace": "typo",
            "paths": {
              "/a": {"x-bindery-resource": "two words", "get": {"x-bindery-delta": true, "responses": {"200": {"description": "ok"}}}}
            },
            "components": {"schemas": {"S": {"type": "object", "x-bindery-key": ["missing"],
              "properties": {"a": {"type": "string", "x-bindery-loose": "yes"}}}}}
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:4:23: error: unknown extension 'x-bindery-namspace' on the document root (allowed here: x-bindery-namespace, x-bindery-conventions)",
                "inline.json:9:61: error: x-bindery-loose must be true or false, found \"yes\"",
                "inline.json:8:70: error: x-bindery-key names 'missing', which is not a property of S",
                "inline.json:6:32: error: x-bindery-resource must be a name such as \"thread\" (letters, digits, '_', '-'), found \"two words\"",
                "inline.json:6:72: error: x-bindery-delta: true needs a document delta style in x-bindery-conventions.delta",
            ])
        #expect(openAPIPosition(of: "\"missing\"", in: text) == "8:70")
        #expect(openAPIValuePosition(ofKey: "x-bindery-loose", in: text) == "9:61")
    }

    @Test func readsVariantsWhoseAnswerDependsOnTheQuery() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let listing = try #require(result.spec?.resource("Listing"))
        #expect(listing.collectionOperations.map(\.name) == ["listListings", "count", "ids"])
        let count = try #require(listing.collectionOperation("count"))
        #expect(count.kind == .function && count.method == .get && count.pathSuffix.isEmpty)
        #expect(count.fixedQuery == ["_pagination": "count"])
        #expect(count.doc.summary == "Counts them.")
        // The payload sits where the variant says, not in the envelope's results.
        #expect(count.response?.type == openAPINamed("Pagination", in: "inline.test"))
        #expect(count.response?.payloadPath == ["D", "Pagination"])
        // The base's parameters carry over.
        #expect(count.parameters.map(\.name) == ["_filter"])
        let ids = try #require(listing.collectionOperation("ids"))
        #expect(ids.response?.type == .collection(.primitive(.string)))
        #expect(ids.response?.payloadPath == nil)
        #expect(listing.collectionOperation("listListings")?.fixedQuery.isEmpty == true)
    }

    @Test func reportsBadVariants() {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:6:14: error: x-bindery-variants: 'listA' is the name of the operation it varies",
                "inline.json:7:16: error: x-bindery-variants.noQuery needs \"query\": the parameters that select it, such as {\"view\": \"count\"}",
                "inline.json:8:29: error: x-bindery-variants.emptyQuery.query must name at least one parameter",
                "inline.json:9:78: error: x-bindery-variants.badKey: unknown key 'where' (expected one of: query, response, results, summary)",
                "inline.json:11:40: error: x-bindery-variants must be an object of variants by name, such as {\"count\": {\"query\": {\"view\": \"count\"}, \"response\": {...}}}, found an array",
            ])
    }

    @Test func anOperationCanOptOutOfTheEnvelope() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:9:43: error: x-bindery-envelope must be \"none\" (this operation's bodies are not wrapped), found an object"
            ])
        #expect(openAPIPosition(of: #"{"results": ["x"]}"#, in: text) == "9:43")
        let fixed = readOpenAPI(text.replacingOccurrences(of: #""x-bindery-envelope": {"results": ["x"]}, "#, with: ""))
        let spec = try #require(fixed.spec)
        let grant = try #require(spec.resources.flatMap(\.operations).first { $0.name == "grant" })
        #expect(grant.isEnveloped == false)
        // Read bare: the body and the answer are the declared schemas, not unwrapped from `D`.
        #expect(grant.requestBody?.type == openAPINamed("Grant", in: "inline.test"))
        #expect(grant.response?.type == openAPINamed("Tokens", in: "inline.test"))
        #expect(spec.resources.flatMap(\.operations).first { $0.name != "grant" }?.isEnveloped == true)
    }

    @Test func readsDiscriminatorsWithAndWithoutAMapping() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
        #expect(
            openAPIErrors(result.diagnostics) == [
                "inline.json:16:68: error: discriminator.mapping 'cat' names 'Cat', which does not derive from 'When'"
            ])
        #expect(openAPIValuePosition(ofKey: "cat", in: text) == "16:68")
        let fixed = readOpenAPI(
            text.replacingOccurrences(
                of: ##""cat": "#/components/schemas/Cat""##, with: ##""time": "#/components/schemas/Time""##))
        let spec = try #require(fixed.spec)
        #expect(spec.structure("When")?.discriminatorProperty == "object")
        #expect(spec.structure("Time")?.discriminatorValue == "time")
        // Left out of the mapping: named by its component name, as OpenAPI says.
        #expect(spec.structure("Datespan")?.discriminatorValue == "Datespan")
        #expect(spec.structure("Pet")?.discriminatorProperty == "kind")
        #expect(spec.structure("Cat")?.discriminatorValue == "Cat")
        #expect(spec.structure("Event")?.properties.first?.type == openAPINamed("When", in: "inline.test"))
    }

    @Test func reportsTypeErrorsInSchemas() {
        let text = openAPIDocument(
            """
            "components": {"schemas": {"S": {"type": "object", "properties": {"a": {"type": "strng"}}}}}
            """)
        let result = readOpenAPI(text)
        #expect(result.spec == nil)
        #expect(openAPIErrors(result.diagnostics) == ["inline.json:4:81: error: unknown schema type 'strng'"])
        #expect(openAPIValuePosition(ofKey: "type", after: "\"a\"", in: text) == "4:81")
    }
}
