import BinderyRuntime
import Foundation
import GoldenShapes
import Testing

/// The hard shapes of public specs, generated from `Tests/Golden/Shapes/spec.yaml` and sent for real: recursive
/// models and choices decoded at depth and written back as they came, and parameters whose names collide until
/// they are spelled out, through the transport to a server on 127.0.0.1.
@Suite struct ShapesOverHTTPTests {
    func client(_ server: LoopbackServer) -> GoldenShapesClient {
        GoldenShapesClient(baseURL: server.baseURL, transport: loopbackTransport(), middleware: fastMiddleware())
    }

    /// A tree `depth` levels deep, each level with a child by list and by name, and a member no schema declares.
    static func tree(depth: Int) -> String {
        var json = #"{"name": "leaf"}"#
        for level in (0..<depth).reversed() {
            json =
                #"{"name": "n\#(level)", "children": [\#(json)], "byName": {"only": {"name": "side\#(level)"}}, "x-new": \#(level)}"#
        }
        return json
    }

    @Test func aTreeOfAnyDepthDecodesAndGoesBackAsItCame() async throws {
        let body = Self.tree(depth: 200)
        let server = try await LoopbackServer(["GET /trees/t1": { _ in .init(json: body) }])
        defer { Task { await server.stop() } }
        let root = try await client(server).trees("t1").request().get()
        var node = root
        for level in 0..<200 {
            #expect(node.name == "n\(level)")
            #expect(node.byName?["only"]?.name == "side\(level)")
            node = try #require(node.children?.first)
        }
        #expect(node.name == "leaf")
        let original = try JSONValue.parse(Array(body.utf8))
        #expect(root.json == original)
        #expect(try JSONValue.parse(Array(try JSONEncoder().encode(root))) == original)
    }

    @Test func errorDetailsRecurseThroughMapsAndLists() async throws {
        var details = #""too long""#
        for level in 0..<100 {
            details = level.isMultiple(of: 2) ? #"{"field\#(level)": \#(details)}"# : #"[\#(details), "x"]"#
        }
        let body = #"{"title": "invalid", "details": \#(details)}"#
        let server = try await LoopbackServer(["GET /problems": { _ in .init(json: body) }])
        defer { Task { await server.stop() } }
        let problem = try await client(server).problems.request().get()
        var current = try #require(problem.details)
        var depth = 0
        while true {
            switch current {
            case .map(let map):
                current = try #require(map["field\(99 - depth)"])
            case .list(let list):
                #expect(list.count == 2 && list[1] == .string("x"))
                current = list[0]
            case .string(let message):
                #expect(message == "too long")
                #expect(depth == 100)
                #expect(problem.json == (try JSONValue.parse(Array(body.utf8))))
                return
            case .other(let json):
                Issue.record("no case read \(json)")
                return
            }
            depth += 1
        }
    }

