@_spi(Generated) import BinderyRuntime
import Foundation
import Synchronization
import Testing

/// A field set written by hand the way the generator writes them.
private struct NoteFields: FieldSet {
    static let all = NoteFields()
    static let schema = ModelSchema("test.note", fields: all)
    let title: Field<String>
    let pages: Field<Int64>
    let edited: Field<Date>
    let aVeryLongMemberNameIndeed: Field<String>

    init() {
        title = Field("title")
        pages = Field("pages", loose: true)
        edited = Field("edited")
        aVeryLongMemberNameIndeed = Field("aVeryLongMemberNameIndeed")
    }
}

/// A field set whose schema is built from another table: reads must not trust the schema's copy of it.
private struct MisfitFields: FieldSet {
    static let all = MisfitFields()
    static let schema = ModelSchema("test.misfit", fields: NoteFields.all)
    let extra: Field<Bool>
    let title: Field<String>

    init() {
        extra = Field("extra")
        title = Field("label")
    }
}

/// A field set as the generator writes it now: no `all` of its own, so it is the schema's copy.
private struct BareFields: FieldSet {
    static let schema = ModelSchema("test.bare", fields: BareFields())
    let name: Field<String>
    let size: Field<Int64>

    private init() {
        name = Field("name")
        size = Field("sizeInBytes")
    }
}

/// A field whose name has a canonically equivalent spelling ("K" and the Kelvin sign).
private struct KindFields: FieldSet {
    static let schema = ModelSchema("test.kind", fields: KindFields())
    let name: Field<String>
    let kind: Field<String>

    private init() {
        name = Field("name")
        kind = Field("Kind")
    }
}

/// A table as the generator writes it for large specs: a labelled tuple, which compiles to no getter per field.
private enum TupleFields: FieldSet {
    typealias Table = (
        title: Field<String>, pages: Field<Int64>, edited: Field<Date>, note: Field<Model<BareFields>>,
        `default`: Field<Bool>
    )
    static let schema = ModelSchema(
        "test.tuple",
        fields: (
            title: Field("title"), pages: Field("pages", loose: true), edited: Field("edited", readOnly: true),
            note: Field("note"), default: Field("default")
        ) as Table)
}

/// Counts the values of `Tracked` alive, so that a test sees that a read keeps none.
private let liveTokens = Atomic<Int>(0)

private final class Token: Sendable {
    let text: String
    init(_ text: String) {
        self.text = text
        liveTokens.add(1, ordering: .relaxed)
    }
    deinit { liveTokens.subtract(1, ordering: .relaxed) }
}

/// A value that holds a reference.
private struct Tracked: JSONConvertible {
    let token: Token
    var text: String { token.text }
    init?(json: JSONValue) {
        guard let text = json.stringValue else { return nil }
        token = Token(text)
    }
    var json: JSONValue { .string(text) }
    static var fieldKind: FieldKind { .string }
}

private struct TrackedFields: FieldSet {
    static let schema = ModelSchema("test.tracked", fields: TrackedFields())
    let small: Field<Tracked>
    let count: Field<Int64>

    private init() {
        small = Field("small")
        count = Field("count")
    }
}

/// Fields named by a protocol requirement, as OneNote's conveniences name them: their key paths are computed.
private protocol Titled: FieldSet where Table == Self {
    var title: Field<String> { get }
}

extension NoteFields: Titled {}

extension Model where Fields: Titled {
    var titleThroughProtocol: String? { self.title }
}

/// Fields an app adds to a generated table: computed properties, so their key paths have no offset.
extension NoteFields {
    /// A member the type does not declare.
    var extra: Field<String> { Field("extra") }
    /// A declared member (`pages`, an Int64) read as another type.
    var pagesAsText: Field<String> { Field("pages", loose: true) }
}

extension TrackedFields {
    var unlisted: Field<Tracked> { Field("unlisted") }
}

/// A table that holds an optional field: its members are no longer a `Field` stride apart, so it is refused.
private struct OptionalFieldTable: Sendable {
    let name: Field<String>?
    let size: Field<Int64>

    init() {
        name = Field("name")
        size = Field("size")
    }
}

