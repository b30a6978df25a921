import BinderyJSON
import BinderyMock
import Foundation
import Inbox

/// How the Inbox service filters a listing, by the API's rules (`InboxFilterRule`, which the offline cache's SQL
/// reads too): a thread matches `to`, `from`, `cc`, `bcc` and `filename` through its messages, a message matches
/// `tag` and the four times through its thread. Other listings (drafts, files, …) compare their own members, and
/// their times are their `date`.
struct InboxMatcher {
    let store: MockStore
    /// The listed collection (`n/{ns}/threads`): its namespace holds the messages thread filters read.
    let collection: [String]

    func matches(_ object: JSONObject, _ name: String, _ value: String) -> Bool {
        let wanted = value.lowercased()
        let isThread = collection.last == "threads"
        let isMessage = collection.last == "messages"
        guard let rule = InboxFilterRule.named(name) else {
            // `in`: a folder, label or tag by id or name; any other parameter names a member.
            guard name == "in" else { return Self.folded(object[name]) == wanted }
            return ["folders", "labels", "tags"].contains { Self.tagged(object[$0], wanted) }
        }
        if rule.comparison == .filename, collection.last == "files" { return Self.folded(object["filename"]) == wanted }
        let related = (isThread || isMessage) && rule.source(listingThreads: isThread) == .related
        let holders = related ? (isThread ? messages(of: object) : thread(of: object).map { [$0] } ?? []) : [object]
        // Whether the objects compared are threads: a thread's own values, or a message's thread's.
        let holdersAreThreads = isThread != related
        return holders.contains { holder in
            switch rule.comparison {
            case .text(let member):
                return Self.folded(holder[member]) == wanted
            case .address(let role?):
                return Self.addresses(holder[role]).contains(wanted)
            case .address(nil):
                let members = holdersAreThreads ? ["participants"] : ["from", "to", "cc", "bcc"]
                return members.contains { Self.addresses(holder[$0]).contains(wanted) }
            case .tag:
                return Self.tagged(holder["tags"], wanted)
            case .thread:
                return (holdersAreThreads ? holder["id"] : holder["thread_id"])?.scalarText == value
            case .filename:
                return (holder["files"]?.arrayValue ?? []).contains { Self.folded($0["filename"]) == wanted }
            case .time(let member, let before):
                let time = Self.number(holder[isThread || isMessage ? member : "date"])
                guard let limit = Double(value), let time else { return false }
                return before ? time < limit : time > limit
            }
        }
    }

    /// A thread's messages (found by `thread_id` in its namespace), or the message itself.
    private func messages(of object: JSONObject) -> [JSONObject] {
        guard collection.last == "threads", let id = object["id"]?.scalarText else { return [object] }
        let messages = Array(collection.dropLast()) + ["messages"]
        return store.items(in: messages).map(\.object).filter { $0["thread_id"]?.scalarText == id }
    }

    /// A message's thread (by `thread_id`, in its namespace), or nil.
    private func thread(of message: JSONObject) -> JSONObject? {
        guard let id = message["thread_id"]?.scalarText else { return nil }
        return store.object(at: Array(collection.dropLast()) + ["threads", id])
    }

    /// A listing in the service's order: threads by their latest message, messages by date, newest first; ties
    /// (and those without a time) by id. Other collections keep their order.
    static func sorted(_ items: [(key: String, object: JSONObject)], in collection: [String]) -> [(
        key: String, object: JSONObject
    )] {
        let member: String
        switch collection.last {
        case "threads": member = "last_message_timestamp"
        case "messages": member = "date"
        default: return items
        }
        return items.sorted { a, b in
            let left = number(a.object[member]) ?? -.infinity
            let right = number(b.object[member]) ?? -.infinity
            return left != right ? left > right : a.key < b.key
        }
    }

    private static func folded(_ value: JSONValue?) -> String? { value?.scalarText?.lowercased() }

    /// Whether a list of tags (or folders, labels) holds one by id or by name.
    private static func tagged(_ list: JSONValue?, _ wanted: String) -> Bool {
        (list?.arrayValue ?? []).contains { folded($0["id"]) == wanted || folded($0["name"]) == wanted }
    }

    private static func addresses(_ value: JSONValue?) -> Set<String> {
        Set((value?.arrayValue ?? []).compactMap { folded($0["email"]) })
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .number(let number)?: return number.doubleValue
        case .string(let text)?: return Double(text)
        default: return nil
        }
    }
}

extension InboxMatcher {
    /// Inbox filters a listing by parameters named after fields (`tag=inbox`, `any_email=a@b.c`, `subject=Hi`):
    /// every one must match. The mock calls this for every Inbox listing (`MockService.parameterFilter`).
    @Sendable static func filter(_ listing: MockListing) -> [MockItem] {
        let filters = listing.request.query.filter { !notFilters.contains($0.name) }
        let matcher = InboxMatcher(store: listing.store, collection: listing.collection)
        let kept = listing.items.filter { item in
            filters.allSatisfy { matcher.matches(item.object, $0.name, $0.value) }
        }
        return sorted(kept, in: listing.collection)
    }

    /// The parameters of a listing that page or shape it rather than filter it.
    private static let notFilters: Set = ["limit", "offset", "view", "cursor", "exclude_types"]
}

/// Inbox's paths: everything of an account lives below its namespace, `/n/{ns}`.
enum InboxPaths {
    /// The namespace a path belongs to (`n/{ns}`): a cursor delta reports the changes below it.
    @Sendable static func namespace(of path: [String]) -> [String] { Array(path.prefix(2)) }
}
