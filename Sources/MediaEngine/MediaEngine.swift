import Foundation
internal import EngineCore
/// The media engine a client links (ARCHITECTURE "engine"): it owns one thread, its sockets,
/// timers, pacing and RTCP schedule; the app never writes a run loop. Create it, host or join
/// a room, publish a camera, push frames from the capture callback, read events.
///
///     let engine = MediaEngine()
///     let room = try await engine.hostRoom()
///     let alice = try await room.join(participantId: "alice")
///     let camera = try alice.createCameraVideoTrack()
///     try await alice.publish(camera)
///     try camera.push(frame)          // from any thread, at the capture rate
///     await engine.close()
///
/// `Sendable`: every method may be called from any thread or task.
public final class MediaEngine: Sendable {
    let loop: any EngineScheduler

    /// Starts the engine's thread.
    public init() {
        loop = EngineLoop()
    }

    /// An engine whose runtime another scheduler drives (MediaEngineTesting's virtual time).
    package init(scheduler: VirtualTimeLoop) {
        loop = scheduler
    }

    /// Hosts a room on this machine's loopback interface (the engine's in-process SFU: one
    /// forwarding node per published camera, docs/receiving.md to docs/adaptive-subscriptions.md), with docs/joining-a-room.md's options.
    public func hostRoom(options: RoomOptions = RoomOptions()) async throws(EngineError) -> Room {
        let id = try await loop.perform { runtime throws(EngineError) in runtime.hostRoom(options: options).id }
        return Room(id: id, options: options, loop: loop)
    }

    /// Joins a Janus VideoRoom (Janus's HTTP API at `url`, e.g. http://10.0.0.5:8088/janus) as
    /// `participantId`, over WebRTC: publishing its camera (and a microphone published before
    /// it) signals the simulcast offer (RIDs), connects ICE (on `localAddress`, an IPv4 address
    /// Janus can reach) and DTLS-SRTP (RFC 5764), and sends; `.publishedToSFU` reports the feed
    /// id Janus gave it. `subscribe(to:)` a feed id receives that publisher through Janus (its
    /// own ICE + DTLS-SRTP session over UDP; `setQuality`/`setViewPort` pick Janus's substream).
    /// With `e2ee`, every frame is SFrame-encrypted (RFC 9605) before it leaves and opened after
    /// it arrives, so Janus forwards what it cannot read (its VP8 payload descriptor and payload
    /// header stay in the clear for its simulcast switching).
    ///
    /// `preferredProtocol` (docs/joining-a-room.md; nil: `.udpOverTCP`) for publishing: `.udpOnly` runs ICE over
    /// UDP; `.tcpOnly` over ICE-TCP (RFC 6544: Janus needs `ice_tcp = true` and `ice_lite = true` in
    /// janus.jcfg); `.udpOverTCP` tries UDP for 2 s and then ICE-TCP (`.protocolSwitched`).
    ///
    /// The room model (SPEC §8, docs/room-model.md): the participant joins the room at once (a
    /// Janus session of its own, publishing nothing, carrying `name|participantId` in Janus's
    /// `display`; `name` nil: the id); its `events` tell everyone already there, then
    /// `.roomJoined`, then arrivals, tracks and departures, and `subscribe(to:)` takes a
    /// participant id. `mode`: `.recvOnly` publishes nothing; `.signallingOnly` opens no media
    /// socket, only the room's events. Everything received arrives on one subscriber peer
    /// connection (Janus 1.1 multistream: `join` with `streams`, then `update` with `subscribe` /
    /// `unsubscribe`). `autoConsume` (the seeds' default, true) consumes every other
    /// participant's camera and microphone as they are reported (`.trackSubscribed`;
    /// `subscribe(to:)` then returns that track); false receives nothing until the app consumes.
    ///
    /// Candidates (RFC 8445 §5.1.1, docs/joining-a-room.md): `localAddress` restricts ICE to one
    /// IPv4 address; nil binds every interface, IPv4 and IPv6, and gathers a host candidate on every
    /// usable interface address (loopback and link-local left out; IPv6 ones preferred). `url` may
    /// name an IPv6 address in brackets (`http://[2001:db8::2]:8088/janus`). `iceServers` adds server-reflexive candidates from their STUN URLs
    /// (`stun:host:port`) and relayed candidates from their TURN URLs (`turn:host:port`, RFC 8656:
    /// long-term credentials; `?transport=tcp` allocates over TCP, §3.1; ICE may then select a pair
    /// through the relay, and media goes through it). `iceTransportPolicy` `.relay` offers and checks only relayed candidates for the
    /// camera's peer connection (W3C `iceTransportPolicy`); `LocalVideoStats.selectedCandidatePair`
    /// says which pair carries the camera.
    public func joinJanusRoom(url: URL, room: Int, participantId: String, localAddress: String? = nil,
                              iceServers: [ICEServer] = [], iceTransportPolicy: ICETransportPolicy = .all,
                              e2ee: E2EEOptions? = nil, preferredProtocol: PreferredProtocol? = nil,
                              name: String? = nil, mode: RoomMode = .sendAndRecv, autoConsume: Bool = true)
        async throws(EngineError) -> LocalParticipant {
        let address: UInt32  // 0: every interface
        if let localAddress {
            guard let given = NetworkEndpoint.ipv4Address(localAddress) else { throw .invalidConfiguration("'\(localAddress)' is not an IPv4 address") }
            address = given
        } else {
            address = 0
        }
        for server in iceServers {
            do { _ = try server.parsedURLs() } catch { throw .invalidConfiguration("\(error)") }
        }
        guard url.scheme == "http" || url.scheme == "https" else { throw .invalidConfiguration("'\(url)' is not an HTTP URL") }
        let (events, continuation) = AsyncStream.makeStream(of: ParticipantEvent.self, bufferingPolicy: .bufferingNewest(256))
        let roomId = try await loop.perform { runtime throws(EngineError) -> String in
            let janus = runtime.joinJanusRoom(url: url, room: room, localAddress: address, iceServers: iceServers,
                                              iceTransportPolicy: iceTransportPolicy, e2ee: e2ee,
                                              preferredProtocol: preferredProtocol ?? .udpOverTCP, autoConsume: autoConsume)
            try janus.join(participantId, events: continuation, keyProvider: nil, runtime: runtime)
            janus.startRoomModel(name: name, mode: mode)
            return janus.id
        }
        return LocalParticipant(id: participantId, roomId: roomId, options: RoomOptions(autoConsume: autoConsume), events: events,
                                loop: loop, mode: mode)
    }

