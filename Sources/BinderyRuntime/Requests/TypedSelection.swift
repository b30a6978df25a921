import Foundation

// A typed `$select`: `messages.request().select(\.subject, \.from)` sends `$select=subject,from` and yields
// `(String?, Recipient?)` rows. The selection is the type, so a field that was not asked for has no name to read
// it by; with an untyped `select("subject,from")` every other property reads as nil, indistinguishable from a
// service that has no value.
//
// The row is a tuple type parameter, not a parameter pack of the request types: Swift 6.3 cannot iterate
// (`for try await (a, b) in …`) a sequence whose generic parameters are a pack, and one tuple parameter also keeps
// the types users see short: `SelectedCollectionRequest<Message, (String?, Recipient?)>`.

/// The fields a typed `select` asked for: their names on the wire, and how to read their values from an item.
public struct Selection<Resource: JSONModel, Row: Sendable>: Sendable {
    /// The fields' names, in the order of the row, as the select parameter sends them.
    public let names: [String]
    /// The member of an item that holds the fields, when it is not the item itself (a Spark listing's
    /// `StandardFields`).
    public let record: String?
    let read: @Sendable (JSONObject) -> Row

    /// The values of the selected fields in `item`, each nil where the item has none.
    public func row(of item: Resource) -> Row {
        guard let record else { return read(item.storage) }
        return read(item.storage[record]?.objectValue ?? [:])
    }

    /// The member that holds a key: the declared field called `id` or `Id`, as services name their keys.
    var idMember: String? {
        ["id", "Id"].first { Resource.schema.fieldIndex[$0] != nil }
    }
}

/// The selection of `fields` of `Fields`' table, read as one optional per field.
private func selection<Resource: JSONModel, Fields: FieldSet, each Value: JSONConvertible>(
    _ fields: repeat KeyPath<Fields.Table, Field<each Value>>, of _: Fields.Type, in record: String?
) -> Selection<Resource, (repeat (each Value)?)> {
    var declared: [DeclaredField] = []
    for path in repeat each fields { declared.append(Model<Fields>.declaredField(path)) }
    return Selection(names: declared.map(\.name), record: record) { [declared] object in
        var index = 0
        func next<V: JSONConvertible>(_: V.Type) -> V? {
            defer { index += 1 }
            return object.value(of: declared[index])
        }
        return (repeat next((each Value).self))
    }
}

/// One item of a typed selection: the values selected, and what the service sends whatever was selected.
public struct Selected<Row: Sendable>: Sendable {
    /// The selected fields' values, in the order they were selected: destructure them as a tuple.
    public let values: Row
    /// The item's key (its `id` or `Id` member), which services return whatever is selected.
    public let id: String?
    /// The item's `@odata.etag`, for a conditional write after the read.
    public let etag: String?
    /// In a delta page: whether this item was deleted (`"@removed"` in Graph, `"deleted": {}` in OneDrive).
    public let isDeletedInDelta: Bool

    init<Resource: JSONModel>(_ item: Resource, _ selection: Selection<Resource, Row>) {
        values = selection.row(of: item)
        id = selection.idMember.flatMap { item.storage[$0]?.stringValue }
        etag = item.storage["@odata.etag"]?.stringValue
        isDeletedInDelta = item.isDeletedInDelta
    }
}

// MARK: Selecting

extension CollectionRequest {
    /// Asks for these fields only (`$select`, or the service's own parameter) and reads each item as a tuple of
    /// them: `for try await (subject, from) in messages.request().select(\.subject, \.from).all()`.
    public func select<Fields: FieldSet, each Value: JSONConvertible>(
        _ fields: repeat KeyPath<Fields.Table, Field<each Value>>
    ) -> SelectedCollectionRequest<Element, (repeat (each Value)?)> where Element == Model<Fields> {
        SelectedCollectionRequest(self, selection(repeat each fields, of: Fields.self, in: nil))
    }

    /// Asks for fields of a record every item holds (Spark sends a listing's fields in its `StandardFields`):
    /// `listings.list().select(\.listPrice, \.city, in: \.standardFields)` sends `_select=ListPrice,City`.
    public func select<Fields: FieldSet, RecordFields: FieldSet, each Value: JSONConvertible>(
        _ fields: repeat KeyPath<RecordFields.Table, Field<each Value>>,
        in record: KeyPath<Fields.Table, Field<Model<RecordFields>>>
    ) -> SelectedCollectionRequest<Element, (repeat (each Value)?)> where Element == Model<Fields> {
        let member = Model<Fields>.declaredField(record).name
        return SelectedCollectionRequest(self, selection(repeat each fields, of: RecordFields.self, in: member))
    }
}

