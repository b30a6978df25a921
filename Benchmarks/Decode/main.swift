import BinderyRuntime
import CMallocInfo
import Foundation
import HTTPTypes
import Inbox
import OneDrive

// `Benchmarks/run.sh decode` (Benchmarks/decode.sh): pages of models decoded, read and encoded by Bindery beside
// Foundation's `JSONDecoder`/`JSONEncoder` with handwritten `Codable` structs of the same shape, in one process,
// the two alternating in every repetition.
//
//   decode-bench compare [REPS]   the side-by-side timings, as `key=value` lines (milliseconds, medians)
//   decode-bench delta MIB        decodes a delta page of about MIB MiB; prints its peak memory growth
//   decode-bench profile WHAT     Bindery's side of one comparison (page, record, record-own, read, read-first, encode) for 5 s, for perf
//
// Bindery's side is the client's own path: a collection request's `get()` over a transport that answers with the
// page's bytes at once (no network, no middleware), so the time is parsing, validating and building the page.

// MARK: - Deterministic payloads

/// SplitMix64: the same payloads on every run and machine.
struct Random {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func text(_ count: Int, from alphabet: [Character]) -> String {
        String((0..<count).map { _ in alphabet[below(alphabet.count)] })
    }

    mutating func guid(upper: Bool = false) -> String {
        let hex: [Character] = Array(upper ? "0123456789ABCDEF" : "0123456789abcdef")
        return [8, 4, 4, 4, 12].map { text($0, from: hex) }.joined(separator: "-")
    }

    /// `2023-03-14T09:26:53Z`, or with milliseconds (`...53.123Z`) about a third of the time, as Graph mixes them.
    mutating func dateTime(from: Int = 1_500_000_000, span: Int = 250_000_000) -> String {
        let seconds = from + below(span)
        let date = Date(timeIntervalSince1970: Double(seconds))
        var text = date.formatted(Styles.withoutFraction)
        if chance(33) { text = String(text.dropLast()) + "." + String(format: "%03d", below(1000)) + "Z" }
        return text
    }
}

/// The words, names and kinds the payloads are made of.
enum Corpus {
    static let upperAlphanumerics: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    static let base64Characters: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    static let words = [
        "budget", "report", "summary", "invoice", "notes", "draft", "final", "review", "plan", "roadmap", "minutes",
        "design", "holiday", "photos", "contract", "proposal", "sales", "q3", "team", "onboarding", "archive",
    ]
    static let people = [
        "Megan Bowen", "Alex Wilber", "Lee Gu", "Isaiah Langer", "Nestor Wilke", "Patti Fernandez", "Lynne Robbins",
        "Adele Vance", "Johanna Lorenz", "Diego Siciliani", "Grady Archie", "Henrietta Mueller",
    ]
    static let documentKinds = [
        ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("pdf", "application/pdf"),
        ("pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"),
        ("txt", "text/plain"), ("zip", "application/zip"),
    ]
    static let cameras = [("Apple", "iPhone 14 Pro"), ("Canon", "EOS R6"), ("Google", "Pixel 8"), ("SONY", "ILCE-7M3")]
}

/// A JSON string literal; the generated text needs escaping only for quotes.
func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }

/// Writes driveItems as OneDrive for Business sends them in a children or delta page.
struct DriveItemWriter {
    var random: Random
    let driveId: String
    let folderIds: [(id: String, path: String)]

    init(seed: UInt64) {
        random = Random(state: seed)
        driveId = "b!" + random.text(64, from: Corpus.base64Characters.filter { $0 != "+" && $0 != "/" })
        var folders: [(String, String)] = []
        var generator = random
        for index in 0..<40 {
            let path = "/drive/root:/" + (index == 0 ? "" : "\(generator.pick(Corpus.words).capitalized) \(index)")
            folders.append(("01BYE5RZ" + generator.text(26, from: Corpus.upperAlphanumerics), path))
        }
        random = generator
        folderIds = folders
    }

    mutating func identity() -> String {
        let name = random.pick(Corpus.people)
        let email = name.lowercased().replacingOccurrences(of: " ", with: ".") + "@contoso.onmicrosoft.com"
        return "{\"user\":{\"email\":\(quoted(email)),\"id\":\(quoted(random.guid())),\"displayName\":\(quoted(name))}}"
    }

