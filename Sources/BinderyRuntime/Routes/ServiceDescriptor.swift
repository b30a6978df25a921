import Foundation

/// A generated module as tools see it: its name, where the service lives, its route table and wire conventions.
///
/// Every generated module has one (`OneDriveService.descriptor`). The mock server serves a service from it,
/// `bindery validate` finds operations with it, and the conformance suite replays its fixtures against it, so a
/// module's facts are written once, by the generator.
public struct ServiceDescriptor: Sendable {
    /// The module's name, e.g. `OneDrive`.
    public let name: String
    /// The service roots a request URL may start with: the default first, then the documented alternatives
    /// (the legacy OneDrive and OneNote APIs).
    public let baseURLs: [URL]
    public let conventions: ServiceConventions
    public let routes: RouteTable

    @_spi(Generated)
    public init(name: String, baseURLs: [URL], conventions: ServiceConventions, routes: RouteTable) {
        precondition(!baseURLs.isEmpty, "a service has at least its default base URL")
        self.name = name
        self.baseURLs = baseURLs
        self.conventions = conventions
        self.routes = routes
    }

    /// Where the service lives unless a client is told otherwise.
    public var defaultBaseURL: URL { baseURLs[0] }

    /// The path segments of the default base URL (`["v1.0"]` for Graph), where a mock serves the service.
    public var basePath: [String] { defaultBaseURL.pathComponents.filter { $0 != "/" } }
}
