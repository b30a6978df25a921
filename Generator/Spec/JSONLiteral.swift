/// A JSON value as written: members in their order, numbers as their text. The one JSON type of the generator,
/// for an example in a spec (the OpenAPI reader converts what its parser read) and for the fixtures the emitter
/// writes; the spec model stays free of any JSON library.
public indirect enum JSONLiteral: Equatable, Sendable {
    case object([Member])
    case array([JSONLiteral])
    case string(String)
    /// The number's text, as written (`1.50`, a 26-digit id), so nothing is lost to a binary form.
    case number(String)
    case bool(Bool)
    case null

    public struct Member: Equatable, Sendable {
        public var name: String
        public var value: JSONLiteral

        public init(_ name: String, _ value: JSONLiteral) {
            self.name = name
            self.value = value
        }
    }
}
