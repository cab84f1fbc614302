/// What transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) says about
/// one sent packet: when it left, when it arrived (nil: reported lost), its size on the wire.
public struct PacketResult: Sendable, Equatable {
    public var sendMicroseconds: Int64
    public var arrivalMicroseconds: Int64?
    public var bytes: Int
    /// The probe cluster the packet was sent in (`ProbeController`), nil for media.
    public var probeCluster: Int?

    public init(sendMicroseconds: Int64, arrivalMicroseconds: Int64?, bytes: Int, probeCluster: Int? = nil) {
        self.sendMicroseconds = sendMicroseconds
        self.arrivalMicroseconds = arrivalMicroseconds
        self.bytes = bytes
        self.probeCluster = probeCluster
    }
}
