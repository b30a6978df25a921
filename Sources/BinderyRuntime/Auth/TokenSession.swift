import Foundation

/// An account's OAuth 2.0 session: the token it authorizes requests with, silent renewal, and the
/// store it keeps the token in. The `AuthProvider` for Microsoft, Spark and Nylas clients.
///
/// Renewal is single-flight: however many requests find the token expired (or are told so by a 401
/// or Spark's 1020) at the same time, one refresh runs and every one of them waits for it. When
/// the refresh token is refused (`invalid_grant`), the stored token is removed and callers get
/// `interactionRequired`: the user must sign in again.
public final class TokenSession: AuthProvider {
    public let account: String
    public let store: any TokenStore
    public let scheme: AuthorizationScheme
    /// A token this close to its expiry is renewed before use.
    public let margin: Duration
    private let trigger: RenewalTrigger
    private let refresher: @Sendable (Token) async throws -> Token
    private let state: State

    /// - Parameters:
    ///   - account: Whose token this session uses: its key in `store`.
    ///   - store: Where the token is loaded from and each renewed token is saved.
    ///   - scheme: How the access token is written into the `Authorization` header.
    ///   - margin: A token this close to its expiry is renewed before use.
    ///   - trigger: Which responses mean the session expired.
    ///   - refresher: Exchanges a token's refresh token for a new token (`OAuth2Client.refresh`).
    public init(
        account: String, store: any TokenStore, scheme: AuthorizationScheme = .bearer, margin: Duration = .seconds(300),
        renewOn trigger: RenewalTrigger = .unauthorized, refresher: @escaping @Sendable (Token) async throws -> Token
    ) {
        self.account = account
        self.store = store
        self.scheme = scheme
        self.margin = margin
        self.trigger = trigger
        self.refresher = refresher
        self.state = State()
    }

    /// ADAL's `acquireTokenSilent`: the stored token while it is valid, otherwise a refreshed one,
    /// otherwise `interactionRequired`.
    public func token() async throws -> Token {
        try await state.validToken(session: self)
    }

    /// How many refreshes this session has run (for diagnostics and tests).
    public var refreshCount: Int { get async { await state.refreshes } }

    public func authorize(_ request: inout TransportRequest) async throws {
        let token = try await token()
        request.head.headerFields[.authorization] = scheme.header(for: token.accessToken)
    }

    public func shouldRenew(after response: APIResponse) -> Bool { trigger.matches(response) }

    public func renew(rejected request: TransportRequest) async throws -> Bool {
        let used = request.head.headerFields[.authorization]
        return try await state.renew(session: self, rejectedHeader: used)
    }

    /// The state behind the session. An actor, so that the check "is a refresh already running?"
    /// and starting one cannot interleave.
    private actor State {
        var cached: Token?
        var renewal: Task<Token, any Error>?
        var refreshes = 0

        func current(_ session: TokenSession) throws -> Token? {
            if cached == nil { cached = try session.store.load(account: session.account) }
            return cached
        }

        func validToken(session: TokenSession) async throws -> Token {
            if let token = try current(session), token.isValid(margin: session.margin) { return token }
            return try await refresh(session: session)
        }

        func renew(session: TokenSession, rejectedHeader: String?) async throws -> Bool {
            guard let token = try current(session) else { return false }
            // Someone renewed while this request was in flight: its replay uses the new token.
            if session.scheme.header(for: token.accessToken) != rejectedHeader { return true }
            guard token.refreshToken != nil || renewal != nil else { return false }
            _ = try await refresh(session: session)
            return true
        }

        private func refresh(session: TokenSession) async throws -> Token {
            if let renewal { return try await renewal.value }
            guard let token = try current(session), token.refreshToken != nil else {
                throw BinderyError(
                    kind: .interactionRequired, message: "no valid token for \(session.account); sign in")
            }
            let task = Task { try await session.refresher(token) }
            renewal = task
            refreshes += 1
            defer { renewal = nil }
            do {
                var renewed = try await task.value
                // A service that does not rotate refresh tokens sends none back: keep the old one.
                if renewed.refreshToken == nil { renewed.refreshToken = token.refreshToken }
                renewed.account = session.account
                try session.store.save(renewed)
                cached = renewed
                return renewed
            } catch let error as BinderyError where error.kind == .authorization && error.serviceCode == "invalid_grant"
            {
                cached = nil
                try? session.store.remove(account: session.account)
                throw BinderyError(
                    kind: .interactionRequired,
                    message: "the refresh token for \(session.account) was refused; sign in again",
                    serviceCode: error.serviceCode, underlying: error)
            }
        }
    }
}
