import Dispatch

extension Array where Element: Sendable {
    /// `map`, with the elements transformed on every core in chunks of `chunk`; the results keep the order.
    ///
    /// For the generator's independent per-type work (one resource, one type's declarations), where a type takes
    /// microseconds: chunks keep the hand-offs between threads rare.
    package func concurrentMap<Result: Sendable>(chunk: Int = 64, _ transform: @Sendable (Element) -> Result)
        -> [Result]
    {
        precondition(chunk > 0, "a chunk holds at least one element")
        guard count > chunk else { return map(transform) }
        return [Result](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each chunk writes its own slots: no two threads touch one element.
            nonisolated(unsafe) let results = buffer
            DispatchQueue.concurrentPerform(iterations: (count + chunk - 1) / chunk) { part in
                for index in part * chunk..<Swift.min(count, (part + 1) * chunk) {
                    (results.baseAddress! + index).initialize(to: transform(self[index]))
                }
            }
            initialized = count
        }
    }
}
