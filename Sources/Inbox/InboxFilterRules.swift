/// How the Inbox API filters a thread or message listing by its query parameters, written once: the mock filters
/// its store by these rules, and the offline cache turns them into SQL (`InboxFilter`), so that the two cannot
/// disagree about what a parameter means.
///
/// Every parameter given must match. Text compares without case; times are Unix seconds and exclusive.
public struct InboxFilterRule: Sendable, Hashable {
    /// The query parameter: `subject`, `any_email`, `tag`, `last_message_after`, …
    public let parameter: String
    public let comparison: Comparison
    /// Whose value a thread listing compares: the thread's own, or any of its messages'.
    public let onThreads: Source
    /// Whose value a message listing compares: the message's own, or its thread's.
    public let onMessages: Source

    public enum Comparison: Sendable, Hashable {
        /// A member's text (`subject`).
        case text(member: String)
        /// An address in a role (`from`, `to`, `cc`, `bcc`), or in any role when nil: a message's addresses, or a
        /// thread's own `participants`.
        case address(role: String?)
        /// A tag, by its id or its name.
        case tag
        /// The thread: a thread's `id`, a message's `thread_id`.
        case thread
        /// A file's name among a message's `files`.
        case filename
        /// A thread's time member (`last_message_timestamp`, `first_message_timestamp`): before or after the value.
        case time(member: String, before: Bool)
    }

    public enum Source: Sendable, Hashable {
        /// The listed object's own value.
        case own
        /// The related objects': a thread's messages, a message's thread.
        case related
    }

    /// Where a listing of `threads` (or else of messages) finds this rule's value.
    public func source(listingThreads threads: Bool) -> Source { threads ? onThreads : onMessages }

    /// The API's thread and message filters, in the order the listings declare them.
    public static let all: [InboxFilterRule] = [
        InboxFilterRule(parameter: "subject", comparison: .text(member: "subject"), onThreads: .own, onMessages: .own),
        InboxFilterRule(parameter: "any_email", comparison: .address(role: nil), onThreads: .own, onMessages: .own),
        InboxFilterRule(parameter: "to", comparison: .address(role: "to"), onThreads: .related, onMessages: .own),
        InboxFilterRule(parameter: "from", comparison: .address(role: "from"), onThreads: .related, onMessages: .own),
        InboxFilterRule(parameter: "cc", comparison: .address(role: "cc"), onThreads: .related, onMessages: .own),
        InboxFilterRule(parameter: "bcc", comparison: .address(role: "bcc"), onThreads: .related, onMessages: .own),
        // Messages carry no tags: a message has its thread's.
        InboxFilterRule(parameter: "tag", comparison: .tag, onThreads: .own, onMessages: .related),
        InboxFilterRule(parameter: "thread_id", comparison: .thread, onThreads: .own, onMessages: .own),
        InboxFilterRule(parameter: "filename", comparison: .filename, onThreads: .related, onMessages: .own),
        // The times are named after the thread's: its last message, when it started.
        InboxFilterRule(
            parameter: "last_message_before", comparison: .time(member: "last_message_timestamp", before: true),
            onThreads: .own, onMessages: .related),
        InboxFilterRule(
            parameter: "last_message_after", comparison: .time(member: "last_message_timestamp", before: false),
            onThreads: .own, onMessages: .related),
        InboxFilterRule(
            parameter: "started_before", comparison: .time(member: "first_message_timestamp", before: true),
            onThreads: .own, onMessages: .related),
        InboxFilterRule(
            parameter: "started_after", comparison: .time(member: "first_message_timestamp", before: false),
            onThreads: .own, onMessages: .related),
    ]

    /// The rule of a query parameter, or nil for one that is not a filter (`limit`, `view`, …).
    public static func named(_ parameter: String) -> InboxFilterRule? { all.first { $0.parameter == parameter } }
}
