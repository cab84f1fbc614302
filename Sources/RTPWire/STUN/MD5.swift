/// MD5 (RFC 1321), for one use only: the key of STUN's long-term credentials,
/// MD5(username ":" realm ":" password) (RFC 8489 §9.2.2), which TURN servers require. The wire
/// module stays free of C libraries; the input is a few dozen bytes once per allocation.
/// Not for anything that needs collision resistance.
public enum MD5 {
    public static let digestLength = 16

    /// Per-round left rotations (RFC 1321 §3.4).
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    /// floor(abs(sin(i + 1)) × 2^32) for i in 0..<64 (RFC 1321 §3.4's table T).
    private static let sines: [UInt32] = [
        0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE,
        0xF57C_0FAF, 0x4787_C62A, 0xA830_4613, 0xFD46_9501,
        0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE,
        0x6B90_1122, 0xFD98_7193, 0xA679_438E, 0x49B4_0821,
        0xF61E_2562, 0xC040_B340, 0x265E_5A51, 0xE9B6_C7AA,
        0xD62F_105D, 0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8,
        0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED,
        0xA9E3_E905, 0xFCEF_A3F8, 0x676F_02D9, 0x8D2A_4C8A,
        0xFFFA_3942, 0x8771_F681, 0x6D9D_6122, 0xFDE5_380C,
        0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70,
        0x289B_7EC6, 0xEAA1_27FA, 0xD4EF_3085, 0x0488_1D05,
        0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665,
        0xF429_2244, 0x432A_FF97, 0xAB94_23A7, 0xFC93_A039,
        0x655B_59C3, 0x8F0C_CC92, 0xFFEF_F47D, 0x8584_5DD1,
        0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1,
        0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB, 0xEB86_D391,
    ]

    /// The digest of `message`.
    public static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        var padded = Array(message)
        let bitLength = UInt64(padded.count) &* 8
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }

        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
        var words = [UInt32](repeating: 0, count: 16)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = blockStart + index * 4
                words[index] = UInt32(padded[at]) | UInt32(padded[at + 1]) << 8 | UInt32(padded[at + 2]) << 16 | UInt32(padded[at + 3]) << 24
            }
            var (a, b, c, d) = state
            for index in 0..<64 {
                let round = index / 16
                let (f, word): (UInt32, Int)
                switch round {
                case 0: (f, word) = ((b & c) | (~b & d), index)
                case 1: (f, word) = ((d & b) | (~d & c), (5 * index + 1) % 16)
                case 2: (f, word) = (b ^ c ^ d, (3 * index + 5) % 16)
                default: (f, word) = (c ^ (b | ~d), (7 * index) % 16)
                }
                let shift = shifts[round * 4 + index % 4]
                let sum = a &+ f &+ sines[index] &+ words[word]
                (a, d, c) = (d, c, b)
                b = b &+ (sum << shift | sum >> (32 - shift))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(digestLength)
        for word in [state.0, state.1, state.2, state.3] {
            for shift in stride(from: 0, to: 32, by: 8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    /// The long-term credential key (RFC 8489 §9.2.2; the password after OpaqueString, which
    /// for the ASCII credentials TURN deployments use is the password itself).
    public static func longTermKey(username: String, realm: String, password: String) -> [UInt8] {
        hash(Array("\(username):\(realm):\(password)".utf8))
    }
}
