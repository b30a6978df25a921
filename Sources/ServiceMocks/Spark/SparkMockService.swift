import BinderyJSON
import BinderyMock
import Foundation
import Spark

/// Spark as the mock speaks for it: its generated descriptor, with what its dialect does differently and the
/// operations that do more than answer their fixture. A test that mocks Spark depends on this module alone.
extension MockService {
    public static let spark = MockService(
        SparkService.descriptor, idMember: "Id", pageSize: 25,
        operations: [
            "spark.oauth2/grantToken": .sparkGrant,
            "spark.Service/createSession": .sparkSession,
            "spark.Notification/markNotificationsRead": .sparkMarkNotificationsRead,
            "spark.Notification/listUnreadNotifications": .sparkUnreadNotifications,
            "spark.Notification/countUnread": .sparkUnreadNotifications,
            "spark.my/getAccount": .readStored,
            "spark.my/updateAccount": .updateStored,
            "spark.Contact/createContacts": .sparkCreateEach("Contacts"),
            "spark.Contact/listByTag": .sparkItems(where: "Tags"),
            "spark.Contact/listContactTags": .sparkContactTags,
            "spark.Account/listByOffice": .sparkItems(where: "OfficeId"),
            "spark.FlexmlsListing/updateFlexmlsListing": .sparkUpdateFlexmlsListing,
            "spark.Comment/createContactComments": .sparkCreateEach("Comments"),
            "spark.ListingCart/createListingCarts": .sparkCreateEach("ListingCarts"),
            "spark.contactListingCart/createContactListingCarts": .sparkCreateEach("ListingCarts"),
            "spark.SavedSearch/createSavedSearches": .sparkCreateEach("SavedSearches"),
            "spark.ListingCart/addCartListings": .sparkAddCartListings,
            "spark.contactListingCart/addContactCartListings": .sparkAddCartListings,
            "spark.cartListing/DELETE": .sparkRemoveCartListing,
            "spark.listingPrivate/saveMyNotes": .sparkSaveMyNotes,
            "spark.listingPrivate/getMyNotes": .sparkMyNotes,
            "spark.listingPrivate/deleteMyNotes": .sparkDeleteMyNotes,
        ],
        signIn: SparkSignInMock(),
        queryOptions: QueryOptionNames(filter: "_filter", select: "_select", expand: "_expand", orderBy: "_orderby"),
        listingView: { request, _, page in
            // `_pagination=count`: the page's counts alone, without its results.
            guard request.queryValue("_pagination") == "count", var envelope = page["D"]?.objectValue else {
                return nil
            }
            envelope["Results"] = nil
            return ["D": .object(envelope)]
        },
        recordMember: "StandardFields",
        errorCodes: MockErrorCodes(
            missingCredentials: "1000", expired: ("1020", "Session token has expired"), badQuery: "1053",
            notAnObject: "1035", invalidBody: "1040"),
        errorBody: { _, code, message in
            // Spark's codes are numbers, and every answer says whether it succeeded.
            let number = Int(code).map { JSONValue.number(JSONNumber($0)) } ?? .string(code)
            return ["D": ["Success": false, "Code": number, "Message": .string(message)]]
        },
        successBody: ["D": ["Success": true]],
        pageSummary: { place in
            [
                "Pagination": [
                    "TotalRows": .number(JSONNumber(place.items)), "PageSize": .number(JSONNumber(place.size)),
                    "TotalPages": .number(JSONNumber(place.pages)), "CurrentPage": .number(JSONNumber(place.page)),
                ]
            ]
        },
        authorization: .oauth)
}

extension MockSample {
    /// The hand-written sample `bindery mock` serves for Spark by default (`Samples/Spark.json`, compiled in).
    public static func spark() throws -> MockSample { try MockSample(json: PackageResources.Spark_json) }
}