    /// One item as a JSON object; `deleted` writes the short form a delta sends for a removed item.
    mutating func item(deleted: Bool = false) -> String {
        let id = "01BYE5RZ" + random.text(26, from: Corpus.upperAlphanumerics)
        let parent = random.pick(folderIds)
        let parentName = parent.path.split(separator: "/").last.map(String.init) ?? "root:"
        let parentReference =
            "{\"driveType\":\"business\",\"driveId\":\(quoted(driveId)),\"id\":\(quoted(parent.id)),"
            + "\"name\":\(quoted(parentName)),\"path\":\(quoted(parent.path)),"
            + "\"siteId\":\(quoted(random.guid()))}"
        if deleted {
            return "{\"id\":\(quoted(id)),\"deleted\":{\"state\":\"deleted\"},\"parentReference\":\(parentReference)}"
        }
        let created = random.dateTime()
        let modified = random.dateTime(from: 1_750_000_000, span: 30_000_000)
        let tag = random.guid(upper: true)
        var fields: [String] = []
        let kind = random.below(100)
        let name: String
        if kind < 15 {
            name = random.pick(Corpus.words).capitalized + " " + String(random.below(100))
        } else if kind < 45 {
            name = "IMG_" + String(1000 + random.below(9000)) + ".jpg"
        } else {
            let (ext, _) = random.pick(Corpus.documentKinds)
            name =
                random.pick(Corpus.words) + "-" + random.pick(Corpus.words) + "-" + String(random.below(1000)) + "."
                + ext
        }
        fields.append("\"createdDateTime\":\(quoted(created))")
        fields.append("\"cTag\":\(quoted("\"c:{\(tag)},\(1 + random.below(9))\""))")
        fields.append("\"eTag\":\(quoted("\"{\(tag)},\(1 + random.below(9))\""))")
        fields.append("\"id\":\(quoted(id))")
        fields.append("\"lastModifiedDateTime\":\(quoted(modified))")
        fields.append("\"name\":\(quoted(name))")
        fields.append("\"size\":\(kind < 15 ? random.below(1 << 30) : random.below(1 << 24) + 1024)")
        let webPath = parent.path.replacingOccurrences(of: "/drive/root:", with: "") + "/" + name
        fields.append(
            "\"webUrl\":\(quoted("https://contoso-my.sharepoint.com/personal/megan_contoso_onmicrosoft_com/Documents" + webPath.replacingOccurrences(of: " ", with: "%20")))"
        )
        fields.append("\"createdBy\":\(identity())")
        fields.append("\"lastModifiedBy\":\(identity())")
        fields.append("\"parentReference\":\(parentReference)")
        fields.append(
            "\"fileSystemInfo\":{\"createdDateTime\":\(quoted(created)),\"lastModifiedDateTime\":\(quoted(modified))}")
        if kind < 15 {
            fields.append("\"folder\":{\"childCount\":\(random.below(200))}")
        } else {
            let mime = kind < 45 ? "image/jpeg" : Corpus.documentKinds.first { name.hasSuffix("." + $0.0) }!.1
            // SharePoint sends a quickXorHash; older OneDrive for Business files also carry a sha1Hash.
            var hashes = "\"quickXorHash\":\(quoted(random.text(27, from: Corpus.base64Characters) + "="))"
            if kind >= 45 { hashes += ",\"sha1Hash\":\(quoted(random.text(40, from: Array("0123456789ABCDEF"))))" }
            fields.append("\"file\":{\"mimeType\":\(quoted(mime)),\"hashes\":{\(hashes)}}")
        }
        if kind >= 15, kind < 45 {
            let (make, model) = random.pick(Corpus.cameras)
            let portrait = random.chance(40)
            fields.append("\"image\":{\"height\":\(portrait ? 4032 : 3024),\"width\":\(portrait ? 3024 : 4032)}")
            fields.append(
                "\"photo\":{\"cameraMake\":\(quoted(make)),\"cameraModel\":\(quoted(model)),"
                    + "\"exposureDenominator\":\(random.pick([60, 120, 250, 1000])),\"exposureNumerator\":1,"
                    + "\"focalLength\":\(random.pick(["4.25", "6.86", "35", "50"])),\"fNumber\":\(random.pick(["1.78", "2.8", "4"])),"
                    + "\"iso\":\(random.pick([32, 100, 400, 1600])),\"orientation\":\(portrait ? 6 : 1),"
                    + "\"takenDateTime\":\(quoted(random.dateTime(from: 1_600_000_000, span: 100_000_000)))}"
            )
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// `[item,item,...]` of `count` items.
func driveItemArray(count: Int, seed: UInt64) -> String {
    var writer = DriveItemWriter(seed: seed)
    return "[" + (0..<count).map { _ in writer.item() }.joined(separator: ",") + "]"
}

/// A children page as Graph sends it.
func drivePage(items: String) -> [UInt8] {
    let context =
        "https://graph.microsoft.com/v1.0/$metadata#users('megan%40contoso.onmicrosoft.com')/drive/root/children"
    let next = "https://graph.microsoft.com/v1.0/me/drive/root/children?$skiptoken=UGFnZWQ9VFJVRSZwX0lEPTEwMDA"
    return Array("{\"@odata.context\":\(quoted(context)),\"value\":\(items),\"@odata.nextLink\":\(quoted(next))}".utf8)
}

/// An Inbox messages page: a bare array of messages with HTML bodies, as the API sends them.
func messagePage(count: Int, seed: UInt64) -> [UInt8] {
    var random = Random(state: seed)
    func participant() -> String {
        let name = random.pick(Corpus.people)
        let email = name.lowercased().replacingOccurrences(of: " ", with: ".") + "@contoso.com"
        return "{\"name\":\(quoted(name)),\"email\":\(quoted(email))}"
    }
    func participants(_ count: Int) -> String {
        "[" + (0..<count).map { _ in participant() }.joined(separator: ",") + "]"
    }
    let namespace = random.text(25, from: Array("abcdefghijklmnopqrstuvwxyz0123456789"))
    let sentences = [
        "Please find the latest figures attached.", "Can we move the review to Thursday afternoon?",
        "Thanks for the quick turnaround on this.", "I've added my comments in the document.",
        "Let me know if anything is unclear.", "The deadline for the submission is next Friday.",
        "We should align on the scope before the kickoff.", "Looping in the rest of the team for visibility.",
    ]
    var messages: [String] = []
    for _ in 0..<count {
        let id = random.text(25, from: Array("abcdefghijklmnopqrstuvwxyz0123456789"))
        let subject =
            random.pick(Corpus.words).capitalized + " " + random.pick(Corpus.words) + " (" + String(random.below(100))
            + ")"
        var paragraphs: [String] = []
        for _ in 0..<(3 + random.below(12)) {
            let text = (0..<(2 + random.below(5))).map { _ in random.pick(sentences) }.joined(separator: " ")
            paragraphs.append(
                "<div dir=\"ltr\" style=\"font-family: Calibri, Arial, sans-serif; font-size: 11pt;\"><p>" + text
                    + "</p></div>")
        }
        let html =
            "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head><body>\n"
            + paragraphs.joined(separator: "\n") + "\n<br><div class=\"signature\">" + random.pick(Corpus.people)
            + "<br>Contoso Ltd.</div></body></html>"
        var fields = [
            "\"id\":\(quoted(id))", "\"object\":\"message\"", "\"namespace_id\":\(quoted(namespace))",
            "\"thread_id\":\(quoted(random.text(25, from: Array("abcdefghijklmnopqrstuvwxyz0123456789"))))",
            "\"subject\":\(quoted(subject))", "\"from\":\(participants(1))",
            "\"to\":\(participants(1 + random.below(3)))",
            "\"cc\":\(participants(random.below(3)))", "\"bcc\":[]", "\"reply_to\":[]",
            "\"date\":\(1_700_000_000 + random.below(50_000_000))",
            "\"snippet\":\(quoted(String(paragraphs.joined().filter { $0 != "<" }.prefix(120))))",
            "\"body\":\(quoted(html.replacingOccurrences(of: "\n", with: "\\n")))",
            "\"unread\":\(random.chance(30))",
        ]
        if random.chance(20) {
            let file =
                "{\"id\":\(quoted(random.text(25, from: Corpus.upperAlphanumerics))),\"object\":\"file\","
                + "\"namespace_id\":\(quoted(namespace)),\"filename\":\"\(random.pick(Corpus.words)).pdf\","
                + "\"size\":\(random.below(5_000_000)),\"content_type\":\"application/pdf\","
                + "\"message_ids\":[\(quoted(id))],\"is_embedded\":false}"
            fields.append("\"files\":[\(file)]")
        } else {
            fields.append("\"files\":[]")
        }
        messages.append("{" + fields.joined(separator: ",") + "}")
    }
    return Array(("[" + messages.joined(separator: ",") + "]").utf8)
}

// MARK: - The handwritten Codable structs a careful person would write for the same payloads

struct HandPage: Codable {
    var value: [HandDriveItem]
    var nextLink: String?

    enum CodingKeys: String, CodingKey {
        case value
        case nextLink = "@odata.nextLink"
    }
}

struct HandDriveItem: Codable, Equatable {
    var id: String
    var name: String?
    var eTag: String?
    var cTag: String?
    var size: Int64?
    var createdDateTime: Date?
    var lastModifiedDateTime: Date?
    var webUrl: String?
    var createdBy: HandIdentitySet?
    var lastModifiedBy: HandIdentitySet?
    var parentReference: HandItemReference?
    var fileSystemInfo: HandFileSystemInfo?
    var folder: HandFolder?
    var file: HandFile?
    var image: HandImage?
    var photo: HandPhoto?
    var deleted: HandDeleted?
}

struct HandIdentitySet: Codable, Equatable {
    var user: HandIdentity?
    var application: HandIdentity?
    var device: HandIdentity?
}

struct HandIdentity: Codable, Equatable {
    var id: String?
    var displayName: String?
    var email: String?
}

struct HandItemReference: Codable, Equatable {
    var driveId: String?
    var driveType: String?
    var id: String?
    var name: String?
    var path: String?
    var siteId: String?
}

struct HandFileSystemInfo: Codable, Equatable {
    var createdDateTime: Date?
    var lastModifiedDateTime: Date?
}

struct HandFolder: Codable, Equatable { var childCount: Int32? }

struct HandFile: Codable, Equatable {
    var mimeType: String?
    var hashes: HandHashes?
}

struct HandHashes: Codable, Equatable {
    var quickXorHash: String?
    var sha1Hash: String?
    var sha256Hash: String?
}

struct HandImage: Codable, Equatable {
    var height: Int32?
    var width: Int32?
}

struct HandPhoto: Codable, Equatable {
    var cameraMake: String?
    var cameraModel: String?
    var exposureDenominator: Double?
    var exposureNumerator: Double?
    var focalLength: Double?
    var fNumber: Double?
    var iso: Int32?
    var orientation: Int16?
    var takenDateTime: Date?
}

struct HandDeleted: Codable, Equatable { var state: String? }

struct HandMessage: Codable, Equatable {
    var id: String
    var object: String?
    var namespaceId: String?
    var threadId: String?
    var subject: String?
    var from: [HandParticipant]?
    var to: [HandParticipant]?
    var cc: [HandParticipant]?
    var bcc: [HandParticipant]?
    var replyTo: [HandParticipant]?
    var date: Int64?
    var snippet: String?
    var body: String?
    var files: [HandFileAttachment]?
    var unread: Bool?

    enum CodingKeys: String, CodingKey {
        case id, object, subject, from, to, cc, bcc, date, snippet, body, files, unread
        case namespaceId = "namespace_id"
        case threadId = "thread_id"
        case replyTo = "reply_to"
    }
}

struct HandParticipant: Codable, Equatable {
    var name: String?
    var email: String?
}

struct HandFileAttachment: Codable, Equatable {
    var id: String
    var object: String?
    var namespaceId: String?
    var filename: String?
    var size: Int64?
    var contentType: String?
    var messageIds: [String]?
    var isEmbedded: Bool?

    enum CodingKeys: String, CodingKey {
        case id, object, filename, size
        case namespaceId = "namespace_id"
        case contentType = "content_type"
        case messageIds = "message_ids"
        case isEmbedded = "is_embedded"
    }
}

/// A user's own cache record holding Bindery models, and the same record with the handwritten structs.
struct CacheRecord: Codable {
    var savedAt: Date
    var items: [DriveItem]
}

struct HandCacheRecord: Codable {
    var savedAt: Date
    var items: [HandDriveItem]
}

/// Graph sends date-times with and without fractional seconds; `.iso8601` alone rejects the former, so a careful
/// person picks the format style by the text.
enum Styles {
    static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let withoutFraction = Date.ISO8601FormatStyle()
}

func makeDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        let style = text.utf8.contains(UInt8(ascii: ".")) ? Styles.withFraction : Styles.withoutFraction
        guard let date = try? style.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
        }
        return date
    }
    return decoder
}

