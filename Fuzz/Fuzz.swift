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

func decode<Model: JSONModel>(_ type: Model.Type, _ bytes: [UInt8]) {
    do {
        let model = try Model(jsonBytes: bytes)
        // What decoded encodes, and decodes again to the same model.
        let encoded = try JSONEncoder().encode(model)
        let again = try Model(jsonBytes: Array(encoded))
        require(again == model, "\(type) changed in a round trip")
    } catch let error as ModelDecodingError {
        _ = error.description
    } catch {
        require(false, "\(type) threw an untyped error: \(error)")
    }
}

/// Every dialect's error parser on any body, with any `Retry-After` and request id.
func fuzzErrors(_ bytes: [UInt8]) {
    var headers = HTTPFields()
    if let line = bytes.split(separator: 0x0A).first, let text = String(validating: line, as: UTF8.self) {
        headers[.retryAfter] = text
        headers[HTTPField.Name("request-id")!] = text
    }
    for status in [400, 429] {
        let response = APIResponse(status: .init(code: status), headers: headers, body: bytes)
        for dialect in [ServiceConventions.ErrorDialect.odata, .spark, .inbox, .nylas] {
            let error = ErrorParser.parse(response, dialect: dialect)
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
