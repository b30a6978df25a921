import BinderySpec

/// Tells a list that a GET answers inside an object of its own (`{"data": [...], "has_more": true}`,
/// `{"items": [...], "links": {"next": "…"}}`) and how it pages, from the response schema and the operation's query
/// parameters. Docs/OpenAPIExtensions.md, "Lists inside an object", states the same rules for spec authors.
///
/// Only unambiguous shapes are recognised: one array of objects (or one of them under a usual name), and paging
/// that names both sides, the member that says where the next page starts and the parameter that sends it. A list
/// whose paging cannot be told stays its declared object, because reading its first page as the whole list would
/// lose the rest without a word.
struct ListEnvelopeRecognizer {
    let lookup: OpenAPISchemaLookup

    /// A query parameter of the GET, as far as paging cares: its name, type and schema.
    struct Parameter {
        var name: String
        var type: TypeRef
        var schema: OpenAPINode?
        var word: String { ListEnvelopeRecognizer.word(name) }

        var isInteger: Bool { [.primitive(.int16), .primitive(.int32), .primitive(.int64)].contains(type) }
        /// A plain string: a cursor, never a date or an enum.
        var isText: Bool { type == .primitive(.string) }
        /// The schema's `minimum` or `default`, when it says.
        func number(_ key: String) -> Int? {
            (schema?[key]?.value.numberValue).flatMap { Int($0.text) }
        }
    }

    struct Recognized {
        /// The array's member name, relative to the payload.
        var itemsMember: String
        var items: OpenAPINode?
        /// Relative to the payload, as the items are.
        var paging: PagingStyle
    }

    enum Outcome {
        case recognized(Recognized)
        /// An object that is no list the reader can tell: why, for the warning of a collection's GET.
        case unclear(String)
        case notAList
    }

    /// Names under which an object's one list is usually found, when it has more than one array.
    static let itemNames: Set<String> = [
        "data", "items", "results", "entries", "records", "values", "value", "elements",
    ]

    func recognize(_ payload: OpenAPINode, queryParameters: [Parameter], explicitPaging: PagingStyle?) -> Outcome {
        guard lookup.isObjectSchema(payload) else { return .notAList }
        let properties = lookup.allProperties(of: lookup.dereferenced(payload))
        let arrays = properties.filter { lookup.arrayShape(of: $0.node).isArray }
        guard !arrays.isEmpty else { return .unclear("its answer has no list in it") }
        let usual = arrays.filter { Self.itemNames.contains($0.key) }
        guard let list = arrays.count == 1 ? arrays.first : usual.count == 1 ? usual.first : nil else {
            let names = arrays.map { "'\($0.key)'" }.joined(separator: ", ")
            return .unclear("it has more than one list (\(names)); name the items with x-bindery-paging's \"items\"")
        }
        let items = lookup.arrayShape(of: list.node).items
        // A collection's items are models; a list of strings or of unions stays inside its object.
        guard let items, lookup.isObjectSchema(items) else {
            return .unclear("'\(list.key)' is not a list of objects")
        }
        if let explicitPaging {
            return .recognized(Recognized(itemsMember: list.key, items: items, paging: explicitPaging))
        }
        let others = properties.filter { $0.key != list.key }
        let leaves = self.leaves(of: others, depth: 3)
        guard let paging = paging(leaves: leaves, items: items, queryParameters: queryParameters) else {
            guard mentionsPaging(members: others, leaves: leaves, queryParameters: queryParameters) else {
                // Nothing about it pages: one answer is the whole list.
                return .recognized(Recognized(itemsMember: list.key, items: items, paging: .none))
            }
            return .unclear(
                "'\(list.key)' is a list but how its pages follow cannot be told; say it with x-bindery-paging")
        }
        return .recognized(Recognized(itemsMember: list.key, items: items, paging: paging))
    }

    // MARK: Paging, strongest evidence first