extension EntityRequest {
    /// Asks for these fields only and reads the entity as a tuple of them:
    /// `let (subject, from) = try await message.request().select(\.subject, \.from).get().values`.
    public func select<Fields: FieldSet, each Value: JSONConvertible>(
        _ fields: repeat KeyPath<Fields.Table, Field<each Value>>
    ) -> SelectedEntityRequest<Resource, (repeat (each Value)?)> where Resource == Model<Fields> {
        SelectedEntityRequest(self, selection(repeat each fields, of: Fields.self, in: nil))
    }
}

// MARK: Requests

extension AdjustableRequest {
    /// A copy that asks for these fields only, under the service's select parameter (`$select`, Spark's `_select`).
    fileprivate func asking(for names: [String], client: ServiceClient) -> Self {
        query(client.conventions.selectParameter, names.joined(separator: ","))
    }
}

/// A collection request with a typed selection: `get()` a page, or iterate `pages()` or `all()` rows.
///
/// Filter, order, expand and page options apply as on `CollectionRequest`. To read an expanded property, select it
/// too: OData returns it either way, and only a selected field has a place in the row.
public struct SelectedCollectionRequest<Resource: JSONModel, Row: Sendable>: CollectionQuery {
    /// The same request without the types: what is sent, and how pages are read.
    public private(set) var untyped: CollectionRequest<Resource>
    public let selection: Selection<Resource, Row>

    init(_ untyped: CollectionRequest<Resource>, _ selection: Selection<Resource, Row>) {
        self.untyped = untyped.asking(for: selection.names, client: untyped.client)
        self.selection = selection
    }

    public var request: APIRequest {
        get { untyped.request }
        set { untyped.request = newValue }
    }

    /// Fetches one page.
    public func get() async throws(BinderyError) -> SelectedPage<Resource, Row> {
        SelectedPage(try await untyped.get(), selection)
    }

    /// Every page, fetched as the sequence is iterated.
    public func pages() -> SelectedPageSequence<Resource, Row> {
        SelectedPageSequence(pages: untyped.pages(), selection: selection)
    }

    /// Every item's row across all pages: `for try await (subject, from) in request.all()`.
    public func all() -> SelectedRowSequence<Resource, Row> {
        SelectedRowSequence(items: untyped.all(), selection: selection)
    }
}

/// An entity request with a typed selection.
public struct SelectedEntityRequest<Resource: JSONModel, Row: Sendable>: AdjustableRequest {
    public private(set) var untyped: EntityRequest<Resource>
    public let selection: Selection<Resource, Row>

    init(_ untyped: EntityRequest<Resource>, _ selection: Selection<Resource, Row>) {
        self.untyped = untyped.asking(for: selection.names, client: untyped.client)
        self.selection = selection
    }

    public var request: APIRequest {
        get { untyped.request }
        set { untyped.request = newValue }
    }

    public func get() async throws(BinderyError) -> Selected<Row> {
        Selected(try await untyped.get(), selection)
    }
}

// MARK: Pages

/// One page of a typed selection.
public struct SelectedPage<Resource: JSONModel, Row: Sendable>: Sendable {
    public var value: [Selected<Row>]
    /// The request for the next page; nil on the last page.
    public var nextRequest: SelectedCollectionRequest<Resource, Row>?
    public var nextLink: URL?
    /// Delta only: the link that returns changes after this one.
    public var deltaLink: URL?
    /// Delta only: the token to resume from later.
    public var deltaToken: String?
    /// Every other member of the page body (`@odata.context`, `@odata.count`, Spark's `Pagination`...).
    public var additionalData: JSONObject

    init(_ page: Page<Resource>, _ selection: Selection<Resource, Row>) {
        value = page.value.map { Selected($0, selection) }
        nextRequest = page.nextRequest.map { SelectedCollectionRequest($0, selection) }
        nextLink = page.nextLink
        deltaLink = page.deltaLink
        deltaToken = page.deltaToken
        additionalData = page.additionalData
    }
}

/// The pages of a typed selection, fetched lazily.
public struct SelectedPageSequence<Resource: JSONModel, Row: Sendable>: AsyncSequence, Sendable {
    let pages: PageSequence<Resource>
    let selection: Selection<Resource, Row>

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: pages.makeAsyncIterator(), selection: selection)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageSequence<Resource>.AsyncIterator
        let selection: Selection<Resource, Row>

        public mutating func next() async throws -> SelectedPage<Resource, Row>? {
            guard let page = try await pages.next() else { return nil }
            return SelectedPage(page, selection)
        }
    }
}

/// Every item's row across the pages of a typed selection.
public struct SelectedRowSequence<Resource: JSONModel, Row: Sendable>: AsyncSequence, Sendable {
    let items: ItemSequence<Resource>
    let selection: Selection<Resource, Row>

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(items: items.makeAsyncIterator(), selection: selection)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var items: ItemSequence<Resource>.AsyncIterator
        let selection: Selection<Resource, Row>

        public mutating func next() async throws -> Row? {
            guard let item = try await items.next() else { return nil }
            return selection.row(of: item)
        }
    }
}
