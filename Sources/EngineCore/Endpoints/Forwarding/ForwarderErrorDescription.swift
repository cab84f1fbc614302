/// Readable `ForwarderError`s. (Kept apart from `TrackForwarder.swift`, where the enum is declared.)
extension ForwarderError: CustomStringConvertible {
    /// What was wrong, with the value involved and what is accepted.
    public var description: String {
        switch self {
        case let .malformed(error):
            return "the packet is not RTP carrying VP8 (RFC 3550, RFC 7741): \(error)"
        case let .unknownSSRC(ssrc):
            return "SSRC \(ssrc) is not one of this track's layers"
        case let .unknownSubscriber(id):
            return "the forwarder has no subscriber '\(id)': add it first"
        }
    }
}
