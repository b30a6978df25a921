import BinderyJSON
import BinderyMock
import BinderyRuntime
import Foundation
import Spark
import Synchronization

/// Spark's own sign-in on the mock: the OpenID page (`/openid`, hybrid with `openid.spark.combined_flow`) and
/// API-key sessions, whose requests carry `AuthToken` and an `ApiSig` signature instead of a bearer token.
public final class SparkSignInMock: MockSignInExtension {
    private struct State {
        var secrets: [String: String] = [:]  // ApiKey → secret
        var sessions: [String: String] = [:]  // AuthToken → ApiKey
        var trustedSignatures: [String: String] = [:]  // ApiKey → a session signature taken as valid
        /// The signed fields of each assertion issued and not yet verified, by its `openid.sig`: an assertion is
        /// confirmed once, as OpenID 2.0 requires of a provider (section 11.4.2.1).
        var assertions: [String: [String: String]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Lets `key` open API-key sessions signed with `secret`.
    public func registerAPIKey(_ key: String, secret: String) { state.withLock { $0.secrets[key] = secret } }

    /// Takes `signature` as valid for opening a session with `key` (for replaying a recorded session request,
    /// whose secret the mock cannot know).
    public func trustSessionSignature(_ signature: String, forKey key: String) {
        state.withLock { state in
            state.trustedSignatures[key] = signature
            if state.secrets[key] == nil { state.secrets[key] = "" }
        }
    }

    public func handle(
        _ request: MockRequest, segments: [String], identity: MockIdentity, server: MockServer
    ) async -> MockResponse? {
        guard segments == ["openid"] else { return nil }
        if request.method == "POST" { return checkAuthentication(request) }
        guard request.method == "GET" else { return nil }
        // `checkid_setup` answers `id_res` with an identity, and in the hybrid flow an OAuth 2 code to exchange
        // at `/v1/oauth2/grant`; signed, for the app to confirm with `check_authentication`.
        guard let returnTo = request.queryValue("openid.return_to") else {
            return MockResponse(status: 400, json: ["error": "openid.return_to is required"])
        }
        let nonce = ISO8601DateFormatter().string(from: Date()) + PKCE.makeVerifier().prefix(12)
        var parameters = [
            ("openid.ns", "http://specs.openid.net/auth/2.0"), ("openid.mode", "id_res"),
            ("openid.op_endpoint", server.baseURL.appendingPathComponent("openid").absoluteString),
            ("openid.claimed_id", "https://sparkplatform.com/openid/id/mock-user"),
            ("openid.identity", "https://sparkplatform.com/openid/id/mock-user"), ("openid.return_to", returnTo),
            ("openid.response_nonce", nonce), ("openid.assoc_handle", "mock-stateless"),
        ]
        if request.queryValue("openid.spark.combined_flow") == "true" {
            parameters.append(("openid.spark.code", identity.newCode(challenge: nil)))
        }
        parameters += [("openid.sreg.email", "agent@example.com"), ("openid.sreg.fullname", "Mock Agent")]
        // Attribute Exchange, when asked for: each requested type the mock knows, under the app's alias.
        if request.queryValue("openid.ax.mode") == "fetch_request" {
            let known = [
                "http://axschema.org/contact/email": "agent@example.com",
                "http://axschema.org/namePerson": "Mock Agent",
            ]
            parameters += [("openid.ns.ax", "http://openid.net/srv/ax/1.0"), ("openid.ax.mode", "fetch_response")]
            for item in request.query where item.name.hasPrefix("openid.ax.type.") {
                guard let value = known[item.value] else { continue }
                let alias = String(item.name.dropFirst("openid.ax.type.".count))
                parameters += [("openid.ax.type.\(alias)", item.value), ("openid.ax.value.\(alias)", value)]
            }
        }
        let signed = parameters.map(\.0).filter { $0 != "openid.ns" && $0 != "openid.mode" }
        let names = signed.map { String($0.dropFirst("openid.".count)) }
        let signature = PKCE.makeVerifier()
        parameters += [("openid.signed", names.joined(separator: ",")), ("openid.sig", signature)]
        state.withLock { state in
            state.assertions[signature] = Dictionary(
                parameters.filter { signed.contains($0.0) || $0.0 == "openid.signed" }, uniquingKeysWith: { $1 })
        }
        return identity.redirect(to: returnTo, parameters)
    }

    /// `check_authentication`: `is_valid:true` when the posted fields are exactly an assertion the mock issued and
    /// has not confirmed before; `is_valid:false` for anything forged, tampered with or replayed.
    private func checkAuthentication(_ request: MockRequest) -> MockResponse {
        var posted: [String: String] = [:]
        for (name, value) in PercentEncoding.formValues(String(decoding: request.body, as: UTF8.self)) {
            posted[name] = value
        }
        guard posted["openid.mode"] == "check_authentication" else {
            return MockResponse(status: 400, body: Array("error:openid.mode must be check_authentication\n".utf8))
        }
        let valid = state.withLock { state -> Bool in
            guard let signature = posted["openid.sig"], let issued = state.assertions[signature],
                issued.allSatisfy({ posted[$0.key] == $0.value })
            else { return false }
            state.assertions[signature] = nil
            return true
        }
        let body = "ns:http://specs.openid.net/auth/2.0\nis_valid:\(valid)\n"
        return MockResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array(body.utf8))
    }

