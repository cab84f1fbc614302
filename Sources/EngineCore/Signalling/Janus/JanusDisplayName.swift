/// How a participant's engine id and name ride in Janus's one `display` text, so that every
/// member of a Janus room knows the same ids and names as in a hosted room (SPEC §8):
/// `"<name>|<id>"`. A display Janus got from someone else's client (no `|`, or an id with
/// characters an engine id never has) keeps its text as the name; the id is then made from the
/// feed id (`janus-<feed>`), so it is still unique in the room.
public struct JanusDisplayName: Sendable, Equatable {
    public var participantId: String
    public var name: String

    public init(participantId: String, name: String) {
        self.participantId = participantId
        self.name = name
    }

    /// The text to send as `display`.
    public var display: String { "\(name)|\(participantId)" }

    /// Reads a publisher's `display` (nil when Janus gave none) for feed `feedID`.
    public init(display: String?, feedID: Int) {
        if let display, let bar = display.lastIndex(of: "|") {
            let id = display[display.index(after: bar)...]
            if Self.isEngineID(id) {
                self.init(participantId: String(id), name: String(display[..<bar]))
                return
            }
        }
        self.init(participantId: "janus-\(feedID)", name: display ?? "")
    }

    /// Ids the engine makes or takes: 1–64 of `A-Z a-z 0-9 - _ .`.
    static func isEngineID(_ text: Substring) -> Bool {
        guard (1...64).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}
