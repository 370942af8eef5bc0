/// What tells a file that moved from another of the same size: a 64-bit hash of its size, its
/// first 64 KiB and its last 64 KiB. Reading those two spans costs two reads whatever the
/// file's size; a tag edit or a new recording changes them, a rename or a copy does not.
public enum FileIdentity {
    public static let span = 64 * 1024

    /// The byte ranges to hash for a file of `size` bytes: the first span, and the last unless
    /// the first already reached it.
    public static func ranges(size: Int64) -> [(offset: Int64, count: Int)] {
        let span = Int64(Self.span)
        guard size > span else { return [(0, Int(max(size, 0)))] }
        let tail = min(span, size - span)
        return [(0, Self.span), (size - tail, Int(tail))]
    }

    /// The hash of `size` and the spans' bytes, in order (never 0, which means "not read").
    public static func hash(size: Int64, _ spans: [UnsafeRawBufferPointer]) -> UInt64 {
        var h: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bitPattern: size)
        for bytes in spans {
            var i = 0
            // Eight bytes at a time: a multiply and a rotate each, fast enough that reading the
            // spans costs more than hashing them.
            while i + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                h = ((h ^ (word &* 0x9E37_79B9_7F4A_7C15)) << 31 | (h ^ (word &* 0x9E37_79B9_7F4A_7C15)) >> 33)
                    &* 0xBF58_476D_1CE4_E5B9
                i += 8
            }
            while i < bytes.count {
                h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3
                i += 1
            }
            h ^= UInt64(bytes.count)
        }
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 31
        return h == 0 ? 1 : h
    }
}
