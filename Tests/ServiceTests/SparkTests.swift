import BinderyRuntime
import Foundation
import Spark
import Testing

/// The Spark module: the `D` envelope both ways, page-number paging, loose payloads, the bare OAuth grant and the
/// generic escape hatch.
@Suite struct SparkTests {
    func client(_ replies: [CapturingTransport.Reply] = []) -> (SparkClient, CapturingTransport) {
        let transport = CapturingTransport(replies)
        return (SparkClient(userAgent: "BinderyTests/1.0", transport: transport, middleware: []), transport)
    }

    static let listingPage = #"""
        {"D":{"Success":true,"Results":[
          {"Id":20060412165917817933000000,"ResourceUri":"/v1/listings/20060412165917817933000000",
           "StandardFields":{"ListingKey":"20060412165917817933000000","ListPrice":"250000.0","BedsTotal":"3",
             "Latitude":" -116.3237","Longitude":45.1,"City":"Fargo","PostalCode":58102,"MlsStatus":"Active",
             "ModificationTimestamp":"2014-01-02T12:00:00Z","OnMarketDate":"2013-12-30","Unknown_Custom_Field":"kept",
             "Photos":[{"Id":"20080917142739989238000000","Primary":"true","Uri640":"https://photos/640.jpg"}]}}],
          "Pagination":{"TotalRows":51,"PageSize":25,"TotalPages":3,"CurrentPage":1}}}
        """#

    /// `_pagination=count`: the answer is `D.Pagination` alone, with no `Results`; a typed call of its own.
    @Test func countsListingsWithoutFetchingThem() async throws {
        let (spark, transport) = client([
            .init(body: #"{"D":{"Success":true,"Pagination":{"TotalRows":"1234","PageSize":25,"TotalPages":50}}}"#),
            .init(body: #"{"D":{"Success":true,"Results":[]}}"#),
        ])
        let counts = try await spark.listings.count(filter: "City Eq 'Fargo'").send()
        #expect(counts.totalRows == 1234)
        #expect(counts.totalPages == 50)
        let query = transport.last?.head.path?.split(separator: "?").last.map(String.init) ?? ""
        #expect(query.contains("_pagination=count") && query.contains("_filter=City%20Eq%20'Fargo'"))
        #expect(!query.contains("_pagination=1"))
        // An answer without the counts is a typed error, not a zero.
        await #expect(throws: BinderyError.self) { try await spark.listings.count().send() }
    }

    @Test func searchesListingsWithSparkQLAndPagesByNumber() async throws {
        let (spark, transport) = client([.init(body: Self.listingPage)])
        let page = try await spark.listings.list(
            filter: "City Eq 'Fargo' And ListPrice Le 250000.0", select: "ListPrice,City", expand: "Photos", limit: 25
        ).get()
        let sent = try #require(transport.last)
        #expect(sent.head.headerFields[.init("X-SparkApi-User-Agent")!] == "BinderyTests/1.0")
        let query = sent.head.path?.split(separator: "?").last.map(String.init) ?? ""
        #expect(query.contains("_filter=City%20Eq%20'Fargo'%20And%20ListPrice%20Le%20250000.0"))
        #expect(query.contains("_expand=Photos") && query.contains("_limit=25") && query.contains("_pagination=1"))
        #expect(sent.url == "https://sparkapi.com/v1/listings")
        #expect(page.nextRequest?.request.queryValue("_page") == "2")
        let listing = try #require(page.value.first)
        // Loose values: a 26-digit id sent as a number, numbers and booleans as strings.
        #expect(listing.id == "20060412165917817933000000")
        let fields = try #require(listing.standardFields)
        #expect(fields.listPrice == 250_000)
        #expect(fields.bedsTotal == 3)
        #expect(fields.latitude == -116.3237)
        #expect(fields.postalCode == "58102")
        #expect(fields.onMarketDate == CalendarDate(year: 2013, month: 12, day: 30))
        #expect(fields.photos?.first?.primary == true)
        #expect(fields.additionalData["Unknown_Custom_Field"] == .string("kept"))
    }

    @Test func aListingByIdIsItsOneElementResults() async throws {
        let (spark, transport) = client([.init(body: Self.listingPage)])
        let listing = try await spark.listings("20060412165917817933000000").fetch(expand: "Photos")
        // A read of one item sends no paging parameters.
        #expect(transport.last?.head.path == "/v1/listings/20060412165917817933000000?_expand=Photos")
        #expect(listing.standardFields?.city == "Fargo")
        #expect(
            try roundTrips(
                listing,
                #"""
                {"Id":20060412165917817933000000,"ResourceUri":"/v1/listings/20060412165917817933000000",
                 "StandardFields":{"ListingKey":"20060412165917817933000000","ListPrice":"250000.0","BedsTotal":"3",
                   "Latitude":" -116.3237","Longitude":45.1,"City":"Fargo","PostalCode":58102,"MlsStatus":"Active",
                   "ModificationTimestamp":"2014-01-02T12:00:00Z","OnMarketDate":"2013-12-30","Unknown_Custom_Field":"kept",
                   "Photos":[{"Id":"20080917142739989238000000","Primary":"true","Uri640":"https://photos/640.jpg"}]}}
                """#))
    }

    @Test func theAccountAndContactsAreWrappedBothWays() async throws {
        let (spark, transport) = client([
            .init(
                body:
                    #"{"D":{"Success":true,"Results":[{"Id":"20000426143505724628000000","Name":"Joe Agent","UserType":"Member","Emails":[{"Address":"joe@example.com","Primary":true}]}]}}"#
            ),
            .init(status: 201, body: #"{"D":{"Success":true,"Results":[{"ResourceUri":"/v1/contacts/2011"}]}}"#),
        ])
        let account = try await spark.my.account()
        #expect(account.name == "Joe Agent" && account.emails?.first?.address == "joe@example.com")
        #expect(transport.sent[0].head.path == "/v1/my/account")
        var contacts = NewContacts()
        var contact = Contact()
        contact.displayName = "Jane Buyer"
        contact.primaryEmail = "jane@example.com"
        contacts.contacts = [contact]
        let created = try await spark.contacts.createContacts(contacts).send()
        #expect(
            transport.sent[1].bodyJSON
                == (try json(#"{"D":{"Contacts":[{"DisplayName":"Jane Buyer","PrimaryEmail":"jane@example.com"}]}}"#)))
        #expect(created.first?.resourceUri == "/v1/contacts/2011")
    }

    @Test func theOAuthGrantTravelsOutsideTheEnvelope() async throws {
        let (spark, transport) = client([.init(body: #"{"access_token":"a1","refresh_token":"r1","expires_in":86400}"#)]
        )
        var grant = TokenGrant()
        grant.grantType = .refreshToken
        grant.refreshToken = "r0"
        let tokens = try await spark.oauth2.grantToken(grant).send()
        #expect(transport.last?.url == "https://sparkapi.com/v1/oauth2/grant")
        #expect(transport.last?.bodyJSON == (try json(#"{"grant_type":"refresh_token","refresh_token":"r0"}"#)))
        #expect(tokens.accessToken == "a1" && tokens.expiresIn == 86400)
    }

    @Test func errorsAndEnvelopeFailuresAreTyped() async throws {
        let (spark, _) = client([
            .init(status: 401, body: #"{"D":{"Success":false,"Code":1020,"Message":"Session token has expired"}}"#),
            .init(status: 200, body: #"{"D":{"Success":false}}"#),
            .init(status: 200, body: #"{"Results":[]}"#),
            .init(
                status: 400,
                body:
                    #"{"D":{"Success":false,"Code":1053,"Message":"Invalid parameter","Details":[{"_limit":"must be at most 1000"}]}}"#
            ),
        ])
        for expected in [("api", "1020"), ("api", nil), ("invalidResponse", nil), ("api", "1053")]
            as [(String, String?)]
        {
            do {
                _ = try await spark.my.account()
                Issue.record("expected an error")
            } catch {
                #expect("\(error.kind)" == expected.0)
                #expect(error.serviceCode == expected.1)
                if expected.1 == "1053" { #expect(error.details != nil) }
            }
        }
    }

    @Test func theGenericEscapeHatchReachesAnyEndpoint() async throws {
        let (spark, transport) = client([
            .init(
                body:
                    #"{"D":{"Success":true,"Results":[{"Id":"oh1","Date":"10/12/2014"}],"Pagination":{"TotalRows":1}}}"#
            ),
            .init(body: #"{"D":{"Success":true}}"#),
            .init(body: #"{"D":{"Success":true,"Results":[]}}"#),
        ])
        let answer = try await spark.get("listings/2006/openhouses", query: [("_limit", "5")])
        #expect(transport.sent[0].url == "https://sparkapi.com/v1/listings/2006/openhouses")
        #expect(answer.results.first?["Id"] == .string("oh1"))
        #expect(answer.pagination?["TotalRows"] == .number(JSONNumber(1)))
        _ = try await spark.post("listings/../my x/y", body: .object(["Name": .string("n")]))
        // Segments are encoded one by one and `..` is dropped; the body is wrapped in D.
        #expect(transport.sent[1].url == "https://sparkapi.com/v1/listings/my%20x/y")
        #expect(transport.sent[1].bodyJSON == (try json(#"{"D":{"Name":"n"}}"#)))
        // A ResourceUri as the service gave it, with a query.
        _ = try await spark.get("/v1/contacts/2011?_select=DisplayName")
        #expect(transport.sent[2].head.path == "/v1/contacts/2011?_select=DisplayName")
    }
}

/// Spark's sign-in requests carry the user agent Spark requires, like every API request.
@Suite struct SparkSignInHeaderTests {
    @Test func grantAndSessionRequestsSendTheUserAgent() async throws {
        let transport = CapturingTransport([
            .init(body: #"{"access_token":"a","refresh_token":"r","expires_in":3600}"#),
            .init(body: #"{"D":{"Success":true,"Results":[{"AuthToken":"s1","Expires":"2026-11-23T00:00:00Z"}]}}"#),
            .init(body: #"{"D":{"Success":true,"Results":[]}}"#),
        ])
        let signIn = SparkSignIn(clientID: "c", clientSecret: "s", redirectURI: "https://app/cb", userAgent: "MyApp/2")
        _ = try await OAuth2Client(signIn.oauth, transport: transport, middleware: []).password(
            username: "u", password: "p")
        let agent = HTTPField.Name("X-SparkApi-User-Agent")!
        #expect(transport.sent[0].url == "https://sparkapi.com/v1/oauth2/grant")
        #expect(transport.sent[0].head.headerFields[agent] == "MyApp/2")

        let session = SparkAPIKeySession(apiKey: "k", secret: "x", userAgent: "MyApp/2", transport: transport)
        let spark = SparkClient(userAgent: "MyApp/2", auth: session, transport: transport, middleware: [])
        _ = try await spark.get("listings")
        #expect(transport.sent[1].url == "https://sparkapi.com/v1/session")
        #expect(transport.sent[1].head.headerFields[agent] == "MyApp/2")
        #expect(transport.sent[2].head.headerFields[agent] == "MyApp/2")
        #expect(transport.sent[2].head.path?.contains("AuthToken=s1") == true)
    }
}
