import BinderyRuntime
import Foundation

// Handwritten beside the generated code: the legacy API's field names, the picker's one-call request, the base
// URLs of other owners' OneNote, and creating a page from HTML (a body the spec cannot describe).

extension OneNoteClient {
    public static let scopes = ["Notes.ReadWrite", "offline_access"]

    /// Whose OneNote a client reads on Microsoft Graph.
    public enum Owner: Sendable, Hashable {
        /// The signed-in user's (`me/onenote`, the default base URL).
        case me
        /// A user's, by identifier or user principal name (`users/{id}/onenote`).
        case user(String)
        /// A Microsoft 365 group's (`groups/{id}/onenote`).
        case group(String)
        /// A SharePoint site's (`sites/{id}/onenote`).
        case site(String)
    }

    /// The Graph base URL of an owner's OneNote. Every path below it is the same for all owners, so the spec
    /// declares the OneNote root once and the owner is chosen here: `OneNoteClient(baseURL:
    /// OneNoteClient.graphBaseURL(for: .group(id)), auth: session)`. The identifier is percent-encoded as one
    /// path segment.
    public static func graphBaseURL(for owner: Owner) -> URL {
        let owned: (collection: String, id: String)
        switch owner {
        case .me: return defaultBaseURL
        case .user(let id): owned = ("users", id)
        case .group(let id): owned = ("groups", id)
        case .site(let id): owned = ("sites", id)
        }
        let text = "https://graph.microsoft.com/v1.0/\(owned.collection)/\(PercentEncoding.segment(owned.id))/onenote"
        guard let url = URL(string: text) else { preconditionFailure("an encoded segment always makes a URL: \(text)") }
        return url
    }

    /// Every notebook with its sections and section groups, nested to any depth, in one request: the picker's
    /// `notebooks?$expand=sections,sectionGroups($expand=sections,sectionGroups($levels=max;$expand=sections))`.
    /// Expanded collections may still carry `sections@odata.nextLink`; follow it with `following(_:)`.
    public func notebooksWithSections() -> CollectionRequest<Notebook> {
        notebooks.request().expand(
            "sections",
            Expansion("sectionGroups").expand(
                "sections", Expansion("sectionGroups").allLevels().expand("sections")))
    }
}

extension CollectionRequestBuilder where ItemBuilder == OnenotePageRequestBuilder {
    /// Creates a page from HTML (its `<title>` becomes the page title) and returns it as the service stored it.
    public func create(html: String) async throws(BinderyError) -> OnenotePage {
        var request = APIRequest(method: .post, path: path, body: .bytes(Array(html.utf8)))
        request.headers[.contentType] = "text/html"
        let response = try await client.send(request)
        return try client.decodeModel(OnenotePage.self, from: response)
    }
}

/// The fields Graph and the legacy API name differently, for notebooks, section groups and sections alike.
///
/// Protocol requirements name fields, so the tables must be structs: `Specs/OneNote/bindery.json` says
/// `"fieldTables": "structs"`.
public protocol OneNoteHierarchyFields: FieldSet where Table == Self {
    var displayName: Field<String> { get }
    var name: Field<String> { get }
    var createdDateTime: Field<Date> { get }
    var createdTime: Field<Date> { get }
    var lastModifiedDateTime: Field<Date> { get }
    var lastModifiedTime: Field<Date> { get }
    var lastModifiedBy: Field<JSONValue> { get }
}

extension NotebookFields: OneNoteHierarchyFields {}
extension SectionGroupFields: OneNoteHierarchyFields {}
extension OnenoteSectionFields: OneNoteHierarchyFields {}

extension Model where Fields: OneNoteHierarchyFields {
    /// Graph's `displayName`, or the legacy `name`.
    public var title: String? { self.displayName ?? self.name }
    /// Graph's `createdDateTime`, or the legacy `createdTime`.
    public var created: Date? { self.createdDateTime ?? self.createdTime }
    /// Graph's `lastModifiedDateTime`, or the legacy `lastModifiedTime` (which the iOS picker misread as `modifiedTime`).
    public var lastModified: Date? { self.lastModifiedDateTime ?? self.lastModifiedTime }

    /// Who changed it last: the user's display name from Graph's identity set, or the legacy API's plain string.
    public var lastModifiedByName: String? {
        switch self.lastModifiedBy {
        case .string(let name)?: return name
        case .object(let identitySet)?:
            for role in ["user", "application", "device"] {
                if let name = identitySet[role]?["displayName"]?.stringValue { return name }
            }
            return nil
        default: return nil
        }
    }
}
