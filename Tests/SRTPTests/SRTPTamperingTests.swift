import Testing
@testable import SRTP

/// A flipped bit anywhere in a protected packet is rejected, and nothing rejected is delivered:
/// every bit of libsrtp's vector packets is flipped in turn and handed to a fresh inbound session.
extension SRTPVectorTests {
    /// Unprotects every one-bit corruption of `packet`; returns how many were accepted.
    private func acceptedCorruptions(of packet: [UInt8], rtcp: Bool) throws -> Int {
        var accepted = 0
        for bit in 0..<(packet.count * 8) {
            var corrupted = packet
            corrupted[bit / 8] ^= UInt8(1 << (bit % 8))
            let session = try SRTPSession(direction: .inbound, keyingMaterial: material)
            var output = [UInt8](repeating: 0xEE, count: 200)
            do {
                _ = rtcp ? try session.unprotectRTCP(corrupted, into: &output)
                         : try session.unprotectRTP(corrupted, into: &output)
                accepted += 1
            } catch {
                // Rejected: the caller's buffer must not have received the (decrypted) packet.
                #expect(!output.starts(with: rtcp ? vector.rtcpPlain : vector.rtpPlain), "bit \(bit) leaked")
            }
        }
        return accepted
    }

    @Test func everyFlippedBitOfAnSRTPPacketIsRejected() throws {
        #expect(try acceptedCorruptions(of: vector.rtpProtected, rtcp: false) == 0)
    }

    @Test func everyFlippedBitOfAnSRTCPPacketIsRejected() throws {
        #expect(try acceptedCorruptions(of: vector.rtcpProtected, rtcp: true) == 0)
    }

    @Test func aWrongKeyRejectsEveryPacket() throws {
        var wrongKey = vector.masterKey
        wrongKey[0] ^= 0x01
        let session = try SRTPSession(direction: .inbound,
                                      keyingMaterial: try SRTPKeyingMaterial(masterKey: wrongKey, masterSalt: vector.masterSalt))
        var output = [UInt8](repeating: 0, count: 200)
        #expect(throws: SRTPError.authenticationFailed) { try session.unprotectRTP(vector.rtpProtected, into: &output) }
        #expect(throws: SRTPError.authenticationFailed) { try session.unprotectRTCP(vector.rtcpProtected, into: &output) }
    }
}