@Suite(.serialized) struct FieldReadTests {
    @Test func aTableOfAnythingButFieldsIsRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = ModelSchema("test.optional", fields: OptionalFieldTable())
        }
    }

    @Test func readsAndWritesGoToEachFieldsOwnMember() throws {
        var note = try Model<NoteFields>(
            jsonBytes: Array(
                #"{"x":1,"aVeryLongMemberNameIndeed":"long","pages":"12","title":"T","edited":"2026-11-25T10:00:00Z"}"#
                    .utf8))
        #expect(note.title == "T")
        #expect(note.pages == 12)  // loose: a number sent as text
        #expect(note.edited == Date(timeIntervalSince1970: 1_795_600_800))
        #expect(note.aVeryLongMemberNameIndeed == "long")
        note.title = "U"
        note.pages = nil
        #expect(note.storage["title"] == "U")
        #expect(note.storage["pages"] == .null)
        #expect(note.storage.keys == ["x", "aVeryLongMemberNameIndeed", "pages", "title", "edited"])
    }

    @Test func aSchemaBuiltFromAnotherTableStillReadsTheRightMembers() throws {
        let misfit = Model<MisfitFields>(storage: ["extra": true, "label": "L", "title": "wrong"])
        #expect(misfit.extra == true)
        #expect(misfit.title == "L")
    }

    @Test func aTableWithoutItsOwnAllReadsThroughTheSchemasCopy() throws {
        #expect(BareFields.all.size.name == "sizeInBytes")
        var file = Model<BareFields>(storage: ["name": "a.txt", "sizeInBytes": 12])
        #expect(file.name == "a.txt")
        #expect(file.size == 12)
        file.size = 13
        #expect(file.storage["sizeInBytes"] == 13)
        #expect(Model<BareFields>.schema.fieldNames == ["name", "sizeInBytes"])
    }

    @Test func aTupleTableReadsWritesAndValidatesLikeAStruct() throws {
        #expect(TupleFields.all.pages.name == "pages")
        #expect(TupleFields.all.pages.isLoose)
        // Reads take the fast way, at the element's offset, as they do in a struct table.
        #expect(MemoryLayout<TupleFields.Table>.offset(of: \.pages) == MemoryLayout<Field<String>>.stride)
        #expect(Model<TupleFields>.schema.fieldNames == ["title", "pages", "edited", "note", "default"])
        #expect(Model<TupleFields>.schema.readOnlyFieldNames == ["edited"])
        var entry = try Model<TupleFields>(
            jsonBytes: Array(
                #"{"note":{"name":"n"},"pages":"7","x":[1],"title":"T","edited":"2026-11-25T10:00:00Z","default":true}"#
                    .utf8))
        let reordered = Model<TupleFields>(storage: ["title": "U", "pages": 8])
        for _ in 0..<3 {
            #expect(entry.title == "T" && entry.pages == 7 && entry.note?.name == "n" && entry.default == true)
            #expect(entry.edited == Date(timeIntervalSince1970: 1_795_600_800))
            #expect(reordered.title == "U" && reordered.pages == 8 && reordered.note == nil)
        }
        entry.pages = 9
        entry.title = nil
        #expect(entry.storage["pages"] == 9)
        #expect(entry.storage["title"] == .null)
        #expect(entry.requestMembers.keys == ["note", "pages", "x", "title", "default"])
        // Validation reads the tuple's fields as it reads a struct's: a wrong kind fails with its path.
        #expect(throws: ModelDecodingError.self) {
            try Model<TupleFields>(jsonBytes: Array(#"{"note":{"name":3}}"#.utf8))
        }
    }

    /// A payload in another order, or one that lacks the member or has one of a similar name, reads what it says.
    @Test func payloadsInAnyOrderReadWhatTheySay() throws {
        let first = Model<BareFields>(storage: ["name": "a", "sizeInBytes": 1])
        let reordered = Model<BareFields>(storage: ["sizeInBytes": 2, "x": true, "name": "b"])
        let short = Model<BareFields>(storage: ["sizeInBytes": 3])
        let lookalike = Model<BareFields>(storage: ["nam": "no", "sizeInBytes": 4, "names": "no"])
        for _ in 0..<3 {
            #expect(first.name == "a" && first.size == 1)
            #expect(reordered.name == "b" && reordered.size == 2)
            #expect(short.name == nil && short.size == 3)
            #expect(lookalike.name == nil && lookalike.size == 4)
        }
    }

    @Test func tasksReadingPayloadsInDifferentOrdersAllReadTheirOwnValues() async throws {
        let orders: [Model<BareFields>] = (0..<8).map { index in
            var members: [JSONObject.Member] = [
                .init(key: "name", value: .string("item \(index)")),
                .init(key: "sizeInBytes", value: .number(JSONNumber(index))),
            ]
            for filler in 0..<index { members.append(.init(key: "filler\(filler)", value: .null)) }
            if index.isMultiple(of: 2) { members.reverse() }
            return Model(storage: JSONObject(members))
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in orders.indices {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<2_000 where orders[index].name != "item \(index)" || orders[index].size != Int64(index)
                    {
                        wrong += 1
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    /// Names are distinct in every object, so a read finds the one value the object keeps.
    @Test func anObjectBuiltWithARepeatedNameKeepsItOnceWithTheLastValue() throws {
        let object = JSONObject([
            .init(key: "name", value: "first"), .init(key: "x", value: 1), .init(key: "name", value: "second"),
        ])
        #expect(object.keys == ["name", "x"])
        #expect(object["name"] == "second")
        var model = Model<KindFields>(storage: object)
        #expect(model.name == "second")
        model.name = "third"
        #expect(model.name == "third" && model.storage["name"] == "third")
    }

    @Test func aReadMatchesOnlyTheExactMember() throws {
        #expect(Model<KindFields>(storage: ["a": 0, "Kind": "k", "name": "n"]).kind == "k")
        // Another name of the same length; then a canonically equivalent name ("\u{212A}" is the Kelvin sign, equal
        // to "K" as a Swift string) that a lookup, which compares UTF-8 lengths first, does not match.
        #expect(Model<KindFields>(storage: ["a": 0, "Kine": "no"]).kind == nil)
        #expect(Model<KindFields>(storage: ["a": 0, "\u{212A}ind": "kelvin"]).kind == nil)
        #expect(Model<KindFields>(storage: ["a": 0, "Kind": .null]).kind == nil)
        var appended = Model<KindFields>(storage: ["a": 0])
        appended.kind = "set"
        #expect(appended.kind == "set" && appended.storage.keys == ["a", "Kind"])
    }

    @Test func aFieldNamedThroughAProtocolRequirementReadsAndKeepsItsOwnMember() throws {
        // Read through the requirement first, then directly: both must reach the same member.
        var note = Model<NoteFields>(storage: ["pages": 3, "title": "via protocol"])
        #expect(note.titleThroughProtocol == "via protocol")
        #expect(note.title == "via protocol" && note.pages == 3)
        note.title = "changed"
        #expect(note.titleThroughProtocol == "changed")
    }

    @Test func aFieldAddedInAnExtensionReadsItsOwnMemberAsItsOwnType() throws {
        var note = Model<NoteFields>(storage: ["pages": 12, "extra": "x"])
        for _ in 0..<2 {
            #expect(note.extra == "x")
            #expect(note.pages == 12 && note.pagesAsText == "12")
        }
        note.extra = "y"
        note.pages = 13
        #expect(note.extra == "y" && note.pagesAsText == "13" && note.pages == 13)
        #expect(note.storage["extra"] == "y")

        var tracked = Model<TrackedFields>(storage: ["unlisted": "u"])
        #expect(tracked.unlisted?.text == "u")
        tracked.unlisted = Tracked(json: "v")
        #expect(tracked.unlisted?.text == "v" && tracked.storage["unlisted"] == "v")
    }

    // MARK: Reads keep nothing

    @Test func aReadConvertsItsMemberAndKeepsNothingInTheModel() throws {
        let before = liveTokens.load(ordering: .relaxed)
        let model = Model<TrackedFields>(storage: ["small": "s", "count": 3])
        do {
            let first = model.small
            let second = model.small
            #expect(first?.text == "s" && second?.text == "s" && model.count == 3)
            // Each read converted the member anew: two values alive while the reader holds them.
            #expect(first.map { ObjectIdentifier($0.token) } != second.map { ObjectIdentifier($0.token) })
            #expect(liveTokens.load(ordering: .relaxed) == before + 2)
        }
        // The model holds only its JSON, so once the reader lets go no value is alive.
        #expect(liveTokens.load(ordering: .relaxed) == before)
        #expect(model.storage == ["small": "s", "count": 3])
    }

    @Test func changingAModelLeavesItsCopiesAsTheyWere() throws {
        var first = Model<TrackedFields>(storage: ["small": "one", "count": 1])
        #expect(first.small?.text == "one" && first.count == 1)
        let copy = first
        first.count = 2
        first.storage["small"] = "two"
        #expect(first.small?.text == "two" && first.count == 2)
        #expect(copy.small?.text == "one" && copy.count == 1)
        var second = copy
        second.storage = ["small": "three"]
        #expect(second.small?.text == "three" && second.count == nil)
        #expect(copy.small?.text == "one" && copy.count == 1)
        second.small = nil
        #expect(second.small == nil && second.storage["small"] == .null)
    }

    @Test func manyTasksReadingOneModelAllReadTheSameValues() async throws {
        for round in 0..<50 {
            let model = Model<TrackedFields>(storage: ["small": .string("s\(round)"), "count": 7])
            let wrong = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var wrong = 0
                        for _ in 0..<20 where model.small?.text != "s\(round)" || model.count != 7 { wrong += 1 }
                        return wrong
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }
}
