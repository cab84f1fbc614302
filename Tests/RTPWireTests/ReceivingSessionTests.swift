import Testing
@testable import RTPWire

/// Answering an offer from a peer that sends to us (an SFU's subscriber offer, RFC 9429 §5.3).
@Suite struct ReceivingSessionTests {
    static let candidate = ICECandidate(foundation: "1", priority: 2_130_706_431, address: "10.99.0.1", port: 40_000, kind: .host)

    /// An offer shaped as Janus VideoRoom writes one to a subscriber: Opus and VP8 sendonly, one
    /// SSRC each, its candidates on the first section, and a data channel.
    static let janusLikeOffer = """
        v=0\r
        o=- 1733059200 1 IN IP4 10.99.0.2\r
        s=VideoRoom 1234\r
        t=0 0\r
        a=group:BUNDLE 0 1 2\r
        a=ice-options:trickle\r
        a=fingerprint:sha-256 D2:FA:0E:C3:22:59:5E:14:95:69:92:3D:13:B4:84:24:2C:C2:A2:C0:3E:FD:34:8E:5E:EA:6F:AF:52:CE:E6:0F\r
        a=extmap-allow-mixed\r
        a=msid-semantic: WMS *\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        c=IN IP4 10.99.0.2\r
        a=sendonly\r
        a=mid:0\r
        a=rtcp-mux\r
        a=ice-ufrag:Jx8Q\r
        a=ice-pwd:0fJ3yXs6lD8k2mQ9pR4tWz\r
        a=ice-options:trickle\r
        a=setup:actpass\r
        a=rtpmap:111 opus/48000/2\r
        a=fmtp:111 useinbandfec=1\r
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=msid:janus janusa0\r
        a=ssrc:1111 cname:janus\r
        a=candidate:1 1 udp 2015363327 10.99.0.2 20000 typ host\r
        a=end-of-candidates\r
        m=video 9 UDP/TLS/RTP/SAVPF 96 97\r
        c=IN IP4 10.99.0.2\r
        a=sendonly\r
        a=mid:1\r
        a=rtcp-mux\r
        a=rtcp-rsize\r
        a=ice-ufrag:Jx8Q\r
        a=ice-pwd:0fJ3yXs6lD8k2mQ9pR4tWz\r
        a=setup:actpass\r
        a=rtpmap:96 VP8/90000\r
        a=rtcp-fb:96 ccm fir\r
        a=rtcp-fb:96 nack\r
        a=rtcp-fb:96 nack pli\r
        a=rtcp-fb:96 goog-remb\r
        a=rtpmap:97 rtx/90000\r
        a=fmtp:97 apt=96\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
        a=ssrc-group:FID 2222 3333\r
        a=ssrc:2222 cname:janus\r
        a=ssrc:3333 cname:janus\r
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r
        c=IN IP4 10.99.0.2\r
        a=mid:2\r
        a=sctp-port:5000\r

        """

    static func answer(_ offer: String) throws(SDPError) -> ReceivingSession {
        try ReceivingSession(offer: SessionDescription(parsing: offer), ice: SDPTests.ice, fingerprint: SDPTests.fingerprint,
                             candidates: [candidate], cname: "bob")
    }

    @Test func aJanusSubscriberOfferIsAnsweredRecvonlyWithItsCodecsAndOurTransport() throws {
        let session = try Self.answer(Self.janusLikeOffer)
        #expect(session.remote.ice.usernameFragment == "Jx8Q")
        #expect(session.remote.setup == .actpass && session.localSetup == .active)
        #expect(session.remote.candidates.map(\.port) == [20_000])
        let video = try #require(session.video), audio = try #require(session.audio)
        #expect(video.mid == "1" && video.payloadType == 96 && video.ssrcs == [2222, 3333])
        #expect(video.extensionMap.id(for: .mid) == 4 && video.extensionMap.id(for: .absSendTime) == 2)
        #expect(audio.mid == "0" && audio.payloadType == 111 && audio.ssrcs == [1111] && audio.extensionMap.id(for: .audioLevel) == 1)

        // The answer parses back: one BUNDLE of the accepted mids, the data channel rejected,
        // each accepted section recvonly with our credentials, role and one codec.
        let answer = try SessionDescription(parsing: session.answer.text)
        #expect(answer.attributes.value(of: "group") == "BUNDLE 0 1")
        #expect(answer.media.map(\.media) == ["audio", "video", "application"])
        #expect(answer.media[2].isRejected && answer.media[2].mid == "2")
        for section in answer.media.prefix(2) {
            #expect(section.attributes.contains("recvonly") && section.attributes.contains("rtcp-mux"))
            #expect(section.attributes.value(of: "setup") == "active")
            #expect(section.attributes.value(of: "ice-ufrag") == SDPTests.ice.usernameFragment)
            #expect(section.attributes.value(of: "fingerprint") == SDPTests.fingerprint.description)
        }
        #expect(answer.media[0].formats == ["111"] && answer.media[1].formats == ["96"])
        #expect(answer.media[0].attributes.values(of: "candidate") == [Self.candidate.description])
        #expect(answer.media[1].attributes.values(of: "candidate").isEmpty)
        #expect(Set(answer.media[1].attributes.values(of: "rtcp-fb")) == ["96 nack", "96 nack pli", "96 ccm fir", "96 goog-remb"])
        #expect(answer.media[1].attributes.values(of: "rtpmap") == ["96 VP8/90000"])
    }

