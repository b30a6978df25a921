/// Per-spec settings, read from `bindery.json` beside the spec (every key is documented in the README).
public struct GeneratorConfig: Codable, Equatable, Sendable {
    /// The Swift module the output belongs to; also names the client (`<moduleName>Client`) unless `clientName` is set.
    public var moduleName: String
    /// The client's default base URL.
    public var baseURL: String?
    /// Other documented service roots, by name: `{"consumer": "https://api.onedrive.com/v1.0"}` gives the client
    /// `consumerBaseURL`, and tools accept URLs below it.
    public var alternativeBaseURLs: [String: String]?
    public var clientName: String?
    /// `public` (default) or `internal`.
    public var accessLevel: String?
    /// Keep only these types (qualified names) or root paths (entity sets, singletons, top path segments), with
    /// everything they need to compile. `*` matches any run of characters. Empty or absent: keep everything.
    public var include: [String]?
    /// Leave these out, unless something kept needs them.
    public var exclude: [String]?
    /// Spec name → Swift name: `"microsoft.graph.security.alert": "SecurityAlert"` for a type,
    /// `"microsoft.graph.driveItem/size": "byteCount"` for a property.
    public var nameOverrides: [String: String]?
    /// `perType` (default: one file per type, easy to review) or `grouped` (a few large files, for huge specs).
    public var layout: String?
    /// With `grouped`: how many files the types are spread over.
    public var fileCount: Int?

    public init(
        moduleName: String, baseURL: String? = nil, alternativeBaseURLs: [String: String]? = nil, clientName: String? = nil, accessLevel: String? = nil,
        include: [String]? = nil, exclude: [String]? = nil, nameOverrides: [String: String]? = nil,
        layout: String? = nil, fileCount: Int? = nil
    ) {
        self.moduleName = moduleName
        self.baseURL = baseURL
        self.alternativeBaseURLs = alternativeBaseURLs
        self.clientName = clientName
        self.accessLevel = accessLevel
        self.include = include
        self.exclude = exclude
        self.nameOverrides = nameOverrides
        self.layout = layout
        self.fileCount = fileCount
    }
}