/// Bindery's decoder with the same date strategy.
func makeOwnDecoder() -> BinderyJSONDecoder {
    var decoder = BinderyJSONDecoder()
    decoder.dateDecodingStrategy = makeDecoder().dateDecodingStrategy
    return decoder
}

func makeEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(date.formatted(Styles.withFraction))
    }
    return encoder
}

// MARK: - Bindery's side: the client's own path over a transport that answers at once

struct CannedTransport: HTTPTransport {
    let body: [UInt8]

    func send(_ request: TransportRequest) async throws -> APIResponse {
        APIResponse(status: .ok, headers: [.contentType: "application/json"], body: body)
    }
}

func oneDrive(answering body: [UInt8]) -> OneDriveClient {
    OneDriveClient(
        baseURL: URL(string: "https://graph.microsoft.com/v1.0")!, transport: CannedTransport(body: body),
        middleware: [])
}

// MARK: - Measuring

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Keeps results observable so the optimizer cannot drop the work.
enum Sink {
    nonisolated(unsafe) static var value = 0
}

func check(_ condition: Bool, _ message: String) {
    if !condition {
        FileHandle.standardError.write(Data("decode-bench: check failed: \(message)\n".utf8))
        exit(1)
    }
}

/// Runs `first` and `second` alternately, `warmUp` times unrecorded then `reps` times; medians in milliseconds.
func sideBySide(
    reps: Int, warmUp: Int = 3, _ first: () async throws -> Void, _ second: () async throws -> Void
) async rethrows -> (Double, Double) {
    var a: [Double] = []
    var b: [Double] = []
    for rep in 0..<(warmUp + reps) {
        var start = ContinuousClock.now
        try await first()
        let timeA = milliseconds(since: start)
        start = ContinuousClock.now
        try await second()
        let timeB = milliseconds(since: start)
        if rep >= warmUp {
            a.append(timeA)
            b.append(timeB)
        }
    }
    return (median(a), median(b))
}

