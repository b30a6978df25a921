import Foundation
import HTTPTypes

/// A request that lists a collection, and so takes OData's list options (`query`, `header` and `expand` come from
/// `AdjustableRequest`).
public protocol CollectionQuery: AdjustableRequest {}

extension CollectionQuery {
    /// `$filter`, an OData expression such as `name eq 'a''b'` (quote string literals with `ODataLiteral`).
    public func filter(_ expression: String) -> Self { query("$filter", expression) }
    /// `$orderby`, e.g. `orderBy("name desc")`.
    public func orderBy(_ properties: String...) -> Self { query("$orderby", properties.joined(separator: ",")) }
    /// `$top`: the page size the server should use (it may send fewer).
    public func top(_ count: Int) -> Self { query("$top", String(count)) }
    public func skip(_ count: Int) -> Self { query("$skip", String(count)) }
    /// `$count=true`: the total is returned as `@odata.count` in the page's `additionalData`.
    public func count(_ include: Bool = true) -> Self { query("$count", include ? "true" : nil) }
    public func search(_ text: String) -> Self { query("$search", text) }
}

/// Lists a collection one page at a time, in whichever paging dialect the service speaks.
public struct CollectionRequest<Element: JSONModel>: CollectionQuery, SelectableRequest, SendingRequest {
    public let client: ServiceClient
    public var request: APIRequest
    /// How this collection lists, where it differs from its service's conventions; nil where it does not.
    public let listing: ServiceConventions.Listing?

    public init(client: ServiceClient, request: APIRequest, listing: ServiceConventions.Listing? = nil) {
        self.client = client
        self.request = request
        self.listing = listing
    }

    /// The paging this collection follows: its own, or its service's.
    var paging: ServiceConventions.Paging { listing?.paging ?? client.conventions.paging }

    // MARK: Reading

    /// Fetches one page.
    public func get() async throws(BinderyError) -> Page<Element> {
        var first = request
        if first.absoluteURL == nil {
            PageReader<Element>.prepareFirstRequest(&first, paging: paging)
        }
        let response = try await client.send(first)
        return try PageReader(client: client, request: first, listing: listing).read(response)
    }

    /// Fetches one page: `get()` under the verb every request has.
    public func send() async throws(BinderyError) -> Page<Element> { try await get() }

    /// Creates an item in the collection (POST) and returns it as the service stored it.
    @discardableResult
    public func add(_ item: Element) async throws(BinderyError) -> Element {
        try request.path.checkAllowed(.post)
        var post = request
        post.method = .post
        post.query = []
        post.setJSONBody(client.body(for: item))
        let response = try await client.send(post)
        return try client.decodeModel(Element.self, from: response)
    }

    /// The same collection continued from a next link the service handed out elsewhere, such as an
    /// expanded collection's `children@odata.nextLink` (see `JSONModel.nextLink(of:)`).
    public func following(_ nextLink: URL) -> Self {
        var copy = self
        copy.request.absoluteURL = nextLink
        copy.request.query = []
        return copy
    }

    /// Every page, fetched as the sequence is iterated; a repeated next link ends it with an error.
    public func pages() -> PageSequence<Element> { PageSequence(first: self) }

    /// Every item across all pages, fetched page by page as the sequence is iterated.
    public func all() -> ItemSequence<Element> { ItemSequence(pages: pages()) }
}

/// One page of a collection: the OneDrive SDK's `ODCollection` plus what delta adds.
public struct Page<Element: JSONModel>: Sendable {
    public var value: [Element]
    /// The next page's URL as the service sent it (OData next links), if there is one.
    public var nextLink: URL?
    /// The request for the next page; nil on the last page.
    public var nextRequest: CollectionRequest<Element>?
    /// Delta only: the link that returns changes after this one (last page of a delta round).
    public var deltaLink: URL?
    /// Delta only: the token to resume from later, taken from the delta link (`token`, `$deltatoken`) or `@delta.token`.
    public var deltaToken: String?
    /// Every other member of the page body (`@odata.context`, `@odata.count`, Spark's `Pagination`...).
    public var additionalData: JSONObject
}

extension JSONModel {
    /// The next link of an expanded collection property: `children@odata.nextLink` (Graph) or the
    /// legacy `children@nextLink`. Continue it with `CollectionRequest.following(_:)`.
    public func nextLink(of property: String) -> URL? {
        let link = storage[property + "@odata.nextLink"]?.stringValue ?? storage[property + "@nextLink"]?.stringValue
        return link.flatMap(URL.init(string:))
    }