    /// A request with `AuthToken` is signed: MD5(secret + "ApiKey" + key + "ServicePath" + path + sorted
    /// parameters + body).
    public func check(_ request: MockRequest, identity: MockIdentity) -> MockIdentity.Check? {
        guard let authToken = request.queryValue("AuthToken") else { return nil }
        guard
            let (key, secret) = state.withLock({ state in
                state.sessions[authToken].flatMap { key in state.secrets[key].map { (key, $0) } }
            })
        else {
            return identity.validity(of: authToken) == .expired ? .expired : .missing
        }
        let parameters = request.query.filter { $0.name != "ApiSig" }.map { ($0.name, $0.value) }
        let expected = SparkSignature(apiKey: key, secret: secret)
            .request(
                path: request.path.removingPercentEncoding ?? request.path, parameters: parameters, body: request.body)
        guard request.queryValue("ApiSig") == expected else { return .badSignature }
        return identity.validity(of: authToken)
    }

    /// `POST /v1/session?ApiKey=K&ApiSig=MD5(secret + "ApiKey" + K)`: a session token.
    func openSession(_ request: MockRequest, server: MockServer) -> MockResponse {
        let key = request.queryValue("ApiKey") ?? ""
        let (secret, trusted) = state.withLock { ($0.secrets[key], $0.trustedSignatures[key]) }
        let signature = request.queryValue("ApiSig")
        guard let secret,
            signature == SparkSignature(apiKey: key, secret: secret).session || (trusted != nil && signature == trusted)
        else {
            return server.errorResponse(401, code: "1000", message: "Invalid API key and/or request signed improperly")
        }
        let token = server.identity.issueAccessToken(prefix: "session")
        state.withLock { $0.sessions[token] = key }
        return server.single([
            "AuthToken": .string(token),
            "Expires": .string(MockServer.isoDate(Date(timeIntervalSinceNow: server.identity.lifetime))),
            "Roles": ["idx"],
        ])
    }
}

extension MockIdentity {
    /// Spark's sign-in on this identity, added on first use.
    public var spark: SparkSignInMock {
        if let spark = signIn(SparkSignInMock.self) { return spark }
        add(SparkSignInMock())
        return signIn(SparkSignInMock.self)!
    }

    /// Lets `key` open Spark API-key sessions signed with `secret`.
    public func registerSparkAPIKey(_ key: String, secret: String) { spark.registerAPIKey(key, secret: secret) }
}

extension MockOperation {
    /// Spark `/v1/oauth2/grant`: authorization code (from the OpenID hybrid flow), refresh token, password.
    static let sparkGrant = MockOperation(
        requiresAuthorization: false,
        prepare: { fixture, server in
            if let code = fixture.requestBody?["code"]?.stringValue { server.identity.acceptCode(code) }
            if let refresh = fixture.requestBody?["refresh_token"]?.stringValue {
                server.identity.acceptRefreshToken(refresh)
            }
        },
        handle: { call in
            var grant: [String: String] = [:]
            for member in call.request.json?.objectValue ?? [:] { grant[member.key] = member.value.text }
            return await call.server.identity.token(grant: grant)
        })

    /// Spark `PUT /v1/notifications/{Ids}` with `{"Read": true}`: marks each of the comma-separated notifications the
    /// store holds, and answers success without results (the ids are a list, not one stored item to update).
    static let sparkMarkNotificationsRead = MockOperation { call in
        let read = call.body?["Read"] ?? .bool(true)
        for id in (call.resourcePath.last ?? "").split(separator: ",") {
            _ = call.store.update(at: call.store.locate(["notifications", String(id)]), merging: ["Read": read])
        }
        return MockResponse(status: 200, json: ["D": ["Success": true]])
    }