    private func paging(leaves: [Leaf], items: OpenAPINode, queryParameters: [Parameter]) -> PagingStyle? {
        let hasMore = leaves.first { $0.isBool && Self.hasMoreWords.contains(Self.word($0.path.last ?? "")) }?.path
        let offset = queryParameters.first { $0.isInteger && Self.offsetWords.contains($0.word) }
        let size = queryParameters.first { $0.isInteger && Self.sizeWords.contains($0.word) }

        // A cursor member and the parameter that sends it back, unless the GET also pages by offset (Box's
        // `marker` needs `usemarker=true`, and by offset it sends no marker at all).
        if offset == nil {
            let candidates = queryParameters.filter { $0.isText && Self.cursorParameterWords.contains($0.word) }
            for leaf in leaves where leaf.isString {
                let word = Self.word(leaf.path.last ?? "")
                guard Self.cursorWords.contains(word) else { continue }
                let bare = word.hasPrefix("next") ? String(word.dropFirst(4)) : word
                let parameter =
                    candidates.first { $0.word == word || $0.word == bare }
                    ?? (candidates.count == 1 ? candidates.first : nil)
                if let parameter {
                    return .cursor(responsePath: leaf.path, requestParameter: parameter.name, hasMore: hasMore)
                }
            }
        }
        // A URL of the next page.
        if let link = leaves.first(where: { $0.isString && Self.isNextLink($0) }) {
            return .nextLink(path: link.path)
        }
        // Stripe's shape: `has_more`, and the last item's id sent as `starting_after`.
        if let hasMore,
            let parameter = queryParameters.first(where: { $0.isText && Self.afterWords.contains($0.word) }),
            lookup.allProperties(of: lookup.dereferenced(items)).contains(where: { $0.key == "id" })
        {
            return .afterLastItem(key: "id", requestParameter: parameter.name, hasMore: hasMore)
        }
        // A page number counted from 1, with the number of pages in the answer, or else until a short or empty page.
        if let page = queryParameters.first(where: { $0.isInteger && Self.pageWords.contains($0.word) }) {
            // Counted from 0 (Spring's `page`): the first page is not `1`, which is what the pager sends.
            guard page.number("minimum") != 0, page.number("default") != 0 else { return nil }
            let total = leaves.first { $0.isNumber && Self.totalPagesWords.contains(Self.word($0.path.last ?? "")) }
            return .pageNumber(
                pageParameter: page.name, sizeParameter: size?.name, extraQuery: [:], totalPagesPath: total?.path ?? [])
        }
        // An offset and a limit: a short page is the last, so the limit sent must be one the service keeps.
        if let offset, let size {
            return .offset(
                offsetParameter: offset.name, limitParameter: size.name, defaultLimit: Self.pageSize(of: size))
        }
        return nil
    }

    /// The page size to ask for: the parameter's default, else 100 or its maximum if lower.
    static func pageSize(of parameter: Parameter) -> Int {
        if let given = parameter.number("default"), given > 0 { return given }
        if let maximum = parameter.number("maximum"), maximum > 0 { return min(maximum, 100) }
        return 100
    }

    /// Whether anything in the answer or the query looks like paging, although no rule above could use it.
    func mentionsPaging(members: [(key: String, node: OpenAPINode)], leaves: [Leaf], queryParameters: [Parameter])
        -> Bool
    {
        let words = Self.pageWords.union(Self.sizeWords).union(Self.offsetWords).union(Self.cursorParameterWords)
            .union(Self.afterWords)
        if queryParameters.contains(where: { words.contains($0.word) }) { return true }
        let memberWords = Self.cursorWords.union(Self.hasMoreWords).union(Self.totalPagesWords).union(
            Self.pagingContainerWords
        ).union(["next", "nextlink", "nextpage", "nexturl"])
        // Any member on the way to a leaf counts: `meta.next_cursor`, `pagination.next_page`.
        return members.contains { memberWords.contains(Self.word($0.key)) }
            || leaves.contains { $0.path.contains { memberWords.contains(Self.word($0)) } }
    }

    struct Leaf {
        var path: [String]
        var isString: Bool
        var isBool: Bool
        var isNumber: Bool
        /// `format: uri` (or `uri-reference`, `url`).
        var isURI: Bool
    }

