import DTLS
import Foundation
import RTPWire
import SessionCore
import SRTP

/// Receives one publisher of a Janus VideoRoom as a WebRTC peer: joins the room as a subscriber
/// to its feed over the HTTP API, answers Janus's JSEP offer (`ReceivingSession`: Opus and VP8
/// `recvonly`), runs ICE (controlled: Janus offers and controls) and DTLS-SRTP (`WebRTCTransport`),
/// `start`s the stream and builds the `Subscriber` that receives, decodes and answers with RTCP
/// (receiver reports, NACK, PLI, REMB) through it. Janus forwards one simulcast substream at a
/// time under one SSRC; `configure(substream:temporal:)` picks it (Janus VideoRoom's `configure`).
///
/// Blocks its caller while connecting (signalling, ICE and DTLS: typically well under a second).
/// Not `Sendable`: drive the subscriber and `keepAlive` from one thread.
public final class JanusVideoRoomSubscriber {
    public struct Options: Sendable {
        public var url: URL
        public var room: Int
        /// The publisher's id in the room (its `feed`).
        public var feed: Int
        /// The local address to bind (its port 0: any); must be one Janus can reach. 0: every
        /// interface, a host candidate for each usable interface address.
        public var localAddress: UInt32
        /// STUN servers for server-reflexive candidates (RFC 8445 §5.1.1.2); TURN is not used yet.
        public var iceServers: [ICEServer] = []
        /// The simulcast substream (0 lowest) and temporal layer to start on; nil: Janus's default (the top).
        public var substream: Int?
        public var temporal: Int?
        public var connectTimeoutMilliseconds: Int64
        /// Settings of the receiving endpoint (our RTCP SSRC, CNAME, jitter buffer, estimator);
        /// its payload types and security are set from the negotiation.
        public var subscriber: SubscriberConfiguration
        /// What the signalling reads from Janus and how long it waits (reply size, request and event deadlines).
        public var signalling: JanusHTTPClient.Limits

        public init(url: URL, room: Int, feed: Int, localAddress: UInt32, substream: Int? = nil, temporal: Int? = nil,
                    connectTimeoutMilliseconds: Int64 = 5_000,
                    subscriber: SubscriberConfiguration = SubscriberConfiguration(localSSRC: UInt32.random(in: 1...UInt32.max),
                                                                                  security: .insecurePlaintext),
                    signalling: JanusHTTPClient.Limits = .init()) {
            self.signalling = signalling
            self.url = url
            self.room = room
            self.feed = feed
            self.localAddress = localAddress
            self.substream = substream
            self.temporal = temporal
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.subscriber = subscriber
        }
    }

    public let janus: JanusHTTPClient
    public let negotiated: ReceivingSession
    public let transport: WebRTCTransport
    public let subscriber: Subscriber
    /// The mid of the video stream in Janus's offer (what `configure` names).
    public let videoMid: String?
    /// How long ICE + DTLS took.
    public let connectMilliseconds: Int64

