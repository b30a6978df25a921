import BinderyMock
import Foundation

/// The hand-written sample of each service that `bindery mock` serves by default: `Samples/<Service>.json`,
/// compiled into the module (see `MockSample` for the format).
extension MockSample {
    /// The sample of `service`, or nil for a service without one.
    public static func of(_ service: MockService) throws -> MockSample? {
        guard let bytes = bundled[service.name] else { return nil }
        return try MockSample(json: bytes)
    }

    private static let bundled: [String: [UInt8]] = [
        "Graph": PackageResources.Graph_json, "Inbox": PackageResources.Inbox_json,
        "OneDrive": PackageResources.OneDrive_json, "OneNote": PackageResources.OneNote_json,
        "Spark": PackageResources.Spark_json,
    ]
}