    /// The scalar members of an answer's other members, nested objects followed `depth` levels.
    private func leaves(of members: [(key: String, node: OpenAPINode)], depth: Int, prefix: [String] = []) -> [Leaf] {
        var found: [Leaf] = []
        for (key, node) in members {
            let schema = lookup.dereferenced(node)
            let types = Self.types(of: schema)
            if lookup.isObjectSchema(schema) {
                if depth > 1 {
                    found += leaves(of: lookup.allProperties(of: schema), depth: depth - 1, prefix: prefix + [key])
                }
                continue
            }
            let format = schema["format"]?.string ?? node["format"]?.string
            found.append(
                Leaf(
                    path: prefix + [key], isString: types.contains("string"), isBool: types.contains("boolean"),
                    isNumber: types.contains("integer") || types.contains("number"),
                    isURI: ["uri", "uri-reference", "url"].contains(format ?? "")))
        }
        return found
    }

    /// `type` as a string or (3.1) an array of strings.
    private static func types(of schema: OpenAPINode) -> Set<String> {
        if let text = schema["type"]?.string { return [text] }
        return Set(schema["type"]?.elements?.compactMap(\.string) ?? [])
    }

    /// A next page's URL: `next_url`, `nextLink`, `@odata.nextLink`; `next` under `links`, `pagination`, `paging` or
    /// `meta`, or at the top when its format says it is a URI; `href`, `link` or `url` under a `next` object.
    private static func isNextLink(_ leaf: Leaf) -> Bool {
        let words = leaf.path.map(word)
        guard let last = words.last else { return false }
        let parent = words.dropLast().last
        if ["nexturl", "nextlink", "nextpageurl", "nextpagelink", "odatanextlink", "nexthref"].contains(last) {
            return true
        }
        if last == "next" { return leaf.isURI || parent.map(pagingContainerWords.contains) == true }
        if last == "href" || last == "link" || last == "url" { return parent == "next" }
        return false
    }

    /// A name as compared: letters and digits, lower case (`next_cursor`, `nextCursor` and `NextCursor` are one).
    static func word(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    static let pagingContainerWords: Set<String> = [
        "links", "link", "pagination", "paging", "meta", "pageinfo", "responsemetadata",
    ]
    static let cursorWords: Set<String> = [
        "nextcursor", "cursor", "nextpagetoken", "pagetoken", "nextmarker", "marker", "nexttoken", "continuationtoken",
        "continuation", "endcursor", "nextkey", "lastid", "nextpagecursor", "after", "nextafter", "nextoffsettoken",
        "continue", "startingafter", "nextpage",
    ]
    static let cursorParameterWords: Set<String> = [
        "cursor", "pagetoken", "marker", "nexttoken", "continuationtoken", "continuation", "after", "startcursor",
        "startafter", "pagecursor", "nextpagetoken", "continue", "startingafter",
    ]
    static let afterWords: Set<String> = ["startingafter", "after", "startafter"]
    static let hasMoreWords: Set<String> = ["hasmore", "hasnextpage", "hasnext", "more", "moreavailable"]
    static let pageWords: Set<String> = ["page", "pagenumber", "pagenum", "pageindex"]
    static let sizeWords: Set<String> = [
        "limit", "pagesize", "perpage", "size", "count", "top", "maxresults", "pagelimit",
    ]
    static let offsetWords: Set<String> = ["offset", "skip", "start", "startindex", "from"]
    static let totalPagesWords: Set<String> = [
        "totalpages", "pagecount", "pages", "lastpage", "numpages", "pagestotal", "totalpagecount",
    ]
}

/// What reading a response needs to tell a list: the paging in force, and what the operation says of its own list.
struct ListReading {
    var paging: PagingStyle
    /// `x-bindery-paging`: the operation's own paging, which recognition does not replace.
    var explicitPaging: PagingStyle?
    /// `x-bindery-paging`'s `items`: where the operation's list sits in its answer.
    var items: [String]?
    /// A GET's query parameters; nil where no list inside an object is looked for (other methods, variants).
    var queryParameters: [ListEnvelopeRecognizer.Parameter]?
}

/// A list inside an object answer (`{"data": [...], "has_more": true}`), as `ListEnvelopeRecognizer` found it.
struct ListCandidate {
    var items: OpenAPINode?
    /// Said by `x-bindery-paging`, so adopted wherever the GET is.
    var isExplicit = false
    /// From the body's root, the service's envelope included.
    var itemsPath: [String]
    var paging: PagingStyle
    /// The name of an inline item schema.
    var nameHint: String