    /// In a delta page: whether this item was deleted (`"@removed"` in Graph, `"deleted": {}` in OneDrive).
    public var isDeletedInDelta: Bool {
        storage["@removed"] != nil || storage["deleted"]?.objectValue != nil
    }
}

/// Turns a list response into a `Page`, in the client's dialect.
struct PageReader<Element: JSONModel> {
    let client: ServiceClient
    let request: APIRequest
    var listing: ServiceConventions.Listing?

    static func prepareFirstRequest(_ request: inout APIRequest, paging: ServiceConventions.Paging) {
        for (name, value) in paging.firstPageQuery where request.queryValue(name) == nil {
            request.setQuery(name, value)
        }
    }

    func read(_ response: APIResponse) throws(BinderyError) -> Page<Element> {
        // `204 No Content`, which some services answer for a list with nothing in it: the last page, empty.
        if response.status == .noContent {
            return Page(
                value: [], nextLink: nil, nextRequest: nil, deltaLink: nil, deltaToken: nil, additionalData: [:])
        }
        let conventions = client.conventions
        let root = try conventions.checkEnvelope(try response.json(), response: response)
        let itemsValue: JSONValue?
        var additional = JSONObject()
        let listShape = listing?.items.map(ServiceConventions.ListShape.wrapped) ?? conventions.listShape
        switch listShape {
        case .odata:
            guard case .object(let object) = root else {
                throw BinderyError.invalidResponse("expected an object with a \"value\" array", response: response)
            }
            itemsValue = object["value"]
            additional = object.filtered { $0.key != "value" }
        case .bare:
            itemsValue = root
        case .wrapped(let path):
            itemsValue = root.value(at: path)
            if let container = root.value(at: Array(path.dropLast()))?.objectValue {
                additional = container.filtered { $0.key != path.last }
            }
        }
        guard case .array(let elements)? = itemsValue else {
            throw BinderyError.invalidResponse(
                "expected an array of \(Element.schema.typeName) items", response: response)
        }
        var items: [Element] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let object) = element else {
                throw BinderyError.decoding(
                    ModelDecodingError(path: [.index(index)], message: "expected an object, found \(element.kindName)"),
                    response: response)
            }
            do {
                try Element.schema.validate(object)
            } catch {
                throw BinderyError.decoding(error.under(.index(index)), response: response)
            }
            items.append(Element(storage: object))
        }

        var page = Page<Element>(
            value: items, nextLink: nil, nextRequest: nil, deltaLink: nil, deltaToken: nil, additionalData: additional)
        try readDelta(root, into: &page, response: response)
        page.nextRequest = try nextRequest(root: root, itemCount: items.count, page: &page, response: response)
        return page
    }

    private func readDelta(_ root: JSONValue, into page: inout Page<Element>, response: APIResponse)
        throws(BinderyError)
    {
        if let link = root["@odata.deltaLink"]?.stringValue {
            guard let url = URL(string: link) else {
                throw BinderyError.invalidResponse("the delta link is not a URL: \(link)", response: response)
            }
            page.deltaLink = url
            page.deltaToken = Self.token(in: url)
        }
        if let token = root["@delta.token"]?.stringValue { page.deltaToken = token }
    }

    static func token(in url: URL) -> String? {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        for name in ["token", "$deltatoken", "deltatoken", "$skiptoken"] {
            if let value = items.first(where: { $0.name == name })?.value { return value }
        }
        // `delta(token='…')` in the path.
        let path = url.path
        if let start = path.range(of: "token='"), let end = path[start.upperBound...].firstIndex(of: "'") {
            return String(path[start.upperBound..<end])
        }
        return nil
    }

    private func nextRequest(
        root: JSONValue, itemCount: Int, page: inout Page<Element>, response: APIResponse
    ) throws(BinderyError) -> CollectionRequest<Element>? {
        var next = request
        switch listing?.paging ?? client.conventions.paging {
        case .nextLink(let path):
            guard let link = root.value(at: path)?.stringValue, !link.isEmpty else { return nil }
            // A relative link (`/v1/things?page=2`, `?page=2`) is read against the URL of the page it came in; a
            // bare word is no link (a cursor under a name that looked like one), and only HTTP is followed.
            let current = request.url(relativeTo: client.baseURL)
            let isRelative = link.hasPrefix("/") || link.hasPrefix("?")
            guard isRelative || link.lowercased().hasPrefix("https://") || link.lowercased().hasPrefix("http://"),
                let url = URL(string: link, relativeTo: current)?.absoluteURL, url.host != nil
            else {
                throw BinderyError.invalidResponse("the next link is not an HTTP URL: \(link)", response: response)
            }
            page.nextLink = url
            next.absoluteURL = url
            next.query = []
            // Header parameters can be credentials too (an API key): they do not follow a link to another host.
            if !client.isTrusted(url) { next.headers = [:] }
        case .pageNumber(let pageName, let sizeName, _, let totalPagesPath):
            let current = Int(request.queryValue(pageName) ?? "1") ?? 1
            if totalPagesPath.isEmpty {
                let size = sizeName.flatMap { request.queryValue($0) }.flatMap { Int($0) }
                guard itemCount > 0, itemCount >= size ?? 1 else { return nil }
            } else {
                guard let total = root.value(at: totalPagesPath).flatMap({ Int(looseJSON: $0) }), current < total
                else { return nil }
            }
            next.setQuery(pageName, String(current + 1))
        case .offset(let offsetName, let limitName, let defaultLimit):
            let limit = Int(request.queryValue(limitName) ?? "") ?? defaultLimit
            guard itemCount > 0, itemCount >= limit else { return nil }
            let offset = Int(request.queryValue(offsetName) ?? "0") ?? 0
            next.setQuery(offsetName, String(offset + itemCount))
        case .cursor(let path, let parameter, let hasMore):
            if let hasMore, root.value(at: hasMore)?.boolValue == false { return nil }
            guard let cursor = root.value(at: path).flatMap(Self.cursorText), !cursor.isEmpty else { return nil }
            next.setQuery(parameter, cursor)
        case .afterLastItem(let key, let parameter, let hasMore):
            guard root.value(at: hasMore)?.boolValue == true, let lastItem = page.value.last else { return nil }
            guard let last = lastItem.storage[key].flatMap(Self.cursorText) else {
                throw BinderyError.invalidResponse(
                    "the page says it has more, but its last item has no \"\(key)\" to continue after",
                    response: response)
            }
            next.setQuery(parameter, last)
        case .none:
            return nil
        }
        return CollectionRequest(client: client, request: next, listing: listing)
    }

    /// A cursor as it is sent back: a string as it is, a number as written (some services count with them).
    private static func cursorText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): number.text
        default: nil
        }
    }
}

