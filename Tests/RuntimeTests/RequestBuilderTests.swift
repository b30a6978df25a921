@_spi(Generated) import BinderyRuntime
import Foundation
import GoldenOData
import Testing

/// Generated request builders: the URLs, methods and bodies they produce, and paging over `nextRequest`.
@Suite struct RequestBuilderTests {
    let base = URL(string: "https://graph.example.com/v1.0")!

    func client(_ replies: [ScriptedTransport.Reply] = []) -> (GoldenODataClient, ScriptedTransport) {
        let transport = ScriptedTransport(replies)
        return (GoldenODataClient(baseURL: base, transport: transport), transport)
    }

    func url(_ request: APIRequest) -> String { request.url(relativeTo: base).absoluteString }

    @Test func fluentPathsInTheOneDriveSDKShape() {
        let (graph, _) = client()
        let children = graph.drive.items("01BYE5RZ").children.request().expand("thumbnails").top(5)
        #expect(
            url(children.request)
                == "https://graph.example.com/v1.0/drive/items/01BYE5RZ/children?$expand=thumbnails&$top=5")
        let item = graph.me.drive.root.request().select("id", "name")
        #expect(url(item.request) == "https://graph.example.com/v1.0/me/drive/root?$select=id,name")
        let sections = graph.me.onenote.notebooks("nb-1").sectionGroups("sg-2").sections.request()
            .filter("displayName eq 'Work'").orderBy("displayName desc")
        #expect(
            url(sections.request)
                == "https://graph.example.com/v1.0/me/onenote/notebooks/nb-1/sectionGroups/sg-2/sections?$filter=displayName%20eq%20'Work'&$orderby=displayName%20desc"
        )
    }

    @Test func idsAreEncodedSoTheyCannotChangeThePath() {
        let (graph, _) = client()
        #expect(
            url(graph.drive.items("../../x").request().request)
                == "https://graph.example.com/v1.0/drive/items/..%2F..%2Fx")
        #expect(url(graph.drive.items("..").request().request) == "https://graph.example.com/v1.0/drive/items/%2E%2E")
        #expect(
            url(graph.drive.items("a b?c#d%e").request().request)
                == "https://graph.example.com/v1.0/drive/items/a%20b%3Fc%23d%25e")
        #expect(url(graph.users("a'b").request().request) == "https://graph.example.com/v1.0/users/a'b")
    }

    @Test func functionParametersAreODataLiterals() {
        let (graph, _) = client()
        let search = graph.drive.root.search(q: "it's & more")
        #expect(url(search.request) == "https://graph.example.com/v1.0/drive/root/search(q='it''s%20%26%20more')")
        #expect(url(graph.drive.items.delta().request) == "https://graph.example.com/v1.0/drive/items/delta()")
        #expect(
            url(graph.drive.items.delta(token: "abc").request)
                == "https://graph.example.com/v1.0/drive/items/delta(token='abc')")
    }

    @Test func actionsPostTheirParametersAsOneObject() async throws {
        let (graph, transport) = client([.init(status: 202, body: "")])
        var reference = ItemReference()
        reference.id = "folder"
        let copy = graph.drive.items("i1").copy(parentReference: reference, name: "Copy.txt")
        #expect(copy.request.method == .post)
        #expect(url(copy.request) == "https://graph.example.com/v1.0/drive/items/i1/copy")
        try await graph.sendFeedback(text: "great").send()
        #expect(transport.requests.first?.method == .post)
        #expect(transport.bodies.first == #"{"text":"great"}"#)
        #expect(transport.requests.first?.headerFields[.contentType] == "application/json")
    }

    /// `Bindery.Monitor`: the action answers 202 with a Location, and the call returns the monitor to poll.
    @Test func aMonitoredActionReturnsItsMonitor() async throws {
        let (graph, transport) = client([
            .init(status: 202, headers: [.location: "https://monitor.example.net/jobs/7"], body: ""),
            .init(body: #"{"status":"inProgress","percentageComplete":40}"#),
            .init(body: #"{"status":"completed","resourceId":"NEW"}"#),
            .init(status: 202, body: ""),
        ])
        let monitor = try await graph.drive.items("i1").copy(parentReference: ItemReference()).send()
        #expect(monitor.url.absoluteString == "https://monitor.example.net/jobs/7")
        let done = try await monitor.waitForCompletion(pollingEvery: .zero)
        #expect(done.resourceId == "NEW")
        #expect(transport.requests.count == 3)
        // Accepted without a Location: a typed error, not a monitor of nothing.
        await #expect(throws: BinderyError.self) {
            _ = try await graph.drive.items("i1").copy(parentReference: ItemReference()).send()
        }
    }

    @Test func addPostsTheItemAndDecodesTheAnswer() async throws {
        let (graph, transport) = client([
            .init(status: 201, body: #"{"id":"new","name":"Reports","folder":{"childCount":0}}"#)
        ])
        var folder = DriveItem()
        folder.name = "Reports"
        folder.folder = Folder()
        folder.storage["@microsoft.graph.conflictBehavior"] = "rename"
        let created = try await graph.drive.items("root").children.request().add(folder)
        #expect(created.id == "new")
        #expect(created.folder?.childCount == 0)
        #expect(
            transport.bodies.first == #"{"name":"Reports","folder":{},"@microsoft.graph.conflictBehavior":"rename"}"#)
        #expect(transport.requests.first?.path == "/v1.0/drive/items/root/children")
    }

    /// Capability restrictions: what the spec says the service refuses fails typed, before anything is sent,
    /// only where it is refused.
    @Test func refusedWritesFailWithoutBeingSent() async throws {
        let (graph, transport) = client([.init(status: 204, body: "")])
        do {
            _ = try await graph.drives.request().add(Drive())
            Issue.record("adding a drive is refused")
        } catch {
            #expect(error.kind == .refused)
            #expect(error.message.contains("POST at /drives"))
        }
        do {
            try await graph.me.onenote.notebooks("n1").request().delete()
            Issue.record("deleting a notebook is refused")
        } catch {
            #expect(error.kind == .refused)
        }
        #expect(transport.requests.isEmpty)
        // The same kind of entity through a step that allows the write is sent.
        try await graph.drives("d1").request().delete()
        #expect(transport.requests.map(\.path) == ["/v1.0/drives/d1"])
        // The route table says the same to the mock server and `bindery validate`.
        let table = GoldenODataService.descriptor.routes
        #expect(table.refuses(method: .post, segments: ["drives"]))
        #expect(!table.refuses(method: .get, segments: ["drives"]))
        #expect(table.refuses(method: .delete, segments: ["me", "onenote", "notebooks", "n1"]))
        #expect(!table.refuses(method: .delete, segments: ["drives", "d1"]))
        #expect(!table.refuses(method: .post, segments: ["me", "drive", "items", "i1", "children"]))
    }

    /// `Bindery.StorageOperation`: an upload session's `uploadUrl` is on a storage host, which no path of the API
    /// reaches; the spec declares what it answers, and the validator tells the answers apart.
    @Test func storageHostAnswersAreKnownByTheirShape() throws {
        let validator = PayloadValidator(GoldenODataService.descriptor)
        let upload = "https://storage.example.net/up/AbCd?guid=1"
        #expect(validator.storageRoutes(method: .put, url: upload).map(\.name) == ["uploadRange", "uploadLastRange"])
        #expect(validator.storageRoutes(method: .delete, url: upload).map(\.name) == ["cancelUpload"])
        // The API's own host and relative paths are not storage hosts.
        #expect(validator.storageRoutes(method: .put, url: "/drive/items/1/content").isEmpty)
        let session = Array(#"{"expirationDateTime":"2026-11-26T00:00:00Z","nextExpectedRanges":["327680-"]}"#.utf8)
        let more = try #require(
            validator.storageAnswer(session, candidates: validator.storageRoutes(method: .put, url: upload)))
        #expect(more.route.name == "uploadRange")
        #expect(more.report?.isValid == true)
        let item = Array(#"{"id":"01AB","name":"video.mp4","size":655360,"file":{"mimeType":"video/mp4"}}"#.utf8)
        let done = try #require(
            validator.storageAnswer(item, candidates: validator.storageRoutes(method: .put, url: upload)))
        #expect(done.route.name == "uploadLastRange")
        #expect(done.report?.unknownFields.isEmpty == true)
        let cancelled = try #require(
            validator.storageAnswer([], candidates: validator.storageRoutes(method: .delete, url: upload)))
        #expect(cancelled.route.name == "cancelUpload" && cancelled.report == nil)
    }

    /// `Bindery.Alias`: the legacy API's names for a type and for an operation's URL segment.
    @Test func legacyNamesFindTheSameTypeAndOperation() throws {
        let table = GoldenODataService.descriptor.routes
        #expect(table.models["oneDrive.item"] == DriveItem.self)
        let item = try DriveItem(validating: ["@odata.type": "#oneDrive.item", "id": "1"])
        #expect(ModelSchema.resolve(declared: DriveItem.self, object: item.storage) == DriveItem.self)
        guard
            case .operation(let copy, _, _)? = table.match(
                method: .post, segments: ["drive", "items", "i1", "action.copy"])
        else {
            Issue.record("action.copy is copy")
            return
        }
        #expect(copy.name == "copy")
    }

    @Test func pagesFollowNextLinksUntilTheLastPage() async throws {
        let (graph, transport) = client([
            .init(
                body:
                    #"{"value":[{"id":"1"},{"id":"2"}],"@odata.nextLink":"https://graph.example.com/v1.0/drive/items/r/children?$skiptoken=p2"}"#
            ),
            .init(body: #"{"value":[{"id":"3"}],"@odata.count":3}"#),
        ])
        let first = try await graph.drive.items("r").children.request().get()
        #expect(first.value.map(\.id) == ["1", "2"])
        #expect(first.nextLink?.absoluteString == "https://graph.example.com/v1.0/drive/items/r/children?$skiptoken=p2")
        let nextRequest = try #require(first.nextRequest)
        let second = try await nextRequest.get()
        #expect(second.value.map(\.id) == ["3"])
        #expect(second.nextRequest == nil)
        #expect(second.additionalData["@odata.count"] == 3)
        #expect(transport.requests.count == 2)
    }

    @Test func allIteratesEveryItemAcrossPages() async throws {
        let (graph, _) = client([
            .init(body: #"{"value":[{"id":"1"}],"@odata.nextLink":"https://graph.example.com/v1.0/p2"}"#),
            .init(body: #"{"value":[],"@odata.nextLink":"https://graph.example.com/v1.0/p3"}"#),
            .init(body: #"{"value":[{"id":"2"},{"id":"3"}]}"#),
        ])
        var ids: [String?] = []
        for try await item in graph.drive.items.request().all() { ids.append(item.id) }
        #expect(ids == ["1", "2", "3"])
    }

    @Test func aRepeatedNextLinkIsAnErrorNotALoop() async throws {
        let loop = #"{"value":[{"id":"1"}],"@odata.nextLink":"https://graph.example.com/v1.0/again"}"#
        let (graph, _) = client([.init(body: loop), .init(body: loop), .init(body: loop)])
        var pages = 0
        do {
            for try await _ in graph.drive.items.request().pages() { pages += 1 }
            Issue.record("paging must stop on a repeated next link")
        } catch let error as BinderyError {
            #expect(error.kind == .pagingLoop)
        }
        // The second answer is the first page again, which already stops it, before its link is seen to repeat.
        #expect(pages == 1)
    }

    @Test func deltaPagesCarryTheDeltaLinkAndToken() async throws {
        let (graph, _) = client([
            .init(
                body:
                    #"{"value":[{"id":"1","@removed":{"reason":"deleted"}},{"id":"2","deleted":{}},{"id":"3","name":"kept"}],"@odata.deltaLink":"https://graph.example.com/v1.0/drive/items/delta(token='t-42')"}"#
            )
        ])
        let page = try await graph.drive.items.delta().get()
        #expect(page.value.map(\.isDeletedInDelta) == [true, true, false])
        #expect(page.deltaToken == "t-42")
        #expect(page.nextRequest == nil)
    }

    @Test func errorsParseIntoOneTypedError() async throws {
        let (graph, _) = client([
            .init(
                status: 404,
                body:
                    #"{"error":{"code":"itemNotFound","message":"Item does not exist","innerError":{"request-id":"r-1","date":"2024-01-01T00:00:00"}}}"#
            ),
            .init(status: 502, body: "<html><body>Bad gateway</body></html>"),
            .init(status: 200, body: #"{"value":[{"id":"1"}"#),
        ])
        await #expect {
            _ = try await graph.drive.items("missing").request().get()
        } throws: { error in
            guard let error = error as? BinderyError else { return false }
            return error.kind == .api && error.status == 404 && error.serviceCode == "itemNotFound"
                && error.message == "Item does not exist" && error.requestID == "r-1"
        }
        await #expect {
            _ = try await graph.drive.items("x").request().get()
        } throws: { error in
            (error as? BinderyError)?.kind == .api && (error as? BinderyError)?.status == 502
        }
        await #expect {
            _ = try await graph.drive.items.request().get()
        } throws: { error in
            (error as? BinderyError)?.kind == .invalidResponse
        }
    }

    @Test func credentialsNeverFollowALinkToAnotherHost() async throws {
        let transport = ScriptedTransport([
            .init(body: #"{"value":[{"id":"1"}],"@odata.nextLink":"https://evil.example.net/steal"}"#),
            .init(body: #"{"value":[]}"#),
        ])
        let graph = GoldenODataClient(baseURL: base, transport: transport, headers: [.authorization: "Bearer secret"])
        let first = try await graph.drive.items.request().get()
        _ = try await first.nextRequest?.get()
        #expect(transport.requests[0].headerFields[.authorization] == "Bearer secret")
        #expect(transport.requests[1].headerFields[.authorization] == nil)
    }
}

/// The generated route table: a method and a URL path lead to the resource or operation behind them.
@Suite struct RouteTableTests {
    let table = GoldenODataService.descriptor.routes

    @Test func collectionsItemsAndKeys() throws {
        guard
            case .collection(let resource, let keys)? = table.match(
                method: .get, segments: ["me", "drive", "items", "x 1", "children"])
        else {
            Issue.record("children is a collection")
            return
        }
        #expect(resource.name == "sample.drive.driveItem")
        #expect(keys == ["x 1"])
        guard
            case .item(let item, let itemKeys)? = table.match(
                method: .patch, segments: ["drives", "d1", "items", "i2"])
        else {
            Issue.record("an item")
            return
        }
        #expect(item.model == DriveItem.self)
        #expect(itemKeys == ["d1", "i2"])
    }

    @Test func operationsMatchWithOrWithoutArguments() throws {
        guard
            case .operation(let delta, let owner, _)? = table.match(
                method: .get, segments: ["drive", "items", "delta(token='abc')"])
        else {
            Issue.record("delta on the items collection")
            return
        }
        #expect(delta.name == "delta")
        #expect(delta.onCollection)
        #expect(owner.name == "sample.drive.driveItem")
        guard
            case .operation(let copy, _, let keys)? = table.match(
                method: .post, segments: ["drive", "items", "i1", "copy"])
        else {
            Issue.record("copy on an item")
            return
        }
        #expect(copy.name == "copy")
        #expect(keys == ["i1"])
        #expect(table.match(method: .get, segments: ["drive", "nothingHere"]) == nil)
    }

    @Test func modelsByQualifiedName() {
        #expect(table.models["sample.drive.fileAttachment"] == FileAttachment.self)
        #expect(table.models.count > 20)
    }

    /// Generated routes write their lists as strings; each reads back as the list it stands for.
    @Test func compactEntriesReadAsTheirLists() {
        let plain = ResourceRoute.Operation("copy", .post)
        #expect(plain.segments == ["copy"])
        #expect(plain.query.isEmpty && plain.aliases.isEmpty && plain.payloadPath == nil)
        #expect(ResourceRoute.Operation("listThreads", .get, path: "").segments == [])
        let full = ResourceRoute.Operation(
            "count", .get, path: "files/upload_sessions", query: "view=count&q=a%26b%3Dc", payload: "D/Pagination",
            aliases: "action.copy upload.createSession")
        #expect(full.segments == ["files", "upload_sessions"])
        #expect(full.query == ["view": "count", "q": "a&b=c"])
        #expect(full.payloadPath == ["D", "Pagination"])
        #expect(full.aliases == ["action.copy", "upload.createSession"])
        let child = ResourceRoute.Child(
            "items", "x.item", collection: true, refusing: "POST", itemsRefusing: "PATCH DELETE")
        #expect(child.refusedMethods == [.post])
        #expect(child.refusedByItems == [.patch, .delete])
        #expect(ResourceRoute.Child("root", "x.item", collection: false).refusedMethods.isEmpty)
    }
}
