import DTLS
import Foundation
import RTPWire
import SessionCore
import Simulcast
import SRTP

/// Publishes a simulcast camera (and Opus) into a Janus VideoRoom as a WebRTC peer: joins the
/// room as a publisher over the HTTP API, sends the JSEP offer (RIDs highest first, as Janus
/// expects), applies its answer (`NegotiatedPublishing`), runs ICE (controlling) and DTLS-SRTP
/// (`WebRTCTransport`), and builds the `Publisher` that sends through it.
///
/// With `iceTCP` everything goes over one TCP connection instead of UDP (ICE-TCP, RFC 6544): the
/// offer carries an active TCP candidate (port 9, §4.5), the engine connects to the passive TCP
/// candidate of Janus's answer and runs the ICE checks, DTLS and SRTP over it, each packet after its
/// 16-bit length (RFC 4571). Janus 1.1.2 offers passive TCP candidates only with `ice_tcp = true`,
/// which wants `ice_lite = true` beside it (janus.jcfg `nat`; scripts/janus-harness.sh --ice-tcp).
///
/// Blocks its caller while connecting (signalling, ICE and DTLS: typically well under a second).
/// Not `Sendable`: drive the publisher and `keepAlive` from one thread.
public final class JanusVideoRoomPublisher {
    public struct Options: Sendable {
        public var url: URL
        public var room: Int
        public var display: String
        public var camera: LayerPlan
        public var audio: Bool
        /// A screen share beside the camera: a second video m-line (mid "2") that `publish`
        /// describes as `JanusRoomRoster.screenShareDescription` (Janus 1.1 `descriptions`), sent
        /// as one layer of this plan's top size. nil: the camera only.
        public var screenShare: LayerPlan?
        /// The local address to bind (its port 0: any); must be one Janus can reach. 0: every
        /// interface, a host candidate for each usable interface address.
        public var localAddress: UInt32
        /// STUN servers for server-reflexive candidates (RFC 8445 §5.1.1.2), TURN servers for relayed
        /// ones (RFC 8656; media then may go through the relay, whichever pair ICE selects).
        public var iceServers: [ICEServer] = []
        /// `.relay`: only relayed candidates are offered and checked (RFC 8445 §5.1.1, W3C
        /// `iceTransportPolicy`).
        public var iceTransportPolicy: ICETransportPolicy = .all
        public var connectTimeoutMilliseconds: Int64
        /// ICE-TCP (RFC 6544) instead of UDP: no UDP socket is opened.
        public var iceTCP: Bool
        /// What the signalling reads from Janus and how long it waits (reply size, request and event deadlines).
        public var signalling: JanusHTTPClient.Limits

        public init(url: URL, room: Int, display: String = "engine", camera: LayerPlan, audio: Bool = true,
                    localAddress: UInt32, connectTimeoutMilliseconds: Int64 = 5_000, iceTCP: Bool = false,
                    signalling: JanusHTTPClient.Limits = .init()) {
            self.iceTCP = iceTCP
            self.signalling = signalling
            self.url = url
            self.room = room
            self.display = display
            self.camera = camera
            self.audio = audio
            self.localAddress = localAddress
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        }
    }

    /// Why publishing could not start.
    public typealias Failure = JanusSessionFailure

    public let janus: JanusHTTPClient
    /// Our publisher id in the room, and what Janus said when it configured the stream.
    public let publisherID: Int
    public let configured: [String: Any]
    /// What the last offer/answer settled (a renegotiation of the screen share replaces it).
    public internal(set) var negotiated: NegotiatedSession
    /// The offer Janus last answered.
    public internal(set) var offer: SimulcastOffer
    public let transport: WebRTCTransport
    public let publisher: Publisher
    /// The screen share's publisher on the same transport (the camera's `bundledPublisher`, which
    /// reads the feedback for both), when `Options.screenShare` asked for one and Janus accepted it.
    public internal(set) var screenSharePublisher: Publisher?
    /// What a screen share's publisher added later (`JanusVideoRoomPublisher+ScreenShare`) needs:
    /// the connection's keys and route, the clock, and the SSRC of the next screen share.
    let keys: (local: SRTPKeyingMaterial, remote: SRTPKeyingMaterial)
    let routing: PublisherRouting
    let clock: MediaClock
    var nextScreenShareSSRC: UInt32
    /// The mid of the screen share's m-line.
    public static let screenShareMid = "2"
    /// How long ICE + DTLS took.
    public let connectMilliseconds: Int64

