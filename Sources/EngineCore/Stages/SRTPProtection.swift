import RTPWire
import SRTP
import SessionCore

/// libsrtp2 sessions plug into the session core's security stage: `srtp_protect` /
/// `srtp_protect_rtcp` out of place, `srtp_unprotect` / `srtp_unprotect_rtcp` in place (RFC 3711).
extension SRTPSession: PacketProtector {
    public static var maximumOverhead: Int { maxTrailerLength }

    public func protect(_ packet: UnsafeRawBufferPointer, kind: RTPOrRTCP,
                        into output: UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int {
        switch kind {
        case .rtp: return try protectRTP(packet, into: output)
        case .rtcp: return try protectRTCP(packet, into: output)
        }
    }

    public func unprotect(inPlace buffer: UnsafeMutableRawBufferPointer, length: Int,
                          kind: RTPOrRTCP) throws(SRTPError) -> Int {
        switch kind {
        case .rtp: return try unprotectRTP(inPlace: buffer, packetLength: length)
        case .rtcp: return try unprotectRTCP(inPlace: buffer, packetLength: length)
        }
    }
}

/// The security stage every endpoint of this engine uses: SRTP/SRTCP over libsrtp2.
public typealias SRTPSecurity = PacketSecurity<SRTPSession>

extension PacketSecurity where Protector == SRTPSession {
    /// A stage keyed for one peer: `sendKeys` protect what we send, `receiveKeys` unprotect what
    /// arrives; nil keys leave that direction plain.
    /// - Throws: `SRTPError` for keys the installed libsrtp cannot use.
    public convenience init(sendKeys: SRTPKeyingMaterial?, receiveKeys: SRTPKeyingMaterial?,
                            rtcpIsPlain: Bool = false, maximumPacketSize: Int = 1500) throws(SRTPError) {
        let outbound = try sendKeys.map { keys throws(SRTPError) in try SRTPSession(direction: .outbound, keyingMaterial: keys) }
        let inbound = try receiveKeys.map { keys throws(SRTPError) in try SRTPSession(direction: .inbound, keyingMaterial: keys) }
        self.init(outbound: outbound, inbound: inbound, rtcpIsPlain: rtcpIsPlain, maximumPacketSize: maximumPacketSize)
    }
}
