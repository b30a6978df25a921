@_exported import BinderyMock
@_exported import GraphMock
@_exported import InboxMock
@_exported import OneDriveMock
@_exported import OneNoteMock
@_exported import SparkMock

/// Every service Bindery ships, as the mock speaks for them. Each service's mock is a module of its own
/// (`OneDriveMock`, `GraphMock`, ...), so that a test pays only for the service it mocks; this module gathers them.
///
/// `all` is the one list of services in Swift; the CLI, the conformance suite and the tests read it.
extension MockService {
    /// Every service, with the generated calls that prove it: the one list of services.
    fileprivate static let catalogue:
        [(service: MockService, calls: [String: ConformanceCall], sample: @Sendable () throws -> MockSample)] = [
            (oneDrive, ConformanceCalls.oneDrive, MockSample.oneDrive),
            (oneNote, ConformanceCalls.oneNote, MockSample.oneNote),
            (graph, ConformanceCalls.graph, MockSample.graph), (spark, ConformanceCalls.spark, MockSample.spark),
            (inbox, ConformanceCalls.inbox, MockSample.inbox),
        ]

    public static let all: [MockService] = catalogue.map(\.service)

    /// `onedrive`, `OneNote`… (case-insensitive).
    public static func named(_ name: String) -> MockService? { all.first { $0.name.lowercased() == name.lowercased() } }
}

extension ConformanceCalls {
    /// The generated calls of every service, by `MockService.name`.
    public static let byService: [String: [String: ConformanceCall]] = Dictionary(
        uniqueKeysWithValues: MockService.catalogue.map { ($0.service.name, $0.calls) })
}

extension MockSample {
    /// The hand-written sample of `service` that `bindery mock` serves by default, or nil for a service without one
    /// (see `MockSample` for the format).
    public static func of(_ service: MockService) throws -> MockSample? {
        try MockService.catalogue.first { $0.service.name == service.name }?.sample()
    }
}
