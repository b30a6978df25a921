import ArgumentParser
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import HTTPTypes
import Logging

@main
struct Bindery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bindery",
        abstract: "Works with the generated OneDrive, OneNote, Graph, Spark and Inbox modules.",
        subcommands: [
            Demo.self, Validate.self, Mock.self, Conformance.self, OneNoteCommand.self, OneDriveCommand.self,
            InboxCommand.self,
        ])
}

/// `bindery validate SERVICE METHOD URL FILE` or `bindery validate SERVICE --type NAME FILE`.
extension Bindery {
    /// Where the CLI's HTTP lines go: swift-log's standard error handler, for exchanges that failed without an
    /// answer (`LOG_LEVEL=info` adds error statuses, `trace` every exchange with its headers). The library itself
    /// logs nothing unless given a logger like this one.
    static let httpLogger: Logger = {
        var logger = Logger(label: "bindery.http")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }()

    /// The default middleware, logging to `httpLogger`.
    static var http: [any HTTPMiddleware] { .defaults(logger: httpLogger) }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Checks a captured response body against the generated types.",
        discussion: """
            Finds the operation for METHOD and URL in the service's route table (concrete ids and {placeholder} \
            segments both match), or takes --type (microsoft.graph.driveItem, Collection(microsoft.graph.driveItem)), \
            decodes FILE with that type, lists the fields the spec does not declare and re-encodes it. \
            Exits 0 only when FILE decodes and re-encodes to the same JSON. With --error (or --type odata.error), \
            FILE is an error body, read as the client reads a failed response; exits 0 when it has the service's \
            error shape.
            """)

    @Argument(help: ArgumentHelp(MockService.choices))
    var service: String

    @Argument(help: "METHOD URL FILE, or just FILE with --type.")
    var arguments: [String]

    @Option(help: "The spec's qualified type name, instead of METHOD and URL.")
    var type: String?

    @Flag(
        help:
            "FILE is an error body in the service's error shape (for OData services, --type odata.error says the same; legacy OneDrive's oneDrive.error too)."
    )
    var error = false

    @Option(
        name: .customLong("batch-request"),
        help: "With a $batch answer: the batch request that was sent, which says what operation each step is.")
    var batchRequest: String?

    func run() throws {
        let service = try MockService.chosen(service).descriptor
        let validator = PayloadValidator(service)
        // `oneDrive.error` is the legacy OneDrive API's name for the same body.
        if error || ["odata.error", "onedrive.error"].contains(type?.lowercased()) {
            guard arguments.count == 1 || arguments.count == 3 else { throw ValidationError("give FILE with --error") }
            let report = validator.validateError(try Self.read(arguments.last ?? ""))
            print(Self.describe(report))
            if !report.isRecognized { throw ExitCode.failure }
            return
        }
        let kind: FieldKind
        let file: String
        var enveloped = true
        var payloadPath: [String]?
        var chosen: String
        if let type {
            guard arguments.count == 1 else { throw ValidationError("with --type, give only FILE") }
            guard let found = validator.kind(named: type) else {
                throw ValidationError("\(service.name) has no type '\(type)'")
            }
            (kind, file) = (found, arguments[0])
            chosen = "type \(type)"
        } else {
            guard arguments.count == 3 else { throw ValidationError("give METHOD URL FILE, or --type NAME FILE") }
            let method = HTTPRequest.Method(arguments[0].uppercased())
            // A URL on a storage host (an upload session's `uploadUrl`) is one of the requests the spec declares
            // there: the first whose answer decodes is the one.
            if let method, case let storage = validator.storageRoutes(method: method, url: arguments[1]),
                !storage.isEmpty
            {
                try Self.validateStorage(try Self.read(arguments[2]), against: storage, validator)
                return
            }
            let path = PayloadValidator.path(of: arguments[1], below: service.baseURLs)
            if method == .post, path.split(separator: "/").last == "$batch" {
                try Self.validateBatch(file: arguments[2], request: batchRequest, validator)
                return
            }
            // The query picks among operations that share a URL (`view=count`, `_pagination=count`).
            let query = (URLComponents(string: arguments[1])?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
            guard let method, let shape = validator.response(method: method, path: path, query: query) else {
                throw ValidationError("\(service.name) has no operation for \(arguments[0].uppercased()) \(path)")
            }
            guard let found = shape.kind else {
                // An operation that answers no body (`POST /me/sendMail`, a DELETE): the answer must say nothing.
                let bytes = try Self.read(arguments[2])
                print("checked as: \(shape.name)")
                if validator.isNoContent(bytes) {
                    print("type: no content")
                    return
                }
                print("error: \(shape.name) answers no content, but the file holds \(bytes.count) bytes")
                throw ExitCode.failure
            }
            (kind, file) = (found, arguments[2])
            (enveloped, payloadPath, chosen) = (shape.isEnveloped, shape.payloadPath, shape.name)
        }
        let bytes = try Self.read(file)
        let report = validator.validate(bytes, as: kind, enveloped: enveloped, payloadPath: payloadPath)
        print("checked as: \(chosen)")
        print(Self.describe(report))
        if !report.isValid { throw ExitCode.failure }
    }

    /// A file's bytes; an empty file is zero bytes, not an error.
    static func read(_ path: String) throws -> [UInt8] {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path)")
        }
        return Array(bytes)
    }

    /// Checks a `$batch` answer step by step, each against the operation its request named.
    static func validateBatch(file: String, request: String?, _ validator: PayloadValidator) throws {
        let report = try validator.validateBatch(read(file), request: request.map(read))
        print(describe(report))
        if !report.isValid { throw ExitCode.failure }
    }

    static func describe(_ report: BatchReport) -> String {
        if let failure = report.failure { return "checked as: $batch\nerror: \(failure)" }
        var lines = ["checked as: $batch (\(report.steps.count) steps)"]
        for step in report.steps {
            lines.append("step \(step.id): \(step.status)" + (step.request.map { " for \($0)" } ?? ""))
            let details: String
            switch step.outcome {
            case .payload(let operation, let payload): details = "checked as: \(operation)\n" + describe(payload)
            case .error(let error): details = describe(error)
            case .noContent(let operation): details = "checked as: \(operation)\ntype: no content"
            case .problem(let problem): details = "error: \(problem)"
            }
            lines += details.split(separator: "\n").map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// Checks a storage host's answer against the requests the spec declares there, and says which one fits.
    static func validateStorage(_ bytes: [UInt8], against routes: [StorageRoute], _ validator: PayloadValidator)
        throws
    {
        guard let (route, report) = validator.storageAnswer(bytes, candidates: routes) else {
            print("checked as: none of the storage-host requests answers this")
            throw ExitCode.failure
        }
        print(
            "checked as: storage-host request \(route.name) (\(route.method.rawValue) \(route.owner).\(route.urlMember))"
        )
        guard let report else {
            print(route.isRawBody ? "type: bytes (\(bytes.count))" : "type: no content")
            return
        }
        print(describe(report))
        if !report.isValid { throw ExitCode.failure }
    }

    static func describe(_ report: ErrorBodyReport) -> String {
        // The code's place says which shape was expected: `error.code`, `D.Code`, or the common ones.
        let codePaths = report.shape.code.map { $0.joined(separator: ".") }
        let type = "type: error (code at \(codePaths.isEmpty ? "a common place" : codePaths.joined(separator: " or ")))"
        guard report.isRecognized else {
            return type + "\nrecognized: no, the body does not have the service's error shape"
        }
        var lines = [type, "recognized: yes", "code: \(report.code ?? "")"]
        lines.append("message: \(report.message ?? "")")
        if let requestID = report.requestID { lines.append("request id: \(requestID)") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ report: PayloadReport) -> String {
        var lines = ["type: \(report.typeName)" + (report.itemCount.map { " (\($0) items)" } ?? "")]
        if let failure = report.failure {
            lines.append("decoded: no, at \(failure.jsonPath): \(failure.message)")
            return lines.joined(separator: "\n")
        }
        lines.append("decoded: yes")
        lines.append(
            "unknown fields kept: \(report.unknownFields.isEmpty ? "none" : String(report.unknownFields.count))")
        lines += report.unknownFields.prefix(20).map { "  \($0)" }
        if report.unknownFields.count > 20 { lines.append("  ... and \(report.unknownFields.count - 20) more") }
        lines.append("round trip: \(report.roundTrips ? "identical" : "differs")")
        return lines.joined(separator: "\n")
    }
}

extension MockService {
    /// `graph, inbox, onedrive, onenote, spark`: what `--service` takes.
    static var choices: String { all.map { $0.name.lowercased() }.joined(separator: ", ") }

    /// The service called `name` (any case), or a usage error that lists the choices.
    static func chosen(_ name: String) throws -> MockService {
        guard let service = named(name) else { throw ValidationError("unknown service '\(name)' (use \(choices))") }
        return service
    }
}
