import ArgumentParser
import BinderyMock
import BinderyRuntime
import BinderyServiceMocks
import Foundation
import OneNote
import OneNotePicker

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `bindery onenote …`: the OneNote tools.
struct OneNoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onenote", abstract: "OneNote tools.", subcommands: [Pick.self])
}

/// `bindery onenote pick`: the section picker on a terminal.
struct Pick: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Picks a OneNote section: full screen on a terminal, a numbered prompt otherwise.",
        discussion: """
            Reads the built-in mock (sample notebooks on 127.0.0.1) unless BINDERY_MS_CLIENT_ID is set (device-code \
            sign-in to Microsoft Graph, as `bindery demo`) or --base-url is given. On a terminal: arrows or j/k \
            move, Enter opens or picks, Backspace goes back, / searches sections by name, r reloads (retries after \
            an error), Esc or q cancels. Without a terminal it asks for numbers on standard input. The picked \
            section goes to standard output, as text or --json. NO_COLOR turns colour off.
            Exit status: 0 picked, 1 cancelled, 2 error (128 + the signal when interrupted).
            """)

    @Option(help: "The text shown above the list (the picker's header instructions).")
    var instructions: String?

    @Flag(help: "Print the picked section (or the error) as JSON.")
    var json = false

    @OptionGroup var endpoint: EndpointOptions

    @Option(help: "Items per page ($top); the service's own page size when left out.")
    var pageSize: Int?

    func run() async throws {
        let client: OneNoteClient
        let mock: MockServer?
        do {
            (client, mock) = try await makeClient()
        } catch let error as ValidationError {
            throw error
        } catch {
            // Starting the mock or signing in failed: an error like any other (status 2, not 1).
            Self.note("error: \(error)")
            throw ExitCode(2)
        }
        let picker = OneNotePicker(client: client, pageSize: pageSize, instructions: instructions)
        let outcome: PickOutcome
        do {
            guard Terminal.isInteractive() else { throw TerminalError("not a terminal") }
            outcome = try await FullScreenPicker(picker: picker).run()
        } catch {
            // No terminal, or one that refuses raw mode: ask with numbers instead.
            outcome = await NumberedPrompt(picker: picker).run()
        }
        await mock?.stop()
        try report(outcome)
    }

    private func makeClient() async throws -> (OneNoteClient, MockServer?) {
        if let url = try endpoint.url() {
            return (OneNoteClient(baseURL: url, auth: endpoint.auth, middleware: Self.quiet), nil)
        }
        let environment = ProcessInfo.processInfo.environment
        if let clientID = environment["BINDERY_MS_CLIENT_ID"] {
            let session = try await Demo.microsoftSignIn(
                clientID: clientID, tenant: environment["BINDERY_MS_TENANT"], log: Self.note)
            return (OneNoteClient(auth: session.auth, middleware: Self.quiet), nil)
        }
        let mock = try await MockServer(.oneNote)
        mock.seedOneNote(OneNoteSample.notebooks)
        let auth = StaticTokenAuth(mock.identity.acceptedToken)
        return (OneNoteClient(baseURL: mock.serviceURL, auth: auth, middleware: Self.quiet), mock)
    }

    /// The usual middleware without the request log: log lines on standard error would land in the middle of
    /// the full-screen picker (and between the prompt's questions).
    /// No log lines over the screen.
    static var quiet: [any HTTPMiddleware] { .defaults }

    private func report(_ outcome: PickOutcome) throws {
        switch outcome {
        case .picked(let section):
            print(json ? Self.json(section) : Self.text(section))
        case .cancelled:
            Self.note("Cancelled.")
            throw ExitCode(1)
        case .failed(let error):
            Self.note("error: \(error)")
            if json { print(Self.json(error)) }
            throw ExitCode(2)
        case .interrupted(let signal):
            throw ExitCode(128 + signal)
        }
    }

    /// Messages for the person at the terminal; standard output keeps only the result.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func text(_ section: PickedSection) -> String {
        let dates = ISO8601DateFormatter()
        return """
            Picked section: \(section.name)
              id                \(section.id)
              pages URL         \(section.pagesURL.absoluteString)
              created           \(section.createdTime.map(dates.string(from:)) ?? "unknown")
              modified          \(section.modifiedTime.map(dates.string(from:)) ?? "unknown")
              last modified by  \(section.lastModifiedBy ?? "unknown")
              in                \(section.path.joined(separator: " / "))
            """
    }

    static func json(_ section: PickedSection) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(section)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func json(_ error: OneNotePickerError) -> String {
        var fields: [String: String] = [:]
        switch error {
        case .api(let failure):
            fields = ["kind": "api", "status": String(failure.status), "message": failure.message]
            fields["code"] = failure.code
            fields["helpUrl"] = failure.helpURL?.absoluteString
            fields["requestId"] = failure.requestID
        case .system(let failure):
            fields = ["kind": "system", "cause": failure.kind.rawValue, "message": failure.message]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(["error": fields])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// How a picking session ended.
enum PickOutcome {
    case picked(PickedSection)
    case cancelled
    case failed(OneNotePickerError)
    /// Ctrl-C or a signal: the number.
    case interrupted(Int32)

    /// The outcome of the user giving up: the error on screen if there is one, else a cancellation.
    init(quitting state: OneNotePickerState) {
        if case .failed(let error) = state.phase { self = .failed(error) } else { self = .cancelled }
    }

    init?(finished state: OneNotePickerState) {
        switch state.phase {
        case .picked(let section): self = .picked(section)
        case .cancelled: self = .cancelled
        default: return nil
        }
    }
}

/// The notebooks `bindery onenote pick` and `bindery demo` show from the mock: groups three deep, a notebook that
/// takes several pages.
enum OneNoteSample {
    static let notebooks = [
        OneNoteMockFolder(
            id: "nb-work", name: "Work", sections: ["Meetings", "Budget"],
            groups: [
                OneNoteMockFolder(
                    id: "g-projects", name: "Projects", sections: ["Ideas"],
                    groups: [
                        OneNoteMockFolder(
                            id: "g-2026", name: "2026", sections: ["Meeting notes", "Plan"],
                            groups: [OneNoteMockFolder(id: "g-q4", name: "Q4", sections: ["Bindery"])])
                    ])
            ]),
        OneNoteMockFolder(id: "nb-home", name: "Home", sections: ["Recipes", "Travel"]),
        OneNoteMockFolder(id: "nb-journal", name: "Journal", sections: (1...45).map { "Day \($0)" }),
    ]
}
