import BinderyMock
import BinderyRuntime
import Foundation
import GraphFiles
import GraphMail
import Library
import OneDrive
import OneDriveMock
import Tasks
import Weather

// The generated clients of this package, then OneDrive and a part of Graph as the DocC article "Using Bindery in
// an app" has them: each against a mock on 127.0.0.1, over HTTP, through the same transport as an app.

/// Answers from canned JSON bodies, keyed by method and path, so the generated clients run without a network.
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
    "GET /v1.0/me/drive/root/children":
        #"{"value":[{"id":"01A","name":"Plans","folder":{"childCount":2}},{"id":"01B","name":"cabin.jpg","size":912}]}"#,
])

// Any failure is printed and exits 1, for the plugin test to report.
do {
    let library = LibraryClient(transport: transport)
    let book = try await library.books("dune").request().get()
    try await library.books("dune").lend(days: 14).send()
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
    let created = try await tasks.createTask(todo).send()
    let open = try await tasks.listTasks().get().value.filter(\.isOpen)
    print("Tasks: created \(created.id ?? "?"), \(open.count) open")

    // A client generated from your own spec gets a mock from its descriptor alone.
    let mailMock = try await MockServer(MockService(GraphMailService.descriptor))
    mailMock.store.insert(
        ["id": "inbox", "displayName": "Inbox", "unreadItemCount": 3, "totalItemCount": 12],
        into: ["me", "mailFolders"])
    let mail = GraphMailClient(baseURL: mailMock.serviceURL, auth: StaticTokenAuth(mailMock.identity.acceptedToken))
    let inbox = try await mail.me.mailFolders("inbox").request().get()
    print("GraphMail: \(inbox.summary)")
    await mailMock.stop()

    let children = try await GraphFilesClient(transport: transport).me.drive.root.children.request().get().value
    print("GraphFiles: " + children.map { "\($0.name ?? "?") (\($0.kind))" }.joined(separator: ", "))

    // OneDrive with its own mock (the OneDriveMock product): an upload by path creates the folder on the way.
    let driveMock = try await MockServer(.oneDrive)
    driveMock.store.set(["id": "root", "name": "root", "folder": ["childCount": 0]], at: ["drive", "root"])
    let drive = OneDriveClient(baseURL: driveMock.serviceURL, auth: StaticTokenAuth(driveMock.identity.acceptedToken))
    try await drive.drive.root.item(atPath: "Notes/hello.txt").content.upload(.bytes(Array("hello".utf8)))
    let notes = try await drive.drive.root.item(atPath: "Notes").children.request().get().value
    var missing = "found"
    do {
        _ = try await drive.drive.items("no-such-id").request().get()
    } catch {
        // Not `catch where`: Swift 6.3.1 crashes compiling one after an async call with typed throws.
        guard error.kind == .api else { throw error }
        missing = "\(error.status ?? 0) \(error.serviceCode ?? "")"
    }
    print("OneDrive: Notes holds \(notes.map { $0.name ?? "?" }), a missing item is \(missing)")
    await driveMock.stop()
} catch {
    FileHandle.standardError.write(Data("plugin-sample: \(error)\n".utf8))
    exit(1)
}
