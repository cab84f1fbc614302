/// SHA-1 (FIPS 180-4 §6.1), for STUN's MESSAGE-INTEGRITY HMAC (RFC 8489 §14.5) only: the wire
/// module stays free of C libraries, and STUN messages are small and rare (checks, consent).
/// Not for anything that needs collision resistance.
public enum SHA1 {
    /// Digest length in bytes.
    public static let digestLength = 20
    /// Block length in bytes (HMAC pads keys to it).
    public static let blockLength = 64

    /// The digest of `message`.
    public static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var block = [UInt8](repeating: 0, count: blockLength)
        var filled = 0
        var words = [UInt32](repeating: 0, count: 80)
        func compress() {
            for index in 0..<16 {
                words[index] = UInt32(block[index * 4]) << 24 | UInt32(block[index * 4 + 1]) << 16
                    | UInt32(block[index * 4 + 2]) << 8 | UInt32(block[index * 4 + 3])
            }
            for index in 16..<80 {
                let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
                words[index] = mixed << 1 | mixed >> 31
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch index {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, next)
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
        var length: UInt64 = 0
        for byte in message {
            block[filled] = byte
            filled += 1
            length &+= 1
            if filled == blockLength {
                compress()
                filled = 0
            }
        }
        // Padding: 0x80, zeros, then the bit length as a 64-bit big-endian integer.
        block[filled] = 0x80
        filled += 1
        if filled > blockLength - 8 {
            for index in filled..<blockLength { block[index] = 0 }
            compress()
            filled = 0
        }
        for index in filled..<(blockLength - 8) { block[index] = 0 }
        let bits = length &* 8
        for index in 0..<8 { block[blockLength - 8 + index] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * index)) }
        compress()
        var digest: [UInt8] = []
        digest.reserveCapacity(digestLength)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            digest.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                                       UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
        return digest
    }

    /// HMAC-SHA1 (RFC 2104) of `message` under `key`.
    public static func hmac(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        var paddedKey = key.count > blockLength ? hash(key) : key
        paddedKey += [UInt8](repeating: 0, count: blockLength - paddedKey.count)
        let inner = hash(paddedKey.map { $0 ^ 0x36 } + Array(message))
        return hash(paddedKey.map { $0 ^ 0x5C } + inner)
    }
}
