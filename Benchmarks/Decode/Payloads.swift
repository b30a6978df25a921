import Foundation

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
