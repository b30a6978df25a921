import BinderyRuntime
import Foundation
import OneDrive

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