    @Test func anyJSONLikeValueIsSentAndReadBack() async throws {
        let server = try await LoopbackServer(["POST /values": { request in .init(body: request.body) }])
        defer { Task { await server.stop() } }
        let value = JSONLike.map([
            "list": .jsonLikes([.string("a"), .number(1.5), .bool(true), .map(["deep": .jsonLikes([])])])
        ])
        let stored = try await client(server).storeValue(value).send()
        #expect(stored == value)
        let sent = try JSONValue.parse(try #require(server.requests.first).body)
        #expect(sent == ["list": ["a", .number(JSONNumber(1.5)), true, ["deep": []]]])
    }

    @Test func unionMembersAreReadByTheirTagEvenWhenATypeStartsWithADigit() async throws {
        let body = #"""
            [{"type": "file", "size": 3},
             {"type": "folder", "children": [{"type": "link", "url": "https://example.com"}]},
             {"type": "volume", "label": "later"}]
            """#
        let server = try await LoopbackServer(["GET /entries": { _ in .init(json: body) }])
        defer { Task { await server.stop() } }
        let entries = try await client(server).listEntries().send()
        guard entries.count == 3, case ._11Option1Value(let file) = entries[0],
            case .folder(let folder) = entries[1],
            case .link(let link)? = folder.children?.first, case .other(let unknown) = entries[2]
        else {
            Issue.record("read \(entries)")
            return
        }
        #expect(file.size == 3)
        #expect(link.url == "https://example.com")
        #expect(unknown.objectValue?["label"] == "later")
    }

    /// `oneOf` beside `properties`: the shared members on the model, the shape it is read from the same JSON.
    @Test func anObjectWithSharedMembersIsReadAsOneOfItsShapes() async throws {
        let body = #"""
            [{"id": "p1", "displayName": "Ada", "kind": "person", "birthday": "1815-12-10"},
             {"id": "c1", "displayName": "Analytical Engines Ltd", "kind": "company", "employees": 12},
             {"id": "x1", "kind": "robot"}]
            """#
        let server = try await LoopbackServer(["GET /contacts": { _ in .init(json: body) }])
        defer { Task { await server.stop() } }
        let contacts = try await client(server).contacts.request().get().value
        #expect(contacts.map(\.id) == ["p1", "c1", "x1"])
        #expect(contacts[0].displayName == "Ada")
        guard case .person(let person)? = contacts[0].variant, case .company(let company)? = contacts[1].variant,
            case .other(let unknown)? = contacts[2].variant
        else {
            Issue.record("read \(contacts.map { $0.variant })")
            return
        }
        #expect(person.birthday == CalendarDate(year: 1815, month: 12, day: 10))
        #expect(company.employees == 12)
        #expect(unknown.objectValue?["kind"] == "robot")
        #expect(
            try JSONValue.parse(Array(try JSONEncoder().encode(contacts))) == (try JSONValue.parse(Array(body.utf8))))
    }

    /// What a server receives from the service: one `Webhook` decode tells the kinds apart by their tag.
    @Test func aWebhookBodyDecodesAsTheKindItNames() throws {
        let sent = #"{"type": "message.sent", "message": {"id": "m1", "replies": [{"id": "m2"}]}}"#
        let changed = #"{"type": "tree.changed", "tree": {"name": "root", "children": []}}"#
        let decoder = JSONDecoder()
        guard case .messageSentPayload(let message) = try decoder.decode(Webhook.self, from: Data(sent.utf8)),
            case .treeChangedPayload(let tree) = try decoder.decode(Webhook.self, from: Data(changed.utf8)),
            case .other = try decoder.decode(Webhook.self, from: Data(#"{"type": "later"}"#.utf8))
        else {
            Issue.record("a webhook body was read as the wrong kind")
            return
        }
        #expect(message.message?.replies?.first?.id == "m2")
        #expect(tree.tree?.name == "root")
    }

    /// Two collections whose creates answer by status: each answer type is its own (they were one nested type,
    /// declared twice, in the generic `CollectionRequestBuilder`).
    @Test func createsOnTwoCollectionsAnswerByStatusEachWithItsOwnType() async throws {
        let server = try await LoopbackServer([
            "POST /trees": { request in .init(status: 201, body: request.body) },
            "POST /contacts": { _ in .init(status: 202) },
        ])
        defer { Task { await server.stop() } }
        var tree = TreeNode()
        tree.name = "oak"
        guard case .created(let planted) = try await client(server).trees.create(tree).send() else {
            Issue.record("expected .created")
            return
        }
        #expect(planted.name == "oak")
        #expect(try await client(server).contacts.create(Contact()).send() == .accepted)
    }

    /// A choice whose two object members both hold the choice: each level checks the member the payload fits
    /// best first, so 300 levels decode at once (checking both at every level was 2^depth).
    @Test func aDeepValueOfAChoiceWhoseObjectMembersBothRecurseDecodesAtOnce() throws {
        var json = #"{"value": 1}"#
        for _ in 0..<300 { json = #"{"left": \#(json), "op": "+"}"# }
        let deep = try JSONValue.parse(Array(json.utf8), maxDepth: 1_000)
        var current = try JSONDecoder().decode(Expr.self, from: Data(json.utf8))
        #expect(current.json == deep)
        for _ in 0..<300 {
            guard case .option1(let operation) = current, let left = operation.left else {
                Issue.record("expected an operation, read \(current)")
                return
            }
            #expect(operation.op == "+")
            current = left
        }
        guard case .option2(let number) = current else {
            Issue.record("expected a value, read \(current)")
            return
        }
        #expect(number.value == 1)
    }

    @Test func parametersThatCollideUntilSpelledOutEachReachTheirOwnQueryName() async throws {
        let server = try await LoopbackServer(["GET /messages": { _ in .init(json: "[]") }])
        defer { Task { await server.stop() } }
        _ = try await client(server).listMessages(
            dateSent: CalendarDate(year: 2026, month: 11, day: 2),
            dateSentBefore: CalendarDate(year: 2026, month: 11, day: 3),
            dateSentAfter: CalendarDate(year: 2026, month: 11, day: 1), sizeAtLeast: 10, pageSize: 5, pageSize2: 6,
            class: "inbox", bodyValue: "hello"
        ).get()
        let query = try #require(server.requests.first).query
        #expect(
            query.map { "\($0.name)=\($0.value)" } == [
                "DateSent=2026-11-02", "DateSent<=2026-11-03", "DateSent>=2026-11-01", "Size>==10", "page_size=5",
                "PageSize=6", "class=inbox", "body=hello",
            ])
    }
}
