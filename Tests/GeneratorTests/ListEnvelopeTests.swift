import BinderySpec
import Testing

@testable import BinderyReaders

/// When a GET's answer is an object with a list in it, and how that list pages: every rule of
/// Docs/OpenAPIExtensions.md, "Lists inside an object", as a row.
@Suite("OpenAPI reader: lists inside an object") struct ListEnvelopeTests {
    /// A document with `GET /things` answering `answer` (a schema's JSON), with these query parameters, and with an
    /// item path `/things/{id}` unless `collection` is false.
    static func spec(
        answer: String, query: [String] = [], collection: Bool = true, paging: String? = nil
    ) -> (spec: ServiceSpec?, diagnostics: [Diagnostic]) {
        // Sizes, pages and offsets are integers (`page:0` counts from 0); anything else is a string.
        let parameters = query.map { parameter -> String in
            let (name, schema) =
                parameter == "page:0"
                ? ("page", #"{"type": "integer", "minimum": 0}"#)
                : parameter == "limit:50"
                    ? ("limit", #"{"type": "integer", "default": 50, "maximum": 200}"#)
                    : ["page", "per_page", "limit", "offset"].contains(parameter)
                        ? (parameter, #"{"type": "integer"}"#) : (parameter, #"{"type": "string"}"#)
            return #"{"name": "\#(name)", "in": "query", "schema": \#(schema)}"#
        }
        let extensionMember = paging.map { #""x-bindery-paging": \#($0), "# } ?? ""
        let item =
            collection
            ? ##", "/things/{id}": {"get": {"operationId": "getThing", "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}], "responses": {"200": {"description": "one", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}"##
            : ""
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Lists", "version": "1"},
             "paths": {"/things": {"get": {"operationId": "listThings", \(extensionMember)"parameters": [\(parameters.joined(separator: ", "))],
               "responses": {"200": {"description": "a page", "content": {"application/json": {"schema": \(answer)}}}}}}\(item)},
             "components": {"schemas": {"Thing": {"type": "object", "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}}}}
            """
        return OpenAPIReader().read(bytes: Array(text.utf8), path: "lists.json")
    }

    /// The list GET as read: from the collection's operations, or the root's.
    static func listThings(_ spec: ServiceSpec) -> OperationSpec? {
        spec.resources.flatMap { $0.collectionOperations + $0.operations }.first { $0.name == "listThings" }
    }

    static let things = ##"{"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}"##

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var answer: String
        var query: [String] = []
        var collection = true
        var itemsPath: [String]?
        var paging: PagingStyle?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "Stripe: has_more and starting_after, after the last item's id",
            answer: #"{"type": "object", "properties": {"data": \#(things), "has_more": {"type": "boolean"}}}"#,
            query: ["starting_after", "limit"], itemsPath: ["data"],
            paging: .afterLastItem(key: "id", requestParameter: "starting_after", hasMore: ["has_more"])),
        Row(
            name: "a cursor member paired with the parameter of its name",
            answer: #"{"type": "object", "properties": {"items": \#(things), "next_cursor": {"type": "string"}}}"#,
            query: ["limit", "cursor"], itemsPath: ["items"],
            paging: .cursor(responsePath: ["next_cursor"], requestParameter: "cursor")),
        Row(
            name: "a nested cursor wins over a link beside it (HubSpot's paging.next.after)",
            answer:
                #"{"type": "object", "properties": {"results": \#(things), "paging": {"type": "object", "properties": {"next": {"type": "object", "properties": {"after": {"type": "string"}, "link": {"type": "string"}}}}}}}"#,
            query: ["after"], itemsPath: ["results"],
            paging: .cursor(responsePath: ["paging", "next", "after"], requestParameter: "after")),
        Row(
            name: "a marker beside offset and limit pages by offset (Box: markers need usemarker)",
            answer:
                #"{"type": "object", "properties": {"entries": \#(things), "next_marker": {"type": "string"}}}"#,
            query: ["marker", "offset", "limit:50"], itemsPath: ["entries"],
            paging: .offset(offsetParameter: "offset", limitParameter: "limit", defaultLimit: 50)),
        Row(
            name: "a next link without a paging member around it needs format uri",
            answer: #"{"type": "object", "properties": {"data": \#(things), "next": {"type": "string"}}}"#),
        Row(
            name: "pages counted from 0 are not told",
            answer:
                #"{"type": "object", "properties": {"content": \#(things), "totalPages": {"type": "integer"}}}"#,
            query: ["page:0"]),
        Row(
            name: "a list of strings is not a collection",
            answer:
                #"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "next_cursor": {"type": "string"}}}"#,
            query: ["cursor"]),
        Row(
            name: "a nested cursor with no parameter to send it is not one page",
            answer:
                #"{"type": "object", "properties": {"data": \#(things), "meta": {"type": "object", "properties": {"next_cursor": {"type": "string"}}}}}"#
        ),
        Row(
            name: "a string named like an offset (a date from) is no offset",
            answer: #"{"type": "object", "properties": {"data": \#(things), "total": {"type": "integer"}}}"#,
            query: ["limit", "from"]),
        Row(
            name: "a next link under links",
            answer:
                #"{"type": "object", "properties": {"data": \#(things), "links": {"type": "object", "properties": {"next": {"type": ["string", "null"]}}}}}"#,
            itemsPath: ["data"], paging: .nextLink(path: ["links", "next"])),
        Row(
            name: "a last id with has_more",
            answer:
                #"{"type": "object", "properties": {"data": \#(things), "last_id": {"type": "string"}, "has_more": {"type": "boolean"}}}"#,
            query: ["after"], itemsPath: ["data"],
            paging: .cursor(responsePath: ["last_id"], requestParameter: "after", hasMore: ["has_more"])),
        Row(
            name: "page numbers with the number of pages",
            answer:
                #"{"type": "object", "properties": {"records": \#(things), "meta": {"type": "object", "properties": {"total_pages": {"type": "integer"}}}}}"#,
            query: ["page", "per_page"], itemsPath: ["records"],
            paging: .pageNumber(
                pageParameter: "page", sizeParameter: "per_page", extraQuery: [:],
                totalPagesPath: ["meta", "total_pages"])),
        Row(
            name: "offset and limit",
            answer: #"{"type": "object", "properties": {"entries": \#(things), "total_count": {"type": "integer"}}}"#,
            query: ["offset", "limit"], itemsPath: ["entries"],
            paging: .offset(offsetParameter: "offset", limitParameter: "limit", defaultLimit: 100)),
        Row(
            name: "a collection's list with nothing that pages is one page",
            answer: #"{"type": "object", "properties": {"data": \#(things)}}"#, itemsPath: ["data"],
            paging: PagingStyle.none),
        Row(
            name: "two lists, one under a usual name",
            answer:
                #"{"type": "object", "properties": {"order": {"type": "array", "items": {"type": "string"}}, "entries": \#(things)}}"#,
            itemsPath: ["entries"], paging: PagingStyle.none),
        Row(
            name: "outside a collection, a list that pages",
            answer:
                #"{"type": "object", "properties": {"data": \#(things), "next": {"type": "string", "format": "uri"}}}"#,
            collection: false, itemsPath: ["data"], paging: .nextLink(path: ["next"])),
        Row(
            name: "outside a collection, an object with a list but no paging stays an object",
            answer: #"{"type": "object", "properties": {"data": \#(things)}}"#, collection: false),
        Row(
            name: "a list whose paging cannot be told stays an object",
            answer: #"{"type": "object", "properties": {"data": \#(things), "has_more": {"type": "boolean"}}}"#),
        Row(
            name: "two lists, neither usual, stay an object",
            answer:
                #"{"type": "object", "properties": {"left": \#(things), "right": \#(things), "next": {"type": "string"}}}"#
        ),
    ]

    @Test(arguments: rows) func recognises(_ row: Row) throws {
        let (spec, diagnostics) = Self.spec(answer: row.answer, query: row.query, collection: row.collection)
        #expect(!diagnostics.contains { $0.severity == .error }, "\(diagnostics)")
        let read = try #require(spec)
        let operation = try #require(Self.listThings(read))
        let response = try #require(operation.response)
        #expect(response.itemsPath == row.itemsPath)
        #expect(response.paging == row.paging)
        if row.itemsPath != nil {
            #expect(response.type == .collection(.named(QualifiedName(namespace: "lists", name: "Thing"))))
        } else {
            guard case .named? = response.type else {
                Issue.record("expected the declared object, found \(String(describing: response.type))")
                return
            }
        }
    }

    @Test func aCollectionWhoseListCannotBeToldSaysWhy() throws {
        let (_, diagnostics) = Self.spec(
            answer: #"{"type": "object", "properties": {"left": \#(Self.things), "right": \#(Self.things)}}"#)
        let warning = try #require(diagnostics.first { $0.severity == .warning }).description
        #expect(warning.contains("GET '/things' lists a collection but its response is not a list"))
        #expect(warning.contains("more than one list ('left', 'right')"))
        #expect(warning.contains("x-bindery-paging"))
    }

    @Test func anItemsGetAnswersTheItemThoughTheItemHasAList() throws {
        let (spec, _) = Self.spec(answer: Self.things)
        let read = try #require(spec)
        let item = try #require(read.resources.flatMap(\.operations).first { $0.name == "getThing" })
        #expect(item.response?.itemsPath == nil)
        #expect(item.response?.type == .named(QualifiedName(namespace: "lists", name: "Thing")))
    }

    @Test func theSpecNamesTheListAndItsPaging() throws {
        let (spec, diagnostics) = Self.spec(
            answer:
                #"{"type": "object", "properties": {"left": \#(Self.things), "right": {"type": "object", "properties": {"rows": \#(Self.things), "more": {"type": "string"}}}}}"#,
            query: ["more"],
            paging: #"{"style": "cursor", "items": ["right", "rows"], "field": ["right", "more"], "parameter": "more"}"#
        )
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let read = try #require(spec)
        let response = try #require(Self.listThings(read)?.response)
        #expect(response.itemsPath == ["right", "rows"])
        #expect(response.paging == .cursor(responsePath: ["right", "more"], requestParameter: "more"))
    }

    @Test func itemsWhereTheAnswerHasNoListIsAnError() throws {
        let (spec, diagnostics) = Self.spec(
            answer: #"{"type": "object", "properties": {"data": \#(Self.things)}}"#,
            paging: #"{"style": "none", "items": "rows"}"#)
        #expect(spec == nil)
        #expect(
            diagnostics.map(\.description).contains {
                $0.contains("error: x-bindery-paging.items: the response has no list at rows")
            })
    }
}
