import RTPWire

extension JanusVideoRoomPublisher {
    /// Trickles one of our candidates (nil: end-of-candidates) to Janus for the published
    /// session's peer connection (`JanusHTTPClient.trickle`, with the offer's first section).
    public func trickle(_ candidate: ICECandidate?) throws(JanusHTTPClient.Failure) {
        try janus.trickle(candidate, mid: offer.sessionDescription.media.first?.mid ?? "0")
    }
}

extension JanusMultistreamSubscription {
    /// Trickles one of our candidates (nil: end-of-candidates) to Janus for the subscription's
    /// peer connection (`JanusHTTPClient.trickle`, with the answer's first accepted section).
    public func trickle(_ candidate: ICECandidate?) throws(JanusHTTPClient.Failure) {
        try janus.trickle(candidate, mid: trickleTarget.mid, mLineIndex: trickleTarget.index)
    }
}
