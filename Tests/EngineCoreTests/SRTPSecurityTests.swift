import Testing
import RTPWire
import SRTP
import SessionCore
@testable import EngineCore

/// The one security stage every endpoint sends and receives through, over real libsrtp sessions.
@Suite struct SRTPSecurityTests {
    private static func rtpPacket(sequenceNumber: UInt16, payloadSize: Int = 100) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try RTPHeader(marker: true, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 9000, ssrc: 0x1234_5678)
            .serialize(into: &bytes)
        bytes.append(contentsOf: (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0) })
        return bytes
    }

    private static let report = RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: 7))])

    /// A sender's stage and the matching receiver's stage (keys crossed, as SDES gives them).
    private static func pair(rtcpIsPlain: Bool = false) throws -> (sender: SRTPSecurity, receiver: SRTPSecurity) {
        let forward = try TestKeys.material(1), backward = try TestKeys.material(2)
        return (try SRTPSecurity(sendKeys: forward, receiveKeys: backward, rtcpIsPlain: rtcpIsPlain),
                try SRTPSecurity(sendKeys: backward, receiveKeys: forward, rtcpIsPlain: rtcpIsPlain))
    }

    @Test func protectedRTPUnprotectsToTheSamePacketAndGrowsByTheSuiteOverhead() throws {
        let (sender, receiver) = try Self.pair()
        let plain = try Self.rtpPacket(sequenceNumber: 1)
        let count = try sender.protect(plain[...], kind: .rtp)
        #expect(count == plain.count + SRTPSuite.default.rtpOverhead)
        var received = Array(sender.output[0..<count]) + [UInt8](repeating: 0, count: 64)
        #expect(Array(received[12..<count]) != Array(plain[12...]))  // the payload is encrypted
        let length = try receiver.unprotect(&received, length: count, kind: .rtp)
        #expect(Array(received[0..<length]) == plain)
    }

    @Test func rtcpCompoundIsSerializedProtectedAndUnprotected() throws {
        let (sender, receiver) = try Self.pair()
        let count = try sender.protect(Self.report)
        var received = Array(sender.output[0..<count])
        let length = try receiver.unprotect(&received, length: count, kind: .rtcp)
        #expect(try RTCPCompoundPacket(parsing: received[0..<length]) == Self.report)
    }

    @Test func plainRTCPModeProtectsMediaButLeavesRTCPReadable() throws {
        let (sender, receiver) = try Self.pair(rtcpIsPlain: true)
        let count = try sender.protect(Self.report)
        let plain = try Self.report.serialized()
        #expect(Array(sender.output[0..<count]) == plain)
        var received = plain
        #expect(try receiver.unprotect(&received, length: plain.count, kind: .rtcp) == plain.count)
        let media = try Self.rtpPacket(sequenceNumber: 5)
        #expect(try sender.protect(media[...], kind: .rtp) == media.count + SRTPSuite.default.rtpOverhead)
    }

    @Test func plainStageCopiesBothWays() throws {
        let stage = SRTPSecurity(outbound: nil, inbound: nil)
        let media = try Self.rtpPacket(sequenceNumber: 9)
        let count = try stage.protect(media[...], kind: .rtp)
        #expect(Array(stage.output[0..<count]) == media)
        var received = media
        #expect(try stage.unprotect(&received, length: media.count, kind: .rtp) == media.count)
        #expect(!stage.protectsMedia)
    }

    @Test func tamperedReplayedAndOversizedPacketsAreTypedErrors() throws {
        let (sender, receiver) = try Self.pair()
        let plain = try Self.rtpPacket(sequenceNumber: 3)
        let count = try sender.protect(plain[...], kind: .rtp)
        let wire = Array(sender.output[0..<count])

        var tampered = wire
        tampered[20] ^= 0x01
        #expect(throws: PacketSecurityError<SRTPError>.self) {
            try receiver.unprotect(&tampered, length: count, kind: .rtp)
        }
        var first = wire, again = wire
        _ = try receiver.unprotect(&first, length: count, kind: .rtp)
        do {
            _ = try receiver.unprotect(&again, length: count, kind: .rtp)
            Issue.record("a replayed packet was accepted")
        } catch let .refused(error) {
            guard case .replayed = error else { Issue.record("expected a replay, got \(error)"); return }
        }
        let oversized = try Self.rtpPacket(sequenceNumber: 4, payloadSize: 1500)
        do {
            _ = try sender.protect(oversized[...], kind: .rtp)
            Issue.record("an oversized packet was protected")
        } catch let .packetTooLarge(size, limit) {
            #expect(size == oversized.count && limit == 1500)
        }
        var short = [UInt8](repeating: 0, count: 10)
        #expect(throws: PacketSecurityError<SRTPError>.self) {
            try receiver.unprotect(&short, length: 11, kind: .rtp)
        }
    }
}
