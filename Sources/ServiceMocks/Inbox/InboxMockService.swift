import BinderyJSON
import BinderyMock
import Foundation
import Inbox

/// Inbox as the mock speaks for it: its generated descriptor, with what its dialect does differently and the
/// operations that do more than answer their fixture. A test that mocks Inbox depends on this module alone.
extension MockService {
    public static let inbox = MockService(
        InboxService.descriptor,
        operations: [
            "inbox.Namespace/send": .inboxSend,
            "inbox.Draft/POST": .inboxCreateDraft,
            "inbox.Draft/deleteDraft": .inboxDeleteDraft,
            "inbox.Message/update": .inboxUpdateMessage,
            "inbox.Tag/createTag": .inboxCreateTag,
            "inbox.Tag/rename": .inboxRenameTag,
            "inbox.Thread/updateTags": .inboxUpdateTags,
            "inbox.File/upload": .inboxUpload,
            "inbox.File/download": .inboxDownload,
            "inbox.delta/generateCursor": .generateCursor,
            "inbox.delta/getLatestCursor": .latestCursor,
            "inbox.delta/listChanges": .cursorDelta,
            "inbox.longpoll/waitForChanges": .longpoll,
        ], versionMembers: ["inbox.Draft": "version"], parameterFilter: InboxMatcher.filter,
        listingView: { request, matching, page in
            // `view=count` answers the number of matches, `view=ids` only the page's ids.
            switch request.queryValue("view") {
            case "count": ["count": .number(JSONNumber(matching))]
            case "ids": .array((page.arrayValue ?? []).compactMap { $0["id"] })
            default: nil
            }
        },
        errorCodes: MockErrorCodes(
            missingCredentials: "invalid_request_error",
            expired: ("invalid_request_error", "Access token has expired or is not yet valid."),
            badQuery: "invalid_request_error", notAnObject: "invalid_request_error",
            invalidBody: "invalid_request_error"),
        errorBody: { status, _, message in
            // Inbox's error type says what kind of failure it was, not which.
            let type = status == 404 ? "not_found_error" : (status >= 500 ? "api_error" : "invalid_request_error")
            return ["type": .string(type), "message": .string(message)]
        },
        authorization: .basicUser, cursorDeltaScope: InboxPaths.namespace)
}

extension MockSample {
    /// The hand-written sample `bindery mock` serves for Inbox by default (`Samples/Inbox.json`, compiled in).
    public static func inbox() throws -> MockSample { try MockSample(json: PackageResources.Inbox_json) }
}
