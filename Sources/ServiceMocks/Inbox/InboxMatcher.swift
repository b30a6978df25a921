import BinderyJSON
import BinderyMock
import Foundation

/// How the Inbox service filters a listing: every parameter must match, text compares without case, times are
/// Unix seconds and exclusive. A thread matches `to`, `from`, `cc`, `bcc` and `filename` through its messages; a
/// message matches `tag` and the four times through its thread (messages carry no tags, and the times are named
/// after the thread's: its last message, when it started).
struct InboxMatcher {
    let store: MockStore
    /// The listed collection (`n/{ns}/threads`): its namespace holds the messages thread filters read.
    let collection: [String]

    func matches(_ object: JSONObject, _ name: String, _ value: String) -> Bool {
        let wanted = value.lowercased()
        let isThread = collection.last == "threads"
        let isMessage = collection.last == "messages"
        switch name {
        case "tag":
            let tagged = isMessage ? thread(of: object) : object
            return (tagged?["tags"]?.arrayValue ?? []).contains { tag in
                Self.folded(tag["id"]) == wanted || Self.folded(tag["name"]) == wanted
            }
        case "any_email":
            let members = isThread ? ["participants"] : ["from", "to", "cc", "bcc"]
            return members.contains { Self.addresses(object[$0]).contains(wanted) }
        case "to", "from", "cc", "bcc":
            return messages(of: object).contains { Self.addresses($0[name]).contains(wanted) }
        case "filename":
            if !isThread, collection.last == "files" { return Self.folded(object["filename"]) == wanted }
            return messages(of: object).contains { message in
                (message["files"]?.arrayValue ?? []).contains { Self.folded($0["filename"]) == wanted }
            }
        case "thread_id":
            return (isThread ? object["id"] : object["thread_id"])?.scalarText == value
        case "last_message_before", "last_message_after", "started_before", "started_after":
            let member = name.hasPrefix("started") ? "first_message_timestamp" : "last_message_timestamp"
            let dated = isMessage ? thread(of: object) : object
            guard let limit = Double(value), let time = Self.number(dated?[isThread || isMessage ? member : "date"])
            else {
                return false
            }
            return name.hasSuffix("before") ? time < limit : time > limit
        case "in":
            return ["folders", "labels", "tags"].contains { member in
                (object[member]?.arrayValue ?? []).contains {
                    Self.folded($0["id"]) == wanted || Self.folded($0["name"]) == wanted
                }
            }
        default:
            return Self.folded(object[name]) == wanted
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
