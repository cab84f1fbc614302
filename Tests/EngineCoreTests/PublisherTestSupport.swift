import MediaCodecs
import RTPWire
import Simulcast
import SRTP
import SessionCore
@testable import EngineCore

/// A clock the test moves by hand.
final class ManualClock {
    var monotonic: UInt64 = 5_000_000
    /// The wall clock moves with the monotonic one (whichever way the test moves time).
    var wall: UInt64 { 1_700_000_000_000_000 - 5_000_000 + monotonic }

    func advance(milliseconds: UInt64) {
        monotonic += milliseconds * 1000
    }

    /// The monotonic clock as signed microseconds (the subscriber's clock type).
    var now: Int64 {
        get { Int64(monotonic) }
        set { monotonic = UInt64(max(0, newValue)) }
    }

    var mediaClock: MediaClock {
        MediaClock(monotonicMicroseconds: { Int64(self.monotonic) }, wallMicroseconds: { Int64(self.wall) })
    }
}


let testKey: [UInt8] = (0..<30).map { UInt8($0 &* 7 &+ 3) }

func testMaterial() throws -> SRTPKeyingMaterial { try SRTPKeyingMaterial(keyAndSalt: testKey) }

/// A publisher over a MemoryTransport with a manual clock and seeded randomness.
struct PublisherRig {
    /// Where the rig's publisher sends (and whose feedback it takes from the inbox).
    static let peer = NetworkEndpoint.loopback(port: 6000)
    let publisher: Publisher
    let transport: MemoryTransport
    let clock: ManualClock
    let source: VideoSource

    init(width: Int = 640, height: Int = 360, audio: Bool = false, video: Bool = true, insecure: Bool = false,
         dtx: Bool = false, security: PublisherSecurity? = nil, keyFrameScope: KeyFrameRequestScope = .everyLayer,
         rembPolicy: REMBPolicy = .limitLayers()) throws {
        clock = ManualClock()
        transport = MemoryTransport()
        let plan = try LayerPlan(width: width, height: height)
        let configuration = PublisherConfiguration(
            video: video ? VideoTrackConfiguration(plan: plan, firstSSRC: 1000) : nil,
            audio: audio ? AudioTrackConfiguration(ssrc: 2000, opus: .init(dtx: dtx)) : nil,
            security: security ?? (insecure ? .insecure : .srtp(local: try testMaterial())),
            cname: "test-cname", keyFrameRequestScope: keyFrameScope, rembPolicy: rembPolicy)
        var random = SplitMix64(seed: 42)
        publisher = try Publisher(configuration: configuration, transport: transport,
                                  routing: try PublisherRouting(destination: Self.peer), clock: clock.mediaClock, using: &random)
        source = try VideoSource(testSceneWidth: plan.top.width, height: plan.top.height)
    }

    func sendFrames(_ count: Int) throws {
        for _ in 0..<count {
            guard let frame = try source.nextFrame() else { return }
            try publisher.send(video: frame)
            clock.advance(milliseconds: 33)
        }
    }
}

/// The receiving side: unprotects what the publisher sent and protects feedback for it.
final class TestReceiver {
    let inbound: SRTPSession
    let outbound: SRTPSession

    init() throws {
        inbound = try SRTPSession(direction: .inbound, keyingMaterial: testMaterial())
        outbound = try SRTPSession(direction: .outbound, keyingMaterial: testMaterial())
    }

    func unprotect(_ datagram: [UInt8]) throws -> (isRTCP: Bool, bytes: [UInt8]) {
        var output = [UInt8](repeating: 0, count: datagram.count)
        let isRTCP = try RTPOrRTCP.classify(datagram) == .rtcp
        let length = isRTCP ? try inbound.unprotectRTCP(datagram, into: &output)
            : try inbound.unprotectRTP(datagram, into: &output)
        return (isRTCP, Array(output.prefix(length)))
    }

    func protectFeedback(_ packets: [RTCPPacket]) throws -> [UInt8] {
        let plain = try RTCPCompoundPacket(packets: packets).serialized()
        var output = [UInt8](repeating: 0, count: plain.count + 64)
        let length = try outbound.protectRTCP(plain, into: &output)
        return Array(output.prefix(length))
    }
}

/// An RTP packet the publisher sent, unprotected and parsed.
struct SentRTP {
    let datagram: [UInt8]
    let plain: [UInt8]
    var packet: RTPPacket { try! RTPPacket(parsing: plain) }
}

func sentRTP(_ transport: MemoryTransport, receiver: TestReceiver, from start: Int = 0) throws -> [SentRTP] {
    var result: [SentRTP] = []
    for datagram in transport.sent[start...] {
        let (isRTCP, plain) = try receiver.unprotect(datagram.bytes)
        if !isRTCP { result.append(SentRTP(datagram: datagram.bytes, plain: plain)) }
    }
    return result
}

/// Whether a VP8 RTP payload starts a key frame (RFC 7741 §4.3: P bit 0 in the first payload header byte).
func startsKeyFrame(_ payload: ArraySlice<UInt8>) throws -> Bool {
    let (descriptor, data) = try VP8PayloadDescriptor.parse(payload)
    guard descriptor.isStartOfFrame, let first = data.first else { return false }
    return first & 0x01 == 0
}
