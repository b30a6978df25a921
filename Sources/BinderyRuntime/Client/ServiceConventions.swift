/// How one service speaks on the wire beyond its types. Generated modules declare theirs from the spec.
public struct ServiceConventions: Sendable {
    /// Where a list's items sit in a response body.
    public enum ListShape: Sendable {
        /// `{"value": [...], "@odata.nextLink": ...}`
        case odata
        /// The body is the array.
        case bare
        /// The items are an array at a path (Spark: `["D", "Results"]`).
        case wrapped([String])
    }

    public enum Paging: Sendable {
        /// The body carries the next page's URL at a JSON path (`["@odata.nextLink"]`, `["links", "next"]`); a
        /// relative URL is read against the page's own.
        case nextLink(path: [String])
        /// A page number, and the page size's parameter if the service takes one; the member at `totalPages` says
        /// how many pages there are, or, when `totalPages` is `[]`, an empty page or one shorter than the size asked
        /// for is the last.
        case pageNumber(page: String, size: String?, extraQuery: [(String, String)], totalPages: [String])
        case offset(offset: String, limit: String, defaultLimit: Int)
        /// The member at `path` is the next page's cursor, sent back as `parameter`; it ends when the cursor is
        /// missing or empty, or when the member at `hasMore` is `false`.
        case cursor(path: [String], parameter: String, hasMore: [String]? = nil)
        /// While the member at `hasMore` is `true`, the next page starts after the last item: its `key` member is
        /// sent as `parameter` (Stripe's `starting_after`).
        case afterLastItem(key: String, parameter: String, hasMore: [String])
        case none

        /// What the pager sets on a collection's first request where the caller has not: Spark's
        /// `_pagination=1&_page=1`; with offsets the page size, since a short page is what ends the listing.
        public var firstPageQuery: [(name: String, value: String)] {
            switch self {
            case .pageNumber(let page, _, let extraQuery, _): return extraQuery + [(page, "1")]
            case .offset(_, let limit, let defaultLimit): return [(limit, String(defaultLimit))]
            case .nextLink, .cursor, .afterLastItem, .none: return []
            }
        }
    }

    /// How a delta query reports changes, beyond OData's delta links (read by every `Page`).
    public enum Delta: Sendable {
        case odata
        /// Inbox: rounds of `{"cursor_start", "cursor_end", "deltas": [...]}`; the `parameter` sends the
        /// cursor; the loop ends when `start == end`.
        case cursor(parameter: String, start: String, end: String, events: String = "deltas")
    }

    /// Where a service's error bodies keep their parts, as JSON paths from the generated conventions. A part may
    /// have several paths: the first one present in a body wins.
    public struct ErrorShape: Hashable, Sendable {
        public var code: [[String]]
        public var message: [[String]]
        /// The member kept whole as `BinderyError.details`.
        public var details: [[String]]
        public var requestID: [[String]]
        public var date: [[String]]
        public var helpURL: [[String]]

        public init(
            code: [[String]] = [], message: [[String]] = [], details: [[String]] = [], requestID: [[String]] = [],
            date: [[String]] = [], helpURL: [[String]] = []
        ) {
            self.code = code
            self.message = message
            self.details = details
            self.requestID = requestID
            self.date = date
            self.helpURL = helpURL
        }

        /// No paths: whatever a public API commonly sends is read, the most specific shape first:
        /// `{"error": {"code" or "type", "message", "details"}}`, OAuth's `{"error", "error_description"}`, RFC 7807
        /// problem details (`type`, `title`, `status`, `detail`), `{"message", "code"}`, `{"errors": [{"message"}]}`.
        public static let common = ErrorShape()

        /// OData v4: `{"error": {"code", "message", "innerError": {"request-id", "date"}}}`; older bodies say
        /// `innererror`, and legacy OneNote adds `@api.url`. Generated OData modules say the same (a test compares).
        public static let odata = ErrorShape(
            code: [["error", "code"]], message: [["error", "message"]],
            details: [["error", "innerError"], ["error", "innererror"]],
            requestID: [["error", "innerError", "request-id"], ["error", "innererror", "request-id"]],
            date: [["error", "innerError", "date"], ["error", "innererror", "date"]],
            helpURL: [["error", "@api.url"]])
    }

    /// One collection's own list shape and paging, where it lists differently from the rest of its service (an
    /// OpenAPI list answered as `{"data": [...], "has_more": true}`).
    public struct Listing: Sendable {
        /// The path of the items array in the body; nil where the service's lists have theirs.
        public var items: [String]?
        public var paging: Paging

        public init(items: [String]? = nil, paging: Paging) {
            self.items = items
            self.paging = paging
        }
    }

    public var listShape: ListShape
    public var paging: Paging
    /// Request bodies are wrapped in an object at this path (Spark: `["D"]`).
    public var requestEnvelope: [String]
    public var delta: Delta
    public var errors: ErrorShape
    /// The query parameter that asks for some fields only, which a typed `select(\.a, \.b)` sends (Spark: `_select`).
    public var selectParameter: String

    public init(
        listShape: ListShape, paging: Paging, requestEnvelope: [String] = [], delta: Delta = .odata,
        errors: ErrorShape, selectParameter: String = "$select"
    ) {
        self.listShape = listShape
        self.paging = paging
        self.requestEnvelope = requestEnvelope
        self.delta = delta
        self.errors = errors
        self.selectParameter = selectParameter
    }

    public static let odata = ServiceConventions(
        listShape: .odata, paging: .nextLink(path: ["@odata.nextLink"]), errors: .odata)

    /// The JSON value a single-object response carries (the first result, inside an envelope).
    public func unwrapSingle(_ root: JSONValue) -> JSONValue? {
        guard case .wrapped(let path) = listShape else { return root }
        guard case .array(let results)? = root.value(at: path) else { return nil }
        return results.first
    }

    /// Checks that a successful response carries the service's envelope: a Spark body without `D`, or
    /// with `"Success": false`, is an error even under a 200 status.
    public func checkEnvelope(_ root: JSONValue, response: APIResponse) throws(BinderyError) -> JSONValue {
        guard case .wrapped(let path) = listShape, let outer = path.first else { return root }
        guard let envelope = root[outer] else {
            throw BinderyError.invalidResponse("the response has no \"\(outer)\" envelope", response: response)
        }
        if envelope["Success"]?.boolValue == false {
            var error = ErrorParser.parse(response, shape: errors)
            error.message = error.serviceCode == nil ? "the service reported Success: false" : error.message
            throw error
        }
        return root
    }

    /// Wraps a request body in the service's envelope.
    public func wrapRequestBody(_ value: JSONValue) -> JSONValue {
        requestEnvelope.reversed().reduce(value) { inner, key in .object([key: inner]) }
    }
}

extension JSONValue {
    /// The value at a path of object keys.
    public func value(at path: [String]) -> JSONValue? {
        var current: JSONValue? = self
        for key in path { current = current?[key] }
        return current
    }
}