    /// Sends plain RTP over UDP (RFC 3550), mediasoup `PlainTransport` style: no ICE, no DTLS,
    /// SRTP (RFC 3711) with an SDES key (RFC 4568) unless `options.security` opts out, RTCP on
    /// port + 1 or muxed (RFC 5761), simulcast VP8 (RFC 7741) one SSRC per layer and Opus
    /// (RFC 7587). Checks the options and binds the socket; then publish the returned
    /// participant's camera (first) and microphone and push frames or `play(from:)` sources:
    ///
    ///     let output = try await engine.sendPlainRTP(PlainRTPOptions(videoDestination: "127.0.0.1:5004"))
    ///     let camera = try output.participant.createCameraVideoTrack(encoderConfig: .h360p)
    ///     try await output.participant.publish(camera)
    ///     try await camera.play(from: source)
    ///     await output.participant.leave()        // RTCP BYE
    ///
    /// Its events report key-frame requests (`.keyFrameRequested`), REMB layer pauses and
    /// resumes (`.publishedLayersChanged`) and failures; receiving calls throw `.notAllowed`.
    public func sendPlainRTP(_ options: PlainRTPOptions, participantId: String = "plain-rtp") async throws(EngineError) -> PlainRTPOutput {
        let (events, continuation) = AsyncStream.makeStream(of: ParticipantEvent.self, bufferingPolicy: .bufferingNewest(256))
        let (roomId, key, attribute) = try await loop.perform { runtime throws(EngineError) -> (String, [UInt8]?, String?) in
            let output = try runtime.openPlainRTPOutput(options: options)
            try output.join(participantId, events: continuation, keyProvider: nil, runtime: runtime)
            return (output.id, output.srtpKeyAndSalt, output.sdesCryptoAttribute)
        }
        let participant = LocalParticipant(id: participantId, roomId: roomId, options: RoomOptions(), events: events, loop: loop)
        return PlainRTPOutput(participant: participant, srtpKeyAndSalt: key, sdesCryptoAttribute: attribute, loop: loop)
    }

    /// Stops the engine: every participant says goodbye (RTCP BYE), every event and frame
    /// stream finishes, the thread ends. Calling it again does nothing.
    public func close() async {
        await loop.stop()
    }

    /// An engine let go of without `close()` stops the same way, without waiting: its thread
    /// ends and the rooms, tracks and participants still held answer `EngineError.closed`.
    deinit {
        loop.requestStop()
    }
}
