/// Why a session description could not be read, or an answer cannot be used.
public enum SDPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Line `line` (1-based) is not `<letter>=<value>`, is too long, or has a bad field.
    case malformedLine(line: Int, reason: String)
    /// A line or attribute the description must have is not there.
    case missing(String)
    /// The description asks for something this engine cannot do (a codec, a transport profile…).
    case unsupported(String)
    /// The description is larger than `SessionDescription.maximumLength`.
    case tooLarge(bytes: Int)

    public var description: String {
        switch self {
        case let .malformedLine(line, reason): return "SDP line \(line): \(reason)"
        case let .missing(what): return "SDP has no \(what)"
        case let .unsupported(what): return "SDP asks for what is not supported: \(what)"
        case let .tooLarge(bytes): return "SDP of \(bytes) bytes is larger than \(SessionDescription.maximumLength)"
        }
    }
}
