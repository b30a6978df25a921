import BinderyJSON
import BinderyRuntime
import Foundation

/// What the mock needs to know to speak for one service: its generated descriptor (name, base URLs, route table,
/// wire conventions), how its dialect marks keys and deletions, and the operations that do more than answer their
/// fixture.
public struct MockService: Sendable {
    public var descriptor: ServiceDescriptor
    /// The member that holds an item's key: `id`, or Spark's `Id`.
    public var idMember: String
    /// How delta marks a deleted item.
    public var deletionMarker: DeletionMarker
    /// Items in a page when the request does not say.
    public var pageSize: Int
    /// Operations with behaviour, by `"<resource>/<operation>"` (`"microsoft.graph.driveItem/delta"`), and plain
    /// writes with behaviour by `"<resource>/<METHOD>"`: `"inbox.Draft/POST"` creates in the collection,
    /// `"spark.cartListing/DELETE"` deletes an item.
    public var operations: [String: MockOperation]
    /// Sign-in the provider does its own way (Spark's OpenID and signed sessions), added to the server's identity.
    public var signIn: (any MockSignInExtension)?
    /// The `file` facet of an item whose bytes arrived through an upload session (OneDrive adds its hashes).
    public var uploadedFileFacet: (@Sendable ([UInt8]) -> JSONObject)?
    /// Whether `GET …/content` answers 302 to a pre-authenticated URL on the storage host, as OneDrive does,
    /// rather than with the bytes.
    public var redirectsContent: Bool
    /// Resources written under optimistic concurrency, by name → the member that holds the version (Inbox's
    /// drafts): created at version 0; a replace or update that names another version than the current one is
    /// refused with 409, and one that goes through raises it by one.
    public var versionMembers: [String: String]
    /// Collections that list, besides their own items, every item of a collection of the same name below their
    /// owner: Graph's `me/messages` is every message of every mail folder.
    public var gatheringCollections: Set<[String]>
    /// Collections whose creates the service keeps elsewhere, by the path a create is sent to: Graph keeps a
    /// message POSTed to `me/messages` in Drafts, as a draft. Empty unless a service sets it.
    public var createPlacements: [[String]: CreatePlacement] = [:]
    /// The names of the query options a listing reads: OData's `$filter`, `$select`, … by default.
    public var queryOptions: QueryOptionNames
    /// How a listing is filtered when the service does not take a `$filter` expression (Inbox's parameters named
    /// after fields: `tag=inbox`, `any_email=a@b.c`); nil for a filter expression in `queryOptions.filter`.
    public var parameterFilter: (@Sendable (MockListing) -> [MockItem])?
    /// What a listing answers when the request asks for another view of it than a page of items (Spark's
    /// `_pagination=count`, Inbox's `view=count` and `view=ids`): given the request, how many items match and the
    /// page the mock would answer, the body to answer instead, or nil for the page.
    public var listingView: (@Sendable (_ request: MockRequest, _ matching: Int, _ page: JSONValue) -> JSONValue?)?
    /// The member that holds a record's fields, when records keep them apart from their own members (Spark's
    /// `StandardFields`): filters and sorts read them there, `$select` trims them there, and expansions go there.
    public var recordMember: String?
    /// The error codes the service gives the mock's own refusals.
    public var errorCodes: MockErrorCodes
    /// The body of an error, where the service writes more than its conventions' error shape says (Spark's
    /// `"Success": false` and numeric codes); nil to place the code and message at the shape's paths.
    public var errorBody: (@Sendable (_ status: Int, _ code: String, _ message: String) -> JSONValue)?
    /// The body of a write that answers success with a status other than 204 (Spark's `{"D":{"Success":true}}`).
    public var successBody: JSONObject
    /// The members a page-number page carries about its place among the pages, beside its results (Spark's
    /// `Pagination`); nil to write only the count of pages, where the conventions read it.
    public var pageSummary: (@Sendable (PagePlace) -> JSONObject)?
    /// How a request carries a token, for the generated calls the conformance suite replays and for the `curl`
    /// commands the banner prints.
    public var authorization: AuthorizationScheme
    /// The part of the store a cursor delta reports changes of, by the delta's resource path (Inbox: its
    /// namespace, `n/{ns}`); the whole store by default.
    public var cursorDeltaScope: @Sendable ([String]) -> [String]