    /// Paging the answer itself shows, rather than none found: evidence enough outside a collection.
    var pages: Bool {
        if case .none = paging { return false }
        return true
    }
}

extension OpenAPIOperationReader {
    /// Keeps the list a GET's object answer holds, if any, for `adoptList`; or why there is none, for the warning.
    func noteListInside(
        _ payload: OpenAPINode, at prefix: [String], queryParameters: [ListEnvelopeRecognizer.Parameter],
        explicitPaging: PagingStyle?, nameHint: String, into read: inout OpenAPIReadOperation
    ) {
        let recognizer = ListEnvelopeRecognizer(lookup: schemas.lookup)
        switch recognizer.recognize(payload, queryParameters: queryParameters, explicitPaging: explicitPaging) {
        case .recognized(let found):
            // The runtime reads every path from the body's root: below the document's envelope, if any. Paging the
            // spec gives (`x-bindery-paging`) is written from the root already.
            let paging = explicitPaging ?? found.paging.below(prefix)
            read.listCandidate = ListCandidate(
                items: found.items, isExplicit: explicitPaging != nil, itemsPath: prefix + [found.itemsMember],
                paging: paging, nameHint: nameHint)
        case .unclear(let reason):
            read.listWarning = reason
        case .notAList:
            break
        }
    }

    /// Reads a GET's answer as the list found inside it (`ListCandidate`): its items' type, where they sit, and how
    /// they page. The path tree calls this for the GETs that list.
    func adoptList(_ read: inout OpenAPIReadOperation) {
        guard let candidate = read.listCandidate, var response = read.response, response.keepsOnlyTheListAnswer()
        else { return }
        let element = candidate.items.map { schemas.resolve($0, nameHint: candidate.nameHint).type }
        response.type = .collection(element ?? .primitive(.untyped))
        response.itemsPath = candidate.itemsPath
        response.paging = candidate.paging
        read.response = response
        read.responseSchemaName = candidate.items.flatMap(schemas.lookup.referencedComponentName)
        read.returnsList = true
        read.returnsJSONObject = false
        read.listCandidate = nil
    }
}

extension PagingStyle {
    /// The same paging with its response paths below `prefix` (the document's envelope).
    func below(_ prefix: [String]) -> PagingStyle {
        guard !prefix.isEmpty else { return self }
        switch self {
        case .nextLink(let path): return .nextLink(path: prefix + path)
        case .pageNumber(let page, let size, let extra, let total):
            return .pageNumber(
                pageParameter: page, sizeParameter: size, extraQuery: extra,
                totalPagesPath: total.isEmpty ? [] : prefix + total)
        case .cursor(let path, let parameter, let hasMore):
            return .cursor(
                responsePath: prefix + path, requestParameter: parameter, hasMore: hasMore.map { prefix + $0 })
        case .afterLastItem(let key, let parameter, let hasMore):
            return .afterLastItem(key: key, requestParameter: parameter, hasMore: prefix + hasMore)
        case .offset, .none: return self
        }
    }
}

extension ResponseSpec {
    /// Drops the per-status answers of a list whose other statuses answer no body (a `204 No Content` is an empty
    /// page, not an answer of another type); false, changing nothing, when another status answers a body.
    mutating func keepsOnlyTheListAnswer() -> Bool {
        guard answers.dropFirst().allSatisfy({ $0.type == nil && !$0.isRawBody }) else { return false }
        answers = []
        return true
    }
}
