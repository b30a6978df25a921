import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import HTTPTypes
import Spark
import Testing

/// Spark's OpenID sign-in against the mock's provider: a callback is believed only once the provider confirms it
/// (`check_authentication`), for this app's redirect URI, with a nonce never used before. Forged, tampered and
/// replayed callbacks are refused with a typed error, and no code is exchanged.
@Suite struct SparkOpenIDTests {
    static let redirect = "https://app.example.com/cb"

    static func signIn(_ mock: MockServer) -> SparkSignIn {
        SparkSignIn(
            clientID: "bindery-demo", clientSecret: "demo-secret", redirectURI: redirect, openIDBase: mock.baseURL,
            apiBase: mock.baseURL, userAgent: "Bindery tests")
    }

    static func callback(for url: URL) async throws -> URL { try await browserRedirect(for: url) }

    /// `url` with the value of `name` replaced.
    static func replacing(_ name: String, with value: String, in url: URL) -> URL {
        let fields = OAuth2Client.formValues(in: url).map { $0.0 == name ? ($0.0, value) : $0 }
        return OAuth2Client.url(URL(string: redirect)!, adding: fields)
    }

    static func grants(_ mock: MockServer) -> Int { mock.requests.filter { $0.path.hasSuffix("/oauth2/grant") }.count }

    @Test func aConfirmedCallbackSignsInOnceAndNeverAgain() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let signIn = Self.signIn(mock)
        let nonces = OpenIDNonces()
        let callback = try await Self.callback(for: signIn.hybridURL())
        let token = try await signIn.completeHybrid(callback: callback, account: "agent", nonces: nonces)
        #expect(!token.accessToken.isEmpty)
        #expect(mock.requests.contains { $0.method == "POST" && $0.path.hasSuffix("/openid") })
        #expect(Self.grants(mock) == 1)

        // The same callback again (from a browser's history, or an attacker who saw it): refused here, and the
        // provider would not confirm it twice either.
        let replayed = await #expect(throws: BinderyError.self) {
            _ = try await signIn.completeHybrid(callback: callback, account: "agent", nonces: nonces)
        }
        #expect(replayed?.kind == .authorization && replayed?.serviceCode == "openid.response_nonce")
        let elsewhere = await #expect(throws: BinderyError.self) {
            _ = try await signIn.completeHybrid(callback: callback, account: "agent", nonces: OpenIDNonces())
        }
        #expect(elsewhere?.serviceCode == "openid.check_authentication", "the provider confirms an assertion once")
        #expect(Self.grants(mock) == 1)
    }

    @Test func forgedAndTamperedCallbacksAreRefused() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let signIn = Self.signIn(mock)
        let real = try await Self.callback(for: signIn.hybridURL())

        // Someone else's identity in a real assertion.
        let tampered = Self.replacing("openid.claimed_id", with: "https://sparkplatform.com/openid/id/admin", in: real)
        // An assertion the provider never made.
        let nonce = ISO8601DateFormatter().string(from: Date()) + "forged"
        let forged = OAuth2Client.url(
            URL(string: Self.redirect)!,
            adding: [
                ("openid.mode", "id_res"), ("openid.claimed_id", "https://sparkplatform.com/openid/id/admin"),
                ("openid.spark.code", "guessed"), ("openid.return_to", Self.redirect),
                ("openid.response_nonce", nonce), ("openid.signed", "claimed_id,return_to"), ("openid.sig", "made-up"),
            ])
        for (callback, check) in [(tampered, "openid.check_authentication"), (forged, "openid.signed")] {
            let refused = await #expect(throws: BinderyError.self) {
                _ = try await signIn.completeHybrid(callback: callback, account: "agent", nonces: OpenIDNonces())
            }
            #expect(refused?.kind == .authorization && refused?.serviceCode == check)
        }
        // A field repeated (read one way here, another by the provider), and a signed list that leaves the
        // identity out, are refused before the provider is asked.
        let repeated = URL(
            string: real.absoluteString + "&openid.claimed_id=https://sparkplatform.com/openid/id/admin")!
        let unsigned = Self.replacing(
            "openid.signed", with: "return_to,response_nonce,op_endpoint,assoc_handle", in: real)
        for callback in [repeated, unsigned] {
            let refused = await #expect(throws: BinderyError.self) {
                _ = try await signIn.completeHybrid(callback: callback, account: "agent", nonces: OpenIDNonces())
            }
            #expect(refused?.serviceCode == "openid.signed")
        }
        // Made for another app: refused before the provider is asked.
        let asked = mock.requests.count
        let otherApp = Self.replacing("openid.return_to", with: "https://evil.example/cb", in: real)
        let misdirected = await #expect(throws: BinderyError.self) {
            _ = try await signIn.completeHybrid(callback: otherApp, account: "agent", nonces: OpenIDNonces())
        }
        #expect(misdirected?.serviceCode == "openid.return_to")
        #expect(mock.requests.count == asked)
        // Stale: a nonce from an hour ago.
        let stale = Self.replacing("openid.response_nonce", with: "2026-01-01T00:00:00Zold", in: real)
        let old = await #expect(throws: BinderyError.self) {
            _ = try await signIn.completeHybrid(callback: stale, account: "agent", nonces: OpenIDNonces())
        }
        #expect(old?.serviceCode == "openid.response_nonce")
        #expect(Self.grants(mock) == 0, "no refused callback's code was exchanged")

        // The real one still works: refusals used up nothing.
        _ = try await signIn.completeHybrid(callback: real, account: "agent", nonces: OpenIDNonces())
        #expect(Self.grants(mock) == 1)
    }

    /// Plain OpenID asks for attributes with Simple Registration and Attribute Exchange; the verified callback
    /// carries both.
    @Test func plainOpenIDRequestsAttributesBothWays() async throws {
        let mock = try await MockServer(.spark)
        defer { Task { await mock.stop() } }
        let signIn = Self.signIn(mock)
        let url = signIn.openIDURL(requiredAttributes: ["email", "fullname"])
        let query = Dictionary(OAuth2Client.formValues(in: url), uniquingKeysWith: { first, _ in first })
        #expect(query["openid.sreg.required"] == "email,fullname")
        #expect(query["openid.ax.mode"] == "fetch_request" && query["openid.ax.required"] == "email,fullname")
        #expect(query["openid.ax.type.email"] == "http://axschema.org/contact/email")

        let signedCallback = try await Self.callback(for: url)
        #expect(
            OAuth2Client.formValues(in: signedCallback).contains {
                $0 == ("openid.ax.value.email", "agent@example.com")
            })
        // An attribute someone added to the URL: not signed, so not believed.
        let callback = URL(string: signedCallback.absoluteString + "&openid.ax.value.role=admin")!
        let result = try await signIn.completeOpenID(callback: callback, nonces: OpenIDNonces())
        guard case .identity(let identity, let attributes) = result else {
            Issue.record("expected an identity, got \(result)")
            return
        }
        #expect(identity == "https://sparkplatform.com/openid/id/mock-user")
        #expect(attributes["email"] == "agent@example.com" && attributes["fullname"] == "Mock Agent")
        #expect(attributes["role"] == nil, "an unsigned attribute is dropped")
    }
}

/// Where a sign-in page sends the browser back to: the mock's redirect (302) for `url`, not followed.
func browserRedirect(for url: URL) async throws -> URL {
    let answer = try await DefaultTransport.shared.send(TransportRequest(HTTPRequest(method: .get, url: url)))
    #expect(answer.status.code == 302)
    return try #require(answer.headers[.location].flatMap(URL.init(string:)))
}
