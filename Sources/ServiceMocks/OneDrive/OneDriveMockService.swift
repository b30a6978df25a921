import BinderyMock
import BinderyRuntime
import Foundation
import OneDrive

/// OneDrive as the mock speaks for it: its generated descriptor, with what its dialect does differently and the
/// operations that do more than answer their fixture. A test that mocks OneDrive depends on this module alone.
extension MockService {
    public static let oneDrive = MockService(
        OneDriveService.descriptor, deletionMarker: .deletedFacet,
        operations: [
            "microsoft.graph.driveItem/delta": .odataDelta,
            "microsoft.graph.driveItem/copy": .copy,
            "microsoft.graph.driveItem/search": .searchByName,
            "microsoft.graph.driveItem/createUploadSession": .uploadSession,
        ],
        uploadedFileFacet: { bytes in
            var hash = QuickXorHash()
            hash.update(bytes)
            return ["mimeType": "application/octet-stream", "hashes": ["quickXorHash": .string(hash.base64)]]
        }, redirectsContent: true)
}

extension MockSample {
    /// The hand-written sample `bindery mock` serves for OneDrive by default (`Samples/OneDrive.json`, compiled in).
    public static func oneDrive() throws -> MockSample { try MockSample(json: PackageResources.OneDrive_json) }
}
