import BinderyRuntime
import Foundation
import OneDrive
import Testing

/// The OneDrive module: requests in the OneDrive SDK's shape against Graph and the consumer API, and drive items
/// as the service sends them.
@Suite struct OneDriveTests {
    func client(_ replies: [CapturingTransport.Reply] = [], base: URL = OneDriveClient.defaultBaseURL)
        -> (OneDriveClient, CapturingTransport)
    {
        let transport = CapturingTransport(replies)
        return (OneDriveClient(baseURL: base, transport: transport, middleware: []), transport)
    }

    @Test func buildsTheSDKsPathsOnGraphAndOnTheConsumerAPI() {
        let (graph, _) = client()
        let base = OneDriveClient.defaultBaseURL
        let children = graph.me.drive.items("01BYE5RZ!1").children.request().expand("thumbnails").select("id", "name")
            .top(50)
        #expect(
            children.request.url(relativeTo: base).absoluteString
                == "https://graph.microsoft.com/v1.0/me/drive/items/01BYE5RZ!1/children?$expand=thumbnails&$select=id,name&$top=50"
        )
        #expect(
            graph.me.drive.root.request().request.url(relativeTo: base).absoluteString
                == "https://graph.microsoft.com/v1.0/me/drive/root")
        #expect(
            graph.drives("b!x").items("i").thumbnails.request().request.url(relativeTo: base).absoluteString
                == "https://graph.microsoft.com/v1.0/drives/b!x/items/i/thumbnails")
        let consumer = OneDriveClient.consumerBaseURL
        #expect(
            graph.drive.items("A1").request().request.url(relativeTo: consumer).absoluteString
                == "https://api.onedrive.com/v1.0/drive/items/A1")
    }

    @Test func addressesItemsByPathAndSearchesAndAsksForDelta() {
        let (graph, _) = client()
        let base = OneDriveClient.defaultBaseURL
        let byPath = graph.me.drive.root.item(atPath: "Documents/Q1 #2.docx")
        #expect(
            byPath.request().request.url(relativeTo: base).absoluteString
                == "https://graph.microsoft.com/v1.0/me/drive/root:/Documents/Q1%20%232.docx:")
        #expect(
            byPath.children.request().request.path.description == "/me/drive/root:/Documents/Q1%20%232.docx:/children")
        // Addressing below an address extends it.
        #expect(
            byPath.item(atPath: "../v2/a b").request().request.path.description
                == "/me/drive/root:/Documents/Q1%20%232.docx/v2/a%20b:")
        #expect(
            graph.me.drive.root.search(q: "budget '24").request.url(relativeTo: base).absoluteString
                == "https://graph.microsoft.com/v1.0/me/drive/root/search(q='budget%20''24')")
        #expect(graph.me.drive.root.delta().request.path.description == "/me/drive/root/delta()")
        #expect(graph.drive.root.delta(token: "aTE09").request.path.description == "/drive/root/delta(token='aTE09')")
    }

    @Test func addsAFolderWithAConflictBehaviour() async throws {
        let (graph, transport) = client([
            .init(status: 201, body: #"{"id":"F1","name":"Reports 1","folder":{"childCount":0},"size":0}"#)
        ])
        let folder = try await graph.me.drive.root.children.request().add(
            .folder(named: "Reports", onConflict: .rename))
        let sent = try #require(transport.last)
        #expect(sent.head.method == .post)
        #expect(sent.url == "https://graph.microsoft.com/v1.0/me/drive/root/children")
        #expect(
            sent.bodyJSON == (try json(#"{"name":"Reports","folder":{},"@microsoft.graph.conflictBehavior":"rename"}"#))
        )
        #expect(folder.name == "Reports 1" && folder.isFolder)
    }

    @Test func renamesAndMovesWithAPatchOfOnlyTheChangedFields() async throws {
        let (graph, transport) = client([.init(body: #"{"id":"I1","name":"new.txt","parentReference":{"id":"P2"}}"#)])
        var changes = DriveItem()
        changes.name = "new.txt"
        var parent = ItemReference()
        parent.id = "P2"
        changes.parentReference = parent
        let updated = try await graph.me.drive.items("I1").request().update(changes)
        #expect(transport.last?.head.method == .patch)
        #expect(transport.last?.bodyJSON == (try json(#"{"name":"new.txt","parentReference":{"id":"P2"}}"#)))
        #expect(updated?.parentReference?.id == "P2")
    }

    @Test func copyReturnsAMonitorWhoseStatusIsPolledWithoutCredentials() async throws {
        let transport = CapturingTransport([
            .init(status: 202, headers: [.location: "https://monitor.example.net/jobs/7"]),
            .init(status: 202, body: #"{"operation":"itemCopy","percentageComplete":50.5,"status":"inProgress"}"#),
            .init(status: 200, body: #"{"percentageComplete":100,"resourceId":"NEW1","status":"completed"}"#),
        ])
        let graph = OneDriveClient(auth: StaticTokenAuth("secret-token"), transport: transport, middleware: [])
        var parent = ItemReference()
        parent.driveId = "d1"
        parent.id = "P1"
        let monitor = try await graph.me.drive.items("I1").startCopy(to: parent, name: "copy.txt")
        #expect(transport.sent[0].url == "https://graph.microsoft.com/v1.0/me/drive/items/I1/copy")
        #expect(
            transport.sent[0].bodyJSON
                == (try json(#"{"parentReference":{"driveId":"d1","id":"P1"},"name":"copy.txt"}"#)))
        #expect(monitor.url.absoluteString == "https://monitor.example.net/jobs/7")
        #expect(try await monitor.status().percentageComplete == 50.5)
        #expect(try await monitor.newItemID(pollingEvery: .zero) == "NEW1")
        // The service's own host gets the token; the monitor's host never does.
        #expect(transport.sent[0].head.headerFields[.authorization] == "Bearer secret-token")
        #expect(transport.sent[1].head.headerFields[.authorization] == nil)
        #expect(transport.sent[2].head.headerFields[.authorization] == nil)
    }

    @Test func aCopyThatFailsOrRunsTooLongIsAnError() async throws {
        let (graph, _) = client([
            .init(body: #"{"status":"failed","statusDescription":"Name conflict"}"#),
            .init(body: #"{"status":"inProgress","percentageComplete":1}"#),
        ])
        let monitor = CopyMonitor(client: graph.client, url: URL(string: "https://monitor.example.net/j")!)
        await #expect(throws: BinderyError.self) { try await monitor.waitForCompletion() }
        do {
            _ = try await monitor.waitForCompletion(timeout: .zero)
            Issue.record("a copy still running after the timeout must throw")
        } catch {
            #expect(error.kind == .timeout)
        }
    }

    @Test func uploadSessionAndSmallUpload() async throws {
        let (graph, transport) = client([
            .init(
                body:
                    #"{"uploadUrl":"https://up.example.net/s/1","expirationDateTime":"2026-11-23T10:00:00.1234567Z","nextExpectedRanges":["26-"]}"#
            ),
            .init(status: 201, body: #"{"id":"N1","name":"a.txt","size":5,"file":{"mimeType":"text/plain"}}"#),
        ])
        var properties = DriveItemUploadableProperties()
        properties.conflictBehavior = .replace
        properties.fileSize = 3_000_000_000
        let session = try await graph.me.drive.root.item(atPath: "big.bin").createUploadSession(item: properties)
            .send()
        #expect(transport.sent[0].url == "https://graph.microsoft.com/v1.0/me/drive/root:/big.bin:/createUploadSession")
        #expect(
            transport.sent[0].bodyJSON
                == (try json(#"{"item":{"@microsoft.graph.conflictBehavior":"replace","fileSize":3000000000}}"#)))
        #expect(session.nextExpectedRanges == ["26-"])
        #expect(session.uploadUrl == "https://up.example.net/s/1")

        let created = try await graph.me.drive.items("P1").item(atPath: "a.txt").content.upload(
            .bytes(bytes("hello")), contentType: "text/plain")
        #expect(transport.sent[1].head.method == .put)
        #expect(transport.sent[1].url == "https://graph.microsoft.com/v1.0/me/drive/items/P1:/a.txt:/content")
        #expect(created?.file?.mimeType == "text/plain")
    }

    @Test func decodesItemsAsTheServiceSendsThem() throws {
        // Graph shape: annotations on the item, 7 fractional digits, an Int64 size, an empty folder facet,
        // nulls, expanded thumbnails with their own next link, and a field this spec does not know.
        let wire = #"""
            {"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#drives('b')/items/$entity",
             "@microsoft.graph.downloadUrl":"https://public.dm.files.1drv.com/y4m",
             "id":"01BYE5RZ","name":"video.mp4","size":5368709120,"eTag":"\"{1}\",1","cTag":null,
             "createdDateTime":"2017-04-21T10:00:00.1234567Z","lastModifiedDateTime":"2017-04-21T10:00:00Z",
             "file":{"mimeType":"video/mp4","hashes":{"quickXorHash":"AAAA"}},"folder":null,
             "parentReference":{"driveId":"b","driveType":"personal","id":"root","path":"/drive/root:"},
             "createdBy":{"user":{"id":"u1","displayName":"Ryan"}},
             "thumbnails":[{"id":"0","small":{"height":96,"width":96,"url":"https://t/1"}}],
             "thumbnails@odata.nextLink":"https://graph.microsoft.com/v1.0/next",
             "bundle":{"childCount":2,"album":{"coverImageItemId":"c1"}}}
            """#
        let item = try DriveItem(jsonBytes: bytes(wire))
        #expect(item.size == 5_368_709_120)
        #expect(item.downloadURL?.host == "public.dm.files.1drv.com")
        #expect(item.createdDateTime?.timeIntervalSince1970 == 1_492_768_800.1234567)
        #expect(item.createdBy?.user?.displayName == "Ryan")
        #expect(item.thumbnails?.first?.small?.width == 96)
        #expect(item.nextLink(of: "thumbnails")?.absoluteString == "https://graph.microsoft.com/v1.0/next")
        #expect(item.folder == nil && !item.isFolder)
        #expect(item.additionalData["bundle"] != nil)
        #expect(try roundTrips(item, wire))

        // Consumer API: `@content.downloadUrl`, and quota numbers beyond 32 bits.
        let legacy = try DriveItem(
            jsonBytes: bytes(#"{"id":"A","@content.downloadUrl":"https://dl.example/x","deleted":{}}"#))
        #expect(legacy.downloadURL?.absoluteString == "https://dl.example/x")
        #expect(legacy.isDeleted)
        let drive = try Drive(
            jsonBytes: bytes(
                #"{"id":"d","driveType":"personal","quota":{"total":1099511627776,"used":1,"remaining":1099511627775,"deleted":0,"state":"normal"}}"#
            ))
        #expect(drive.quota?.total == 1_099_511_627_776)
    }

    @Test func deltaPagesMarkRemovedItemsAndEndWithADeltaLink() async throws {
        let (graph, _) = client([
            .init(
                body:
                    #"{"value":[{"id":"1","name":"a"},{"id":"2","@removed":{"reason":"deleted"}}],"@odata.nextLink":"https://graph.microsoft.com/v1.0/me/drive/root/delta(token='p2')"}"#
            ),
            .init(
                body:
                    #"{"value":[{"id":"3","name":"c","deleted":{"state":"deleted"}}],"@odata.deltaLink":"https://graph.microsoft.com/v1.0/me/drive/root/delta(token='T9')"}"#
            ),
        ])
        var seen: [(String?, Bool)] = []
        var last: Page<DriveItem>?
        for try await page in graph.me.drive.root.delta().pages() {
            seen += page.value.map { ($0.id, $0.isDeleted) }
            last = page
        }
        #expect(seen.map(\.0) == ["1", "2", "3"])
        #expect(seen.map(\.1) == [false, true, true])
        #expect(last?.deltaToken == "T9")
    }

    @Test func sharesAnItemByLinkAndByInvitation() async throws {
        let (graph, transport) = client([
            .init(
                status: 201,
                body:
                    #"{"id":"P1","roles":["read"],"shareId":"s!AbC","link":{"type":"view","scope":"anonymous","webUrl":"https://1drv.ms/u/s!AbC"}}"#
            ),
            .init(
                body:
                    #"{"value":[{"id":"P2","roles":["write"],"grantedToV2":{"user":{"id":"u2","displayName":"Robin"},"siteUser":{"loginName":"i:0#.f|membership|robin@contoso.com"}},"invitation":{"email":"robin@contoso.com","signInRequired":true}}]}"#
            ),
        ])
        let item = graph.me.drive.items("I1")
        let link = try await item.createLink(type: "view", scope: "anonymous").send()
        #expect(transport.sent[0].url == "https://graph.microsoft.com/v1.0/me/drive/items/I1/createLink")
        #expect(transport.sent[0].bodyJSON == (try json(#"{"type":"view","scope":"anonymous"}"#)))
        #expect(link.link?.webUrl == "https://1drv.ms/u/s!AbC" && link.shareId == "s!AbC")

        var robin = DriveRecipient()
        robin.email = "robin@contoso.com"
        let granted = try await item.invite(
            recipients: [robin], roles: ["write"], requireSignIn: true, sendInvitation: false
        ).send()
        #expect(transport.sent[1].url == "https://graph.microsoft.com/v1.0/me/drive/items/I1/invite")
        #expect(
            transport.sent[1].bodyJSON
                == (try json(
                    #"{"recipients":[{"email":"robin@contoso.com"}],"roles":["write"],"requireSignIn":true,"sendInvitation":false}"#
                )))
        #expect(granted.first?.grantedToV2?.siteUser?.loginName?.hasSuffix("robin@contoso.com") == true)
        #expect(granted.first?.grantedToV2?.user?.displayName == "Robin")
        #expect(granted.first?.invitation?.signInRequired == true)
    }

    @Test func reachesPermissionsVersionsSharesAndOtherOwnersDrives() {
        let (graph, _) = client()
        func path(_ request: APIRequest) -> String { request.path.description }
        #expect(
            path(graph.me.drive.items("I1").permissions("P1").request().request) == "/me/drive/items/I1/permissions/P1")
        #expect(path(graph.me.drive.items("I1").versions.request().request) == "/me/drive/items/I1/versions")
        #expect(
            path(graph.me.drive.items("I1").versions("2.0").restoreVersion().request)
                == "/me/drive/items/I1/versions/2.0/restoreVersion")
        #expect(
            graph.me.drive.items("I1").versions("2.0").content.path.description
                == "/me/drive/items/I1/versions/2.0/content")
        #expect(
            path(graph.shares("u!aHR0cHM6Ly8x").root.children.request().request)
                == "/shares/u!aHR0cHM6Ly8x/root/children")
        #expect(
            path(graph.shares("s!AbC").permission.grant(recipients: [], roles: ["read"]).request)
                == "/shares/s!AbC/permission/grant")
        #expect(path(graph.me.drive.recent().request) == "/me/drive/recent()")
        #expect(path(graph.drive.sharedWithMe().request) == "/drive/sharedWithMe()")
        #expect(
            path(graph.me.drive.special("approot").children.request().request) == "/me/drive/special/approot/children")
        #expect(
            path(graph.users("adele@contoso.com").drive.root.request().request) == "/users/adele@contoso.com/drive/root"
        )
        #expect(path(graph.groups("g1").drive.request().request) == "/groups/g1/drive")
        #expect(
            path(graph.sites("contoso.sharepoint.com,1,2").drives.request().request)
                == "/sites/contoso.sharepoint.com,1,2/drives")
        #expect(path(graph.subscriptions("S1").request().request) == "/subscriptions/S1")
    }

    @Test func whatTheServiceRefusesFailsUnsent() async throws {
        let (graph, transport) = client()
        await #expect(throws: BinderyError.self) { try await graph.drives.request().add(Drive()) }
        await #expect(throws: BinderyError.self) {
            try await graph.me.drive.items("I1").permissions.request().add(Permission())
        }
        await #expect(throws: BinderyError.self) { try await graph.me.drive.root.request().delete() }
        do {
            try await graph.me.drive.items("I1").versions("1.0").request().delete()
            Issue.record("deleting a version must be refused")
        } catch {
            #expect(error.kind == .refused)
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func customThumbnailSizesAndNewFacetsDecode() throws {
        let set = try ThumbnailSet(
            jsonBytes: bytes(
                #"{"id":"0","small":{"width":96,"height":96},"c300x400_Crop":{"width":300,"height":400,"url":"https://t/c"}}"#
            ))
        #expect(set.small?.width == 96)
        #expect(set.additionalData["c300x400_Crop"]?["width"] == 300)
        let item = try DriveItem(
            jsonBytes: bytes(
                #"{"id":"X","malware":{"description":"Trojan"},"location":{"latitude":47.6,"longitude":-122.3},"pendingOperations":{"pendingContentUpdate":{"queuedDateTime":"2026-11-20T09:30:00Z"}},"sharepointIds":{"listItemId":"7"},"publication":{"level":"published","versionId":"3.0"}}"#
            ))
        #expect(item.malware?.description == "Trojan")
        #expect(item.location?.longitude == -122.3)
        #expect(item.pendingOperations?.pendingContentUpdate?.queuedDateTime != nil)
        #expect(item.sharepointIds?.listItemId == "7" && item.publication?.versionId == "3.0")
        #expect(item.additionalData.isEmpty)
    }

    @Test func aMalformedItemIsATypedErrorWithItsPath() async throws {
        let (graph, _) = client([.init(body: #"{"id":"1","size":"big"}"#)])
        await #expect(throws: BinderyError.self) { try await graph.me.drive.items("1").request().get() }
        do {
            _ = try DriveItem(jsonBytes: bytes(#"{"parentReference":{"id":5}}"#))
            Issue.record("a number where a string belongs must fail")
        } catch {
            #expect(error.jsonPath == "$.parentReference.id")
        }
    }
}
