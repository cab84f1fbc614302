/// Strict base64 (RFC 4648 §4, standard alphabet) decoding for SDES key-salts.
/// Padding is optional; characters outside the alphabet, misplaced padding, a length that
/// cannot come from whole bytes, and non-zero leftover bits are all rejected (`nil`).
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The standard padded encoding of `bytes` (RFC 4648 §4).
    static func encode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0..<4 {
                output.append(position <= count ? alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        defer { SecretBytes.wipe(&utf8) }
        var padding = 0
        while let last = utf8.last, last == UInt8(ascii: "=") {
            utf8.removeLast()
            padding += 1
        }
        let remainder = utf8.count % 4
        if remainder == 1 || padding > 2 { return nil }
        if padding > 0 && (utf8.count + padding) % 4 != 0 { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = sextet(character) else {
                SecretBytes.wipe(&output)
                return nil
            }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits (2 or 4) must be zero for a canonical encoding.
        guard accumulator == 0 else {
            SecretBytes.wipe(&output)
            return nil
        }
        return output
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
