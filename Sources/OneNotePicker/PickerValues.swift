import BinderyRuntime
import Foundation

/// The section the user picked: the six fields the OneNote picker has always returned, and where it lives.
public struct PickedSection: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    /// Where to create or read the section's pages.
    public var pagesURL: URL
    public var createdTime: Date?
    /// When any page of the section last changed.
    public var modifiedTime: Date?
    /// The name of whoever changed it last.
    public var lastModifiedBy: String?
    /// The notebook and section groups above the section, outermost first.
    public var path: [String]

    public init(
        id: String, name: String, pagesURL: URL, createdTime: Date?, modifiedTime: Date?, lastModifiedBy: String?,
        path: [String]
    ) {
        self.id = id
        self.name = name
        self.pagesURL = pagesURL
        self.createdTime = createdTime
        self.modifiedTime = modifiedTime
        self.lastModifiedBy = lastModifiedBy
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case pagesURL = "pagesUrl"
        case createdTime, modifiedTime, lastModifiedBy, path
    }
}

/// Why the picker could not go on: the OneNote API said no, or the exchange failed on this side of the wire.
/// The two are never mixed: an API error has the service's code and message, a system error has neither.
public enum OneNotePickerError: Error, Sendable, Hashable, CustomStringConvertible {
    case api(APIFailure)
    case system(SystemFailure)

    /// The service answered with an error status.
    public struct APIFailure: Sendable, Hashable {
        public var status: Int
        /// The service's code (`accessDenied`, the legacy API's `10004`).
        public var code: String?
        public var message: String
        /// Where the service documents the error (the legacy API's `@api.url`).
        public var helpURL: URL?
        public var requestID: String?

        public init(status: Int, code: String?, message: String, helpURL: URL? = nil, requestID: String? = nil) {
            self.status = status
            self.code = code
            self.message = message
            self.helpURL = helpURL
            self.requestID = requestID
        }
    }

    /// The exchange did not complete, or what came back cannot be read.
    public struct SystemFailure: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case connection, tls, timeout, cancelled
            /// The answer was not what the service promises (HTML, truncated, a next link that loops).
            case invalidResponse
            /// The session cannot be renewed: the user must sign in again.
            case signIn
            case other
        }
        public var kind: Kind
        public var message: String

        public init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    public init(_ error: BinderyError) {
        if error.isAPIError {
            self = .api(
                APIFailure(
                    status: error.status ?? 0, code: error.serviceCode, message: error.message,
                    helpURL: error.helpURL.flatMap(URL.init(string:)), requestID: error.requestID))
            return
        }
        let kinds: [BinderyError.Kind: SystemFailure.Kind] = [
            .connection: .connection, .tls: .tls, .timeout: .timeout, .cancelled: .cancelled,
            .invalidResponse: .invalidResponse, .decoding: .invalidResponse, .pagingLoop: .invalidResponse,
            .interactionRequired: .signIn, .authorization: .signIn, .storage: .signIn,
        ]
        self = .system(SystemFailure(kind: kinds[error.kind] ?? .other, message: error.message))
    }

    public var isAPIError: Bool {
        if case .api = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .api(let failure):
            let code = failure.code.map { " \($0)" } ?? ""
            return "OneNote API error (HTTP \(failure.status)\(code)): \(failure.message)"
        case .system(let failure):
            return "system error (\(failure.kind.rawValue)): \(failure.message)"
        }
    }
}

/// A notebook, section group or section as the picker lists it.
public struct OneNotePickerNode: Sendable, Hashable, Identifiable {
    public enum Kind: Sendable, Hashable { case notebook, sectionGroup, section }

    public var kind: Kind
    public var id: String
    public var name: String
    /// For a section: what picking it returns (its `path` says where it lives).
    public var section: PickedSection?

    public var isContainer: Bool { kind != .section }
}

/// What the picker shows, each change delivered by `OneNotePicker.states()`.
public struct OneNotePickerState: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// The level's pages are still arriving (`entries` holds those already here).
        case loading
        /// The whole level is here.
        case browsing
        /// Search results are shown (`search`); more may come while `search.isComplete` is false.
        case searching
        case picked(PickedSection)
        case cancelled
        /// Loading failed; `retry` goes on from the page that failed, `cancel` gives up.
        case failed(OneNotePickerError)
    }

    /// Sections whose name contains the query, from the whole tree, each with its path.
    public struct Search: Sendable, Equatable {
        public var query: String
        public var hits: [OneNotePickerNode]
        /// Whether every level has been searched.
        public var isComplete: Bool
    }

    public var phase: Phase
    /// The notebook and section groups opened, outermost first; empty at the list of notebooks.
    public var path: [OneNotePickerNode]
    /// The open level's section groups, then its sections (notebooks at the top).
    public var entries: [OneNotePickerNode]
    public var search: Search?
    /// The index of the selected row in `rows`.
    public var selection: Int
    /// The text an app shows above the list ("Choose a section for your note").
    public var instructions: String?

    /// What the list shows: the search hits while searching, else the level's entries.
    public var rows: [OneNotePickerNode] { search?.hits ?? entries }

    public var selected: OneNotePickerNode? { rows.indices.contains(selection) ? rows[selection] : nil }

    /// Whether nothing more is on its way: the level is whole, the search complete, or loading failed or ended.
    public var isSettled: Bool {
        switch phase {
        case .loading: return false
        case .searching: return search?.isComplete == true
        default: return true
        }
    }

    /// Whether the picker is done: picked or cancelled.
    public var isFinished: Bool {
        switch phase {
        case .picked, .cancelled: return true
        default: return false
        }
    }
}

/// What a UI asks of the picker.
public enum OneNotePickerAction: Sendable, Equatable {
    /// Moves the selection by rows (negative is up), staying within the list.
    case move(by: Int)
    /// Selects a row by index.
    case select(Int)
    /// Opens the selected notebook or section group; on a section, picks it.
    case open
    /// Picks the selected section; does nothing on a notebook or group.
    case pick
    /// Ends the search, or goes up one level.
    case back
    /// Searches sections by name across the tree; an empty text ends the search.
    case search(String)
    /// After a failure: loads again from where it failed.
    case retry
    /// Forgets what was loaded and loads the open level again.
    case refresh
    case cancel
}
