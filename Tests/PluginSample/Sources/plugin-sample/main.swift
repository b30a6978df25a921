import BinderyRuntime
import Foundation
import GraphFiles
import GraphMail
import Library
import OneDrive
import Tasks
import Weather

/// Answers from canned JSON bodies, keyed by method and path, so the sample runs without a network.
struct CannedTransport: HTTPTransport {
    let answers: [String: String]

    func send(_ request: TransportRequest) async throws -> APIResponse {
        let key = "\(request.head.method) \(request.head.path ?? "")"
        guard let body = answers[key] else {
            FileHandle.standardError.write(Data("no canned answer for \(key)\n".utf8))
            return APIResponse(status: .notFound)
        }
        return APIResponse(status: .ok, headers: [.contentType: "application/json"], body: Array(body.utf8))
    }
}

let transport = CannedTransport(answers: [
    // Library: generated at build time from library.csdl.xml (OData).
    "GET /odata/books/dune":
        #"{"id":"dune","title":"Dune","pages":412,"shelf":"fiction","author":{"name":"Frank Herbert","born":"1920-10-08"}}"#,
    "POST /odata/books/dune/lend": "",
    // Weather: generated at build time from weather.json (OpenAPI).
    "GET /v1/stations/santis": #"{"id":"santis","name":"Säntis","elevation":2502}"#,
    "GET /v1/stations/santis/readings":
        #"[{"time":"2026-01-05T06:00:00Z","celsius":-11.5,"sky":"snow"},{"time":"2026-01-05T05:00:00Z","celsius":-12.0}]"#,
    // Tasks: checked in under Generated/, made by `swift package bindery-gen --target Tasks`.
    "POST /tasks": #"{"id":"t3","title":"Return Dune","done":false}"#,
    "GET /tasks": #"[{"id":"t1","title":"Buy milk","done":true},{"id":"t3","title":"Return Dune","done":false}]"#,
    // GraphMail and GraphFiles: parts of Microsoft Graph chosen by `include`, generated at build time.
    "GET /v1.0/me/mailFolders/inbox":
        #"{"id":"AQMkAD","displayName":"Inbox","unreadItemCount":3,"totalItemCount":12,"childFolderCount":0}"#,
    "GET /v1.0/me/drive/root/children":
        #"{"value":[{"id":"01A","name":"Plans","folder":{"childCount":2}},{"id":"01B","name":"cabin.jpg","size":912}]}"#,
    // OneDrive: Bindery's own service module.
    "GET /v1.0/drive/root": #"{"id":"root","name":"root","folder":{"childCount":7}}"#,
])

// Any failure is printed and exits 1, for the plugin test to report.
do {
    let library = LibraryClient(transport: transport)
    let book = try await library.books("dune").request().get()
    try await library.books("dune").lend(days: 14).execute()
    print("Library: \(book.byline), \(book.pages ?? 0) pages, \(book.shelf?.rawValue ?? "?")")

    let weather = WeatherClient(transport: transport)
    let station = try await weather.stations("santis").request().get()
    let readings = try await weather.stations("santis").listReadings().get().value
    print(
        "Weather: \(station.name ?? "?") at \(station.elevation ?? 0) m, \(readings.count) readings, \(readings.first?.fahrenheit ?? 0) °F"
    )

    let tasks = TasksClient(transport: transport)
    var todo = Todo()
    todo.title = "Return Dune"
    let created = try await tasks.createTask(todo).execute()
    let open = try await tasks.listTasks().get().value.filter(\.isOpen)
    print("Tasks: created \(created.id ?? "?"), \(open.count) open")

    let inbox = try await GraphMailClient(transport: transport).me.mailFolders("inbox").request().get()
    print("GraphMail: \(inbox.summary)")

    let children = try await GraphFilesClient(transport: transport).me.drive.root.children.request().get().value
    print("GraphFiles: " + children.map { "\($0.name ?? "?") (\($0.kind))" }.joined(separator: ", "))

    let root = try await OneDriveClient(transport: transport).drive.root.request().get()
    print("OneDrive: \(root.name ?? "?") holds \(root.folder?.childCount ?? 0)")
} catch {
    FileHandle.standardError.write(Data("plugin-sample: \(error)\n".utf8))
    exit(1)
}
