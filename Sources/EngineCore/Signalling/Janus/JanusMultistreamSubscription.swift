import DTLS
import Foundation
import RTPWire
import SessionCore

/// The signalling of one Janus 1.1 multistream subscription (janus_videoroom.c "VideoRoom
/// Subscribers"): every consumed stream of every publisher of the room on one subscriber peer
/// connection. `connect` joins as a subscriber with `streams: [{feed, mid}]`, answers Janus's
/// offer (`ReceivingSession`), `start`s and runs ICE (controlled) and DTLS-SRTP; `update` sends
/// `update` with `subscribe` / `unsubscribe` and answers the new offer the `updated` event
/// carries with `start` again, on the same transport (same ICE credentials and fingerprint).
/// The subscription joins with `autoupdate: false`: a publisher that goes away does not make
/// Janus push an offer nobody asked for (its m-lines turn inactive at the next `update`, which
/// Janus then renegotiates even when nothing else changed).
///
/// Blocking; for the engine's signalling thread (every call from that one thread, in order).
/// The transport `connect` returns belongs to the caller's receive loop. Not `Sendable`.
public final class JanusMultistreamSubscription {
    /// What one offer/answer round left: the subscription's m-lines as Janus lists them, and
    /// the sections our answer accepted (payload types, header-extension ids, SSRCs by mid).
    public struct Negotiation: Sendable {
        public var streams: [JanusSubscribedStream]
        public var sections: [ReceivingSession.Section]
        /// Janus's offer left nothing to receive (every m-line inactive): the subscription was
        /// left and its session destroyed; the next consume starts a new one.
        public var ended: Bool
    }

    public struct Options: Sendable {
        public var url: URL
        public var room: Int
        /// The local address to bind (0: every interface).
        public var localAddress: UInt32
        public var iceServers: [ICEServer]
        /// `.relay`: only relayed candidates are offered (RFC 8445 §5.1.1; docs/joining-a-room.md).
        public var iceTransportPolicy: ICETransportPolicy = .all
        public var connectTimeoutMilliseconds: Int64
        public var cname: String
        public var signalling: JanusHTTPClient.Limits

        public init(url: URL, room: Int, localAddress: UInt32, iceServers: [ICEServer] = [], connectTimeoutMilliseconds: Int64 = 5_000,
                    cname: String, signalling: JanusHTTPClient.Limits = .init()) {
            self.url = url
            self.room = room
            self.localAddress = localAddress
            self.iceServers = iceServers
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.cname = cname
            self.signalling = signalling
        }
    }

    /// What `connect` hands the receive loop: the transport, its SRTP keys and the first negotiation.
    public struct Connected {
        public let transport: WebRTCTransport
        public let keys: DTLSSRTPKeys
        public let remote: NetworkEndpoint
        public let milliseconds: Int64
        public let negotiation: Negotiation
    }

