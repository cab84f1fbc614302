/// RTCP packet type (PT) values from the IANA "RTP Control Protocol (RTCP) Control Packet
/// Types" registry (RFC 3550 §12.1, RFC 4585 §6.1).
public enum RTCPPacketType {
    /// Sender report, RFC 3550 §6.4.1.
    public static let senderReport: UInt8 = 200
    /// Receiver report, RFC 3550 §6.4.2.
    public static let receiverReport: UInt8 = 201
    /// Source description, RFC 3550 §6.5.
    public static let sourceDescription: UInt8 = 202
    /// Goodbye, RFC 3550 §6.6.
    public static let goodbye: UInt8 = 203
    /// Application-defined, RFC 3550 §6.7.
    public static let applicationDefined: UInt8 = 204
    /// Transport-layer feedback (RTPFB), RFC 4585 §6.2.
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback (PSFB), RFC 4585 §6.3.
    public static let payloadSpecificFeedback: UInt8 = 206

    /// RTPFB FMT of generic NACK, RFC 4585 §6.2.1.
    public static let genericNACKFormat: UInt8 = 1
    /// RTPFB FMT of transport-wide congestion control feedback,
    /// draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.
    public static let transportWideFeedbackFormat: UInt8 = 15
    /// PSFB FMT of picture loss indication, RFC 4585 §6.3.1.
    public static let pictureLossIndicationFormat: UInt8 = 1
    /// PSFB FMT of full intra request, RFC 5104 §4.3.1.
    public static let fullIntraRequestFormat: UInt8 = 4
    /// PSFB FMT of application-layer feedback (carries REMB), RFC 4585 §6.4.
    public static let applicationLayerFeedbackFormat: UInt8 = 15
}