/// The pages of a collection, fetched lazily; memory holds one page at a time.
public struct PageSequence<Item: JSONModel>: AsyncSequence, Sendable {
    public typealias Element = Page<Item>
    let first: CollectionRequest<Item>

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(next: first) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var next: CollectionRequest<Item>?
        /// The URLs already fetched, to stop a next link that loops back instead of paging forever.
        var fetched: Set<String> = []

        /// The items of the page before, to stop a service that answers the same page for every page number or
        /// offset past the end (each of those URLs is new).
        var previous: [JSONObject] = []

        public mutating func next() async throws -> Page<Item>? {
            guard let request = next else { return nil }
            let url = request.request.url(relativeTo: request.client.baseURL).absoluteString
            guard fetched.insert(url).inserted else {
                next = nil
                throw BinderyError(
                    kind: .pagingLoop, message: "the service sent a next link that was already fetched: \(url)")
            }
            let page = try await request.get()
            let items = page.value.map(\.storage)
            guard items.isEmpty || items != previous else {
                next = nil
                throw BinderyError(kind: .pagingLoop, message: "the service answered the same page again: \(url)")
            }
            previous = items
            next = page.nextRequest
            return page
        }
    }
}

/// Every item of a collection across its pages.
public struct ItemSequence<Item: JSONModel>: AsyncSequence, Sendable {
    public typealias Element = Item
    let pages: PageSequence<Item>

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: pages.makeAsyncIterator()) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageSequence<Item>.AsyncIterator
        var buffer: [Item] = []
        var position = 0

        public mutating func next() async throws -> Item? {
            while position == buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.value
                position = 0
            }
            defer { position += 1 }
            return buffer[position]
        }
    }
}
