// Handwritten beside the generated code, as a service module's conveniences are: the plugin adds the rest.

extension Reading {
    /// The temperature in degrees Fahrenheit.
    public var fahrenheit: Double? { self.celsius.map { $0 * 9 / 5 + 32 } }
}
