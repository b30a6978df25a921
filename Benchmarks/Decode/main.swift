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
//   decode-bench profile WHAT     Bindery's side of one comparison (page, record, record-own, read, page-read, encode) for 5 s, for perf
//
// Bindery's side is the client's own path: a collection request's `get()` over a transport that answers with the
// page's bytes at once (no network, no middleware), so the time is parsing, validating and building the page.

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

    // 3. What a list screen does: decode the page, then read the 8 properties it shows of every item, once.
    let (pageReadBindery, pageReadFoundation) = try await sideBySide(
        reps: reps,
        { Sink.value &+= readProperties(try await children.get().value) },
        { Sink.value &+= readProperties(try decoder.decode(HandPage.self, from: pageData).value) })
    output("page_read_bindery_ms", pageReadBindery)
    output("page_read_foundation_ms", pageReadFoundation)

    // 3b. The 8 read again, 20 passes per sample so the struct side is measurable: every read converts anew.
    let passes = 20
    let (readBindery, readStruct) = await sideBySide(
        reps: reps,
        { for _ in 0..<passes { _ = readProperties(page.value) } },
        { for _ in 0..<passes { _ = readProperties(hand.value) } })
    output("read_bindery_ms", readBindery / Double(passes))
    output("read_struct_ms", readStruct / Double(passes))

    // 3c. What reading keeps: heap in use before and after reading the 8 of every item of a fresh page.
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
        case "page-read": Sink.value &+= readProperties(try await children.get().value)
        case "encode": Sink.value &+= JSONValue.array(items.map(\.json)).serialized().count
        default: check(false, "profile page | record | record-own | read | page-read | encode")
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
