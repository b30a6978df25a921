import BinderySpec

/// The runtime's `ServiceConventions` values as Swift expressions: a service's paging, and one collection's own.
enum ConventionExpressions {
    /// `.nextLink(path: ["@odata.nextLink"])`, `.cursor(path: ["next_cursor"], parameter: "page_token")`, ...
    static func paging(_ paging: PagingStyle) -> Expression {
        switch paging {
        case .nextLink(let path):
            return .dot("nextLink", [.init("path", strings(path))])
        case .pageNumber(let page, let size, let extra, let totalPages):
            let extraQuery = extra.sorted { $0.key < $1.key }.map {
                Expression.tuple([.init(.string($0.key)), .init(.string($0.value))])
            }
            return .dot(
                "pageNumber",
                [
                    .init("page", .string(page)), .init("size", size.map(Expression.string) ?? .raw("nil")),
                    .init("extraQuery", .array(extraQuery)),
                    .init("totalPages", strings(totalPages)),
                ])
        case .offset(let offset, let limit, let defaultLimit):
            return .dot(
                "offset",
                [
                    .init("offset", .string(offset)), .init("limit", .string(limit)),
                    .init("defaultLimit", .raw(String(defaultLimit ?? 100))),
                ])
        case .cursor(let path, let parameter, let hasMore):
            var arguments: [Expression.Argument] = [
                .init("path", strings(path)), .init("parameter", .string(parameter)),
            ]
            if let hasMore { arguments.append(.init("hasMore", strings(hasMore))) }
            return .dot("cursor", arguments)
        case .afterLastItem(let key, let parameter, let hasMore):
            return .dot(
                "afterLastItem",
                [
                    .init("key", .string(key)), .init("parameter", .string(parameter)),
                    .init("hasMore", strings(hasMore)),
                ])
        case .none:
            return .raw(".none")
        }
    }

    /// `ServiceConventions.Listing(items: ["data"], paging: ...)` for a list operation that lists its own way, or
    /// nil when it lists as its service does.
    static func listing(of response: ResponseSpec?) -> Expression? {
        guard let response, response.itemsPath != nil || response.paging != nil else { return nil }
        var arguments: [Expression.Argument] = []
        if let items = response.itemsPath { arguments.append(.init("items", strings(items))) }
        // Items in their own place page by the recognised style, or by none.
        arguments.append(.init("paging", paging(response.paging ?? .none)))
        return .call("ServiceConventions.Listing", arguments)
    }

    /// `.common`, or `ServiceConventions.ErrorShape(code: [["D", "Code"]], ...)` with the parts that have paths.
    static func errors(_ shape: ErrorShape) -> Expression {
        if shape == .common { return .raw(".common") }
        let arguments = shape.parts.filter { !$0.paths.isEmpty }.map {
            Expression.Argument($0.name, .array($0.paths.map(strings)))
        }
        return .call("ServiceConventions.ErrorShape", arguments)
    }

    static func strings(_ items: [String]) -> Expression {
        .array(items.map(Expression.string))
    }
}
