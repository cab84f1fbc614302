/// Why a session description could not be read, or an answer cannot be used. The description
/// quotes the peer's text through `PeerText.shown` (shortened, without control characters).
public enum SDPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Line `line` (1-based) is not `<letter>=<value>`, is too long, or has a bad field.
    case malformedLine(line: Int, reason: String)
    /// An attribute's value is malformed where its line number is not at hand (it is read from a
    /// description already parsed, or alone, e.g. a trickled candidate): `attribute` is its text
    /// after `a=`.
    case malformedAttribute(attribute: String, reason: String)
    /// A line or attribute the description must have is not there.
    case missing(String)
    /// The description asks for something this engine cannot do (a codec, a transport profile…).
    case unsupported(String)
    /// The description is larger than `SessionDescription.maximumLength`.
    case tooLarge(bytes: Int)

    public var description: String {
        switch self {
        case let .malformedLine(line, reason): return "SDP line \(line): \(PeerText.shown(reason))"
        case let .malformedAttribute(attribute, reason):
            return "SDP a=\(PeerText.shown(attribute, limit: 120)): \(PeerText.shown(reason))"
        case let .missing(what): return "SDP has no \(PeerText.shown(what))"
        case let .unsupported(what): return "SDP asks for what is not supported: \(PeerText.shown(what))"
        case let .tooLarge(bytes): return "SDP of \(bytes) bytes is larger than \(SessionDescription.maximumLength)"
        }
    }
}
