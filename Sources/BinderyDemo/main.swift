// `make demo`: a walkthrough of a generated client, as a user would write it.
//
// Until the loopback mock server lands (issue 6), responses come from a small in-process table of
// real-shaped payloads; every request still goes through the generated builders and the runtime.
import BinderyRuntime
import Foundation
import GoldenOData
import Synchronization

/// Answers requests from a table of path → JSON body, and prints each request as it goes by.
final class WalkthroughTransport: HTTPTransport {
    private let routes: [String: String]

    init(routes: [String: String]) { self.routes = routes }

    func send(_ transportRequest: TransportRequest) async throws -> APIResponse {
        let request = transportRequest.head
        let rawPath = request.path ?? "/"
        let path = rawPath.removingPercentEncoding ?? rawPath
        print("  → \(request.method) \(path)")
        if case .bytes(let body)? = transportRequest.body, !body.isEmpty { print("    body \(String(decoding: body, as: UTF8.self))") }
        let key = "\(request.method) \(path)"
        guard let reply = routes[key] else {
            return APIResponse(status: .notFound, body: Array(#"{"error":{"code":"itemNotFound","message":"No such item"}}"#.utf8))
        }
        return APIResponse(status: request.method == .post ? .created : .ok, body: Array(reply.utf8))
    }
}

let base = "https://graph.example.com/v1.0"
let transport = WalkthroughTransport(routes: [
    "GET /v1.0/me/drive/items/root/children?$expand=thumbnails&$top=2": """
        {"value":[{"id":"A1","name":"Budget.xlsx","size":1099511627776,"file":{"mimeType":"application/vnd.ms-excel"},
        "thumbnails":[{"id":"0","small":{"url":"https://t/1","width":96,"height":96}}]},
        {"id":"A2","name":"Photos","folder":{"childCount":12},"thumbnails":[]}],
        "@odata.nextLink":"\(base)/me/drive/items/root/children?$expand=thumbnails&$top=2&$skiptoken=2"}
        """,
    "GET /v1.0/me/drive/items/root/children?$expand=thumbnails&$top=2&$skiptoken=2": """
        {"value":[{"id":"A3","name":"Notes.txt","size":42,"file":{"mimeType":"text/plain"},"shared":{"scope":"users"}}]}
        """,
    "POST /v1.0/me/drive/items/root/children": """
        {"id":"A4","name":"Reports","folder":{"childCount":0},"createdDateTime":"2024-05-01T09:30:00.1234567Z"}
        """,
    "GET /v1.0/me/drive/items/delta()": """
        {"value":[{"id":"A4","name":"Reports","folder":{}},{"id":"A9","deleted":{}}],
        "@odata.deltaLink":"\(base)/me/drive/items/delta(token='aTE09NjM2')"}
        """,
    "GET /v1.0/me/onenote/notebooks?$expand=sections,sectionGroups($expand=sections)": """
        {"value":[{"id":"nb1","displayName":"Work","sections":[{"id":"s1","displayName":"Meetings",
        "pagesUrl":"\(base)/me/onenote/sections/s1/pages","createdDateTime":"2024-01-02T08:00:00Z",
        "lastModifiedDateTime":"2024-03-04T17:45:10.5Z","lastModifiedBy":{"user":{"displayName":"Ada Lovelace"}}}],
        "sectionGroups":[]}]}
        """,
])
let client = GoldenODataClient(baseURL: URL(string: base)!, transport: transport)

func heading(_ text: String) { print("\n== \(text)") }

print("Bindery walkthrough: a client generated from Tests/Golden/OData/spec.csdl.xml.")
print("Responses come from an in-process table of real-shaped payloads until the loopback mock server lands (issue 6).")

do {
    heading("OneDrive: children of the root, two per page, with thumbnails")
    for try await page in client.me.drive.items("root").children.request().expand("thumbnails").top(2).pages() {
        for item in page.value {
            let kind = item.folder != nil ? "folder (\(item.folder?.childCount ?? 0) items)" : "\(item.size ?? 0) bytes"
            print("  \(item.name ?? "?"): \(kind), \(item.thumbnails?.count ?? 0) thumbnail sets")
        }
        print("  page done; nextRequest \(page.nextRequest == nil ? "is nil: last page" : "follows")")
    }

    heading("OneDrive: add a folder (only the fields you set are sent)")
    var folder = DriveItem()
    folder.name = "Reports"
    folder.folder = Folder()
    folder.storage["@microsoft.graph.conflictBehavior"] = "rename"
    let created = try await client.me.drive.items("root").children.request().add(folder)
    print("  created \(created.name ?? "?") with id \(created.id ?? "?") at \(created.createdDateTime.map(ISO8601.format) ?? "?")")

    heading("OneDrive: delta picks up the change")
    let delta = try await client.me.drive.items.delta().get()
    for item in delta.value { print("  \(item.id ?? "?"): \(item.isDeletedInDelta ? "deleted" : "changed: \(item.name ?? "")")") }
    print("  save deltaToken \(delta.deltaToken ?? "-") for next time: items.delta(token:)")

    heading("OneNote: notebooks → section groups → sections")
    let notebooks = try await client.me.onenote.notebooks.request().expand("sections", "sectionGroups($expand=sections)").get()
    for notebook in notebooks.value {
        print("  notebook \(notebook.displayName ?? "?")")
        for section in notebook.sections ?? [] {
            print("    section \(section.displayName ?? "?") id=\(section.id ?? "?")")
            print("      pages URL: \(section.pagesUrl ?? "?")")
            print("      created \(section.createdDateTime.map(ISO8601.format) ?? "?"), modified \(section.lastModifiedDateTime.map(ISO8601.format) ?? "?") by \(section.lastModifiedBy?.user?.displayName ?? "?")")
        }
    }

    heading("Errors are typed")
    do {
        _ = try await client.me.drive.items("missing").request().get()
    } catch {
        print("  \(error)")
    }
    print("\nWalkthrough complete.")
} catch {
    print("walkthrough failed: \(error)")
    exit(1)
}