func output(_ key: String, _ value: Double) { print("\(key)=\(String(format: "%.3f", value))") }

/// The eight properties read of every item: five strings, an Int64, a date and a nested model's string. The sum
/// goes to a global, so no pass can be skipped as a repeat of the one before.
@inline(never)
func readProperties(_ items: [DriveItem]) -> Int {
    var total = 0
    for item in items {
        total &+= item.id?.utf8.count ?? 0
        total &+= item.name?.utf8.count ?? 0
        total &+= item.eTag?.utf8.count ?? 0
        total &+= item.cTag?.utf8.count ?? 0
        total &+= item.webUrl?.utf8.count ?? 0
        total &+= Int(item.size ?? 0)
        total &+= Int(item.lastModifiedDateTime?.timeIntervalSince1970 ?? 0)
        total &+= item.parentReference?.driveId?.utf8.count ?? 0
    }
    Sink.value &+= total
    return total
}

@inline(never)
func readProperties(_ items: [HandDriveItem]) -> Int {
    var total = 0
    for item in items {
        total &+= item.id.utf8.count
        total &+= item.name?.utf8.count ?? 0
        total &+= item.eTag?.utf8.count ?? 0
        total &+= item.cTag?.utf8.count ?? 0
        total &+= item.webUrl?.utf8.count ?? 0
        total &+= Int(item.size ?? 0)
        total &+= Int(item.lastModifiedDateTime?.timeIntervalSince1970 ?? 0)
        total &+= item.parentReference?.driveId?.utf8.count ?? 0
    }
    Sink.value &+= total
    return total
}

