@_spi(Generated) import BinderyRuntime
import BinderyServiceMocks
import Testing

/// A field set whose schema is a computed property: every access reflects on the table anew.
private struct RebuiltFields: FieldSet {
    static var schema: ModelSchema { ModelSchema("test.rebuilt", fields: RebuiltFields()) }
    let name: Field<String>

    private init() { name = Field("name") }
}

/// Every property read asks a model type for its schema, so a schema built on each access (a `static var` where
/// a `static let` belongs) would reflect on its table on every read.
@Suite struct ModelSchemaTests {
    /// Whether `type` hands out one schema, built once.
    static func keepsItsSchema(_ type: any JSONModel.Type) -> Bool { type.schema === type.schema }

    @Test func theCheckCatchesASchemaBuiltOnEveryAccess() {
        #expect(!Self.keepsItsSchema(Model<RebuiltFields>.self))
    }

    @Test(arguments: MockService.all.map(\.name))
    func everyGeneratedModelTypeKeepsItsSchema(service: String) throws {
        let descriptor = try #require(MockService.named(service)).descriptor
        let models = descriptor.routes.models
        #expect(!models.isEmpty)
        let rebuilt = models.filter { !Self.keepsItsSchema($0.value) }.keys.sorted()
        #expect(rebuilt.isEmpty, "schemas built on every access: \(rebuilt.prefix(10))")
    }
}