    public init(options: Options, clock: MediaClock = .system) throws(JanusSessionFailure) {
        let janus = JanusHTTPClient(base: options.url, limits: options.signalling)
        // A subscription that could not start ends its Janus session at once.
        var started = false
        defer { if !started { janus.close() } }
        var offerSDP: String?
        var trickled: [ICECandidate] = []
        var videoMid: String?
        do throws(JanusHTTPClient.Failure) {
            try janus.attach(plugin: "janus.plugin.videoroom")
            try janus.message(JanusVideoRoomRequest.joinAsSubscriber(room: options.room, streams: [.init(feed: options.feed)], privateID: nil).body)
            // A refusal (`plugindata.data.error`) throws `.refused` from the wait.
            _ = try janus.waitForEvent("JSEP offer", after: "join") { event in
                if let data = JanusHTTPClient.pluginData(event) {
                    for stream in (data["streams"] as? [[String: Any]]) ?? [] where stream["type"] as? String == "video" {
                        videoMid = stream["mid"] as? String
                    }
                }
                if let jsep = event["jsep"] as? [String: Any], jsep["type"] as? String == "offer" { offerSDP = jsep["sdp"] as? String }
                if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
                return offerSDP != nil
            }
        } catch {
            throw .signalling(error)
        }
        guard let offerSDP else { throw .signalling(.unexpectedReply(request: "join", expected: "JSEP offer")) }
        self.videoMid = videoMid

        let peer = try WebRTCLocalPeer(localAddress: options.localAddress, role: .controlled, iceServers: options.iceServers, clock: clock)
        let cname = options.subscriber.cname ?? "engine-\(options.subscriber.localSSRC)"
        do {
            negotiated = try ReceivingSession(offer: SessionDescription(parsing: offerSDP), ice: peer.credentials,
                                              fingerprint: peer.certificate.fingerprint, candidates: peer.candidates,
                                              candidatesComplete: !peer.isTrickling, cname: cname)
        } catch {
            throw .sdp(error)
        }
        do throws(JanusHTTPClient.Failure) {
            if options.substream != nil || options.temporal != nil, let videoMid {
                try janus.message(JanusVideoRoomRequest.configureSubscription(
                    [.init(mid: videoMid, substream: options.substream, temporal: options.temporal)]).body)
            }
            try janus.message(JanusVideoRoomRequest.start.body, jsep: ["type": "answer", "sdp": negotiated.answer.text])
        } catch {
            throw .signalling(error)
        }
        // Our server-reflexive and relayed candidates trickle as they come (RFC 8838), sent from
        // whichever thread drives the subscriber; one that does not reach Janus costs its pairs only.
        let line = JanusHTTPClient.trickleLine(of: negotiated.answer)
        let connection = try peer.connect(to: negotiated.remote, trickled: trickled,
                                          dtlsRole: negotiated.localSetup == .active ? .client : .server,
                                          timeoutMilliseconds: options.connectTimeoutMilliseconds) { [janus] candidate in
            try? janus.trickle(candidate, mid: line.mid, mLineIndex: line.index)
        }
        transport = connection.transport
        connectMilliseconds = connection.milliseconds
        var configuration = options.subscriber
        configuration.cname = cname
        if let video = negotiated.video { configuration.videoPayloadType = video.payloadType }
        if let audio = negotiated.audio { configuration.audioPayloadType = audio.payloadType }
        configuration.security = .srtp(receiveKeys: connection.keys.remote, sendKeys: connection.keys.local)
        configuration.senderRTCPEndpoint = connection.remote
        do {
            subscriber = try Subscriber(configuration: configuration, transport: transport, clock: clock)
        } catch {
            throw .configuration("\(error)")
        }
        self.janus = janus
        started = true
    }

    /// Asks Janus to relay the video or not (`send`), and for another substream (0 lowest) and/or
    /// temporal layer of the feed. A subscription whose offer had no video has nothing to configure:
    /// that is `.unexpectedReply`, as Janus itself would refuse a `configure` naming no mid.
    public func configure(send: Bool? = nil, substream: Int? = nil, temporal: Int? = nil) throws(JanusHTTPClient.Failure) {
        guard send != nil || substream != nil || temporal != nil else { return }
        guard let videoMid else { throw .unexpectedReply(request: "configure", expected: "a video stream in Janus's offer to configure") }
        try janus.message(JanusVideoRoomRequest.configureSubscription(
            [.init(mid: videoMid, send: send, substream: substream, temporal: temporal)]).body)
    }

    /// Asks Janus to relay the feed's audio or not (`configure` with the audio mid's `send`),
    /// for a subscriber that stops or resumes consuming the microphone. A subscription whose
    /// offer had no audio is `.unexpectedReply`.
    public func setAudioForwarded(_ send: Bool) throws(JanusHTTPClient.Failure) {
        guard let audioMid = negotiated.audio?.mid else {
            throw .unexpectedReply(request: "configure", expected: "an audio stream in Janus's offer to configure")
        }
        try janus.message(JanusVideoRoomRequest.configureSubscription([.init(mid: audioMid, send: send)]).body)
    }

    /// Keeps the Janus session alive: call at least every 30 s.
    public func keepAlive() throws(JanusHTTPClient.Failure) { try janus.keepAlive() }

    /// Leaves the subscription and the Janus session.
    public func leave() {
        _ = try? janus.message(JanusVideoRoomRequest.leave.body)
        janus.close()
    }
}
