import BinderySpec
import Testing

/// The generator's parallel map keeps order and loses nothing at chunk boundaries.
@Suite struct ConcurrentMapTests {
    @Test(arguments: [0, 1, 63, 64, 65, 1_000])
    func equalsMap(count: Int) {
        let numbers = Array(0..<count)
        #expect(numbers.concurrentMap(chunk: 64) { "\($0 * 3)" } == numbers.map { "\($0 * 3)" })
        #expect(numbers.concurrentMap(chunk: 1) { $0 + 1 } == numbers.map { $0 + 1 })
    }
}