func compare(reps: Int) async throws {
    let itemCount = 1000
    let array = driveItemArray(count: itemCount, seed: 15)
    let pageBytes = drivePage(items: array)
    let pageData = Data(pageBytes)
    let recordData = Data("{\"savedAt\":\"2026-11-25T12:00:00.250Z\",\"items\":\(array)}".utf8)
    let decoder = makeDecoder()
    let encoder = makeEncoder()
    let client = oneDrive(answering: pageBytes)
    let children = client.me.drive.root.children.request()
    print("page_items=\(itemCount) page_bytes=\(pageBytes.count) record_bytes=\(recordData.count)")

    // The same items both ways, or nothing is measured.
    let page = try await children.get()
    let hand = try decoder.decode(HandPage.self, from: pageData)
    check(page.value.count == itemCount && hand.value.count == itemCount, "item counts")
    for (model, handItem) in zip(page.value, hand.value) {
        check(model.id == handItem.id && model.size == handItem.size, "ids and sizes")
        check(model.name == handItem.name && model.eTag == handItem.eTag, "names and eTags")
        let modelDate = model.lastModifiedDateTime?.timeIntervalSince1970 ?? -1
        let handDate = handItem.lastModifiedDateTime?.timeIntervalSince1970 ?? -2
        check(abs(modelDate - handDate) < 0.0005, "dates: \(modelDate) \(handDate)")
        let modelTaken = model.photo?.takenDateTime?.timeIntervalSince1970 ?? 0
        check(abs(modelTaken - (handItem.photo?.takenDateTime?.timeIntervalSince1970 ?? 0)) < 0.0005, "photo dates")
        check(model.file?.hashes?.quickXorHash == handItem.file?.hashes?.quickXorHash, "hashes")
    }
    check(page.nextLink?.absoluteString == hand.nextLink, "next links")
    let record = try decoder.decode(CacheRecord.self, from: recordData)
    let ownDecoder = makeOwnDecoder()
    let ownRecord = try ownDecoder.decode(CacheRecord.self, from: recordData)
    check(ownRecord.items == page.value && ownRecord.savedAt == record.savedAt, "BinderyJSONDecoder's cache record")
    let handRecord = try decoder.decode(HandCacheRecord.self, from: recordData)
    check(record.items == page.value, "the cache record's models equal the page's")
    check(handRecord.items == hand.value && record.savedAt == handRecord.savedAt, "the handwritten cache record")
    check(readProperties(page.value) == readProperties(hand.value), "the properties read")

    // 1. The page to models.
    let (pageBindery, pageFoundation) = try await sideBySide(
        reps: reps,
        { Sink.value &+= try await children.get().value.count },
        { Sink.value &+= try decoder.decode(HandPage.self, from: pageData).value.count })
    output("page_bindery_ms", pageBindery)
    output("page_foundation_ms", pageFoundation)

    // 2. The same items through JSONDecoder, inside the user's own Codable type.
    let (recordBindery, recordFoundation) = try await sideBySide(
        reps: reps,
        { Sink.value &+= try decoder.decode(CacheRecord.self, from: recordData).items.count },
        { Sink.value &+= try decoder.decode(HandCacheRecord.self, from: recordData).items.count })
    output("record_bindery_ms", recordBindery)
    output("record_foundation_ms", recordFoundation)

    // 2b. The same record through Bindery's own decoder, where the models take their part of the parsed document.
    let (recordOwn, recordFoundationAgain) = try await sideBySide(
        reps: reps,
        { Sink.value &+= try ownDecoder.decode(CacheRecord.self, from: recordData).items.count },
        { Sink.value &+= try decoder.decode(HandCacheRecord.self, from: recordData).items.count })
    output("record_own_ms", recordOwn)
    output("record_own_foundation_ms", recordFoundationAgain)

    // 3. Eight properties of every item, 20 passes per sample so the struct side is measurable.
    let passes = 20
    let (readBindery, readStruct) = await sideBySide(
        reps: reps,
        { for _ in 0..<passes { _ = readProperties(page.value) } },
        { for _ in 0..<passes { _ = readProperties(hand.value) } })
    output("read_bindery_ms", readBindery / Double(passes))
    output("read_struct_ms", readStruct / Double(passes))

    // 3b. The same eight, read once from models fresh from the page: every value is converted on this read.
    var firstBindery: [Double] = []
    var firstStruct: [Double] = []
    for rep in 0..<(3 + reps) {
        let fresh = page.value.map { DriveItem(storage: $0.storage) }
        var start = ContinuousClock.now
        // Kept past the clock's reading: freeing the models is not part of reading them.
        let timeBindery = withExtendedLifetime(fresh) {
            _ = readProperties(fresh)
            return milliseconds(since: start)
        }
        start = ContinuousClock.now
        _ = readProperties(hand.value)
        let timeStruct = milliseconds(since: start)
        if rep >= 3 {
            firstBindery.append(timeBindery)
            firstStruct.append(timeStruct)
        }
    }
    output("read_first_bindery_ms", median(firstBindery))
    output("read_first_struct_ms", median(firstStruct))

    // 3c. The first read of a page decoded a while ago: both sides decoded anew, then the caches flushed by writing
    // a buffer larger than them, before each timed pass (a screen opened on a page fetched earlier). The structs go
    // first: timed after Bindery's pass, their time moved by 3× with what that pass allocated.
    var coldBindery: [Double] = []
    var coldStruct: [Double] = []
    let flush = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 20, alignment: 64)
    defer { flush.deallocate() }
    for rep in 0..<(2 + reps) {
        let models = try await children.get().value
        let structs = try decoder.decode(HandPage.self, from: pageData).value
        flush.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: rep))
        var start = ContinuousClock.now
        _ = readProperties(structs)
        let timeStruct = milliseconds(since: start)
        flush.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: rep + 1))
        start = ContinuousClock.now
        let timeBindery = withExtendedLifetime(models) {
            _ = readProperties(models)
            return milliseconds(since: start)
        }
        if rep >= 2 {
            coldBindery.append(timeBindery)
            coldStruct.append(timeStruct)
        }
    }
    output("read_cold_bindery_ms", median(coldBindery))
    output("read_cold_struct_ms", median(coldStruct))

    // 3d. What the first read keeps: heap in use before and after reading the 8 of every item of a fresh page.
    let unread = try await children.get().value
    let heapBefore = heapInUse()
    _ = readProperties(unread)
    let heapAfter = heapInUse()
    withExtendedLifetime(unread) {}
    output("read_kept_bytes_per_item", Double(heapAfter - heapBefore) / Double(itemCount))

    // 4. The page encoded: the models' own writer, and JSONEncoder of the handwritten structs.
    let encodedPage = JSONValue.array(page.value.map(\.json)).serialized()
    check(encodedPage == Array(array.utf8), "Bindery writes the items back exactly as they came")
    let encodedHand = try encoder.encode(hand.value)
    // Dates come back within a millisecond, not bit for bit, so the round trip compares the rest.
    let roundTrip = try decoder.decode([HandDriveItem].self, from: encodedHand)
    check(roundTrip.map(\.id) == hand.value.map(\.id), "JSONEncoder round trip: ids")
    check(roundTrip.map(\.size) == hand.value.map(\.size), "JSONEncoder round trip: sizes")
    check(roundTrip.map(\.photo?.cameraModel) == hand.value.map(\.photo?.cameraModel), "JSONEncoder round trip")
    let (encodeBindery, encodeFoundation) = try await sideBySide(
        reps: reps,
        { Sink.value &+= JSONValue.array(page.value.map(\.json)).serialized().count },
        { Sink.value &+= try encoder.encode(hand.value).count })
    output("encode_bindery_ms", encodeBindery)
    output("encode_foundation_ms", encodeFoundation)

    // 4b. The cache record written by BinderyJSONEncoder, beside JSONEncoder of the handwritten record.
    var ownEncoder = BinderyJSONEncoder()
    ownEncoder.dateEncodingStrategy = encoder.dateEncodingStrategy
    let ownRecordData = try ownEncoder.encode(ownRecord)
    check(
        try ownDecoder.decode(CacheRecord.self, from: ownRecordData).items == page.value, "BinderyJSONEncoder's record")
    let (recordEncodeOwn, recordEncodeFoundation) = try await sideBySide(
        reps: reps,
        { Sink.value &+= try ownEncoder.encode(ownRecord).count },
        { Sink.value &+= try encoder.encode(handRecord).count })
    output("record_encode_own_ms", recordEncodeOwn)
    output("record_encode_foundation_ms", recordEncodeFoundation)

    // 5. A page of messages with HTML bodies (Inbox's Message).
    let messageBytes = messagePage(count: 100, seed: 1704)
    let messageData = Data(messageBytes)
    let inbox = InboxClient(
        baseURL: URL(string: "https://api.nylas.com")!, transport: CannedTransport(body: messageBytes), middleware: [])
    let messages = inbox.namespaces("ns").messages.request()
    let messagePageModels = try await messages.get()
    let handMessages = try decoder.decode([HandMessage].self, from: messageData)
    check(messagePageModels.value.count == 100 && handMessages.count == 100, "message counts")
    for (model, handMessage) in zip(messagePageModels.value, handMessages) {
        check(model.id == handMessage.id && model.body == handMessage.body, "message ids and bodies")
        check(model.to?.count == handMessage.to?.count && model.date == handMessage.date, "recipients and dates")
    }
    print("messages=100 messages_bytes=\(messageBytes.count)")
    // A few milliseconds each, so 10 decodes per sample, to steady the medians on a busy machine.
    let (messagesBindery, messagesFoundation) = try await sideBySide(
        reps: reps,
        { for _ in 0..<10 { Sink.value &+= try await messages.get().value.count } },
        { for _ in 0..<10 { Sink.value &+= try decoder.decode([HandMessage].self, from: messageData).count } })
    output("messages_bindery_ms", messagesBindery / 10)
    output("messages_foundation_ms", messagesFoundation / 10)
    print("reps=\(reps) sink=\(Sink.value)")
}

