/// An offer from a peer that sends to us (an SFU's subscriber offer: Janus VideoRoom's `attached`
/// and `updated` JSEP, one section per consumed stream in a multistream subscription) and our
/// answer to it (RFC 9429 §5.3, RFC 3264 §6): every Opus audio and every VP8 video section is
/// accepted `recvonly` in one BUNDLE group (RFC 8843) with rtcp-mux; a section we cannot receive
/// (another codec, data channels, one the offer already rejects or marks `inactive`) is answered
/// rejected (port 0), and the answer carries our ICE credentials, candidates and DTLS fingerprint
/// with the DTLS role the offer leaves us (`active` to an `actpass`, RFC 8842 §5.2).
public struct ReceivingSession: Sendable {
    /// One accepted section: the payload type the peer sends, the header-extension ids it
    /// offered that we read, the RTCP feedback we answer with and the SSRCs it announced.
    public struct Section: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case audio, video }
        public var mid: String
        public var kind: Kind
        public var payloadType: UInt8
        public var extensionMap: RTPHeaderExtensionMap
        public var ssrcs: [UInt32]
    }

    /// At most this many sections are accepted from one offer (the rest are rejected): a bound
    /// on what a hostile offer can make the engine hold.
    public static let sectionLimit = 256

    /// Header extensions read on received media (RFC 8285), kept with the offer's ids.
    static let audioExtensions: [RTPHeaderExtensionKind] = [.mid, .audioLevel, .absSendTime, .transportSequenceNumber]
    static let videoExtensions: [RTPHeaderExtensionKind] = [.mid, .absSendTime, .transportSequenceNumber]
    /// RTCP feedback a receiver of VP8 sends (RFC 4585 §4.2 NACK and PLI, RFC 5104 §7.1 FIR, REMB),
    /// where the offer lists it.
    static let videoFeedback = ["nack", "nack pli", "ccm fir", "goog-remb"]

    public var remote: RemoteTransportDescription
    /// Our DTLS role: the client when `active`.
    public var localSetup: DTLSSetupRole
    /// Every accepted section, in the offer's order.
    public var sections: [Section]
    /// The first accepted audio and video sections (nil when the offer has none we can receive).
    public var audio: Section? { sections.first { $0.kind == .audio } }
    public var video: Section? { sections.first { $0.kind == .video } }
    public var answer: SessionDescription

    /// Answers `offer` with our transport. Throws `SDPError` when the offer has no section we
    /// can receive, leaves out rtcp-mux on one, or lacks its transport (ICE, fingerprint, role).
    /// With `candidatesComplete` false (trickle ICE, RFC 8838 §5) the answer says `a=ice-options:trickle`
    /// and leaves out `a=end-of-candidates`: more candidates follow.
    public init(offer: SessionDescription, ice: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICECandidate],
                candidatesComplete: Bool = true, cname: String) throws(SDPError) {
        var answered: [MediaDescription] = []
        var accepted: [MediaDescription] = []
        var sections: [Section] = []
        var mids: Set<String> = []
        for section in offer.media {
            var codec: (name: String, kind: Section.Kind, extensions: [RTPHeaderExtensionKind])?
            if section.media == "audio" { codec = ("opus/48000/2", .audio, Self.audioExtensions) }
            if section.media == "video" { codec = ("vp8/90000", .video, Self.videoExtensions) }
            guard !section.isRejected, !section.attributes.contains("inactive"), sections.count < Self.sectionLimit,
                  let codec, let mid = section.mid, !mids.contains(mid), section.transportProtocol.hasPrefix("UDP/TLS/RTP/SAVP"),
                  let payloadType = try section.payloadType(of: codec.name) else {
                answered.append(Self.rejected(section))
                continue
            }
            guard section.attributes.contains("rtcp-mux") else { throw .missing("a=rtcp-mux in section \(mid)") }
            let kinds = codec.extensions
            sections.append(Section(mid: mid, kind: codec.kind, payloadType: payloadType,
                                    extensionMap: try section.extensionMap { kinds.contains($0) }, ssrcs: section.ssrcs))
            mids.insert(mid)
            accepted.append(section)
            answered.append(section)
        }
        guard !sections.isEmpty else { throw .unsupported("an offer with neither Opus audio nor VP8 video to receive") }
        remote = try RemoteTransportDescription(session: offer, sections: accepted)
        localSetup = remote.setup == .active ? .passive : .active
        self.sections = sections

        let bundled = sections.map(\.mid)
        var description = SessionDescription(origin: "- \(UInt32.random(in: 1...UInt32.max)) 2 IN IP4 127.0.0.1",
                                             attributes: [SDPAttribute("group", (["BUNDLE"] + bundled).joined(separator: " ")),
                                                          SDPAttribute("msid-semantic", " WMS")])
        var first = true
        for section in answered {
            guard !section.isRejected, let mid = section.mid, let ours = sections.first(where: { $0.mid == mid }) else {
                description.media.append(section)
                continue
            }
            var answer = MediaDescription(
                media: section.media, port: 9, transportProtocol: "UDP/TLS/RTP/SAVPF", formats: ["\(ours.payloadType)"],
                connection: ICECandidate.placeholderConnection(for: candidates),
                attributes: [SDPAttribute("rtcp", "9 " + ICECandidate.placeholderConnection(for: candidates)),
                             SDPAttribute("ice-ufrag", ice.usernameFragment), SDPAttribute("ice-pwd", ice.password),
                             SDPAttribute("fingerprint", fingerprint.description), SDPAttribute("setup", localSetup.rawValue),
                             SDPAttribute("mid", mid), SDPAttribute("recvonly"), SDPAttribute("rtcp-mux")])
            answer.attributes += RTPHeaderExtensionKind.allCases.compactMap { kind in
                ours.extensionMap.id(for: kind).map { SDPAttribute("extmap", "\($0) \(kind.uri)") }
            }
            if section.media == "audio" {
                answer.attributes += [SDPAttribute("rtpmap", "\(ours.payloadType) opus/48000/2"),
                                      SDPAttribute("fmtp", "\(ours.payloadType) minptime=10;useinbandfec=1")]
            } else {
                answer.attributes += [SDPAttribute("rtcp-rsize"), SDPAttribute("rtpmap", "\(ours.payloadType) VP8/90000")]
                let offered = section.feedback(for: ours.payloadType)
                answer.attributes += Self.videoFeedback.filter(offered.contains).map { SDPAttribute("rtcp-fb", "\(ours.payloadType) \($0)") }
            }
            answer.attributes.append(SDPAttribute("ssrc", "\(UInt32.random(in: 1...UInt32.max)) cname:\(cname)"))
            // Candidates go with the first section of the bundle (RFC 8843 §7.1.1).
            if first {
                answer.attributes += candidates.map { SDPAttribute("candidate", $0.description) }
                if candidatesComplete {
                    if !candidates.isEmpty { answer.attributes.append(SDPAttribute("end-of-candidates")) }
                } else {
                    answer.attributes.append(SDPAttribute("ice-options", "trickle"))
                }
                first = false
            }
            description.media.append(answer)
        }
        answer = description
    }

    /// The answer's line for a section we do not take: the same media, port 0 (RFC 3264 §6).
    private static func rejected(_ section: MediaDescription) -> MediaDescription {
        MediaDescription(media: section.media, port: 0, transportProtocol: section.transportProtocol,
                         formats: Array(section.formats.prefix(1)), connection: "IN IP4 0.0.0.0",
                         attributes: section.mid.map { [SDPAttribute("mid", $0)] } ?? [])
    }
}
