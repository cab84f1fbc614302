import EngineCore
import RTPWire
import SRTP

/// The send half of the publish path after the encoder, as `Publisher` runs it: per layer a
/// `VP8Packetizer` and an `RTPStreamSender` (RTP header + docs/wire-and-security.md extensions, history, SRTP
/// AES_CM_128_HMAC_SHA1_80) over a transport that drops the bytes, so only packetize + protect
/// is measured. Thread CPU time per layer, per frame.
///
/// Steady state: before timing, every sender sends `warmUpPackets` (twice its history) so the
/// history slots have been written once; otherwise a slow layer (one packet a frame) would pay
/// the first-touch page faults of its 512 history slots inside the measured frames.
final class PacketizeProtectStage {
    private let senders: [RTPStreamSender]
    private var packetizers: [VP8Packetizer]

    init(layerCount: Int) throws {
        let key = (0..<SRTPSuite.default.keyingMaterialLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        let path = try SendPath(transport: DiscardTransport(), routing: PublisherRouting(destination: .loopback(port: 9)),
                                security: .srtp(local: try SRTPKeyingMaterial(keyAndSalt: key)), clock: .system)
        let rids = VideoTrackConfiguration.rids(layerCount: layerCount)
        senders = try (0..<layerCount).map { index in
            try RTPStreamSender(configuration: .init(ssrc: 0x1000 + UInt32(index), payloadType: 96, clockRate: 90_000,
                                                     mid: "0", rid: rids[index], initialSequenceNumber: 1),
                                path: path)
        }
        packetizers = (0..<layerCount).map { _ in VP8Packetizer(initialPictureID: 1, initialTL0PicIdx: 1) }
        let payload = [UInt8](repeating: 0x5A, count: VP8Packetizer.defaultPayloadBudget)
        for sender in senders {
            for index in 0..<Self.warmUpPackets {
                try sender.send(payload: payload[...], timestamp: UInt32(index), marker: true)
            }
        }
    }

    static let warmUpPackets = 1024

    /// Packetizes and protects one frame's layers; returns thread CPU ns per layer (lightest first).
    func process(_ frames: [EncodedFrame]) throws -> [Int64] {
        var costs = [Int64](repeating: 0, count: senders.count)
        for frame in frames where senders.indices.contains(frame.spatialIndex) {
            let sender = senders[frame.spatialIndex]
            var failure: PublisherError?
            let start = threadCPUNanoseconds()
            try packetizers[frame.spatialIndex].packetize(frame) { payload, isLast in
                do throws(PublisherError) {
                    try sender.send(payload: payload, timestamp: frame.rtpTimestamp, marker: isLast)
                } catch {
                    failure = error
                }
            }
            costs[frame.spatialIndex] += threadCPUNanoseconds() - start
            if let failure { throw failure }
        }
        return costs
    }
}