// MARK: - Peak memory of a large delta page

/// The bytes malloc has handed out and not taken back (0 where glibc's `mallinfo2` is missing).
func heapInUse() -> Int {
    #if os(Linux)
        Int(mallinfo2().uordblks)
    #else
        0
    #endif
}

/// A resident-set figure of /proc/self/status (`VmRSS`, `VmHWM`), in bytes.
func status(_ key: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// Resets the kernel's peak resident size to the current one (Linux 4.0 and later).
func resetPeak() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
    return true
}

func delta(mebibytes: Int) async throws {
    let target = mebibytes * 1_048_576
    var body: [UInt8] = []
    body.reserveCapacity(target + 65_536)
    body += Array(
        "{\"@odata.context\":\"https://graph.microsoft.com/v1.0/$metadata#Collection(driveItem)\",\"value\":[".utf8)
    var writer = DriveItemWriter(seed: 100)
    var items = 0
    var deleted = 0
    while body.count < target {
        if items > 0 { body.append(UInt8(ascii: ",")) }
        let removed = writer.random.chance(3)
        body += Array(writer.item(deleted: removed).utf8)
        items += 1
        if removed { deleted += 1 }
    }
    body += Array(
        "],\"@odata.deltaLink\":\"https://graph.microsoft.com/v1.0/me/drive/root/delta?token=MzslMjM0OyUyMzE7Mzs\"}"
            .utf8)
    let client = oneDrive(answering: body)
    let request = client.me.drive.root.delta()
    let before = status("VmRSS")
    let reset = resetPeak()
    let start = ContinuousClock.now
    let page = try await request.get()
    let elapsed = milliseconds(since: start)
    let peak = status("VmHWM")
    let after = status("VmRSS")
    check(page.value.count == items, "delta item count")
    check(page.value.filter(\.isDeletedInDelta).count == deleted, "deleted items")
    check(page.deltaToken == "MzslMjM0OyUyMzE7Mzs", "delta token")
    print(
        "delta_bytes=\(body.count) delta_items=\(items) delta_ms=\(String(format: "%.0f", elapsed)) "
            + "rss_before=\(before) peak=\(peak) rss_after=\(after) peak_reset=\(reset ? "clear_refs" : "none")")
    withExtendedLifetime(page) {}
}