    public init(options: Options, clock: MediaClock = .system) throws(Failure) {
        let janus = JanusHTTPClient(base: options.url, limits: options.signalling)
        // A publisher that could not start leaves the room and ends its Janus session at once (a
        // caller may try again another way, e.g. over ICE-TCP after UDP failed).
        var started = false
        defer { if !started { janus.close() } }
        do throws(JanusHTTPClient.Failure) {
            try janus.attach(plugin: "janus.plugin.videoroom")
            try janus.message(JanusVideoRoomRequest.joinAsPublisher(room: options.room, display: options.display).body)
            let joined = try janus.waitForEvent("joined", after: "join") { JanusHTTPClient.pluginData($0)?["videoroom"] as? String == "joined" }
            guard let id = JanusHTTPClient.integer(JanusHTTPClient.pluginData(joined), "id") else {
                throw .unexpectedReply(request: "join", expected: "numeric plugindata.data.id in its joined event")
            }
            publisherID = id
        } catch {
            throw .signalling(error)
        }

        let peer = try WebRTCLocalPeer(localAddress: options.localAddress, role: .controlling, iceTCP: options.iceTCP,
                                       iceServers: options.iceServers, transportPolicy: options.iceTransportPolicy, clock: clock)
        var random = SystemRandomNumberGenerator()
        let audioSSRC = UInt32.random(in: 0x1000_0000...0x7FFF_FFFF), firstVideoSSRC = UInt32.random(in: 0x8000_0000...0xEFFF_0000)
        var offer = SimulcastOffer(
            sessionID: UInt64.random(in: 1...UInt64(Int64.max)), ice: peer.credentials, fingerprint: peer.certificate.fingerprint,
            candidates: peer.candidates,
            audio: options.audio ? .init(ssrc: audioSSRC) : nil,
            video: .init(rids: NegotiatedPublishing.offeredRIDs(for: options.camera)), cname: options.display)
        offer.candidatesComplete = !peer.isTrickling
        let screenShare = options.screenShare.flatMap(Self.singleLayer)
        if screenShare != nil {
            var section = SimulcastOffer.Video(rids: [])
            section.mid = Self.screenShareMid
            offer.screenShare = section
        }
        let descriptions = screenShare == nil ? [:] : [Self.screenShareMid: JanusRoomRoster.screenShareDescription]
        self.offer = offer
        var trickled: [ICECandidate] = []
        var answerSDP: String?
        var configured: [String: Any] = [:]
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.publish(audio: options.audio, video: true, descriptions: descriptions).body,
                              jsep: ["type": "offer", "sdp": offer.sessionDescription.text])
            _ = try janus.waitForEvent("JSEP answer", after: "publish") { event in
                if let sdp = (event["jsep"] as? [String: Any])?["sdp"] as? String { answerSDP = sdp }
                if let data = JanusHTTPClient.pluginData(event), data["configured"] != nil { configured = data }
                if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
                return answerSDP != nil
            }
        } catch {
            throw .signalling(error)
        }
        self.configured = configured
        self.clock = clock
        do {
            negotiated = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answerSDP ?? ""))
        } catch {
            throw .sdp(error)
        }
        let remote = RemoteTransportDescription(negotiated)
        // Our server-reflexive and relayed candidates trickle to Janus as they come (RFC 8838;
        // a room's runtime sends later ones from its signalling worker instead). One that does
        // not reach Janus costs its pairs only.
        let mid = offer.sessionDescription.media.first?.mid ?? "0"
        let connection = try peer.connect(to: remote, trickled: trickled, dtlsRole: negotiated.remoteSetup == .active ? .server : .client,
                                          timeoutMilliseconds: options.connectTimeoutMilliseconds) { candidate in
            try? janus.trickle(candidate, mid: mid)
        }
        transport = connection.transport
        connectMilliseconds = connection.milliseconds
        let (keys, remoteEndpoint) = (connection.keys, connection.remote)
        self.keys = (keys.local, keys.remote)
        do {
            routing = try PublisherRouting(destination: remoteEndpoint)
        } catch {
            throw .configuration("\(error)")
        }
        nextScreenShareSSRC = firstVideoSSRC &+ 0x101
        do {
            let configuration = try NegotiatedPublishing.configuration(
                camera: options.camera, session: negotiated, firstVideoSSRC: firstVideoSSRC, audioSSRC: audioSSRC,
                keys: (keys.local, keys.remote), cname: options.display)
            publisher = try Publisher(configuration: configuration, transport: transport, routing: routing,
                                      clock: clock, using: &random)
            if let screenShare, let screenConfiguration = try NegotiatedPublishing.screenShareConfiguration(
                screen: screenShare, session: negotiated, ssrc: firstVideoSSRC &+ 0x100, keys: (keys.local, keys.remote),
                cname: options.display) {
                let screen = try Publisher(configuration: screenConfiguration, transport: transport,
                                           routing: routing, clock: clock, using: &random)
                publisher.bundledPublisher = screen
                screenSharePublisher = screen
            } else {
                screenSharePublisher = nil
            }
        } catch {
            throw .configuration("\(error)")
        }
        self.janus = janus
        started = true
    }

    /// The screen share goes out as one layer (Janus relays a stream as published, and the
    /// subscriber's substream choice is the camera's): `plan`'s top size.
    static func singleLayer(_ plan: LayerPlan) -> LayerPlan? {
        try? LayerPlan(screenShareWidth: plan.top.width, height: plan.top.height, multiStream: false)
    }

    /// Keeps the Janus session alive: call at least every 30 s.
    public func keepAlive() throws(JanusHTTPClient.Failure) { try janus.keepAlive() }

    /// Says goodbye (RTCP BYE, the camera's and the screen share's), unpublishes and leaves the room.
    public func leave() {
        try? publisher.sendGoodbye(reason: "left")
        try? screenSharePublisher?.sendGoodbye(reason: "left")
        _ = try? janus.message(JanusVideoRoomRequest.leave.body)
        janus.close()
    }

    /// The room's participants as Janus lists them.
    public func participants(room: Int) throws(JanusHTTPClient.Failure) -> [[String: Any]] {
        let reply = try janus.message(JanusVideoRoomRequest.listParticipants(room: room).body)
        return (JanusHTTPClient.pluginData(reply)?["participants"] as? [[String: Any]]) ?? []
    }

}
