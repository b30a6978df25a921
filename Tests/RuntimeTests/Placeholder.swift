import Testing
@Test func placeholderR() { #expect(true) }
