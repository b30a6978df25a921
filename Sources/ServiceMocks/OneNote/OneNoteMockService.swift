import BinderyMock
import Foundation
import OneNote

/// OneNote as the mock speaks for it: its generated descriptor, with what its dialect does differently and the
/// operations that do more than answer their fixture. A test that mocks OneNote depends on this module alone.
extension MockService {
    public static let oneNote = MockService(OneNoteService.descriptor)
}

extension MockSample {
    /// The hand-written sample `bindery mock` serves for OneNote by default (`Samples/OneNote.json`, compiled in).
    public static func oneNote() throws -> MockSample { try MockSample(json: PackageResources.OneNote_json) }
}
