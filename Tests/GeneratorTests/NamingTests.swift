import Testing

@testable import BinderyEmitter

/// Every naming rule as a table: spec name → Swift name.
@Suite struct NamingTests {
    @Test(arguments: [
        ("driveItem", "DriveItem"),
        ("drive_item", "DriveItem"),
        ("security.alert", "SecurityAlert"),
        ("callRecords.session", "CallRecordsSession"),
        ("HTMLContent", "HTMLContent"),
        ("oAuth2PermissionGrant", "OAuth2PermissionGrant"),
        ("x509Certificate", "X509Certificate"),
        ("2dBarcode", "_2dBarcode"),
        ("Date", "DateModel"),
        ("URL", "URLModel"),
        ("", "Unnamed"),
    ])
    func typeNames(spec: String, swift: String) {
        #expect(SwiftNames.typeName(spec) == swift)
    }

    @Test(arguments: [
        ("name", "name"),
        ("@odata.nextLink", "nextLink"),
        ("@microsoft.graph.downloadUrl", "downloadUrl"),
        ("$top", "top"),
        ("Last-Modified", "lastModified"),
        ("cursor_start", "cursorStart"),
        ("ID", "id"),
        ("URLPath", "urlPath"),
        ("class", "`class`"),
        ("default", "`default`"),
        ("protocol", "`protocol`"),
        ("self", "selfValue"),
        ("Type", "type"),
        ("init", "initValue"),
        ("copy", "copy"),
        ("3dModel", "_3dModel"),
        ("D", "d"),
    ])
    func memberNames(spec: String, swift: String) {
        #expect(SwiftNames.memberName(spec) == swift)
    }

    /// `memberName` gives lower camel names back from their bytes, trusting that every keyword it must change that
    /// starts with a lowercase letter is all lowercase letters.
    @Test func keywordsThatStartLowercaseAreAllLowercase() {
        for word in SwiftNames.keywords.union(SwiftNames.unescapableMembers) where word.first?.isLowercase == true {
            #expect(word.allSatisfy { $0.isASCII && $0.isLowercase }, "\(word)")
        }
        #expect(SwiftNames.memberName("default") == "`default`")
        #expect(SwiftNames.memberName("self") == "selfValue")
        #expect(SwiftNames.memberName("defaultValue2") == "defaultValue2")
    }

    @Test func wordsSplitAtCaseChangesAndKeepAcronyms() {
        #expect(SwiftNames.splitWords("ODataType") == ["O", "Data", "Type"])
        #expect(SwiftNames.splitWords("getHTTPResponse") == ["get", "HTTP", "Response"])
        #expect(SwiftNames.splitWords("sha256Hash") == ["sha256", "Hash"])
    }
}
