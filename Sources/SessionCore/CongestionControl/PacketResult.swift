/// What transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) says about
/// one sent packet: when it left, when it arrived (nil: reported lost), its size on the wire.
public struct PacketResult: Sendable, Equatable {
    public var sendMicroseconds: Int64
    public var arrivalMicroseconds: Int64?
    public var bytes: Int

    public init(sendMicroseconds: Int64, arrivalMicroseconds: Int64?, bytes: Int) {
        self.sendMicroseconds = sendMicroseconds
        self.arrivalMicroseconds = arrivalMicroseconds
        self.bytes = bytes
    }
}