    /// Spark `/v1/session`: an API-key session (see `MockIdentity.registerSparkAPIKey`).
    static let sparkSession = MockOperation(
        requiresAuthorization: false,
        prepare: { fixture, server in
            let query = Dictionary(fixture.query, uniquingKeysWith: { _, last in last })
            if let key = query["ApiKey"], let signature = query["ApiSig"] {
                server.identity.spark.trustSessionSignature(signature, forKey: key)
            }
        },
        handle: { call in
            call.server.identity.spark.openSession(call.request, server: call.server)
        })
}

/// Spark's writes: creates that take a list, a cart's listings and a listing's private note.
extension MockOperation {
    /// Creates every item of the request's list (`{"D": {"Contacts": [...]}}` for `member` "Contacts"), each
    /// with a new 26-digit id, and answers 201 with where each one lives: `[{"ResourceUri": "/v1/contacts/…"}]`.
    static func sparkCreateEach(_ member: String) -> MockOperation {
        MockOperation { call in
            guard let items = call.body?[member]?.arrayValue, !items.isEmpty,
                items.allSatisfy({ $0.objectValue != nil })
            else {
                return call.server.errorResponse(
                    400, code: "1050", message: "\(member) is required: a list of the items to create")
            }
            var created: [JSONValue] = []
            for case .object(var item) in items {
                let id = SparkIDs.next()
                let uri = call.request.path + "/" + id
                item["ResourceUri"] = .string(uri)
                // A cart counts the listings it holds.
                if let listings = item["ListingIds"]?.arrayValue {
                    item["ListingCount"] = .number(JSONNumber(listings.count))
                }
                call.store.insert(item, into: call.resourcePath, key: id, idMember: "Id")
                created.append(["ResourceUri": .string(uri)])
            }
            return sparkResults(created, status: 201)
        }
    }

    /// `POST /listingcarts/{Id} {"ListingIds"}`: the cart's listings are a set; `ListingCount` follows them.
    static let sparkAddCartListings = MockOperation { call in
        let cart = call.store.locate(call.resourcePath)
        let adding = call.body?["ListingIds"]?.arrayValue?.compactMap(\.text) ?? []
        guard let updated = setCartListings(at: cart, call.store, { ids in ids += adding.filter { !ids.contains($0) } })
        else { return call.server.errorResponse(404, code: "itemNotFound", message: "no such listing cart") }
        return call.server.single(updated)
    }

    /// `DELETE /listingcarts/{Id}/listings/{ListingId}`: takes one listing out of the cart.
    static let sparkRemoveCartListing = MockOperation { call in
        let cart = call.store.locate(Array(call.resourcePath.dropLast(2)))
        let listing = call.resourcePath.last ?? ""
        guard let updated = setCartListings(at: cart, call.store, { $0.removeAll { $0 == listing } }) else {
            return call.server.errorResponse(404, code: "itemNotFound", message: "no such listing cart")
        }
        return sparkResults([["ListingCount": updated["ListingCount"] ?? 0]])
    }

    /// The cart at `path` with its `ListingIds` changed and counted; nil when there is no cart.
    private static func setCartListings(at path: [String], _ store: MockStore, _ change: (inout [String]) -> Void)
        -> JSONObject?
    {
        guard let cart = store.object(at: path) else { return nil }
        var ids = cart["ListingIds"]?.arrayValue?.compactMap(\.text) ?? []
        change(&ids)
        return store.update(
            at: path,
            merging: ["ListingIds": .array(ids.map { .string($0) }), "ListingCount": .number(JSONNumber(ids.count))])
    }

    /// `PUT /listings/{Id}/my/notes {"Note"}`: the user's one note on the listing, replaced on every save.
    static let sparkSaveMyNotes = MockOperation { call in
        guard let text = call.body?["Note"]?.text else {
            return call.server.errorResponse(400, code: "1050", message: "Note is required")
        }
        // One note a listing: stored under one key, which a new save replaces.
        let note: JSONObject = ["Note": .string(text), "ResourceUri": .string(call.request.path)]
        call.store.insert(note, into: call.resourcePath + ["notes"], key: "my", idMember: "Id")
        return sparkResults([.object(note)])
    }

    /// `GET /listings/{Id}/my/notes`: the note, or no results when there is none.
    static let sparkMyNotes = MockOperation { call in
        let notes = call.store.items(in: call.resourcePath + ["notes"]).map { item in
            var note = item.object
            note["Id"] = nil
            return JSONValue.object(note)
        }
        return sparkResults(notes)
    }

