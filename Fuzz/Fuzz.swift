// libFuzzer targets for every reader and decoder (`make fuzz`, scripts/fuzz.sh).
//
// Built with `-DBINDERY_FUZZ` and `--sanitize fuzzer --sanitize address` (plus the coverage flags that SwiftPM does
// not pass on), libFuzzer's own `main` drives `LLVMFuzzerTestOneInput`, and `BINDERY_FUZZ_TARGET` picks the target.
// In an ordinary build the executable replays files instead: `bindery-fuzz <target> <file>...` runs a crash input
// without the fuzzer.
import BinderyJSON
import BinderyReaders
import Foundation
import HTTPTypes
import Inbox
import OneDrive
import Spark

@testable import BinderyRuntime

/// One fuzz target: a name (its corpus folder under Fuzz/corpus) and what it does with one input.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    static let all: [FuzzTarget] = [
        FuzzTarget(name: "json", run: fuzzJSON),
        FuzzTarget(name: "openapi", run: { _ = OpenAPIReader().read(bytes: $0, path: "fuzz.json") }),
        FuzzTarget(name: "csdl", run: { _ = CSDLReader().read(bytes: $0, path: "fuzz.csdl.xml") }),
        FuzzTarget(name: "models", run: fuzzModels),
        FuzzTarget(name: "errors", run: fuzzErrors),
        FuzzTarget(name: "dates", run: fuzzDates),
        FuzzTarget(name: "paging", run: fuzzPaging),
        FuzzTarget(name: "multipart", run: fuzzMultipart),
        FuzzTarget(name: "redirects", run: fuzzRedirects),
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A failed invariant: a crash the fuzzer reports like any other.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant: \(message())") }
}

/// Parses, and checks that what parses writes back to text that parses to the same value.
func fuzzJSON(_ bytes: [UInt8]) {
    guard let value = try? JSONValue.parse(bytes) else { return }
    let written = value.serialized()
    guard let again = try? JSONValue.parse(written) else {
        return require(false, "written JSON does not parse: \(String(decoding: written, as: UTF8.self))")
    }
    require(again == value, "a round trip changed the value")
}

/// The body the input is, and, when it is a conformance fixture, the response body inside it.
func bodies(_ bytes: [UInt8]) -> [[UInt8]] {
    guard let fixture = try? JSONValue.parse(bytes), let body = fixture["response"]?["body"] else { return [bytes] }
    return [bytes, body.serialized()]
}

/// Decodes (and validates against the schema) one representative model per module, and the items of a list.
func fuzzModels(_ bytes: [UInt8]) {
    for body in bodies(bytes) {
        decode(Listing.self, body)
        decode(Account.self, body)
        decode(Inbox.Message.self, body)
        decode(Draft.self, body)
        decode(DriveItem.self, body)
        if let root = try? JSONValue.parse(body) {
            for path in [["D", "Results"], ["value"], []] {
                guard case .array(let items)? = root.value(at: path) else { continue }
                for case .object(let object) in items.prefix(16) {
                    _ = try? Listing(validating: object)
                    _ = try? Inbox.Message(validating: object)
                    _ = try? DriveItem(validating: object)
                }
            }
        }
    }
}

func decode<Decoded: JSONModel>(_ type: Decoded.Type, _ bytes: [UInt8]) {
    // Bindery's drop-in `Decoder` parses the same way, so it reads exactly what the model's own decoding does.
    let direct = try? Decoded(jsonBytes: bytes)
    let viaDecoder = try? BinderyJSONDecoder().decode(Decoded.self, fromBytes: bytes)
    require(viaDecoder == direct, "\(type): BinderyJSONDecoder disagrees with the model's own decoding")
    // And its encoder writes a model exactly as the runtime's writer does.
    if let direct {
        let written = try? BinderyJSONEncoder().encode(direct)
        require(written.map(Array.init) == JSONValue.object(direct.storage).serialized(), "\(type): BinderyJSONEncoder")
    }
    // Foundation's decoder, through the bridge that asks for each field's kind: any outcome but a crash.
    _ = try? JSONDecoder().decode(Decoded.self, from: Data(bytes))
    do {
        let model = try Decoded(jsonBytes: bytes)
        // What decoded encodes, and decodes again to the same model.
        let encoded = try JSONEncoder().encode(model)
        let again = try Decoded(jsonBytes: Array(encoded))
        require(again == model, "\(type) changed in a round trip")
    } catch let error as ModelDecodingError {
        _ = error.description
    } catch {
        require(false, "\(type) threw an untyped error: \(error)")
    }
}

/// The error parser, by every shape, on any body, with any `Retry-After` and request id.
func fuzzErrors(_ bytes: [UInt8]) {
    var headers = HTTPFields()
    if let line = bytes.split(separator: 0x0A).first, let text = String(validating: line, as: UTF8.self) {
        headers[.retryAfter] = text
        headers[HTTPField.Name("request-id")!] = text
    }
    for status in [400, 429] {
        let response = APIResponse(status: .init(code: status), headers: headers, body: bytes)
        for shape in [.odata, .common, SparkClient.conventions.errors, InboxClient.conventions.errors] {
            let error = ErrorParser.parse(response, shape: shape)
            require(error.status == status, "the status was lost")
            _ = error.description
        }
    }
}

