import Foundation
import HTTPTypes

/// A `multipart/form-data` body (RFC 7578): named text fields and files, such as an Inbox file upload.
public struct MultipartForm: Sendable, Hashable {
    public enum Part: Sendable, Hashable {
        case field(name: String, value: String)
        /// Text in a content type of its own, such as a JSON document (`attributes` as `application/json`).
        case text(name: String, contentType: String, value: String)
        case file(name: String, filename: String, contentType: String, bytes: [UInt8])
    }

    public var parts: [Part]
    /// Separates the parts; random, so that it does not occur in the content.
    public let boundary: String

    public init(_ parts: [Part] = [], boundary: String = "bindery-" + UUID().uuidString) {
        self.parts = parts
        self.boundary = boundary
    }

    /// A form holding one file.
    public static func file(
        _ bytes: [UInt8], filename: String, contentType: String = "application/octet-stream", name: String = "file"
    ) -> MultipartForm {
        MultipartForm([.file(name: name, filename: filename, contentType: contentType, bytes: bytes)])
    }

    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public func encoded() -> [UInt8] {
        var output: [UInt8] = []
        func line(_ text: String) { output += Array(text.utf8) + [13, 10] }
        for part in parts {
            line("--\(boundary)")
            switch part {
            case .field(let name, let value):
                line("Content-Disposition: form-data; name=\"\(Self.quoted(name))\"")
                line("")
                output += Array(value.utf8)
            case .text(let name, let contentType, let value):
                line("Content-Disposition: form-data; name=\"\(Self.quoted(name))\"")
                line("Content-Type: \(Self.quoted(contentType))")
                line("")
                output += Array(value.utf8)
            case .file(let name, let filename, let contentType, let bytes):
                line(
                    "Content-Disposition: form-data; name=\"\(Self.quoted(name))\"; filename=\"\(Self.quoted(filename))\""
                )
                line("Content-Type: \(Self.quoted(contentType))")
                line("")
                output += bytes
            }
            line("")
        }
        line("--\(boundary)--")
        return output
    }

    /// Keeps a name inside its quotes and on its line: quotes and line breaks are percent-encoded (RFC 7578 §2).
    ///
    /// Scalar by scalar, not by `Character`: a line break followed by a combining mark is one character, which a
    /// character-wise replacement of "\n" would not match, and the break would reach the header.
    private static func quoted(_ text: String) -> String {
        var quoted = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": quoted += "%25".unicodeScalars
            case "\"": quoted += "%22".unicodeScalars
            case "\r": quoted += "%0D".unicodeScalars
            case "\n": quoted += "%0A".unicodeScalars
            default: quoted.append(scalar)
            }
        }
        return String(quoted)
    }
}

/// A file sent as one part of a `multipart/form-data` body: its bytes, the name the service stores it under, and
/// its content type (nil: the one the spec declares for the part, else `application/octet-stream`).
public struct MultipartFile: Sendable, Hashable {
    public var bytes: [UInt8]
    public var filename: String
    public var contentType: String?

    public init(_ bytes: [UInt8], filename: String, contentType: String? = nil) {
        self.bytes = bytes
        self.filename = filename
        self.contentType = contentType
    }
}

extension MultipartForm.Part {
    /// `file` as the part called `name`, in `declaredType` unless the file names its own.
    public static func file(
        _ name: String, _ file: MultipartFile, declaredType: String = "application/octet-stream"
    ) -> Self {
        .file(name: name, filename: file.filename, contentType: file.contentType ?? declaredType, bytes: file.bytes)
    }
}

extension APIRequest {
    /// Sets the body to a multipart form, with its content type and boundary.
    public mutating func setMultipartBody(_ form: MultipartForm) {
        body = .bytes(form.encoded())
        headers[.contentType] = form.contentType
    }
}
