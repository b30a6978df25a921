/// How a service speaks on the wire beyond its types: envelopes, paging, delta and errors.
///
/// OData services have fixed conventions; an OpenAPI spec states them with `x-bindery-*` extensions
/// (see `Docs/OpenAPIExtensions.md`).
public struct Conventions: Equatable, Sendable {
    public var envelope: Envelope
    public var paging: PagingStyle
    public var delta: DeltaStyle?
    public var errors: ErrorShape
    /// Query options the service understands in the OData way (`$select`, `$expand`, ...), if any.
    public var queryOptions: QueryOptionStyle
    /// The query parameter that asks for some fields only, where it is not `$select` (Spark's `_select`): what a
    /// typed `select(\.a, \.b)` sends.
    public var selectParameter: String?

    public init(
        envelope: Envelope, paging: PagingStyle, delta: DeltaStyle? = nil, errors: ErrorShape,
        queryOptions: QueryOptionStyle, selectParameter: String? = nil
    ) {
        self.envelope = envelope
        self.paging = paging
        self.delta = delta
        self.errors = errors
        self.queryOptions = queryOptions
        self.selectParameter = selectParameter
    }

    /// OData v4 as Microsoft Graph, OneDrive and OneNote speak it.
    public static let odata = Conventions(
        envelope: .none, paging: .nextLink(path: ["@odata.nextLink"]),
        delta: .odata(tokenParameter: "token"), errors: .odata, queryOptions: .odata
    )
}

/// Where the payload sits in a response body.
public enum Envelope: Hashable, Sendable {
    /// The body is the payload (collections as `{"value": [...]}` in OData).
    case none
    /// The payload is an array at a JSON path (Spark: `["D", "Results"]`); requests wrap bodies in `requestPath`.
    case wrapped(resultsPath: [String], requestPath: [String])
}

public enum PagingStyle: Hashable, Sendable {
    /// The body carries the next page's URL at a JSON path (`["@odata.nextLink"]`, `["links", "next"]`).
    case nextLink(path: [String])
    /// Page number + page size, with a pagination block giving the total pages (Spark). Without a path to the
    /// total (`[]`), an empty page, or one shorter than the size asked for, is the last.
    case pageNumber(
        pageParameter: String, sizeParameter: String?, extraQuery: [String: String], totalPagesPath: [String])
    /// Offset + limit; a short page ends the sequence (Inbox). `defaultLimit` is the page size asked for when the
    /// caller sets none (100 when nil).
    case offset(offsetParameter: String, limitParameter: String, defaultLimit: Int? = nil)
    /// An opaque cursor: the response member at `responsePath` names the next cursor, the request parameter sends
    /// it (Nylas v3). With `hasMore`, a page whose member at that path is `false` is the last one (OpenAI's
    /// `last_id` + `has_more`).
    case cursor(responsePath: [String], requestParameter: String, hasMore: [String]? = nil)
    /// The next page starts after the last item: its `key` member is sent as `requestParameter` while the member at
    /// `hasMore` is `true` (Stripe's `starting_after` + `has_more`).
    case afterLastItem(key: String, requestParameter: String, hasMore: [String])
    /// One page only.
    case none
}

public enum DeltaStyle: Hashable, Sendable {
    /// OData delta: pages carry `@odata.nextLink`, the last one `@odata.deltaLink`; `tokenParameter` resumes.
    case odata(tokenParameter: String)
    /// A cursor loop that ends when `startField == endField` (Inbox).
    case cursor(requestParameter: String, startField: String, endField: String)
}

/// Where a service's error bodies keep their parts, as JSON paths. A part may have several paths: the first one
/// present in a body wins. The runtime reads bodies by these paths; it names no service.
public struct ErrorShape: Hashable, Sendable {
    public var code: [[String]]
    public var message: [[String]]
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

    /// No paths: the runtime reads what public APIs commonly send (RFC 7807 problem details, `{"message"}`,
    /// `{"error": {"message"}}`, OAuth's `{"error", "error_description"}`, `{"errors": [...]}`). The default for
    /// OpenAPI specs.
    public static let common = ErrorShape()

    /// `{"error": {"code", "message", "innerError": {"request-id", "date"}}}`; older bodies say `innererror`, and
    /// legacy OneNote adds `@api.url`. The runtime's `ErrorShape.odata` must say the same (a test compares them).
    public static let odata = ErrorShape(
        code: [["error", "code"]], message: [["error", "message"]],
        details: [["error", "innerError"], ["error", "innererror"]],
        requestID: [["error", "innerError", "request-id"], ["error", "innererror", "request-id"]],
        date: [["error", "innerError", "date"], ["error", "innererror", "date"]], helpURL: [["error", "@api.url"]])

    /// The parts in the order the runtime's initializer takes them, by their argument names.
    public var parts: [(name: String, paths: [[String]])] {
        [
            ("code", code), ("message", message), ("details", details), ("requestID", requestID), ("date", date),
            ("helpURL", helpURL),
        ]
    }
}

public enum QueryOptionStyle: String, Hashable, Sendable {
    /// `$select`, `$expand`, `$filter`, `$orderby`, `$top`, `$skip`, `$count`, `$search`.
    case odata
    /// Only the parameters the spec declares.
    case declared
}
