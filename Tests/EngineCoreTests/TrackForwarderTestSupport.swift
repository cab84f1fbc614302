import MediaCodecs
import RTPWire
import Simulcast
@testable import EngineCore

/// A publisher made of real components: SimulcastEncoder over the built-in scene, one
/// VP8Packetizer and sequence counter per layer, plain RTP out.
final class TestPublisher {
    let plan: LayerPlan
    let ssrcs: [UInt32]
    let encoder: SimulcastEncoder
    let source: VideoSource
    var packetizers: [VP8Packetizer]
    var sequences: [UInt16]
    var frameIndex = 0

    init(plan: LayerPlan) throws {
        self.plan = plan
        ssrcs = plan.layers.indices.map { UInt32(1000 + $0) }
        encoder = try SimulcastEncoder(plan: plan)
        source = try VideoSource(testSceneWidth: plan.top.width, height: plan.top.height)
        packetizers = plan.layers.indices.map { VP8Packetizer(initialPictureID: UInt16(100 * $0), initialTL0PicIdx: UInt8(7 * $0)) }
        sequences = plan.layers.indices.map { UInt16(65_500 - 300 * $0) }  // wraps during the test
    }

    /// The packets of the next frame, all layers, lightest first.
    func nextFramePackets() throws -> [[UInt8]] {
        guard let frame = try source.nextFrame() else { return [] }
        frameIndex += 1
        var packets: [[UInt8]] = []
        for encoded in try encoder.encode(frame) {
            let layer = encoded.spatialIndex
            try packetizers[layer].packetize(encoded) { payload, isLast in
                var packet: [UInt8] = []
                try? RTPHeader(marker: isLast, payloadType: 96, sequenceNumber: sequences[layer],
                               timestamp: encoded.rtpTimestamp, ssrc: ssrcs[layer]).serialize(into: &packet)
                packet += payload
                sequences[layer] &+= 1
                packets.append(packet)
            }
        }
        return packets
    }
}

/// What one subscriber receives: assembled and decoded with real libvpx, plus continuity checks.
struct ReceivingEnd {
    var assembler = VP8FrameAssembler()
    let decoder: VP8Decoder
    var decodedSizes: [String: Int] = [:]
    var decodeErrors = 0
    var undecodable = 0
    var sequenceGaps = 0
    var pictureIDGaps = 0
    var lastSequence: UInt16?
    var lastPictureID: UInt16?
    /// When set, every decodable assembled frame is also written here (90 kHz timebase), for an
    /// independent decoder (ffmpeg) to check.
    var ivf: IVFWriter?
    private var firstTimestamp: UInt32?

    init() throws { decoder = try VP8Decoder() }

    mutating func receive(_ bytes: [UInt8]) throws {
        let packet = try RTPPacket(parsing: bytes)
        if let last = lastSequence, packet.header.sequenceNumber != last &+ 1 { sequenceGaps += 1 }
        lastSequence = packet.header.sequenceNumber
        for frame in try assembler.insert(packet) {
            if let pictureID = frame.pictureID {
                if let last = lastPictureID, pictureID != (last &+ 1) & 0x7FFF { pictureIDGaps += 1 }
                lastPictureID = pictureID
            }
            guard frame.decodable else {
                undecodable += 1
                continue
            }
            if ivf != nil {
                let first = firstTimestamp ?? frame.timestamp
                firstTimestamp = first
                ivf?.append(frame: frame.data, timestamp: UInt64(frame.timestamp &- first))
            }
            do {
                if let picture = try decoder.decode(frame.data) {
                    decodedSizes["\(picture.width)x\(picture.height)", default: 0] += 1
                } else {
                    decodeErrors += 1
                }
            } catch {
                decodeErrors += 1
            }
        }
    }
}

