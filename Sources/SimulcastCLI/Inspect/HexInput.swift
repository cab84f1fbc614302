/// `simulcast inspect --hex` text as bytes: pairs of hex digits, ignoring spaces, tabs,
/// newlines, colons and a leading `0x`.
enum HexInput {
    /// Why the text is not a whole number of bytes in hex.
    enum ParseError: Error, Equatable, CustomStringConvertible {
        /// A character that is neither a hex digit nor an ignored separator; `position` counts
        /// characters of the text as given, from 1.
        case notAHexDigit(Character, position: Int)
        /// An odd number of hex digits: the last byte is missing a digit.
        case oddDigitCount(Int)
        /// No hex digits at all.
        case empty

        var description: String {
            switch self {
            case let .notAHexDigit(character, position):
                let shown = character.unicodeScalars.allSatisfy { $0.properties.isWhitespace || $0.value < 0x20 }
                    ? "U+" + String(character.unicodeScalars.first!.value, radix: 16, uppercase: true) : "'\(character)'"
                return "character \(position), \(shown), is not a hex digit: use 0-9 and a-f "
                    + "(spaces, colons and a leading 0x are ignored)"
            case let .oddDigitCount(count):
                return "an odd number of hex digits (\(count)): each byte takes two, so one digit is missing"
            case .empty:
                return "no hex digits: give the packet's bytes, e.g. 80600001..."
            }
        }
    }

    /// The bytes the text spells.
    static func parse(_ text: String) throws(ParseError) -> [UInt8] {
        var digits: [UInt8] = []
        var position = 0
        for character in text {
            position += 1
            if " :\n\t\r".contains(character) { continue }
            // A leading "0x": the 0 was taken as a digit; drop it and skip the x.
            if digits == [0], character == "x" || character == "X" {
                digits.removeAll()
                continue
            }
            guard character.isASCII, let value = character.hexDigitValue else {
                throw .notAHexDigit(character, position: position)
            }
            digits.append(UInt8(value))
        }
        guard !digits.isEmpty else { throw .empty }
        guard digits.count % 2 == 0 else { throw .oddDigitCount(digits.count) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            bytes.append(digits[index] << 4 | digits[index + 1])
            index += 2
        }
        return bytes
    }
}
