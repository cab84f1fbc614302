import RTPWire

extension JanusHTTPClient {
    /// Janus's `trickle` request for the attached handle (trickle ICE, RFC 8838 §4.4): one of our
    /// candidates as `{"candidate": {"sdpMid", "sdpMLineIndex", "candidate"}}`, or with nil
    /// end-of-candidates as `{"candidate": {"completed": true}}`. Every candidate goes with the
    /// first section of the bundle (RFC 8843 §7.1.1): `mid`, its m-line `mLineIndex`. Janus acks it at once.
    public func trickle(_ candidate: ICECandidate?, mid: String, mLineIndex: Int = 0) throws(Failure) {
        guard let session, let handle else { throw .notAttached(request: "trickle") }
        let body: [String: Any] = if let candidate {
            ["sdpMid": mid, "sdpMLineIndex": mLineIndex, "candidate": "candidate:" + candidate.description]
        } else {
            ["completed": true]
        }
        try post("/\(session)/\(handle)", ["janus": "trickle", "candidate": body])
    }

    /// Where our candidates go in an answer of ours, and so where they trickle: its first
    /// accepted section (RFC 8843 §7.1.1), by mid and m-line index.
    static func trickleLine(of answer: SessionDescription) -> (mid: String, index: Int) {
        guard let index = answer.media.firstIndex(where: { $0.port != 0 }) else { return ("0", 0) }
        return (answer.media[index].mid ?? "0", index)
    }
}