    /// Where a create is kept, and the members the service sets on it whatever the body says.
    public struct CreatePlacement: Sendable {
        public var collection: [String]
        public var setting: JSONObject

        public init(collection: [String], setting: JSONObject = [:]) {
            (self.collection, self.setting) = (collection, setting)
        }
    }

    public enum DeletionMarker: Sendable {
        /// Graph: `"@removed": {"reason": "deleted"}`.
        case removedAnnotation
        /// OneDrive: a `"deleted": {}` facet.
        case deletedFacet
    }

    public init(
        _ descriptor: ServiceDescriptor, idMember: String = "id", deletionMarker: DeletionMarker = .removedAnnotation,
        pageSize: Int = 100, operations: [String: MockOperation] = [:], signIn: (any MockSignInExtension)? = nil,
        uploadedFileFacet: (@Sendable ([UInt8]) -> JSONObject)? = nil, redirectsContent: Bool = false,
        versionMembers: [String: String] = [:], gatheringCollections: Set<[String]> = [],
        queryOptions: QueryOptionNames = .odata, parameterFilter: (@Sendable (MockListing) -> [MockItem])? = nil,
        listingView: (@Sendable (_ request: MockRequest, _ matching: Int, _ page: JSONValue) -> JSONValue?)? = nil,
        recordMember: String? = nil, errorCodes: MockErrorCodes = .odata,
        errorBody: (@Sendable (_ status: Int, _ code: String, _ message: String) -> JSONValue)? = nil,
        successBody: JSONObject = [:], pageSummary: (@Sendable (PagePlace) -> JSONObject)? = nil,
        authorization: AuthorizationScheme = .bearer,
        cursorDeltaScope: @escaping @Sendable ([String]) -> [String] = {
            _ in []
        }
    ) {
        self.queryOptions = queryOptions
        self.parameterFilter = parameterFilter
        self.listingView = listingView
        self.recordMember = recordMember
        self.errorCodes = errorCodes
        self.errorBody = errorBody
        self.successBody = successBody
        self.pageSummary = pageSummary
        self.authorization = authorization
        self.cursorDeltaScope = cursorDeltaScope
        self.versionMembers = versionMembers
        self.gatheringCollections = gatheringCollections
        self.uploadedFileFacet = uploadedFileFacet
        self.redirectsContent = redirectsContent
        self.descriptor = descriptor
        self.idMember = idMember
        self.deletionMarker = deletionMarker
        self.pageSize = pageSize
        self.operations = operations
        self.signIn = signIn
    }

    public var name: String { descriptor.name }
    public var routes: RouteTable { descriptor.routes }
    public var conventions: ServiceConventions { descriptor.conventions }
    /// The path of the API below the server's root: `["v1.0"]` for Graph, `["v1"]` for Spark, `[]` for Inbox.
    public var basePath: [String] { descriptor.basePath }
}

/// Where a page-number page sits: how many items the listing has, how many a page holds, and which page it is.
public struct PagePlace: Sendable {
    public var items: Int, size: Int, page: Int

    public init(items: Int, size: Int, page: Int) { (self.items, self.size, self.page) = (items, size, page) }

    /// The count of pages: one at least, for an empty listing.
    public var pages: Int { max(1, (items + size - 1) / size) }
}

/// The names of the query options a listing reads.
public struct QueryOptionNames: Sendable {
    public var filter: String, select: String, expand: String, orderBy: String

