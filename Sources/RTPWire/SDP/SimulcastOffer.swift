/// The JSEP offer (RFC 9429 §5.2) a publishing client sends: one BUNDLE group (RFC 8843) over
/// one ICE/DTLS transport, an Opus audio section and a VP8 video section sending simulcast by
/// RID (RFC 8851, RFC 8853), the header extensions of `extensionMap` (RFC 8285), RTCP feedback
/// (nack, nack pli, ccm fir, goog-remb, transport-cc) and rtcp-mux/rtcp-rsize.
public struct SimulcastOffer: Sendable {
    /// The audio section: Opus (RFC 7587), 48 kHz stereo signalling, in-band FEC.
    public struct Audio: Sendable {
        public var mid = "0"
        public var payloadType: UInt8 = 111
        public var ssrc: UInt32

        public init(ssrc: UInt32) { self.ssrc = ssrc }
    }

    /// The video section: VP8 (RFC 7741) with one RID per spatial layer.
    public struct Video: Sendable {
        public var mid = "1"
        public var payloadType: UInt8 = 96
        /// RIDs, highest layer first (the order Janus and most SFUs assume, `rid_order` "hml").
        public var rids: [String]
        /// A stream taken out in a later offer (RFC 3264 §8.2): port 0, `a=inactive` (what Janus
        /// 1.1 reads to mark the stream disabled), out of the BUNDLE group.
        public var isStopped = false

        public init(rids: [String]) { self.rids = rids }
    }

    public var sessionID: UInt64
    /// The `o=` line's session version: each later offer of the session (a renegotiation) has a
    /// higher one (RFC 3264 §8).
    public var version: UInt64 = 2
    public var ice: ICECredentials
    public var fingerprint: DTLSFingerprint
    /// Gathered candidates (none with trickle ICE).
    public var candidates: [ICECandidate]
    /// Whether `candidates` is every candidate (`a=end-of-candidates`); false with trickle ICE
    /// while more are gathered (RFC 8838 §8.2: they and the end follow as trickles).
    public var candidatesComplete = true
    public var extensionMap: RTPHeaderExtensionMap
    public var audio: Audio?
    public var video: Video?
    /// A second video section after the camera's: a screen share (its own mid, `a=msid` track
    /// `<stream>-screen`), what Janus 1.1 names with `descriptions` in `publish`. nil: none.
    public var screenShare: Video?
    /// RTCP CNAME and the MediaStream id of `a=msid`.
    public var cname: String
    public var streamID: String