    /// `DELETE /listings/{Id}/my/notes`.
    static let sparkDeleteMyNotes = MockOperation { call in
        let notes = call.resourcePath + ["notes"]
        for key in call.store.keys(in: notes) { call.store.remove(at: notes + [key]) }
        return sparkResults([])
    }

    /// `GET /notifications/unread` (and its `_pagination=count`): the notifications not yet read, paged.
    static let sparkUnreadNotifications = MockOperation { call in
        let unread = call.store.items(in: call.resourcePath).map(\.object).filter {
            $0["Read"]?.boolValue != true && $0["Read"]?.stringValue != "true"
        }
        return call.server.page(unread, call.request, path: call.resourcePath)
    }

    /// `GET /contacts/tags/{TagName}`, `GET /accounts/by/office/{OfficeId}`: the collection's items whose `member`
    /// is the path's last segment, or holds it when it is a list, paged as the collection is.
    static func sparkItems(where member: String) -> MockOperation {
        MockOperation { call in
            let key = call.request.segments.last ?? ""
            let matching = call.store.items(in: call.resourcePath).map(\.object).filter { item in
                switch item[member] {
                case .string(let value)?: value == key
                case .array(let values)?: values.contains { $0.stringValue == key }
                default: false
                }
            }
            return call.server.page(matching, call.request, path: call.resourcePath)
        }
    }

    /// `GET /contacts/tags`: every tag on a stored contact, in order, each with the path of its contacts.
    static let sparkContactTags = MockOperation { call in
        var tags: [String] = []
        for contact in call.store.items(in: call.resourcePath) {
            for tag in contact.object["Tags"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !tags.contains(tag) {
                tags.append(tag)
            }
        }
        let segment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        return sparkResults(
            tags.sorted().map { tag in
                let encoded = tag.addingPercentEncoding(withAllowedCharacters: segment) ?? tag
                return ["Tag": .string(tag), "ResourceUri": .string("/v1/contacts/tags/" + encoded)]
            })
    }

    /// `PUT /flexmls/listings/{Id}`: the new price or expiration date is written to a stored listing's standard
    /// fields. An expiration date that is not in the future breaks the documented constraint: 400, code 1053, and
    /// the constraint in `Details`, keyed by the field. A listing the mock does not hold answers as the fixture does,
    /// and so does the conformance replay, whose sample date (2017) the constraint would refuse: before it, the
    /// fixture's listing is let go.
    static let sparkUpdateFlexmlsListing = MockOperation(prepare: letFixtureListingGo) { call in
        let path = ["listings", call.request.segments.last ?? ""]
        guard var listing = call.store.object(at: path) else { return call.fixtureAnswer() }
        guard case .object(let changes)? = call.body else {
            return call.server.errorResponse(400, code: "1040", message: "the body must be an object")
        }
        let today = SparkIDs.utcNow("yyyy-MM-dd")
        if let date = changes["ExpirationDate"]?.stringValue, date <= today {
            let broken: JSONValue = ["RuleName": "MinValue", "RuleValue": .string(today), "Value": .string(date)]
            return MockResponse(
                status: 400,
                json: [
                    "D": [
                        "Success": false, "Code": 1053, "Message": "The change fails the listing's constraints",
                        "Details": [["ExpirationDate": [broken]]],
                    ]
                ])
        }
        var fields = listing["StandardFields"]?.objectValue ?? [:]
        for member in changes.members { fields[member.key] = member.value }
        listing["StandardFields"] = .object(fields)
        call.store.set(listing, at: path)
        return MockResponse(json: ["D": ["Success": true]])
    }

    @Sendable static func letFixtureListingGo(_ fixture: MockFixture, _ server: MockServer) {
        server.store.remove(at: ["listings", fixture.segments.last ?? ""])
    }

    /// A successful answer with these results: `{"D": {"Success": true, "Results": [...]}}`.
    static func sparkResults(_ results: [JSONValue], status: Int = 200) -> MockResponse {
        MockResponse(status: status, json: ["D": ["Success": true, "Results": .array(results)]])
    }
}

/// Spark's ids: 26 digits, the time of creation to the second and then digits that tell apart what was made in it
/// (`20100815220615294367000000`).
enum SparkIDs {
    static func next() -> String {
        let distinct = String(UInt64.random(in: 0..<1_000_000_000_000))
        return utcNow("yyyyMMddHHmmss") + String(repeating: "0", count: 12 - distinct.count) + distinct
    }

    /// The present moment in UTC, written with `format` (`yyyy-MM-dd` for Spark's dates).
    static func utcNow(_ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date())
    }
}
