/// Why a packetizer refused a frame. Packetizers build packets rather than parse them, so their
/// failures are about the caller's input and configuration, not about malformed bytes.
public enum PacketizerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The payload budget cannot hold the payload descriptor plus one byte of media.
    case payloadBudgetTooSmall(budget: Int, minimum: Int)
    /// The frame has no bytes (RFC 7741 §4.4 / RFC 7587 §4.2 require media in every packet).
    case emptyFrame
    /// A frame field does not fit its wire field (e.g. TID above 3).
    case outOfRange(field: String, value: Int)
    /// The media bytes are not a valid packet of their codec (e.g. a bad Opus TOC byte).
    case invalidMedia(WireError)

    /// What was wrong, with the values involved and what is accepted.
    public var description: String {
        switch self {
        case let .payloadBudgetTooSmall(budget, minimum):
            return "a payload budget of \(budget) bytes is too small: the payload descriptor plus one byte of media "
                + "need at least \(minimum)"
        case .emptyFrame:
            return "the frame is empty: every packet must carry at least one byte of media (RFC 7741 §4.4, RFC 7587 §4.2)"
        case let .outOfRange(field, value):
            return "\(field) \(value) does not fit its wire field"
                + (field == "VP8 TID" ? " (0 to 3, RFC 7741 §4.2)" : "")
        case let .invalidMedia(error):
            return "the media is not a valid packet of its codec: \(error)"
        }
    }
}