    @Test func anActiveOfferGetsAPassiveAnswer() throws {
        let session = try Self.answer(Self.janusLikeOffer.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active"))
        #expect(session.localSetup == .passive)
        #expect(session.answer.media[0].attributes.value(of: "setup") == "passive")
    }

    @Test func offersThisEngineCannotReceiveAreTypedErrors() {
        func refusal(_ edit: (String) -> String) -> SDPError? {
            do {
                _ = try Self.answer(edit(Self.janusLikeOffer))
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal { $0.replacingOccurrences(of: "a=rtcp-mux\r\n", with: "") } == .missing("a=rtcp-mux in section 0"))
        #expect(refusal { $0.replacingOccurrences(of: "opus/48000/2", with: "PCMU/8000").replacingOccurrences(of: "VP8/90000", with: "H264/90000") }
            == .unsupported("an offer with neither Opus audio nor VP8 video to receive"))
        #expect(refusal { $0.replacingOccurrences(of: "a=fingerprint:", with: "a=x-fingerprint:") } == .missing("a=fingerprint"))
        #expect(refusal { $0.replacingOccurrences(of: "a=ice-pwd:", with: "a=x-ice-pwd:") } == .missing("a=ice-ufrag and a=ice-pwd"))
        #expect(refusal { $0.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:sideways") } == .unsupported("a=setup:sideways"))
        #expect(refusal { $0.replacingOccurrences(of: "a=candidate:1 1 udp", with: "a=candidate:1 x udp") } != nil)
        // An extmap without an id before its "/direction" (a fuzzer's find: it trapped).
        for id in ["/", "/sendonly", "", "0", "256"] {
            #expect(refusal { $0.replacingOccurrences(of: "a=extmap:4 urn", with: "a=extmap:\(id) urn") }
                == .malformedAttribute(attribute: "extmap:\(id) urn:ietf:params:rtp-hdrext:sdes:mid", reason: "needs an id in 1...255 and a URI"))
        }
    }

    /// A Janus multistream subscription to two publishers (audio + video each) whose offer also
    /// carries a section Janus keeps for an unsubscribed stream (port 0) and an inactive one.
    static var multistreamOffer: String {
        let sections = janusLikeOffer.components(separatedBy: "m=")
        let (head, audio, video) = (sections[0], "m=" + sections[1], "m=" + sections[2])
        func renamed(_ section: String, mid: String, ssrc: Int) -> String {
            section.replacingOccurrences(of: "a=mid:0", with: "a=mid:\(mid)").replacingOccurrences(of: "a=mid:1", with: "a=mid:\(mid)")
                .replacingOccurrences(of: "a=ssrc:1111", with: "a=ssrc:\(ssrc)").replacingOccurrences(of: "a=ssrc:2222", with: "a=ssrc:\(ssrc)")
                .replacingOccurrences(of: "a=candidate:1 1 udp 2015363327 10.99.0.2 20000 typ host\r\na=end-of-candidates\r\n", with: "")
        }
        let stopped = renamed(video, mid: "4", ssrc: 4444).replacingOccurrences(of: "m=video 9", with: "m=video 0")
        let inactive = renamed(audio, mid: "5", ssrc: 5555).replacingOccurrences(of: "a=sendonly", with: "a=inactive")
        return head.replacingOccurrences(of: "a=group:BUNDLE 0 1 2", with: "a=group:BUNDLE 0 1 2 3 5")
            + audio + video + renamed(audio, mid: "2", ssrc: 2020) + renamed(video, mid: "3", ssrc: 3030) + stopped + inactive
    }

    @Test func aMultistreamSubscriptionHasEveryAudioAndVideoSectionAnswered() throws {
        let session = try Self.answer(Self.multistreamOffer)
        #expect(session.sections.map(\.mid) == ["0", "1", "2", "3"])
        #expect(session.sections.map(\.kind) == [.audio, .video, .audio, .video])
        #expect(session.sections[2].ssrcs == [2020] && session.sections[3].ssrcs.first == 3030)
        #expect(session.audio?.mid == "0" && session.video?.mid == "1")
        let answer = try SessionDescription(parsing: session.answer.text)
        #expect(answer.attributes.value(of: "group") == "BUNDLE 0 1 2 3")
        #expect(answer.media.map(\.port) == [9, 9, 9, 9, 0, 0])
        #expect(answer.media.map { $0.mid ?? "" } == ["0", "1", "2", "3", "4", "5"])
        for section in answer.media.prefix(4) { #expect(section.attributes.contains("recvonly")) }
        // Candidates once, on the first section of the bundle.
        #expect(answer.media.map { $0.attributes.values(of: "candidate").count } == [1, 0, 0, 0, 0, 0])
    }

    @Test func aHostileOfferCannotMakeTheAnswerHoldMoreThanTheLimit() throws {
        var offer = Self.janusLikeOffer
        for index in 0..<(ReceivingSession.sectionLimit + 10) {
            offer += "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:\(index % 300 == 7 ? "0" : "x\(index)")\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n"
        }
        let session = try Self.answer(offer)
        #expect(session.sections.count == ReceivingSession.sectionLimit)
        // A repeated mid is not accepted twice.
        #expect(Set(session.sections.map(\.mid)).count == session.sections.count)
    }
}
