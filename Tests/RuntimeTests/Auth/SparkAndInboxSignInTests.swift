import Foundation
import Inbox
import Spark
import Testing

@testable import BinderyRuntime

/// Spark's OAuth 2 grants and Inbox's Basic token, end to end against loopback stand-ins.
@Suite struct SparkAndInboxSignInTests {
    func account(_ spark: SparkStandIn, auth: any AuthProvider, log: CapturedLog) async throws -> String? {
        try await spark.accountName(middleware: [
            HeadersMiddleware(), LoggingMiddleware(logger: log.logger()), AuthMiddleware(auth),
        ])
    }

    @Test func hybridSignInThenRenewalOn1020() async throws {
        let spark = try await SparkStandIn()
        let ledger = spark.ledger
        defer { Task { await spark.stop() } }
        let log = CapturedLog()
        let sparkSignIn = spark.signIn
        let callback = spark.callback(code: "c0de")
        let token = try await sparkSignIn.completeHybrid(
            callback: callback, account: "ada", transport: loopbackTransport())
        #expect(token.accessToken == "spark-access-1")
        #expect(token.expiresAt.map { $0.timeIntervalSinceNow > 86000 } == true, "expires_in arrives as a string")

        let store = MemoryTokenStore([token])
        let session = sparkSignIn.session(account: "ada", store: store, transport: loopbackTransport())
        #expect(try await account(spark, auth: session, log: log) == "Ada")
        ledger.expireAll()
        #expect(try await account(spark, auth: session, log: log) == "Ada", "1020 → refresh → replay")
        #expect(ledger.grants == ["authorization_code", "refresh_token"])
        #expect(store.load(account: "ada")?.refreshToken == "spark-refresh-2", "the rotated refresh token was stored")
        assertNoSecrets(in: log, ["spark-access-", "spark-refresh-", "c0de"])
    }

    @Test func passwordGrantAndARefusedCancel() async throws {
        let spark = try await SparkStandIn()
        let ledger = spark.ledger
        defer { Task { await spark.stop() } }
        let sparkSignIn = spark.signIn
        let token = try await OAuth2Client(sparkSignIn.oauth, transport: loopbackTransport()).password(
            username: "ada", password: "pw-secret")
        #expect(token.account == "ada")
        #expect(ledger.grants == ["password"])
        let cancelled = await #expect(throws: BinderyError.self) {
            _ = try await sparkSignIn.completeHybrid(
                callback: URL(string: "https://app.example.com/cb?openid.mode=cancel")!, account: "ada",
                transport: loopbackTransport())
        }
        #expect(cancelled?.serviceCode == "cancel")
    }

    @Test func inboxSendsTheTokenAsTheBasicUserName() async throws {
        let server = try await inboxStandIn(token: "inbox-token")
        defer { Task { await server.stop() } }
        let client = ServiceClient(
            baseURL: server.baseURL, transport: loopbackTransport(),
            middleware: [AuthMiddleware(InboxSignIn.auth(token: "inbox-token"))],
            conventions: ServiceConventions(listShape: .bare, paging: .none, errors: InboxClient.conventions.errors))
        let response = try await client.send(APIRequest(method: .get, path: ResourcePath("n")))
        #expect(try response.json().arrayValue?.first?["id"] == "ns1")
    }
}
