import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import HTTPTypes
import Testing

/// The fixtures `make gen` writes for every operation agree with the generated modules: each request path leads
/// the route table to the operation the fixture names, and each response decodes with the generated type and
/// re-encodes to the same JSON. (The conformance suite replays them over HTTP against the mock server.)
@Suite struct FixtureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// An operation below literals (`accounts/by/office/{OfficeId}`) matches its whole path only: an item's key
    /// (`accounts/{Id}`) is never read as the operation's last segment, nor its literals as keys.
    @Test func anOperationOfSeveralSegmentsMatchesOnlyItsWholePath() throws {
        let routes = PayloadValidator(try #require(MockService.named("spark")).descriptor).routes
        func matched(_ path: String) -> String {
            switch routes.match(method: .get, segments: path.split(separator: "/").map(String.init)) {
            case .operation(let operation, let resource, _)?: "\(resource.name)/\(operation.name)"
            case .item(let resource, _)?: "item of \(resource.name)"
            case .collection(let resource, _)?: "collection of \(resource.name)"
            case nil: "nothing"
            }
        }
        #expect(matched("accounts/by/office/20000000000000000000000001") == "spark.Account/listByOffice")
        #expect(matched("accounts/20000000000000000000000001") == "spark.Account/getAccountById")
        #expect(matched("accounts/by") == "spark.Account/getAccountById")
        #expect(matched("accounts/by/office") == "nothing")
        #expect(matched("contacts/tags/VIP") == "spark.Contact/listByTag")
        #expect(matched("contacts/tags") == "spark.Contact/listContactTags")
    }

    @Test(arguments: MockService.all.map(\.name))
    func everyFixtureResolvesDecodesAndRoundTrips(service: String) throws {
        let validator = PayloadValidator(try #require(MockService.named(service)).descriptor)
        let folder = Self.root.appendingPathComponent(service)
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String])
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 10, "fixtures for \(service)")
        var checkedBodies = 0
        for file in files {
            let fixture = try JSONValue.parse(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
            let methodName = try #require(fixture["request"]?["method"]?.stringValue)
            let method = try #require(HTTPRequest.Method(methodName))
            let path = try #require(fixture["request"]?["path"]?.stringValue)
            let segments = path.split(separator: "/").map(String.init)
            // A variant's fixed parameters (`view=count`) choose it among the operations at its URL.
            let query = fixture["request"]?["query"]?.objectValue?.members.map { ($0.key, $0.value.text ?? "") } ?? []
            // The route table finds an operation, item or collection at the fixture's path.
            #expect(
                validator.routes.match(method: method, segments: segments, query: query) != nil,
                "\(file): \(method) \(path)")
            guard let body = fixture["response"]?["body"] else { continue }
            let shape = try #require(validator.response(method: method, path: path, query: query), "\(file): no route")
            let kind = try #require(shape.kind, "\(file): no response type")
            let report = try #require(validator.validate(body.serialized(), as: shape))
            #expect(report.isValid, "\(file): \(report.failure?.description ?? "does not round-trip")")
            // A synthesized object carries one member the spec does not declare; a spec's example is as written,
            // and primitives (a function's list of ids) and empty lists (of an abstract type nothing derives from)
            // have no members.
            if fixture["response"]?["fromSpecExample"] == nil, Self.holdsObjects(kind), report.itemCount != 0 {
                #expect(
                    report.unknownFields.contains { $0.hasSuffix(".fieldUnknownToTheSpec") },
                    "\(file): the extra member is kept")
            }
            checkedBodies += 1
        }
        #expect(checkedBodies > 0)
    }

    static func holdsObjects(_ kind: FieldKind) -> Bool {
        switch kind {
        case .model: true
        case .collection(let element): holdsObjects(element)
        default: false
        }
    }
}
