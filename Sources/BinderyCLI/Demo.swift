import ArgumentParser
import BinderyJSON
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import Graph
import Inbox
import InboxOffline
import Logging
import MicrosoftIdentity
import OneDrive
import OneNote
import OneNotePicker
import Spark

/// `bindery demo`: the typed library as a user writes it, against the embedded mock server (one per service,
/// on 127.0.0.1), or against the real services for whichever credentials are in the environment.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walks through the five generated clients against the embedded mock server.",
        discussion: """
            Every step goes over real HTTP (libcurl) to a mock server on 127.0.0.1 that this command starts and \
            stops. With credentials in the environment a step talks to the real service instead:
              BINDERY_MS_CLIENT_ID        Graph, OneDrive, OneNote (device-code sign-in; add BINDERY_MS_TENANT)
              BINDERY_SPARK_CLIENT_ID, BINDERY_SPARK_CLIENT_SECRET, BINDERY_SPARK_REDIRECT_URI   Spark hybrid sign-in
              BINDERY_INBOX_TOKEN, BINDERY_INBOX_NAMESPACE                                     Inbox
            """)

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        print("Bindery walkthrough: typed clients over HTTP. Mock servers unless credentials are set (see --help).\n")
        let microsoft = try await Self.microsoftSignIn(
            clientID: environment["BINDERY_MS_CLIENT_ID"], tenant: environment["BINDERY_MS_TENANT"]
        ) { print($0) }
        try await graph(microsoft)
        try await oneDrive(microsoft)
        try await oneNote(microsoft)
        try await oneNotePicker(microsoft)
        try await spark(environment)
        try await inbox(environment)
        try await inboxOffline()
        await microsoft.mock?.stop()
        print("\nDone: five services, one runtime, every answer typed.")
    }

    // MARK: Microsoft: one sign-in for Graph, OneDrive and OneNote

    struct MicrosoftSession {
        let auth: TokenSession
        /// The Graph mock, whose identity provider issued the token; nil against the real service.
        let mock: MockServer?

        /// Another Microsoft service's mock, accepting this sign-in's tokens; nil against the real services.
        func mock(_ service: MockService, seed: (MockServer) -> Void) async throws -> MockServer? {
            guard let identity = mock?.identity else { return nil }
            let server = try await MockServer(service, identity: identity)
            seed(server)
            return server
        }
    }

    /// Device-code sign-in to Microsoft, or to the Graph mock's identity provider without a client id.
    /// `log` says what the user must do (`bindery onenote pick` sends it to standard error).
    static func microsoftSignIn(clientID: String?, tenant: String?, log: (String) -> Void) async throws
        -> MicrosoftSession
    {
        log("\n== Microsoft identity: device-code sign-in")
        let mock: MockServer? = clientID == nil ? try await MockServer(.graph) : nil
        let configuration = MicrosoftIdentity.configuration(
            clientID: clientID ?? "bindery-demo", tenant: tenant ?? "common",
            scopes: ["User.Read", "Mail.Send", "Files.ReadWrite", "Notes.Read", "offline_access"],
            authority: mock?.baseURL ?? MicrosoftIdentity.defaultAuthority)
        let oauth = OAuth2Client(
            configuration, middleware: OAuth2Client.tokenEndpointDefaults(logger: Bindery.httpLogger))
        let device = try await oauth.startDeviceAuthorization()
        log("  \(device.message ?? "Open \(device.verificationURI) and enter \(device.userCode)")")
        if mock != nil { log("  (the mock approves on its own after one poll)") }
        let token = try await oauth.completeDeviceAuthorization(device, account: "me")
        log(
            "  signed in; the access token expires \(token.expiresAt.map { "at \($0)" } ?? "later"), a refresh token is kept"
        )
        return MicrosoftSession(auth: oauth.session(account: "me", store: MemoryTokenStore([token])), mock: mock)
    }

    private func graph(_ session: MicrosoftSession) async throws {
        section("Graph: sendMail")
        let client = GraphClient(
            baseURL: session.mock?.serviceURL ?? GraphClient.defaultBaseURL, auth: session.auth,
            middleware: Bindery.http)
        var address = EmailAddress()
        address.address = "adele@contoso.example"
        var recipient = Recipient()
        recipient.emailAddress = address
        var body = ItemBody()
        body.content = "The mock server speaks Graph."
        var message = Message()
        message.subject = "Hello from Bindery"
        message.body = body
        message.toRecipients = [recipient]
        try await client.me.sendMail(message: message, saveToSentItems: true).send()
        print("  sent \"Hello from Bindery\" to adele@contoso.example (202 Accepted)")
        if let mock = session.mock {
            print(
                "  Sent Items now holds \(mock.store.items(in: ["me", "mailFolders", "sentitems", "messages"]).count) message"
            )
        }
    }

    // MARK: OneDrive

    private func oneDrive(_ session: MicrosoftSession) async throws {
        section("OneDrive: children page by page, thumbnails, a new folder picked up by delta")
        let mock = try await session.mock(.oneDrive) { Self.seedDrive($0.store) }
        let client = OneDriveClient(
            baseURL: mock?.serviceURL ?? OneDriveClient.defaultBaseURL, auth: session.auth, middleware: Bindery.http)
        let root = client.me.drive.root

        var pageNumber = 0
        for try await page in root.children.request().top(5).orderBy("name").pages() {
            pageNumber += 1
            print("  page \(pageNumber): " + page.value.map { $0.name ?? "?" }.joined(separator: ", "))
            if pageNumber == 3 { break }
        }
        let withThumbnails = try await root.children.request().top(2).expand("thumbnails").get()
        for item in withThumbnails.value {
            let url = item.thumbnails?.first?.small?.url ?? "(none)"
            print("  \(item.name ?? "?"): small thumbnail \(url)")
        }

        var token: String?
        for try await page in root.delta().pages() { token = page.deltaToken ?? token }
        let folder = try await root.children.request().add(DriveItem.folder(named: "Bindery demo", onConflict: .rename))
        print("  added folder \"\(folder.name ?? "?")\" (id \(folder.id ?? "?"))")
        if let token {
            let changes = try await root.delta(token: token).get()
            for item in changes.value {
                print(
                    "  delta since the last sync: \(item.isDeleted ? "deleted" : "changed") \(item.name ?? item.id ?? "?")\(item.isFolder ? " (folder)" : "")"
                )
            }
        }
        await mock?.stop()
    }

    static func seedDrive(_ store: MockStore) {
        let children = ["me", "drive", "root", "children"]
        store.set(["id": "root", "name": "root", "folder": ["childCount": 12]], at: ["me", "drive", "root"])
        let names = [
            "Budget.xlsx", "Cabin.jpg", "Cat.png", "Contract.docx", "Dunes.jpg", "Garden.heic", "Invoice.pdf",
            "Lake.jpg", "Notes.txt", "Plan.pptx", "Receipt.pdf", "Skyline.jpg",
        ]
        for name in names {
            let stored = store.insert(
                [
                    "name": .string(name), "size": 1_048_576, "file": ["mimeType": "application/octet-stream"],
                    "lastModifiedDateTime": "2026-11-20T09:30:00.1234567Z",
                ], into: children, logged: false)
            store.insert(
                [
                    "small": [
                        "url": .string("https://thumbnails.example/\(stored.key)/small.jpg"), "width": 96, "height": 96,
                    ]
                ], into: children + [stored.key, "thumbnails"], key: "0", logged: false)
        }
    }

    // MARK: OneNote

    private func oneNote(_ session: MicrosoftSession) async throws {
        section("OneNote: notebooks → section groups → sections, and the picked section")
        let mock = try await session.mock(.oneNote) { $0.seedOneNote(OneNoteSample.notebooks) }
        let client = OneNoteClient(
            baseURL: mock?.serviceURL ?? OneNoteClient.defaultBaseURL, auth: session.auth, middleware: Bindery.http)
        var picked: OneNote.OnenoteSection?
        for try await notebook in client.notebooksWithSections().all() {
            print("  notebook \(notebook.title ?? "?")")
            let sections = notebook.sections ?? []
            for section in sections.prefix(3) { print("    section \(section.title ?? "?")") }
            if sections.count > 3 { print("    … \(sections.count) sections in all") }
            picked = picked ?? sections.first
            for group in notebook.sectionGroups ?? [] {
                print("    group \(group.title ?? "?")")
                for section in group.sections ?? [] { print("      section \(section.title ?? "?")") }
            }
        }
        if let section = picked {
            print("  picked: id \(section.id ?? "?"), name \(section.title ?? "?")")
            print("          pages \(section.pagesUrl ?? "?")")
            print(
                "          created \(section.created.map { "\($0)" } ?? "?"), modified \(section.lastModified.map { "\($0)" } ?? "?") by \(section.lastModifiedByName ?? "?")"
            )
        }
        await mock?.stop()
    }

    // MARK: The OneNote picker, headless

    /// The picker a UI drives, driven here by a script: levels load as they are opened, page by page.
    private func oneNotePicker(_ session: MicrosoftSession) async throws {
        section("OneNote picker (headless): levels loaded as opened, two items a page, search, a typed pick")
        let mock = try await session.mock(.oneNote) { $0.seedOneNote(OneNoteSample.notebooks) }
        let client = OneNoteClient(
            baseURL: mock?.serviceURL ?? OneNoteClient.defaultBaseURL, auth: session.auth, middleware: Bindery.http)
        let picker = OneNotePicker(client: client, pageSize: 2, instructions: "Choose a section for the demo")
        /// The next state with the whole level or search in, as a UI would show it.
        func settled() async throws -> OneNotePickerState {
            let state = await picker.settled()
            if case .failed(let error) = state.phase { throw error }
            return state
        }
        func show(_ state: OneNotePickerState) {
            let place = (["notebooks"] + state.path.map(\.name)).joined(separator: " › ")
            let rows = state.rows.map { $0.name + ($0.isContainer ? "/" : "") }
            print("  \(place): \(rows.prefix(6).joined(separator: ", "))\(rows.count > 6 ? ", … (\(rows.count))" : "")")
        }
        let requestsBefore = mock?.requests.count ?? 0
        var state = try await settled()
        show(state)
        for name in ["Work", "Projects", "2026"] {
            guard let index = state.rows.firstIndex(where: { $0.name == name }) else { break }
            await picker.send(.select(index))
            await picker.send(.open)
            state = try await settled()
            show(state)
        }
        if let mock {
            print("  \(mock.requests.count - requestsBefore) requests so far, each level fetched as it opened")
        }
        await picker.send(.search("meet"))
        state = try await settled()
        for hit in state.rows {
            print("  search \"meet\": \(hit.name) in \(hit.section?.path.joined(separator: " / ") ?? "")")
        }
        await picker.send(.move(by: 1))
        await picker.send(.open)
        state = try await settled()
        if case .picked(let picked) = state.phase {
            print("  picked \(picked.name) in \(picked.path.joined(separator: " / ")): id \(picked.id)")
            print("          modified \(picked.modifiedTime.map { "\($0)" } ?? "?") by \(picked.lastModifiedBy ?? "?")")
            print("          pages \(picked.pagesURL.absoluteString)")
        }
        await mock?.stop()
    }

    // MARK: Spark

    private func spark(_ environment: [String: String]) async throws {
        section("Spark: hybrid OpenID + OAuth 2 sign-in, listings, a session that expires mid-way")
        let live = environment["BINDERY_SPARK_CLIENT_ID"] != nil
        let mock: MockServer? = live ? nil : try await MockServer(.spark)
        if let mock {
            for index in 1...40 {
                mock.store.insert(
                    [
                        "StandardFields": [
                            "ListPrice": .number(JSONNumber(250_000 + index * 5_000)),
                            "City": index % 2 == 0 ? "Fargo" : "Moorhead",
                            "BedsTotal": .string(String(2 + index % 3)),
                        ]
                    ], into: ["listings"], key: "2026111200000000000000\(1000 + index)", idMember: "Id", logged: false)
            }
        }
        let signIn = SparkSignIn(
            clientID: environment["BINDERY_SPARK_CLIENT_ID"] ?? "bindery-demo",
            clientSecret: environment["BINDERY_SPARK_CLIENT_SECRET"] ?? "demo-secret",
            redirectURI: environment["BINDERY_SPARK_REDIRECT_URI"] ?? "https://example.com/callback",
            openIDBase: mock?.baseURL ?? URL(string: "https://sparkplatform.com")!,
            apiBase: mock?.baseURL ?? URL(string: "https://sparkapi.com")!,
            userAgent: "Bindery demo")
        let callback: URL
        if mock != nil {
            // A browser would follow this; the mock consents at once and redirects back with the code.
            let answer = try await DefaultTransport.shared.send(
                TransportRequest(HTTPRequest(method: .get, url: signIn.hybridURL())))
            guard let location = answer.headers[.location], let url = URL(string: location) else {
                throw ValidationError("the OpenID endpoint did not redirect back")
            }
            callback = url
        } else {
            print("  open \(signIn.hybridURL()) and paste the URL you are sent back to:")
            guard let line = readLine(), let url = URL(string: line) else { throw ValidationError("no callback URL") }
            callback = url
        }
        let token = try await signIn.completeHybrid(callback: callback, account: "agent")
        print("  signed in (OpenID identity and an OAuth 2 code, exchanged at /v1/oauth2/grant)")
        let session = signIn.session(account: "agent", store: MemoryTokenStore([token]))
        let client = SparkClient(
            userAgent: "Bindery demo", baseURL: mock?.serviceURL ?? SparkClient.defaultBaseURL, auth: session,
            middleware: Bindery.http)

        var count = 0
        var total = 0.0
        for try await listing in client.listings.list(filter: "City Eq 'Fargo'", orderby: "-ListPrice", limit: 5).all()
        {
            count += 1
            total += Double(listing.standardFields?.listPrice ?? 0)
            if count == 5, let mock {
                mock.identity.expireAllTokens()
                print("  (the server ends the session after the first page: the next request gets error 1020)")
            }
        }
        print("  \(count) listings in Fargo, average price \(count == 0 ? 0 : Int(total) / count)")
        print("  session renewals: \(await session.refreshCount) — the loop never saw the expiry")
        await mock?.stop()
    }

    // MARK: Inbox

    private func inbox(_ environment: [String: String]) async throws {
        section("Inbox: unread threads, and a draft sent")
        let token = environment["BINDERY_INBOX_TOKEN"]
        let namespace = environment["BINDERY_INBOX_NAMESPACE"] ?? "ns-demo"
        let mock: MockServer? = token == nil ? try await MockServer(.inbox) : nil
        if let mock {
            let threads = ["n", namespace, "threads"]
            for (subject, unread) in [
                ("Offer on Elm Street", true), ("Team lunch", false), ("Inspection report", true),
            ] {
                var tags: [JSONValue] = [["id": "inbox", "name": "inbox"]]
                if unread { tags.append(["id": "unread", "name": "unread"]) }
                mock.store.insert(
                    [
                        "object": "thread", "subject": .string(subject), "tags": .array(tags),
                        "participants": [["name": "Sam Agent", "email": "sam@example.com"]],
                        "last_message_timestamp": 1_763_800_000,
                    ], into: threads, logged: false)
            }
            mock.store.insert(
                [
                    "object": "draft", "subject": "Re: Offer on Elm Street", "body": "Accepted, see attached.",
                    "version": 0,
                    "to": [["name": "Sam Agent", "email": "sam@example.com"]],
                ], into: ["n", namespace, "drafts"], key: "draft-1", logged: false)
        }
        let client = InboxClient(
            baseURL: mock?.serviceURL ?? InboxClient.defaultBaseURL,
            auth: InboxSignIn.auth(token: token ?? mock!.identity.acceptedToken), middleware: Bindery.http)
        let space = client.namespaces(namespace)
        // `view=count`: the server counts; nothing is listed.
        let unread = try await space.threads.count(tag: "unread").send()
        print("  \(unread.count ?? 0) unread threads (view=count)")
        for try await thread in space.threads.list(tag: "unread").all() {
            print("  unread: \(thread.subject ?? "?")")
        }
        if mock != nil {
            let sent = try await space.send(draftID: "draft-1", version: 0).send()
            print("  sent draft-1 as message \(sent.id ?? "?"): \"\(sent.subject ?? "?")\"")
        }
        await mock?.stop()
    }

    // MARK: Inbox offline

    /// Always against the mock: it goes offline and comes back, which a real account cannot be asked to do.
    private func inboxOffline() async throws {
        section("Inbox offline: a local cache, a tag change and a send queued offline, replayed on return")
        let namespace = "ns-demo"
        var mock = try await MockServer(.inbox)
        let threads = ["n", namespace, "threads"]
        for (index, subject) in ["Offer on Elm Street", "Inspection report", "Closing date"].enumerated() {
            mock.store.insert(
                [
                    "object": "thread", "subject": .string(subject),
                    "tags": [["id": "inbox", "name": "inbox"], ["id": "unread", "name": "unread"]],
                    "last_message_timestamp": .number(JSONNumber(1_763_800_000 + index)),
                ], into: threads, key: "thread-\(index)", logged: false)
        }
        mock.store.insert(
            ["object": "draft", "subject": "Re: Closing date", "version": 1], into: ["n", namespace, "drafts"],
            key: "draft-2", logged: false)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-demo-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try InboxStore(path: folder.appendingPathComponent("inbox.sqlite").path)
        // Quiet: this part goes offline on purpose, and says so itself.
        let client = InboxClient(
            baseURL: mock.serviceURL, auth: InboxSignIn.auth(token: mock.identity.acceptedToken),
            middleware: .defaults)
        let synced = try await InboxSync(store: store, client: client, namespace: namespace).sync()
        let unread = try store.threads(namespace: namespace, matching: .unread).count
        print("  synced \(synced) objects into SQLite; \(unread) unread threads in the cache")

        // The service goes away; writes still work, against the cache.
        let port = mock.port
        let saved = mock.store.snapshot()
        await mock.stop()
        var outbox = InboxOutbox(store: store, client: client, namespace: namespace)
        outbox.initialBackoff = .zero
        try await outbox.markRead(thread: "thread-0")
        try await outbox.send(draft: "draft-2")
        let offline = try await outbox.replay()
        print(
            "  offline: marked 'Offer on Elm Street' read and sent draft-2; the cache shows "
                + "\(try store.threads(namespace: namespace, matching: .unread).count) unread, "
                + "\(try outbox.pending().count) writes queued (\(offline.retryAfter == nil ? "sent?" : "service unreachable"))"
        )

        // It comes back on the same port, with what it held: the queue goes out in order, the send exactly once.
        mock = try await MockServer(.inbox, port: port)
        mock.store.restore(saved)
        let online = try await outbox.replay()
        let serverTags = mock.store.object(at: threads + ["thread-0"])?["tags"]?.arrayValue?.compactMap(\.["id"])
        print(
            "  back online: replayed \(online.completed.count) writes; the server's tags on thread-0: \(serverTags?.compactMap(\.stringValue) ?? [])"
        )
        let sends = mock.requests.filter { $0.path.hasSuffix("/send") }.count
        print(
            "  draft-2 is now message \(mock.store.object(at: ["n", namespace, "messages", "draft-2"]) != nil ? "draft-2" : "?") (\(sends) send request)"
        )
        await mock.stop()
    }

    private func section(_ title: String) { print("\n== \(title)") }
}