/// Dates in every OData form, HTTP dates and `Retry-After`.
func fuzzDates(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    _ = ISO8601.parseDateTime(text)
    _ = HTTPDate.parse(text)
    var headers = HTTPFields()
    headers[.retryAfter] = text
    if let wait = APIResponse(status: .tooManyRequests, headers: headers).retryAfter {
        require(wait >= .zero, "a negative Retry-After: \(wait)")
    }
}

/// A transport that is never called: the paging target only reads responses.
struct NoTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> APIResponse { throw CancellationError() }
}

/// A list response read in each dialect: items, next links, page numbers, offsets, delta links and tokens.
func fuzzPaging(_ bytes: [UInt8]) {
    let base = URL(string: "https://service.example/v1")!
    for body in bodies(bytes) {
        let response = APIResponse(status: .ok, body: body)
        page(DriveItem.self, OneDriveClient.conventions, base, response)
        page(Listing.self, SparkClient.conventions, base, response)
        page(Inbox.Message.self, InboxClient.conventions, base, response)
    }
}

func page<Item: JSONModel>(_ type: Item.Type, _ conventions: ServiceConventions, _ base: URL, _ response: APIResponse) {
    let client = ServiceClient(baseURL: base, transport: NoTransport(), middleware: [], conventions: conventions)
    var request = APIRequest(method: .get, path: ResourcePath("items"))
    PageReader<Item>.prepareFirstRequest(&request, paging: conventions.paging)
    do {
        let page = try PageReader<Item>(client: client, request: request).read(response)
        if let link = page.nextLink, link.host?.lowercased() != base.host {
            require(!client.isTrusted(link), "a next link to \(link.host ?? "no host") is trusted")
        }
        _ = page.deltaToken
    } catch {
        _ = error.description
    }
}

/// The input split at NUL bytes into the pieces of a form: a field name, a file name, a content type, the file's
/// bytes and a text field's value. Encoded, then read back part by part: every part's headers stay on their own
/// lines (no name can add a header) and its content comes back byte for byte.
func fuzzMultipart(_ bytes: [UInt8]) {
    let pieces = bytes.split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false).map(Array.init)
    func text(_ index: Int) -> String { index < pieces.count ? String(decoding: pieces[index], as: UTF8.self) : "" }
    let content = pieces.count > 3 ? pieces[3] : []
    let form = MultipartForm([
        .file(name: text(0), filename: text(1), contentType: text(2), bytes: content),
        .field(name: text(0), value: text(4)),
    ])
    let body = form.encoded()
    let delimiter = Array("--\(form.boundary)".utf8)
    var segments: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index + delimiter.count <= body.count {
        if body[index..<index + delimiter.count].elementsEqual(delimiter) {
            segments.append(body[start..<index])
            index += delimiter.count
            start = index
        } else {
            index += 1
        }
    }
    segments.append(body[start...])
    // Before the first delimiter nothing; then the two parts; then "--" and the final line break.
    require(segments.count == 4, "\(segments.count - 1) delimiters for 2 parts")
    require(segments[3].elementsEqual("--\r\n".utf8), "the form does not end with its closing delimiter")
    let expected = [(2, content), (1, Array(text(4).utf8))]
    for (part, (headerLines, content)) in zip(segments[1...2], expected) {
        var lines = part.split(separator: 10, maxSplits: headerLines + 2, omittingEmptySubsequences: false)
        require(lines.count == headerLines + 3, "a part has fewer lines than its headers")
        require(lines[0].elementsEqual([13]), "no line break after the delimiter")
        for header in lines[1...headerLines] {
            require(header.last == 13 && !header.dropLast().contains(13), "a header line holds a line break")
        }
        require(lines[headerLines + 1].elementsEqual([13]), "a header took more than its line")
        let rest = lines.removeLast()
        require(rest.elementsEqual(content + [13, 10]), "a part's content did not come back as it went")
    }
}

/// A `Location` answering a request to the service: followed only to http(s), and with credentials only to the
/// same scheme, host and port; a link-local address never counts as the service's origin.
func fuzzRedirects(_ bytes: [UInt8]) {
    let from = URL(string: "https://graph.example/v1.0/me/drive/items/a%2Fb/content?x=1")!
    guard let target = RedirectMiddleware.target(of: String(decoding: bytes, as: UTF8.self), from: from) else { return }
    require(["http", "https"].contains(target.scheme ?? ""), "followed to \(target.scheme ?? "no scheme")")
    if RedirectMiddleware.sameOrigin(from, target) {
        require(target.scheme == "https", "kept credentials on a downgrade to \(target.absoluteString)")
        require(target.host?.lowercased() == "graph.example", "kept credentials for \(target.host ?? "no host")")
        require(target.port == nil || target.port == 443, "kept credentials for port \(target.port ?? 0)")
        require(!RedirectMiddleware.isLinkLocal(target), "a link-local target counted as the service")
    }
}

#if BINDERY_FUZZ
    let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["BINDERY_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else {
            fatalError("set BINDERY_FUZZ_TARGET to one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
#else
    @main
    enum Replay {
        static func main() throws {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTarget.named(name) else {
                print("usage: bindery-fuzz <\(FuzzTarget.all.map(\.name).joined(separator: "|"))> <file>...")
                exit(2)
            }
            for path in arguments.dropFirst() {
                target.run(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                print("\(name): \(path) ok")
            }
        }
    }
#endif
