import MediaCodecs
import EngineCore
import SessionCore
import RTPWire
import Simulcast
import SRTP

/// `Publisher.handleIncoming(_:)` on datagram scripts (see `DatagramScript`): the feedback path of
/// a publisher that has sent a few packets on every layer, so NACKs find them in its history.
///
/// Variant bits 0–1: security (0 and 3 plain, 1 SRTP/SRTCP, 2 SRTP with plain RTCP); bit 2: key-frame
/// requests refresh only the named layer; bit 3: REMB is ignored; bit 4: no audio track.
/// Records: the source is irrelevant (a publisher has one transport); `protect` uses the SFU's
/// SRTCP keys; `service` sends due sender reports; an action sends one more synthetic frame on
/// layer `datagram.count % 3` (the harness's own media: not counted as an answer).
///
/// Invariants: no trap; per datagram, NACKed = resent + missing and key frames requested ≤
/// requests; bytes sent in answer to the script stay within `OutputBudget`.
enum PublisherCheck {
    static let videoSSRCs: [UInt32] = [0x0100_0001, 0x0100_0002, 0x0100_0003]
    static let audioSSRC: UInt32 = 0x0100_00A0
    /// Who sends feedback (a report block's source, a NACK's sender): the SFU.
    static let feedbackSSRC: UInt32 = 0x0F00_0001
    /// Three layers (the longer edge decides) at the smallest height: libvpx's set-up cost grows
    /// with the picture area, and a publisher is created per input.
    static let plan: LayerPlan = {
        do { return try LayerPlan(width: 960, height: 64) } catch { fatalError("\(error)") }
    }()
    static let localKeys: UInt8 = 2
    static let remoteKeys: UInt8 = 3

    static func configuration(variant: UInt8) -> PublisherConfiguration {
        let security: PublisherSecurity
        switch variant & 3 {
        case 1: security = .srtp(local: FuzzKeys.material(localKeys), remote: FuzzKeys.material(remoteKeys))
        case 2: security = .srtpPlainRTCP(local: FuzzKeys.material(localKeys))
        default: security = .insecure
        }
        return PublisherConfiguration(
            video: VideoTrackConfiguration(plan: plan, ssrcs: videoSSRCs),
            audio: variant & 0x10 != 0 ? nil : AudioTrackConfiguration(ssrc: audioSSRC),
            security: security,
            keyFrameRequestScope: variant & 4 != 0 ? .namedLayer : .everyLayer,
            rembPolicy: variant & 8 != 0 ? .ignore : .limitLayers(),
            historyCapacity: 64)  // the default 512 costs megabytes per input; wrap-around is the same
    }

    /// A publisher that has sent two frames on every layer and one audio frame.
    static func makePublisher(variant: UInt8, transport: CountingTransport, clock: SimulatedClock) -> Publisher {
        var random = SplitMix64(seed: 0x5EED)
        let publisher: Publisher
        do {
            publisher = try Publisher(configuration: configuration(variant: variant), transport: transport,
                                      routing: PublisherRouting(destination: CountingTransport.peer),
                                      clock: clock.mediaClock, using: &random)
            for frame in 0..<2 {
                for layer in plan.layers.indices { try publisher.send(syntheticFrame(layer: layer, index: frame)) }
                clock.advance(33_000)
            }
            if publisher.audioSender != nil { try publisher.send(audio: AudioFrame.silence(channels: .mono)) }
        } catch {
            fatalError("fuzz-engine: publisher setup failed: \(error)")
        }
        return publisher
    }

    /// An encoded frame of 1500 bytes (two packets) that is not real VP8: the feedback path never
    /// looks inside.
    static func syntheticFrame(layer: Int, index: Int) -> EncodedFrame {
        let spec = plan.layers[layer]
        return EncodedFrame(spatialIndex: layer, width: spec.width, height: spec.height, temporalId: 0,
                            layerSync: false, keyFrame: index == 0, rtpTimestamp: UInt32(index) * 3000,
                            data: [UInt8](repeating: UInt8(truncatingIfNeeded: 0x10 + layer), count: 1500))
    }

    static func run(_ bytes: [UInt8]) -> String? {
        let script = DatagramScript(bytes)
        let clock = SimulatedClock()
        let transport = CountingTransport()
        let publisher = makePublisher(variant: script.variant, transport: transport, clock: clock)
        let sfuOutbound: SRTPSession? = script.variant & 3 == 1
            ? try? SRTPSession(direction: .outbound, keyingMaterial: FuzzKeys.material(remoteKeys)) : nil
        var preparer = DatagramPreparer()
        var budget = OutputBudget(inputBytes: bytes.count, clock: clock)
        var frameIndex = 2
        for (index, record) in script.records.enumerated() {
            clock.advance(record.advanceMicroseconds)
            if record.isAction {
                do {
                    try publisher.send(syntheticFrame(layer: record.datagram.count % 3, index: frameIndex))
                } catch {
                    return "record \(index): sending a frame failed: \(error)"
                }
                frameIndex += 1
                continue
            }
            let datagram = preparer.prepare(record, with: sfuOutbound)
            let before = transport.bytes
            if let outcome = try? publisher.handleIncoming(datagram) {
                guard outcome.retransmitted + outcome.missing + outcome.retransmissionsRefused == outcome.nacked else {
                    return "record \(index): \(outcome.nacked) NACKed but \(outcome.retransmitted) resent + \(outcome.missing) missing + \(outcome.retransmissionsRefused) refused"
                }
                guard outcome.keyFramesRequested <= outcome.keyFrameRequests else {
                    return "record \(index): more key frames requested than asked for"
                }
            }
            if record.service {
                do { try publisher.sendReportsIfDue() } catch { return "record \(index): reports failed: \(error)" }
            }
            budget.sentBytes += transport.bytes - before
            if let violation = budget.violation(at: clock, what: "publisher (record \(index))") { return violation }
        }
        return nil
    }
}