/// Bindery's side of one comparison, over and over, for a profiler (`perf record decode-bench profile page`).
func profile(_ what: String, seconds: Double) async throws {
    let array = driveItemArray(count: 1000, seed: 15)
    let pageBytes = drivePage(items: array)
    let children = oneDrive(answering: pageBytes).me.drive.root.children.request()
    let items = try await children.get().value
    let recordData = Data("{\"savedAt\":\"2026-11-25T12:00:00.250Z\",\"items\":\(array)}".utf8)
    let decoder = makeDecoder()
    let start = ContinuousClock.now
    while milliseconds(since: start) < seconds * 1000 {
        switch what {
        case "page": Sink.value &+= try await children.get().value.count
        case "record": Sink.value &+= try decoder.decode(CacheRecord.self, from: recordData).items.count
        case "record-own": Sink.value &+= try makeOwnDecoder().decode(CacheRecord.self, from: recordData).items.count
        case "read": Sink.value &+= readProperties(items)
        case "read-first": Sink.value &+= readProperties(items.map { DriveItem(storage: $0.storage) })
        case "encode": Sink.value &+= JSONValue.array(items.map(\.json)).serialized().count
        default: check(false, "profile page | record | record-own | read | read-first | encode")
        }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "compare":
    try await compare(reps: arguments.count > 1 ? Int(arguments[1])! : 15)
case "profile" where arguments.count == 2:
    try await profile(arguments[1], seconds: 5)
case "delta" where arguments.count == 2:
    try await delta(mebibytes: Int(arguments[1])!)
default:
    FileHandle.standardError.write(Data("usage: decode-bench compare [REPS] | delta MIB\n".utf8))
    exit(2)
}
