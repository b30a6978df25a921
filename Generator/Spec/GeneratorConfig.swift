/// Per-spec settings, read from `bindery.json` beside the spec by `ConfigReader` (every key is in the README).
public struct GeneratorConfig: Equatable, Sendable {
    /// How the generated declarations are spread over files.
    public enum Layout: String, CaseIterable, Sendable {
        /// `perType` up to `Layout.groupingThreshold` types, `grouped` above: the fast one for the spec's size.
        case automatic
        /// One file per model and per builder: easy to review, and an edit rebuilds little.
        case perType
        /// Declarations spread over `fileCount` files (100 by default), for very large specs.
        case grouped

        /// Types (enums, models, builders) above which `automatic` groups: thousands of small files cost more
        /// to write and to compile than they save (BENCHMARKS.md, "layout").
        public static let groupingThreshold = 1_000
    }

    /// How each model's table of fields is declared.
    public enum FieldTables: String, CaseIterable, Sendable {
        /// `structs` up to `Layout.groupingThreshold` types, `tuples` above: per-field documentation where a spec
        /// is small enough to read, build speed where it is not.
        case automatic
        /// A struct of stored fields: each field keeps its own doc comment and `@available` attribute.
        case structs
        /// A labelled tuple, which compiles to no function per field: the full Graph builds in about two thirds of
        /// the time (BENCHMARKS.md). The fields' doc comments move to the table's own. A table with a deprecated
        /// field, or with one field (Swift has no one-element tuple), stays a struct.
        case tuples
    }

    /// The access level written on every generated declaration.
    public enum AccessLevel: String, CaseIterable, Sendable {
        case `public`, `internal`
    }

    /// The Swift module the output belongs to; also names the client (`<moduleName>Client`) unless `clientName` is set.
    public var moduleName: String
    /// The client's default base URL.
    public var baseURL: String?
    /// Other documented service roots, by name: `{"consumer": "https://api.onedrive.com/v1.0"}` gives the client
    /// `consumerBaseURL`, and tools accept URLs below it.
    public var alternativeBaseURLs: [String: String]
    public var clientName: String?
    public var accessLevel: AccessLevel
    /// Keep only these types (qualified names) or root paths (entity sets, singletons, top path segments), with
    /// everything they need to compile. `*` matches any run of characters. Empty: keep everything.
    public var include: [String]
    /// Leave these out, unless something kept needs them.
    public var exclude: [String]
    /// Spec name → Swift name: `"microsoft.graph.security.alert": "SecurityAlert"` for a type,
    /// `"microsoft.graph.driveItem/size": "byteCount"` for a property.
    public var nameOverrides: [String: String]
    public var layout: Layout
    public var fieldTables: FieldTables
    /// With `grouped`: how many files the types are spread over. The default, 100, lets a debug build compile in
    /// a handful of batches of about 25 files (the driver's batch size), more than two cores need: the full Graph
    /// built 12% faster in debug, with 11% less peak memory, than in 16 files (BENCHMARKS.md).
    public var fileCount: Int
    /// The service's reference page for a type, linked from the type's documentation: `{name}` is the type's name
    /// in lower case, after its namespace below the main one joined with `-` (`driveitem`, `security-alert`).
    public var referenceURL: String?
    /// A second document of the same service (the official `$metadata`, say) whose documentation fills in what the
    /// spec leaves undocumented, matched by qualified name: the checked-in spec can stay facts-only while a user's
    /// build shows the service's own descriptions. A path relative to the configuration file.
    public var descriptions: String?

    public init(
        moduleName: String, baseURL: String? = nil, alternativeBaseURLs: [String: String] = [:],
        clientName: String? = nil, accessLevel: AccessLevel = .public, include: [String] = [], exclude: [String] = [],
        nameOverrides: [String: String] = [:], layout: Layout = .automatic, fileCount: Int = 100,
        fieldTables: FieldTables = .automatic, referenceURL: String? = nil, descriptions: String? = nil
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
        self.fieldTables = fieldTables
        self.referenceURL = referenceURL
        self.descriptions = descriptions
    }
}
