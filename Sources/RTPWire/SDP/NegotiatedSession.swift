/// What an answer to a `SimulcastOffer` settled (RFC 9429 §5.10, RFC 3264 §6): the peer's ICE
/// credentials, candidates and DTLS fingerprint and role, and per section the payload type,
/// header-extension ids, RTCP feedback and (for video) which RIDs the peer accepted.
public struct NegotiatedSession: Sendable {
    /// One accepted media section.
    public struct Section: Sendable, Equatable {
        public var mid: String
        public var payloadType: UInt8
        /// The ids the answer kept, for the kinds the offer proposed.
        public var extensionMap: RTPHeaderExtensionMap
        /// `a=rtcp-fb` values for the payload type (`nack`, `nack pli`, `transport-cc`…).
        public var feedback: Set<String>
        /// Video: the RIDs to send, in the offer's order; empty when the answer accepted no
        /// simulcast (send one stream: the first RID's encoding, RFC 8853 §5.3).
        public var rids: [String]
    }

    public var remoteICE: ICECredentials
    public var remoteFingerprint: DTLSFingerprint
    /// The peer's DTLS role: `active` makes us the DTLS server, `passive` the client.
    public var remoteSetup: DTLSSetupRole
    public var remoteCandidates: [ICECandidate]
    /// nil when the answer rejected the section or the offer had none.
    public var audio: Section?
    public var video: Section?
    /// The offer's screen-share video section (`SimulcastOffer.screenShare`), if accepted.
    public var screenShare: Section?

    /// Applies `answer` to `offer`. Throws `SDPError` when the answer does not match the offer's
    /// sections, leaves out BUNDLE, rtcp-mux, ICE credentials, a fingerprint or a DTLS role, or
    /// picks a codec or transport this engine does not send.
    public init(offer: SimulcastOffer, answer: SessionDescription) throws(SDPError) {
        let offered = offer.sessionDescription.media
        guard answer.media.count == offered.count else {
            throw .unsupported("an answer with \(answer.media.count) media sections to an offer of \(offered.count)")
        }
        let bundle = answer.attributes.value(of: "group").map { $0.split(separator: " ").map(String.init) } ?? []
        var accepted: [MediaDescription] = []
        for (index, section) in answer.media.enumerated() {
            let ours = offered[index]
            guard section.media == ours.media else { throw .unsupported("section \(index) is \(section.media), offered \(ours.media)") }
            if section.isRejected { continue }
            guard section.mid == ours.mid else {
                throw .unsupported("section \(index) has mid \(section.mid ?? "none"), offered \(ours.mid ?? "none")")
            }
            guard section.transportProtocol == ours.transportProtocol else {
                throw .unsupported("transport \(section.transportProtocol)")
            }
            guard bundle.first == "BUNDLE", bundle.contains(ours.mid ?? "") else { throw .missing("a=group:BUNDLE with mid \(ours.mid ?? "")") }
            guard section.attributes.contains("rtcp-mux") else { throw .missing("a=rtcp-mux in section \(ours.mid ?? "")") }
            accepted.append(section)
        }
        let remote = try RemoteTransportDescription(session: answer, sections: accepted)
        guard remote.setup != .actpass else { throw .unsupported("a=setup:actpass in an answer (active or passive)") }
        remoteICE = remote.ice
        remoteFingerprint = remote.fingerprint
        remoteSetup = remote.setup
        remoteCandidates = remote.candidates

        audio = nil
        video = nil
        screenShare = nil
        for section in accepted {
            if let audioOffer = offer.audio, section.mid == audioOffer.mid {
                audio = try Self.section(section, codec: "opus/48000/2", offer: SimulcastOffer.audioExtensions,
                                         map: offer.extensionMap, rids: [])
            } else if let videoOffer = offer.video, section.mid == videoOffer.mid {
                video = try Self.section(section, codec: "vp8/90000", offer: SimulcastOffer.videoExtensions,
                                         map: offer.extensionMap, rids: videoOffer.rids)
            } else if let screenOffer = offer.screenShare, section.mid == screenOffer.mid {
                screenShare = try Self.section(section, codec: "vp8/90000", offer: SimulcastOffer.videoExtensions,
                                               map: offer.extensionMap, rids: screenOffer.rids)
            }
        }
    }

    /// Reads one accepted section: the payload type of `codec`, extmaps, feedback, RIDs.
    private static func section(_ section: MediaDescription, codec: String, offer kinds: [RTPHeaderExtensionKind],
                                map offeredMap: RTPHeaderExtensionMap, rids offeredRIDs: [String]) throws(SDPError) -> Section {
        let mid = section.mid ?? ""
        guard let payloadType = try section.payloadType(of: codec) else {
            let offered = section.attributes.values(of: "rtpmap").joined(separator: ", ")
            throw .unsupported("section \(mid) answers without \(codec) (\(offered.isEmpty ? "no rtpmap" : offered))")
        }
        // Kinds not offered: the answer may not add them.
        let map = try section.extensionMap { kinds.contains($0) && offeredMap.id(for: $0) != nil }
        let feedback = section.feedback(for: payloadType)
        var rids: [String] = []
        if let simulcast = section.attributes.value(of: "simulcast") {
            let parts = simulcast.split(separator: " ")
            guard parts.count == 2, parts[0] == "recv" else { throw .unsupported("a=simulcast:\(simulcast) in an answer") }
            // Streams are ';'-separated, alternatives ',' (the first is taken), '~' marks paused.
            let listed = parts[1].split(separator: ";").compactMap { $0.split(separator: ",").first.map(String.init) }
            let active = Set(listed.filter { !$0.hasPrefix("~") })
            rids = offeredRIDs.filter { active.contains($0) }
            guard !rids.isEmpty else { throw .unsupported("a=simulcast:\(simulcast) accepts none of \(offeredRIDs)") }
        }
        return Section(mid: mid, payloadType: payloadType, extensionMap: map, feedback: feedback, rids: rids)
    }
}
