import Foundation

/// OneDrive's content hash (`file.hashes.quickXorHash`): a 160-bit register where the byte at offset `i` is XORed
/// in at bit `(i × 11) mod 160`, wrapping around, and the total length is XORed into the last 8 bytes. Written
/// from Microsoft's description of the algorithm; checked against published test vectors.
public struct QuickXorHash: Sendable {
    /// 160 bits = 20 bytes; 160 × 11 ≡ 0 (mod 160), so the bit position repeats every 160 bytes.
    private static let widthInBytes = 20
    private static let period = 160
    private static let shift = 11

    /// Bytes whose offsets are equal modulo 160 land on the same bits; XOR is linear, so they are folded together
    /// first and spread into the register once at the end. This keeps hashing a large file a tight loop.
    private var folded = [UInt8](repeating: 0, count: QuickXorHash.period)
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: some Collection<UInt8>) {
        let start = Int(length % UInt64(Self.period))
        let done: Void? = bytes.withContiguousStorageIfAvailable { fold($0, from: start) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { fold($0, from: start) } }
        length += UInt64(bytes.count)
    }

    private mutating func fold(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) {
        var phase = start
        var index = 0
        folded.withUnsafeMutableBytes { folded in
            // Byte by byte up to a period boundary, then whole periods as 20 eight-byte words (XOR does not care
            // how the bytes are grouped), then the rest byte by byte.
            while index < bytes.count, phase != 0 || bytes.count - index < Self.period {
                folded[phase] ^= bytes[index]
                index += 1
                phase += 1
                if phase == Self.period { phase = 0 }
            }
            let words = Self.period / 8
            let source = UnsafeRawPointer(bytes.baseAddress)
            while bytes.count - index >= Self.period, let source {
                for word in 0..<words {
                    let value = source.loadUnaligned(fromByteOffset: index + word * 8, as: UInt64.self)
                    let current = folded.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self)
                    folded.storeBytes(of: current ^ value, toByteOffset: word * 8, as: UInt64.self)
                }
                index += Self.period
            }
            while index < bytes.count {
                folded[phase] ^= bytes[index]
                index += 1
                phase += 1
                if phase == Self.period { phase = 0 }
            }
        }
    }

    /// The 20-byte digest.
    public var digest: [UInt8] {
        var register = [UInt8](repeating: 0, count: Self.widthInBytes)
        for (phase, byte) in folded.enumerated() where byte != 0 {
            let bit = (phase * Self.shift) % (Self.widthInBytes * 8)
            let index = bit / 8
            let offset = bit % 8
            let wide: UInt16 = UInt16(byte) << UInt16(offset)
            register[index] ^= UInt8(truncatingIfNeeded: wide)
            register[(index + 1) % Self.widthInBytes] ^= UInt8(truncatingIfNeeded: wide >> 8)
        }
        // The length, little-endian, over the last 8 bytes.
        var remaining: UInt64 = length
        for index in (Self.widthInBytes - 8)..<Self.widthInBytes {
            register[index] ^= UInt8(truncatingIfNeeded: remaining)
            remaining >>= 8
        }
        return register
    }

    /// The digest as the service writes it.
    public var base64: String { Data(digest).base64EncodedString() }

    /// The hash of a whole file, read a block at a time.
    public static func ofFile(atPath path: String, blockSize: Int = 1 << 20) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var hash = QuickXorHash()
        while let block = try handle.read(upToCount: blockSize), !block.isEmpty { hash.update(block) }
        return hash.base64
    }
}
