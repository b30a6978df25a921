import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import HTTPTypes
import Inbox
import Testing

/// Inbox's hosted OAuth end to end against the mock's `/oauth` endpoints: both documented flows reach a stored
/// token that the API accepts, and a callback from another sign-in is refused.
@Suite struct InboxHostedSignInTests {
    static func signIn(_ mock: MockServer) -> InboxHostedSignIn {
        InboxHostedSignIn(
            clientID: "inbox-app", clientSecret: "inbox-secret", redirectURI: "https://app.example.com/inbox",
            base: mock.baseURL)
    }

    static func callback(for url: URL) async throws -> URL { try await browserRedirect(for: url) }

    /// The token works: the namespaces of the account, with `Authorization: Basic base64(token:)`.
    static func expectAccepted(_ token: Token, by mock: MockServer) async throws {
        let client = InboxClient(baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: token.accessToken))
        _ = try await client.namespaces.request().get()
    }

    @Test(arguments: [InboxHostedSignIn.Flow.code, .token])
    func aHostedSignInStoresATokenTheAPIAccepts(flow: InboxHostedSignIn.Flow) async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let signIn = Self.signIn(mock)
        let request = signIn.authorizationRequest(email: "ada@example.com", flow: flow)
        let query = Dictionary(OAuth2Client.formValues(in: request.url), uniquingKeysWith: { first, _ in first })
        #expect(query["response_type"] == (flow == .code ? "code" : "token"))
        #expect(query["login_hint"] == "ada@example.com" && query["state"] == request.state)

        let callback = try await Self.callback(for: request.url)
        let store = MemoryTokenStore()
        let token = try await signIn.complete(
            callback: callback, for: request, email: "ada@example.com", store: store)
        #expect(store.load(account: "ada@example.com") == token)
        let exchanges = mock.requests.filter { $0.path.hasSuffix("/oauth/token") }.count
        #expect(exchanges == (flow == .code ? 1 : 0), "only the code flow exchanges anything")
        try await Self.expectAccepted(token, by: mock)
    }

    @Test func aCallbackFromAnotherSignInIsRefused() async throws {
        let mock = try await MockServer(.inbox)
        defer { Task { await mock.stop() } }
        let signIn = Self.signIn(mock)
        for flow in [InboxHostedSignIn.Flow.code, .token] {
            let started = signIn.authorizationRequest(email: "ada@example.com", flow: flow)
            let other = signIn.authorizationRequest(email: "ada@example.com", flow: flow)
            let callback = try await Self.callback(for: other.url)
            let store = MemoryTokenStore()
            let refused = await #expect(throws: BinderyError.self) {
                _ = try await signIn.complete(callback: callback, for: started, email: "ada@example.com", store: store)
            }
            #expect(refused?.kind == .authorization)
            #expect(store.load(account: "ada@example.com") == nil, "nothing stored")
        }
        #expect(!mock.requests.contains { $0.path.hasSuffix("/oauth/token") }, "no code exchanged")
    }
}
