/// What a published camera has sent so far.
public struct LocalVideoStats: Sendable, Hashable {
    /// Frames given to the encoder.
    public var framesEncoded: Int
    /// Key frames made because a receiver asked (PLI/FIR, after the throttle).
    public var keyFramesRequested: Int
    /// The layers the encoder produces now, lightest first (docs/sending-caps.md: the webcam cap and dynaCast
    /// stop the others).
    public var sendingLayers: [Int]
    /// How the camera's media reaches the room now (nil: UDP not confirmed yet).
    public var transportProtocol: TransportProtocol? = nil
    /// In a Janus room: the ICE candidate pair the camera's media runs on (RFC 8445 §7.2.5.3.2's
    /// selected pair, as `RTCIceCandidatePairStats` names it), nil before ICE selected one and in
    /// hosted rooms.
    public var selectedCandidatePair: SelectedCandidatePair? = nil
    /// Screen shares: frames not encoded because nothing on the screen changed (issue 17); 0 for
    /// a camera.
    public var framesSkippedUnchanged: Int
}
