/// Why a Janus VideoRoom event could not be read: the field it needs is missing, or holds a value
/// of the wrong type. Janus's own VideoRoom documentation (plugins/janus_videoroom.c, "VideoRoom
/// Publishers" and "VideoRoom Subscribers") names the shapes these are checked against.
public enum JanusEventError: Error, Equatable, CustomStringConvertible {
    /// The text is not JSON, or its top level is not an object.
    case notAnObject
    /// `field` (a dotted path, e.g. `publishers[1].id`) is absent.
    case missingField(String)
    /// `field` is there but is not `expected` (e.g. "an integer id", "an array of objects").
    case wrongType(field: String, expected: String)
    /// More entries than the engine takes from one event (`limit`): the event is refused whole.
    case tooManyEntries(field: String, limit: Int)

    public var description: String {
        switch self {
        case .notAnObject: return "Janus event: not a JSON object"
        case let .missingField(field): return "Janus event: \(field) is missing"
        case let .wrongType(field, expected): return "Janus event: \(field) is not \(expected)"
        case let .tooManyEntries(field, limit): return "Janus event: \(field) has more than \(limit) entries"
        }
    }
}
