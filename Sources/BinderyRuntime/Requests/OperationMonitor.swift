import Foundation
import HTTPTypes

/// A long-running operation the service accepted with `202 Accepted` and a `Location` to poll: OneDrive's `copy`,
/// OneNote's `copyToSection`. What the monitor URL answers is `Status`, a model with a `status` member
/// (`notStarted`, `inProgress`/`Running`, `completed`, `failed`, in either case).
///
/// The monitor URL may be on another host; it is pre-authenticated there, and the client's trusted hosts decide
/// whether credentials go with the polls (they do not, off the service's own host).
public struct OperationMonitor<Status: JSONModel>: Sendable {
    public let client: ServiceClient
    public let url: URL

    public init(client: ServiceClient, url: URL) {
        self.client = client
        self.url = url
    }

    /// The operation's state now.
    public func status() async throws(BinderyError) -> Status {
        var request = APIRequest(method: .get, path: ResourcePath())
        request.absoluteURL = url
        let response = try await client.send(request)
        do {
            return try Status(jsonBytes: response.body)
        } catch {
            throw BinderyError.decoding(error, response: response)
        }
    }

    /// Polls until the operation completes and returns its last status. A failed or cancelled operation is an
    /// error (`invalidResponse`, with the service's description), and so is one still running after `timeout`;
    /// polls are at least 100 ms apart.
    public func waitForCompletion(
        pollingEvery interval: Duration = .seconds(1), timeout: Duration = .seconds(600)
    ) async throws(BinderyError) -> Status {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let pause = max(interval, .milliseconds(100))
        while true {
            let current = try await status()
            let state = current.storage["status"]?.stringValue
            switch state?.lowercased() {
            case "completed", "succeeded":
                return current
            case "failed", "cancelled", "canceled", "deletefailed":
                let reason =
                    current.storage["statusDescription"]?.stringValue
                    ?? current.storage["error"]?["message"]?.stringValue ?? "no description"
                throw BinderyError.invalidResponse("the operation ended as \(state ?? ""): \(reason)", response: nil)
            case nil:
                throw BinderyError.invalidResponse("the monitor answered no status", response: nil)
            default:
                guard clock.now + pause < deadline else {
                    throw BinderyError(
                        kind: .timeout, message: "the operation was still \(state ?? "") after \(timeout)")
                }
                do { try await Task.sleep(for: pause) } catch {
                    throw BinderyError(kind: .cancelled, message: "the wait for the operation was cancelled")
                }
            }
        }
    }
}

extension ResponseDecoder {
    /// A `202 Accepted` whose `Location` header (OneDrive) or `Operation-Location` header (OneNote) is the URL to
    /// poll; the body, if any, is not the result.
    public static func monitor<Status: JSONModel>(_ type: Status.Type) -> Self
    where Output == OperationMonitor<Status> {
        Self { response, client throws(BinderyError) in
            let header =
                response.headers[.location] ?? HTTPField.Name("Operation-Location").flatMap { response.headers[$0] }
            guard let location = header, let url = URL(string: location) else {
                throw BinderyError.invalidResponse(
                    "the operation was accepted without a Location to poll", response: response)
            }
            return OperationMonitor(client: client, url: url)
        }
    }
}
