import BinderySpec
import Foundation
import Testing

@testable import BinderyReaders

@Suite("OpenAPI reader: schemas")
struct OpenAPISchemaTests {
    @Test func mapsPrimitiveTypesAndFormats() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
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
        let text = openAPIDocument(
            """
            "components": {"schemas": {"Sample": {"type": "object", "required": ["a", "b", "c", "d"], "properties": {
              "a": {"type": "string"},
              "b": {"type": "string", "nullable": true},
              "c": {"type": ["integer", "null"]},
              "d": {"oneOf": [{"$ref": "#/components/schemas/Other"}, {"type": "null"}]},
              "e": {"type": "string"}
            }}, "Other": {"type": "object", "properties": {"x": {"type": "string"}}}}}
            """, version: "3.0.3")
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let sample = try #require(result.spec?.structure("Sample"))
        #expect(sample.properties.map(\.isNullable) == [false, true, true, true, true])
        #expect(sample.property("c")?.type == .primitive(.int64))
        #expect(sample.property("d")?.type == openAPINamed("Other", in: "inline.test"))
    }

    @Test func readsOpenObjectsKeysAndLooseValues() throws {
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
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
        let text = openAPIDocument(
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
        let result = readOpenAPI(text)
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
        let text = openAPIDocument(
            """
            "components": {"schemas": {
              "Thread": {"type": "object", "properties": {
                "participants": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}
              }},
              "ThreadParticipants": {"type": "string", "enum": ["x"]}
            }}
            """)
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let spec = try #require(result.spec)
        #expect(
            spec.structure("Thread")?.property("participants")?.type
                == .collection(openAPINamed("ThreadParticipants2", in: "inline.test")))
        #expect(spec.enumeration("ThreadParticipants") != nil)
    }

    @Test func resolvesAliasComponentsToTheirType() throws {
        let text = openAPIDocument(
            """
            "components": {"schemas": {
              "Ids": {"type": "array", "items": {"type": "string"}},
              "Holder": {"type": "object", "properties": {"ids": {"$ref": "#/components/schemas/Ids"}}}
            }}
            """)
        let result = readOpenAPI(text)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.spec?.structure("Holder")?.property("ids")?.type == .collection(.primitive(.string)))
        #expect(result.spec?.structures.map(\.name.name) == ["Holder"])
    }

    @Test func usesTheNamespaceExtensionOverTheTitle() throws {
        let text = """
            {"openapi": "3.0.0", "info": {"title": "Whatever It Is", "version": "1"}, "x-bindery-namespace": "com.example.mail"}
            """
        #expect(readOpenAPI(text).spec?.primaryNamespace == "com.example.mail")
        let untitled = #"{"openapi": "3.0.0", "info": {"title": "Spark API (v1)", "version": "1"}}"#
        #expect(readOpenAPI(untitled).spec?.primaryNamespace == "spark.api.v1")
        // A part that starts with a digit joins the one before it: namespace parts are identifiers.
        let versioned = #"{"openapi": "3.0.0", "info": {"title": "Swagger Petstore - OpenAPI 3.0", "version": "1"}}"#
        #expect(readOpenAPI(versioned).spec?.primaryNamespace == "swagger.petstore.openapi30")
    }
}
