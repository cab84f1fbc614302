import RTPWire
import Simulcast
import SRTP

/// What a publisher sends once a WebRTC answer came back (RFC 8853 §5.3, RFC 8843 §9.2): the
/// camera's layer plan narrowed to the RIDs the peer accepted, the payload types and header
/// extension ids it chose, and the keys DTLS exported. The engine applies the answer; the app
/// does not copy numbers between SDP and the publisher.
public enum NegotiatedPublishing {
    /// Why an answer's RIDs cannot be sent with this engine's layer plans.
    public struct UnsupportedRIDs: Error, Sendable, Equatable, CustomStringConvertible {
        public var accepted: [String]
        public var offered: [String]
        public var description: String {
            "the answer accepted RIDs \(accepted) of \(offered): this engine sends all layers, the lowest and highest "
                + "(MAX_LAYER_2), or one"
        }
    }

    /// The RIDs to offer for `plan`, highest layer first (the order SFUs assume), none for one layer.
    public static func offeredRIDs(for plan: LayerPlan) -> [String] {
        VideoTrackConfiguration.rids(layerCount: plan.layers.count).compactMap { $0 }.reversed()
    }

    /// The plan to encode after the answer: all layers when every RID was accepted, MAX_LAYER_2
    /// when the lowest and highest of three were, one layer (no RID) when one or none was (a peer
    /// without simulcast gets the first RID's encoding, the top layer, RFC 8853 §5.3).
    public static func plan(for camera: LayerPlan, accepted: [String]) throws(UnsupportedRIDs) -> LayerPlan {
        let offered = offeredRIDs(for: camera)
        let names = VideoTrackConfiguration.rids(layerCount: camera.layers.count)
        func single(_ layer: LayerSpec) -> LayerPlan {
            (try? LayerPlan(width: layer.width, height: layer.height, multiStream: false)) ?? camera
        }
        switch Set(accepted) {
        case Set(offered):
            return camera
        case []:
            return single(camera.top)
        case let one where one.count == 1:
            guard let index = names.firstIndex(of: one.first) else { throw UnsupportedRIDs(accepted: accepted, offered: offered) }
            return single(camera.layers[index])
        case ["q", "f"] where camera.layers.count == 3:
            return (try? LayerPlan(width: camera.encoderWidth, height: camera.encoderHeight, maxLayer: .two)) ?? camera
        default:
            throw UnsupportedRIDs(accepted: accepted, offered: offered)
        }
    }

    /// One header-extension map for the bundle: every accepted section's ids (BUNDLE gives a URI
    /// one id across sections, RFC 8843 §9.2).
    public static func extensionMap(_ session: NegotiatedSession) -> RTPHeaderExtensionMap {
        var map = RTPHeaderExtensionMap()
        for section in [session.audio, session.video, session.screenShare].compactMap({ $0 }) {
            for kind in RTPHeaderExtensionKind.allCases {
                if let id = section.extensionMap.id(for: kind) { try? map.register(kind, id: id) }
            }
        }
        return map
    }

    /// The publisher's configuration for `session`: video from `camera` narrowed to the accepted
    /// RIDs (SSRCs from `firstVideoSSRC` up), audio on `audioSSRC` if the answer kept it, both
    /// with the negotiated payload types, MIDs and extension ids, SRTP with `keys`.
    public static func configuration(camera: LayerPlan, session: NegotiatedSession, firstVideoSSRC: UInt32,
                                     audioSSRC: UInt32, keys: (local: SRTPKeyingMaterial, remote: SRTPKeyingMaterial),
                                     cname: String) throws(UnsupportedRIDs) -> PublisherConfiguration {
        var video: VideoTrackConfiguration?
        if let section = session.video {
            let plan = try plan(for: camera, accepted: section.rids)
            video = VideoTrackConfiguration(plan: plan, ssrcs: plan.layers.indices.map { firstVideoSSRC &+ UInt32($0) },
                                            payloadType: section.payloadType, mid: section.mid)
        }
        let audio = session.audio.map { AudioTrackConfiguration(ssrc: audioSSRC, payloadType: $0.payloadType, mid: $0.mid) }
        return PublisherConfiguration(video: video, audio: audio, security: .srtp(local: keys.local, remote: keys.remote),
                                      cname: cname, extensionMap: extensionMap(session))
    }

    /// The configuration of the publisher sending the screen share of `session` (its second
    /// video section, one layer of `screen`'s top size on `ssrc`), or nil when the answer has
    /// none. It shares the camera's transport (`Publisher.bundledPublisher`), so it stamps no
    /// transport-wide sequence numbers: one counter per transport (the camera's), or the peer's
    /// transport-wide feedback would mix two sequences.
    public static func screenShareConfiguration(screen: LayerPlan, session: NegotiatedSession, ssrc: UInt32,
                                                keys: (local: SRTPKeyingMaterial, remote: SRTPKeyingMaterial),
                                                cname: String) throws(UnsupportedRIDs) -> PublisherConfiguration? {
        guard let section = session.screenShare else { return nil }
        let plan = try plan(for: screen, accepted: section.rids)
        let video = VideoTrackConfiguration(plan: plan, ssrcs: plan.layers.indices.map { ssrc &+ UInt32($0) },
                                            payloadType: section.payloadType, mid: section.mid)
        let bundle = extensionMap(session)
        var map = RTPHeaderExtensionMap()
        for kind in RTPHeaderExtensionKind.allCases where kind != .transportSequenceNumber {
            if let id = bundle.id(for: kind) { try? map.register(kind, id: id) }
        }
        return PublisherConfiguration(video: video, security: .srtp(local: keys.local, remote: keys.remote), cname: cname,
                                      extensionMap: map)
    }
}