    public init(sessionID: UInt64, ice: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICECandidate] = [],
                extensionMap: RTPHeaderExtensionMap = .defaults, audio: Audio?, video: Video?,
                cname: String, streamID: String = "engine") {
        self.sessionID = sessionID
        self.ice = ice
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.extensionMap = extensionMap
        self.audio = audio
        self.video = video
        self.cname = cname
        self.streamID = streamID
    }

    /// The mids in section order.
    public var mids: [String] { [audio?.mid, video?.mid, screenShare?.mid].compactMap { $0 } }
    /// The mids of the BUNDLE group: every section but a stopped one (RFC 8843 §7.3.3).
    var bundledMids: [String] {
        [audio?.mid, video.flatMap { $0.isStopped ? nil : $0.mid }, screenShare.flatMap { $0.isStopped ? nil : $0.mid }].compactMap { $0 }
    }

    /// Header extensions each kind of section offers (RFC 8285 `a=extmap`).
    static let audioExtensions: [RTPHeaderExtensionKind] = [.mid, .audioLevel, .absSendTime, .transportSequenceNumber]
    static let videoExtensions: [RTPHeaderExtensionKind] = [.mid, .rid, .absSendTime, .transportSequenceNumber]
    /// RTCP feedback offered for video (RFC 4585 §4.2, RFC 5104 §7.1, REMB, transport-cc).
    static let videoFeedback = ["goog-remb", "transport-cc", "ccm fir", "nack", "nack pli"]

    /// The offer as a session description.
    public var sessionDescription: SessionDescription {
        var description = SessionDescription(origin: "- \(sessionID) \(version) IN IP4 127.0.0.1",
                                             attributes: [SDPAttribute("group", (["BUNDLE"] + bundledMids).joined(separator: " ")),
                                                          SDPAttribute("extmap-allow-mixed"),
                                                          SDPAttribute("msid-semantic", " WMS \(streamID)")])
        if let audio {
            var section = transportSection(media: "audio", mid: audio.mid, payloadType: audio.payloadType)
            section.attributes += extmaps(Self.audioExtensions)
            section.attributes += [
                SDPAttribute("sendonly"), SDPAttribute("msid", "\(streamID) \(streamID)-audio"),
                SDPAttribute("rtcp-mux"),
                SDPAttribute("rtpmap", "\(audio.payloadType) opus/48000/2"),
                SDPAttribute("rtcp-fb", "\(audio.payloadType) transport-cc"),
                SDPAttribute("fmtp", "\(audio.payloadType) minptime=10;useinbandfec=1"),
                SDPAttribute("ssrc", "\(audio.ssrc) cname:\(cname)"),
            ]
            description.media.append(section)
        }
        if let video { description.media.append(videoSection(video, track: "\(streamID)-video")) }
        if let screenShare { description.media.append(videoSection(screenShare, track: "\(streamID)-screen")) }
        // Candidates go with the first section of the bundle (RFC 8843 §7.1.1).
        if !description.media.isEmpty {
            description.media[0].attributes += candidates.map { SDPAttribute("candidate", $0.description) }
            if !candidates.isEmpty && candidatesComplete { description.media[0].attributes.append(SDPAttribute("end-of-candidates")) }
        }
        return description
    }

    /// A send-only VP8 section with `video`'s RIDs, its `a=msid` track `track`.
    private func videoSection(_ video: Video, track: String) -> MediaDescription {
        var section = transportSection(media: "video", mid: video.mid, payloadType: video.payloadType)
        if video.isStopped { section.port = 0 }
        section.attributes += extmaps(Self.videoExtensions)
        section.attributes += [
            SDPAttribute(video.isStopped ? "inactive" : "sendonly"), SDPAttribute("msid", "\(streamID) \(track)"),
            SDPAttribute("rtcp-mux"), SDPAttribute("rtcp-rsize"),
            SDPAttribute("rtpmap", "\(video.payloadType) VP8/90000"),
        ]
        section.attributes += Self.videoFeedback.map { SDPAttribute("rtcp-fb", "\(video.payloadType) \($0)") }
        section.attributes += video.rids.map { SDPAttribute("rid", "\($0) send") }
        if video.rids.count > 1 { section.attributes.append(SDPAttribute("simulcast", "send \(video.rids.joined(separator: ";"))")) }
        return section
    }

    /// The lines every bundled section repeats: transport, ICE, DTLS, mid.
    private func transportSection(media: String, mid: String, payloadType: UInt8) -> MediaDescription {
        MediaDescription(media: media, port: 9, transportProtocol: "UDP/TLS/RTP/SAVPF", formats: ["\(payloadType)"],
                         connection: ICECandidate.placeholderConnection(for: candidates),
                         attributes: [SDPAttribute("rtcp", "9 " + ICECandidate.placeholderConnection(for: candidates)),
                                      SDPAttribute("ice-ufrag", ice.usernameFragment), SDPAttribute("ice-pwd", ice.password),
                                      SDPAttribute("ice-options", "trickle"),
                                      SDPAttribute("fingerprint", fingerprint.description),
                                      SDPAttribute("setup", DTLSSetupRole.actpass.rawValue), SDPAttribute("mid", mid)])
    }

    private func extmaps(_ kinds: [RTPHeaderExtensionKind]) -> [SDPAttribute] {
        kinds.compactMap { kind in extensionMap.id(for: kind).map { SDPAttribute("extmap", "\($0) \(kind.uri)") } }
    }
}
