import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Inbox
import Spark
import Testing

/// Spark's and Inbox's writes on the mock, over HTTP through the generated clients, as the services document them.
/// Spark creates every item of a request's list (`{"D": {"Contacts": [...]}}`) and answers where each one lives;
/// a cart's listings are a set that `ListingCount` follows; a listing's private note is saved, read and deleted.
/// Inbox drafts take a new version on every change and refuse a stale one; reading a message clears its thread's
/// `unread` tag once no message of it is unread; system tags cannot be renamed; a sent draft is a message of a
/// thread tagged `sent`.
@Suite struct MockWriteFidelityTests {
    static func spark(_ mock: MockServer) -> SparkClient {
        SparkClient(
            userAgent: "Bindery tests", baseURL: mock.serviceURL,
            auth: StaticTokenAuth(mock.identity.acceptedToken, scheme: .oauth))
    }

    static func inbox(_ mock: MockServer) -> NamespaceRequestBuilder {
        InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken))
            .namespaces("ns")
    }

    // MARK: Spark

    @Test func sparkCreatesEveryContactOfTheListAndSaysWhereEachLives() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let spark = Self.spark(mock)
        var request = NewContacts()
        request.contacts = ["Jane Buyer", "Joe Seller"].map { name in
            var contact = Spark.Contact()
            contact.displayName = name
            return contact
        }
        let created = try await spark.contacts.createContacts(request).send()
        #expect(created.count == 2)
        let listed = try await spark.contacts.list().get().value
        #expect(listed.compactMap(\.displayName).sorted() == ["Jane Buyer", "Joe Seller"])
        // Each answer is the new contact's path, and its id is one of Spark's 26 digits.
        for contact in listed {
            let id = try #require(contact.id)
            #expect(id.count == 26 && id.allSatisfy(\.isNumber))
            #expect(created.contains { $0.resourceUri == "/v1/contacts/\(id)" })
        }
        // The list member is the request's envelope, never a stored member.
        #expect(listed.allSatisfy { $0.additionalData["Contacts"] == nil })
    }

    /// `contacts/tags/{TagName}` and `accounts/by/office/{OfficeId}`: the collection filtered by the path, paged.
    @Test func sparkListsContactsByTagAndAccountsByOffice() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let spark = Self.spark(mock)
        for (name, tags) in [("Ann", ["Current Buyers", "VIP"]), ("Bob", ["VIP"]), ("Cy", [])] {
            mock.store.insert(
                ["DisplayName": .string(name), "Tags": .array(tags.map { .string($0) })], into: ["contacts"])
        }
        for (name, office) in [("Dee", "20000000000000000000000001"), ("Eve", "20000000000000000000000002")] {
            mock.store.insert(["Name": .string(name), "OfficeId": .string(office)], into: ["accounts"])
        }
        let buyers = try await spark.contacts.listByTag(tagName: "Current Buyers").get().value
        #expect(buyers.compactMap(\.displayName) == ["Ann"])
        #expect(try Self.sentPath(mock) == "/contacts/tags/Current Buyers")
        var vip: [String] = []
        for try await contact in spark.contacts.listByTag(tagName: "VIP", limit: 1).all() {
            vip += [contact.displayName ?? ""]
        }
        #expect(vip.sorted() == ["Ann", "Bob"], "two pages of one")
        let members = try await spark.accounts.listByOffice(officeId: "20000000000000000000000002").get().value
        #expect(members.compactMap(\.name) == ["Eve"])
        // The literals before the key stay what they were: `contacts/tags` lists the tags in use, each with the path
        // of its contacts.
        let tags = try await spark.contacts.listContactTags().send().value
        #expect(tags.compactMap(\.tag) == ["Current Buyers", "VIP"])
        #expect(tags.first?.resourceUri == "/v1/contacts/tags/Current%20Buyers")
    }

    /// `PUT /flexmls/listings/{Id}`: a new price lands in the listing; an expiration date that is not in the future
    /// is refused with code 1053 and the broken constraint in the error's details.
    @Test func aFlexmlsUpdateChangesThePriceWithinTheListingsConstraints() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let spark = Self.spark(mock)
        let id = "20100000000000000000000001"
        mock.store.insert(["Id": .string(id), "StandardFields": ["ListPrice": 100000]], into: ["listings"], key: id)
        var raise = FlexmlsListingChanges()
        raise.listPrice = 120000
        try await spark.flexmls.listings(id).updateFlexmlsListing(raise).send()
        let listing = try #require(try await spark.listings(id).getListing().send().value.first)
        #expect(listing.standardFields?.listPrice == 120000)

        var late = FlexmlsListingChanges()
        late.expirationDate = CalendarDate(year: 2001, month: 1, day: 1)
        do {
            try await spark.flexmls.listings(id).updateFlexmlsListing(late).send()
            Issue.record("an expiration date in the past was accepted")
        } catch {
            #expect(error.serviceCode == "1053")
            let broken = error.details?.arrayValue?.first?["ExpirationDate"]?.arrayValue?.first
            #expect(broken?["RuleName"] == "MinValue", "\(String(describing: error.details))")
        }
        #expect(mock.store.object(at: ["listings", id])?["StandardFields"]?["ExpirationDate"] == nil)
    }

    /// The path of the mock's last request below the service root, as sent.
    static func sentPath(_ mock: MockServer) throws -> String {
        let request = try #require(mock.requests.last)
        return String(request.path.dropFirst(mock.serviceURL.path.count))
    }

    @Test func aCartsListingsAreASetThatItsCountFollows() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let spark = Self.spark(mock)
        var carts = NewListingCarts()
        var cart = ListingCart()
        cart.name = "Favourites"
        cart.listingIds = ["20060412165917817933000000"]
        carts.listingCarts = [cart]
        let created = try await spark.listingCarts.createListingCarts(carts).send()
        let uri = try #require(created.first?.resourceUri)
        let id = String(try #require(uri.split(separator: "/").last))

        var more = ListingIdList()
        more.listingIds = ["20060412165917817933000000", "20100101000000000000000001"]
        let added = try await spark.listingCarts(id).addCartListings(more).send()
        #expect(added.first?.listingIds == ["20060412165917817933000000", "20100101000000000000000001"])
        #expect(added.first?.listingCount == 2)

        try await spark.listingCarts(id).listings("20060412165917817933000000").request().delete()
        let after = try #require(try await spark.listingCarts.list().get().value.first { $0.id == id })
        #expect(after.listingIds == ["20100101000000000000000001"])
        #expect(after.listingCount == 1)
    }

    @Test func aListingsPrivateNoteIsSavedReadAndDeleted() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let spark = Self.spark(mock)
        let listing = spark.listings("20060412165917817933000000")
        var note = Note()
        note.note = "Ask about the roof"
        let saved = try await listing.my.saveMyNotes(note).send()
        #expect(saved.first?.note == "Ask about the roof")
        note.note = "Roof redone in 2019"
        _ = try await listing.my.saveMyNotes(note).send()
        let read = try await listing.my.getMyNotes().get().value
        #expect(read.map(\.note) == ["Roof redone in 2019"])

        try await listing.my.deleteMyNotes().send()
        #expect(try await listing.my.getMyNotes().get().value.isEmpty)
    }

    // MARK: Inbox

    @Test func aDraftTakesANewVersionOnEveryChangeAndRefusesAStaleOne() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let space = Self.inbox(mock)
        var draft = Draft()
        draft.subject = "Plans"
        let created = try await space.drafts.request().add(draft)
        #expect(created.version == 0 && created.object == "draft")
        let id = try #require(created.id)

        var change = Draft()
        change.subject = "Plans for Friday"
        change.version = 0
        let changed = try #require(try await space.drafts(id).request().replace(change))
        #expect(changed.version == 1 && changed.subject == "Plans for Friday")

        // A change made from version 0 again was made without seeing version 1.
        let stale = await #expect(throws: BinderyError.self) { try await space.drafts(id).request().replace(change) }
        #expect(stale?.status == 409)
        #expect(try await space.drafts(id).request().get().subject == "Plans for Friday")
    }

    @Test func readingTheLastUnreadMessageClearsItsThreadsUnreadTag() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let tags: JSONValue = [["id": "inbox", "name": "inbox"], ["id": "unread", "name": "unread"]]
        mock.store.insert(
            ["object": "thread", "subject": "Lunch", "tags": tags, "message_ids": ["a", "b"]],
            into: ["n", "ns", "threads"], key: "t1")
        for key in ["a", "b"] {
            mock.store.insert(
                ["object": "message", "thread_id": "t1", "subject": "Lunch", "unread": true],
                into: ["n", "ns", "messages"], key: key)
        }
        let space = Self.inbox(mock)
        var read = MessageChanges()
        read.unread = false

        let first = try await space.messages("a").update(read).send()
        #expect(first.unread == false)
        let thread = try await space.threads("t1").request().get()
        #expect(thread.tags?.compactMap(\.name) == ["inbox", "unread"], "b is still unread")

        _ = try await space.messages("b").update(read).send()
        let done = try await space.threads("t1").request().get()
        #expect(done.tags?.compactMap(\.name) == ["inbox"])
        #expect(try await space.threads.list(tag: "unread").get().value.isEmpty)
    }

    @Test func aUserTagIsCreatedAndRenamedButASystemTagIsNot() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        mock.store.insert(
            ["object": "tag", "name": "inbox", "readonly": false], into: ["n", "ns", "tags"], key: "inbox")
        let space = Self.inbox(mock)
        var name = TagName()
        name.name = "Receipts"
        let tag = try await space.tags.createTag(name).send()
        #expect(tag.name == "Receipts" && tag.object == "tag" && tag.namespaceId == "ns")
        let id = try #require(tag.id)
        #expect(id != "Receipts", "a user tag has an id of its own")

        name.name = "Invoices"
        #expect(try await space.tags(id).rename(name).send().name == "Invoices")
        let refused = await #expect(throws: BinderyError.self) { try await space.tags("inbox").rename(name).send() }
        #expect(refused?.status == 400)
        let names = try await space.tags.list().get().value.compactMap(\.name).sorted()
        #expect(names == ["Invoices", "inbox"])

        // A name already taken is refused too.
        let taken = await #expect(throws: BinderyError.self) { try await space.tags.createTag(name).send() }
        #expect(taken?.status == 400)
    }

    @Test func aSentDraftIsAMessageOfAThreadTaggedSent() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let space = Self.inbox(mock)
        var draft = Draft()
        draft.subject = "Minutes"
        let created = try await space.drafts.request().add(draft)
        let id = try #require(created.id)
        let threadID = try #require(created.threadId, "a new draft starts a thread")

        var outgoing = Outgoing()
        outgoing.draftId = id
        outgoing.version = created.version
        let sent = try await space.send(outgoing).send()
        #expect(sent.object == "message" && sent.threadId == threadID)

        #expect(try await space.drafts.list().get().value.isEmpty)
        let thread = try await space.threads(threadID).request().get()
        #expect(thread.tags?.compactMap(\.name) == ["sent"])
        #expect(thread.messageIds == [sent.id].compactMap { $0 })
        #expect(thread.draftIds?.isEmpty ?? true)
    }
}