    public init(filter: String, select: String, expand: String, orderBy: String) {
        (self.filter, self.select, self.expand, self.orderBy) = (filter, select, expand, orderBy)
    }

    public static let odata = QueryOptionNames(
        filter: "$filter", select: "$select", expand: "$expand", orderBy: "$orderby")
}

/// The error codes of the mock's own refusals, in the service's words.
public struct MockErrorCodes: Sendable {
    /// A request without credentials the identity provider issued.
    public var missingCredentials: String
    /// A token or session past its end: the code and message the client's renewal looks for.
    public var expired: (code: String, message: String)
    /// A query option the mock cannot parse (a filter expression).
    public var badQuery: String
    /// A request body that is not a JSON object.
    public var notAnObject: String
    /// A request body that does not match the generated model.
    public var invalidBody: String

    public init(
        missingCredentials: String, expired: (code: String, message: String), badQuery: String, notAnObject: String,
        invalidBody: String
    ) {
        self.missingCredentials = missingCredentials
        self.expired = expired
        self.badQuery = badQuery
        self.notAnObject = notAnObject
        self.invalidBody = invalidBody
    }

    /// Graph's and OneDrive's.
    public static let odata = MockErrorCodes(
        missingCredentials: "InvalidAuthenticationToken",
        expired: ("InvalidAuthenticationToken", "Access token has expired or is not yet valid."),
        badQuery: "BadRequest", notAnObject: "BadRequest", invalidBody: "BadRequest")
}

/// One stored item of a listing: its key and its object.
public typealias MockItem = (key: String, object: JSONObject)

/// A listing being filtered: its items, the request, the collection's path and the store.
public struct MockListing: Sendable {
    public let items: [MockItem]
    public let request: MockRequest
    public let collection: [String]
    public let store: MockStore
}

/// An operation the mock implements rather than answering with its fixture.
public struct MockOperation: Sendable {
    /// False for the calls that obtain credentials (Spark's OAuth grant and API-key session).
    public var requiresAuthorization: Bool
    let handle: @Sendable (MockCall) async -> MockResponse
    /// Makes a recorded request valid before it is replayed: a fixture's sample code, signature or draft
    /// cannot be one the mock issued, so this registers it.
    let prepare: (@Sendable (MockFixture, MockServer) -> Void)?

    public init(
        requiresAuthorization: Bool = true, prepare: (@Sendable (MockFixture, MockServer) -> Void)? = nil,
        handle: @escaping @Sendable (MockCall) async -> MockResponse
    ) {
        self.requiresAuthorization = requiresAuthorization
        self.prepare = prepare
        self.handle = handle
    }
}

/// One call of an operation: the request, where it landed, and the server to read and change.
public struct MockCall: Sendable {
    public let request: MockRequest
    public let server: MockServer
    /// The path of the resource the operation is bound to, below the service root.
    public let resourcePath: [String]
    /// The kind of resource the operation is bound to.
    public let resource: ResourceRoute
    public let operation: ResourceRoute.Operation
    /// The request body with the service's envelope taken off.
    public let body: JSONValue?
    /// For a path-addressed item (`root:/Docs/a.txt:`): the folder that holds it and its name, whether or not it
    /// exists yet.
    public var addressed: (parent: [String], name: String)? = nil
    /// `"<resource>/<operation>"`, as `MockService.operations` names it.
    var key: String = ""
    /// A plain PUT on an item: its standard answer replaces the item rather than merging into it.
    var replaces = false

    public var store: MockStore { server.store }

    /// What the mock answers without this call's behaviour: an operation on its resource's own URL reads or
    /// writes that collection or item (a behaviour that adds to a create or an update starts here); any
    /// other answers its fixture.
    public func standardAnswer() -> MockResponse { server.standardAnswer(self) }

    /// The operation's conformance fixture, as an operation without behaviour answers: for a behaviour that only
    /// knows what the store holds.
    public func fixtureAnswer() -> MockResponse { server.cannedAnswer(key, for: self) }
}
