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

    /// The names a request sends. A delta request also asks for OneDrive's `deleted` facet where the model
    /// declares it, because a removal the service trimmed away could not be told from an item with no values.
    func names(for request: APIRequest) -> [String] {
        // Functions are the only segments with parentheses: `delta()`, `delta(token='…')`.
        let isDelta = request.path.encodedSegments.last?.hasPrefix("delta(") == true
        guard isDelta, record == nil, Resource.schema.fieldIndex["deleted"] != nil, !names.contains("deleted")
        else { return names }
        return names + ["deleted"]
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
        // Keys are strings in every service here; a numeric one (a loose Spark `Id`) reads as its digits.
        id = selection.idMember.flatMap { member in
            switch item.storage[member] {
            case .string(let text)?: text
            case .number(let number)?: number.text
            default: nil
            }
        }
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
        SelectedCollectionRequest(
            self, selection(repeat each fields, of: RecordFields.self, in: Model<Fields>.declaredField(record).name))
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

    /// Asks for fields of a record the entity holds: `listing.request().select(\.listPrice, in: \.standardFields)`.
    public func select<Fields: FieldSet, RecordFields: FieldSet, each Value: JSONConvertible>(
        _ fields: repeat KeyPath<RecordFields.Table, Field<each Value>>,
        in record: KeyPath<Fields.Table, Field<Model<RecordFields>>>
    ) -> SelectedEntityRequest<Resource, (repeat (each Value)?)> where Resource == Model<Fields> {
        SelectedEntityRequest(
            self, selection(repeat each fields, of: RecordFields.self, in: Model<Fields>.declaredField(record).name))
    }
}

// MARK: Requests

extension SelectableRequest {
    /// A copy that asks for the selection's fields only, under the service's select parameter.
    fileprivate func asking<Resource, Row>(for selection: Selection<Resource, Row>) -> Self {
        select(selection.names(for: request).joined(separator: ","))
    }
}

/// A collection request with a typed selection: `get()` a page, or iterate `pages()`, `items()` or `all()` rows.
///
/// Order, expand and page options apply as on `CollectionRequest` (`filter`, `top`, `count` and `search` are OData's
/// and go out under those names). To read an expanded property, select it too: OData returns it either way, and only
/// a selected field has a place in the row. `query(_:_:)` and the `request` setter reach the request as sent: setting
/// the select parameter there changes what the service returns, not the row's type.
///
/// Next and delta links are followed as the service wrote them; OData services carry `$select` in them.
public struct SelectedCollectionRequest<Resource: JSONModel, Row: Sendable>: CollectionQuery, SendingRequest {
    /// The same request without the types: what is sent, and how pages are read.
    public private(set) var untyped: CollectionRequest<Resource>
    public let selection: Selection<Resource, Row>

    init(_ untyped: CollectionRequest<Resource>, _ selection: Selection<Resource, Row>) {
        self.untyped = untyped.request.absoluteURL == nil ? untyped.asking(for: selection) : untyped
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

    /// Fetches one page: `get()` under the verb every request has.
    public func send() async throws(BinderyError) -> SelectedPage<Resource, Row> { try await get() }

    /// Every page, fetched as the sequence is iterated.
    public func pages() -> SelectedPageSequence<Resource, Row> {
        SelectedPageSequence(pages: untyped.pages(), selection: selection)
    }

    /// Every item's row across all pages: `for try await (subject, from) in request.all()`. In a delta round a
    /// removal is a row too, of nils; iterate `items()` to tell it by `isDeletedInDelta`.
    public func all() -> SelectedItemSequence<Resource, Row> {
        SelectedItemSequence(items: untyped.all()) { [selection] in selection.row(of: $0) }
    }

    /// Every item across all pages, with its key, etag and delta removal beside its row.
    public func items() -> SelectedItemSequence<Resource, Selected<Row>> {
        SelectedItemSequence(items: untyped.all()) { [selection] in Selected($0, selection) }
    }

    /// The same selection continued from a next link the service handed out elsewhere (an expanded collection's
    /// `children@odata.nextLink`); the link is followed as written.
    public func following(_ nextLink: URL) -> Self {
        var copy = self
        copy.untyped = untyped.following(nextLink)
        return copy
    }
}

/// An entity request with a typed selection.
public struct SelectedEntityRequest<Resource: JSONModel, Row: Sendable>: SendingRequest {
    public private(set) var untyped: EntityRequest<Resource>
    public let selection: Selection<Resource, Row>

    init(_ untyped: EntityRequest<Resource>, _ selection: Selection<Resource, Row>) {
        self.untyped = untyped.asking(for: selection)
        self.selection = selection
    }

    public var request: APIRequest {
        get { untyped.request }
        set { untyped.request = newValue }
    }

    public func get() async throws(BinderyError) -> Selected<Row> {
        Selected(try await untyped.get(), selection)
    }

    /// Reads the entity's selected fields: `get()` under the verb every request has.
    public func send() async throws(BinderyError) -> Selected<Row> { try await get() }
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

/// The items of a typed selection across its pages, each read as a row or as a `Selected` row.
public struct SelectedItemSequence<Resource: JSONModel, Element: Sendable>: AsyncSequence, Sendable {
    let items: ItemSequence<Resource>
    let read: @Sendable (Resource) -> Element

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(items: items.makeAsyncIterator(), read: read)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var items: ItemSequence<Resource>.AsyncIterator
        let read: @Sendable (Resource) -> Element

        public mutating func next() async throws -> Element? {
            try await items.next().map(read)
        }
    }
}
