/// Every way a byte string can fail to be a packet. Parsers in this module throw only this type,
/// so a fuzzer or a broken peer always gets a typed answer and never a trap.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field needed `needed` bytes but only `available` were left.
    case truncated(field: String, needed: Int, available: Int)
    /// A field had a value the format forbids (e.g. RTP version other than 2).
    case invalidValue(field: String, value: Int)
    /// The bytes are well-formed but describe something this implementation does not handle.
    case unsupported(String)
    /// A value to be serialized does not fit its field (e.g. a 17-bit PictureID).
    case outOfRange(field: String, value: Int)

    /// A stable, machine-friendly name for the error kind (used by `simulcast inspect`).
    public var name: String {
        switch self {
        case .truncated: return "truncated"
        case .invalidValue: return "invalidValue"
        case .unsupported: return "unsupported"
        case .outOfRange: return "outOfRange"
        }
    }

    /// What was wrong, with the field and values involved.
    public var description: String {
        switch self {
        case let .truncated(field, needed, available):
            return "cut short: \(field) needs \(needed) byte(s) but only \(available) remain"
        case let .invalidValue(field, value):
            return "\(field) has the value \(value), which the format does not allow"
        case let .unsupported(what):
            return "well-formed but not supported here: \(what)"
        case let .outOfRange(field, value):
            return "\(field) \(value) does not fit its wire field"
        }
    }
}