    public let options: Options
    public let janus: JanusHTTPClient
    /// Our transport as the answers state it (set by `connect`).
    var local: (credentials: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICECandidate])?
    public private(set) var isConnected = false
    /// Our candidates trickle (the answers carry no end-of-candidates, RFC 8838).
    var trickling = false
    /// The answer's first accepted section, by mid and m-line index: where our candidates trickle.
    var trickleTarget = (mid: "0", index: 0)

    public init(options: Options) {
        self.options = options
        janus = JanusHTTPClient(base: options.url, limits: options.signalling)
    }

    /// Joins as a subscriber to `streams`, answers, starts and connects ICE + DTLS.
    public func connect(streams: [JanusVideoRoomRequest.StreamSelector], clock: MediaClock = .system) throws(JanusSessionFailure) -> Connected {
        var connected = false
        defer { if !connected { janus.close() } }
        var trickled: [ICECandidate] = []
        let offer: (sdp: String, streams: [JanusSubscribedStream])
        do throws(JanusHTTPClient.Failure) {
            try janus.attach(plugin: "janus.plugin.videoroom")
            var join = JanusVideoRoomRequest.joinAsSubscriber(room: options.room, streams: streams, privateID: nil).body
            join["autoupdate"] = false
            try janus.message(join)
            guard let offered = try waitForOffer(after: "join", trickled: &trickled) else {
                throw .unexpectedReply(request: "join", expected: "JSEP offer")
            }
            offer = offered
        } catch {
            throw .signalling(error)
        }
        let peer = try WebRTCLocalPeer(localAddress: options.localAddress, role: .controlled, iceServers: options.iceServers,
                                       transportPolicy: options.iceTransportPolicy, clock: clock)
        local = (peer.credentials, peer.certificate.fingerprint, peer.candidates)
        trickling = peer.isTrickling
        let session = try answer(offer.sdp, collecting: &trickled)
        // Our server-reflexive and relayed candidates trickle after the answer (RFC 8838; the
        // room's `JanusSubscriberConnection` sends later ones from its worker). One that does not
        // reach Janus costs its pairs only.
        let line = JanusHTTPClient.trickleLine(of: session.answer)
        trickleTarget = line
        let janus = janus
        let connection = try peer.connect(to: session.remote, trickled: trickled,
                                          dtlsRole: session.localSetup == .active ? .client : .server,
                                          timeoutMilliseconds: options.connectTimeoutMilliseconds) { candidate in
            try? janus.trickle(candidate, mid: line.mid, mLineIndex: line.index)
        }
        connected = true
        isConnected = true
        return Connected(transport: connection.transport, keys: connection.keys, remote: connection.remote,
                         milliseconds: connection.milliseconds,
                         negotiation: Negotiation(streams: offer.streams, sections: session.sections, ended: false))
    }

    /// `update` with `subscribe` and `unsubscribe` (either may be empty: then Janus renegotiates
    /// only what changed meanwhile, a publisher gone), and the answer to the offer that follows.
    /// Nil: Janus changed nothing and sent no offer.
    public func update(subscribe: [JanusVideoRoomRequest.StreamSelector],
                       unsubscribe: [JanusVideoRoomRequest.StreamSelector]) throws(JanusSessionFailure) -> Negotiation? {
        guard isConnected else { throw .configuration("the Janus subscription is not connected") }
        let offer: (sdp: String, streams: [JanusSubscribedStream])?
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.update(subscribe: subscribe, unsubscribe: unsubscribe).body)
            var ignored: [ICECandidate] = []
            offer = try waitForOffer(after: "update", trickled: &ignored, acceptingNoOffer: true)
        } catch {
            throw .signalling(error)
        }
        guard let offer else { return nil }
        do {
            let session = try answer(offer.sdp)
            return Negotiation(streams: offer.streams, sections: session.sections, ended: false)
        } catch {
            guard case .sdp(.unsupported) = error else { throw error }
            leave()
            return Negotiation(streams: [], sections: [], ended: true)
        }
    }

    /// `configure` of the subscription's streams by our mids (relay or not, simulcast layers).
    public func configure(_ settings: [JanusVideoRoomRequest.StreamSetting]) throws(JanusHTTPClient.Failure) {
        try janus.message(JanusVideoRoomRequest.configureSubscription(settings).body)
    }

    /// Keeps the Janus session alive: at least every 30 s.
    public func keepAlive() throws(JanusHTTPClient.Failure) { try janus.keepAlive() }

    /// Leaves the subscription and destroys its Janus session.
    public func leave() {
        if isConnected { _ = try? janus.message(JanusVideoRoomRequest.leave.body) }
        isConnected = false
        janus.close()
    }

    /// Our answer to `sdp`, sent with `start`; returns once Janus started (`started: "ok"`), so
    /// that the next `update` finds the offer answered instead of being postponed (`updating`).
    func answer(_ sdp: String) throws(JanusSessionFailure) -> ReceivingSession {
        var ignored: [ICECandidate] = []
        return try answer(sdp, collecting: &ignored)
    }

    /// `answer`, with the candidates Janus trickles while it starts (full trickle: after its offer)
    /// added to `trickled`.
    func answer(_ sdp: String, collecting trickled: inout [ICECandidate]) throws(JanusSessionFailure) -> ReceivingSession {
        guard let local else { throw .configuration("no local transport to answer with") }
        let session: ReceivingSession
        do {
            session = try ReceivingSession(offer: SessionDescription(parsing: sdp), ice: local.credentials,
                                           fingerprint: local.fingerprint, candidates: local.candidates,
                                           candidatesComplete: !trickling, cname: options.cname)
        } catch {
            throw .sdp(error)
        }
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.start.body, jsep: ["type": "answer", "sdp": session.answer.text])
            _ = try janus.waitForEvent("started", after: "start") { event in
                if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
                return (try? JanusHTTPClient.pluginData(event).map(JanusVideoRoomEvent.init(data:))) == .started
            }
        } catch {
            throw .signalling(error)
        }
        return session
    }

    /// Waits for `attached` / `updated` with Janus's JSEP offer (trickled candidates collected
    /// meanwhile); with `acceptingNoOffer`, an `updated` without one (nothing changed) is nil;
    /// with `orConfigured`, a `configured` event carrying one counts too (an ICE restart's).
    func waitForOffer(after request: String, trickled: inout [ICECandidate], acceptingNoOffer: Bool = false, orConfigured: Bool = false)
        throws(JanusHTTPClient.Failure) -> (sdp: String, streams: [JanusSubscribedStream])?
    {
        var found: (sdp: String?, streams: [JanusSubscribedStream])?
        var malformed: String?
        _ = try janus.waitForEvent("JSEP offer", after: request) { event in
            if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
            guard let data = JanusHTTPClient.pluginData(event) else { return false }
            let parsed: JanusVideoRoomEvent
            do throws(JanusEventError) { parsed = try JanusVideoRoomEvent(data: data) } catch {
                malformed = "\(error)"
                return true
            }
            let streams: [JanusSubscribedStream]
            switch parsed {
            case let .attached(_, listed), let .updated(_, listed): streams = listed
            case .configured where orConfigured: streams = []
            default: return false
            }
            let jsep = event["jsep"] as? [String: Any]
            let sdp = jsep?["type"] as? String == "offer" ? jsep?["sdp"] as? String : nil
            guard sdp != nil || acceptingNoOffer else { return false }
            found = (sdp, streams)
            return true
        }
        if let malformed { throw .unexpectedReply(request: request, expected: "a well-formed subscription event (\(malformed))") }
        guard let found else { throw .unexpectedReply(request: request, expected: "JSEP offer") }
        guard let sdp = found.sdp else { return nil }
        return (sdp, found.streams)
    }
}
