import Testing
@testable import RTPWire

/// Session descriptions (RFC 8866) and the JSEP simulcast offer/answer (RFC 9429, RFC 8853).
@Suite struct SDPTests {
    static let fingerprint = DTLSFingerprint(algorithm: "sha-256", digest: (0..<32).map { UInt8($0 * 7 & 0xFF) })
    static let ice = try! ICECredentials(usernameFragment: "aB3+", password: "0123456789abcdefghij/+")

    static func offer(rids: [String] = ["h", "m", "l"]) -> SimulcastOffer {
        SimulcastOffer(sessionID: 42, ice: ice, fingerprint: fingerprint,
                       candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "10.99.0.1", port: 40_000, kind: .host)],
                       audio: .init(ssrc: 0x1234), video: .init(rids: rids), cname: "alice")
    }

    /// An answer shaped as Janus VideoRoom writes one (ICE and DTLS on the first section, the
    /// simulcast streams received, the extensions and feedback it supports).
    static let janusLikeAnswer = """
        v=0\r
        o=- 1733059200 1 IN IP4 10.99.0.2\r
        s=VideoRoom 1234\r
        t=0 0\r
        a=group:BUNDLE 0 1\r
        a=ice-options:trickle\r
        a=fingerprint:sha-256 D2:FA:0E:C3:22:59:5E:14:95:69:92:3D:13:B4:84:24:2C:C2:A2:C0:3E:FD:34:8E:5E:EA:6F:AF:52:CE:E6:0F\r
        a=extmap-allow-mixed\r
        a=msid-semantic: WMS *\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        c=IN IP4 10.99.0.2\r
        a=recvonly\r
        a=mid:0\r
        a=rtcp-mux\r
        a=ice-ufrag:Jx8Q\r
        a=ice-pwd:h1Gbn1nGW0yKJ9p4y7wF2Qrs\r
        a=ice-options:trickle\r
        a=setup:active\r
        a=rtpmap:111 opus/48000/2\r
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=candidate:1 1 udp 2015363327 10.99.0.2 20000 typ host\r
        a=end-of-candidates\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r
        c=IN IP4 10.99.0.2\r
        a=recvonly\r
        a=mid:1\r
        a=rtcp-mux\r
        a=ice-ufrag:Jx8Q\r
        a=ice-pwd:h1Gbn1nGW0yKJ9p4y7wF2Qrs\r
        a=setup:active\r
        a=rtpmap:96 VP8/90000\r
        a=rtcp-fb:96 ccm fir\r
        a=rtcp-fb:96 nack\r
        a=rtcp-fb:96 nack pli\r
        a=rtcp-fb:96 goog-remb\r
        a=rtcp-fb:96 transport-cc\r
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id\r
        a=extmap:12 urn:ietf:params:rtp-hdrext:toffset\r
        a=rid:h recv\r
        a=rid:m recv\r
        a=rid:l recv\r
        a=simulcast:recv h;m;l\r

        """

    @Test func theOfferBundlesSimulcastVP8AndOpusWithTheEnginesExtensions() throws {
        let text = Self.offer().sessionDescription.text
        let lines = Set(text.split(separator: "\r\n").map(String.init))
        for expected in [
            "v=0", "a=group:BUNDLE 0 1", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "m=video 9 UDP/TLS/RTP/SAVPF 96",
            "a=rtpmap:96 VP8/90000", "a=rtpmap:111 opus/48000/2", "a=rid:h send", "a=rid:l send", "a=simulcast:send h;m;l",
            "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=setup:actpass", "a=ice-ufrag:aB3+",
            "a=fingerprint:\(Self.fingerprint)", "a=rtcp-fb:96 nack pli", "a=rtcp-fb:96 transport-cc", "a=rtcp-mux",
            "a=candidate:1 1 udp 2130706431 10.99.0.1 40000 typ host", "a=ssrc:4660 cname:alice", "a=sendonly",
        ] {
            #expect(lines.contains(expected), "\(expected)")
        }
        #expect(text.hasSuffix("\r\n"))
        #expect(try SessionDescription(parsing: text) == Self.offer().sessionDescription)
        // One stream: no a=simulcast, one rid.
        #expect(!Self.offer(rids: ["h"]).sessionDescription.text.contains("a=simulcast"))
    }

    @Test func aJanusShapedAnswerSettlesTransportCodecsExtensionsAndLayers() throws {
        let answer = try SessionDescription(parsing: Self.janusLikeAnswer)
        let session = try NegotiatedSession(offer: Self.offer(), answer: answer)
        #expect(session.remoteICE.usernameFragment == "Jx8Q")
        #expect(session.remoteSetup == .active)
        #expect(session.remoteFingerprint.digest.count == 32 && session.remoteFingerprint.digest.first == 0xD2)
        #expect(session.remoteCandidates == [ICECandidate(foundation: "1", priority: 2_015_363_327, address: "10.99.0.2",
                                                          port: 20_000, kind: .host)])
        let video = try #require(session.video)
        #expect(video.payloadType == 96 && video.rids == ["h", "m", "l"])
        #expect(video.feedback.isSuperset(of: ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"]))
        #expect(video.extensionMap.id(for: .rid) == 10 && video.extensionMap.id(for: .mid) == 4)
        #expect(video.extensionMap.id(for: .transportSequenceNumber) == 3)
        #expect(video.extensionMap.id(for: .absSendTime) == nil)  // the answer dropped it
        let audio = try #require(session.audio)
        #expect(audio.payloadType == 111 && audio.extensionMap.id(for: .audioLevel) == 1 && audio.rids.isEmpty)
    }

    /// Issue 28: a screen share is a second send-only VP8 section (its own mid and `a=msid`
    /// track, one stream); Janus's answer to it settles its payload type and extension ids.
    @Test func aScreenShareIsASecondVideoSectionTheAnswerSettles() throws {
        var offer = Self.offer()
        var screen = SimulcastOffer.Video(rids: [])
        screen.mid = "2"
        offer.screenShare = screen
        let description = offer.sessionDescription
        #expect(offer.mids == ["0", "1", "2"])
        #expect(description.attributes.value(of: "group") == "BUNDLE 0 1 2")
        let section = try #require(description.media.last)
        #expect(description.media.count == 3 && section.media == "video" && section.mid == "2")
        #expect(section.attributes.value(of: "msid") == "engine engine-screen")
        #expect(section.attributes.contains("sendonly") && section.attributes.values(of: "rid").isEmpty)
        #expect(!section.attributes.contains("simulcast"))
        #expect(try SessionDescription(parsing: description.text) == description)

        // Janus's answer: the camera's section again for mid 2, received without simulcast.
        let videoSection = Self.janusLikeAnswer[Self.janusLikeAnswer.range(of: "m=video")!.lowerBound...]
        let screenAnswer = String(videoSection).replacingFirst("a=mid:1", with: "a=mid:2")
            .replacingFirst("a=rid:h recv\r\na=rid:m recv\r\na=rid:l recv\r\na=simulcast:recv h;m;l\r\n", with: "")
        let answer = Self.janusLikeAnswer.replacingFirst("a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2") + screenAnswer
        let session = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answer))
        let screenShare = try #require(session.screenShare)
        #expect(screenShare.mid == "2" && screenShare.payloadType == 96 && screenShare.rids.isEmpty)
        #expect(screenShare.extensionMap.id(for: .mid) == 4)
        #expect(session.video?.rids == ["h", "m", "l"])
        // Rejected: no screen-share section, the rest settles.
        let rejected = answer.replacingEvery("m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 10.99.0.2\r\na=recvonly\r\na=mid:2",
                                             with: "m=video 0 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 10.99.0.2\r\na=recvonly\r\na=mid:2")
        let without = try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: rejected))
        #expect(without.screenShare == nil && without.video != nil)

        // Taken out by a later offer (RFC 3264 §8.2): a higher version, port 0, inactive, out of the BUNDLE group.
        var stopped = offer
        stopped.version += 1
        stopped.screenShare?.isStopped = true
        let later = stopped.sessionDescription
        #expect(later.origin.hasPrefix("- 42 3 "))
        #expect(later.attributes.value(of: "group") == "BUNDLE 0 1")
        let stoppedSection = try #require(later.media.last)
        #expect(stoppedSection.isRejected && stoppedSection.attributes.contains("inactive") && !stoppedSection.attributes.contains("sendonly"))
        #expect(try NegotiatedSession(offer: stopped, answer: SessionDescription(parsing: rejected)).screenShare == nil)
    }

    @Test func pausedAndMissingLayersAndARejectedSectionAreRead() throws {
        var text = Self.janusLikeAnswer.replacingFirst("a=simulcast:recv h;m;l", with: "a=simulcast:recv h;~m;l")
        #expect(try NegotiatedSession(offer: Self.offer(), answer: SessionDescription(parsing: text)).video?.rids == ["h", "l"])
        text = Self.janusLikeAnswer.replacingFirst("a=simulcast:recv h;m;l\r\n", with: "")
        #expect(try NegotiatedSession(offer: Self.offer(), answer: SessionDescription(parsing: text)).video?.rids == [])
        text = Self.janusLikeAnswer.replacingFirst("m=audio 9 ", with: "m=audio 0 ")
        let session = try NegotiatedSession(offer: Self.offer(), answer: SessionDescription(parsing: text))
        #expect(session.audio == nil && session.video != nil)
    }

    @Test func answersThisEngineCannotUseAreTypedErrors() throws {
        func negotiate(_ edit: (String) -> String) -> SDPError? {
            do {
                _ = try NegotiatedSession(offer: Self.offer(), answer: SessionDescription(parsing: edit(Self.janusLikeAnswer)))
                return nil
            } catch { return error }
        }
        #expect(negotiate { $0.replacingFirst("a=fingerprint:", with: "a=x-fingerprint:") } == .missing("a=fingerprint"))
        #expect(negotiate { $0.replacingEvery("a=setup:active", with: "a=setup:actpass") } != nil)
        #expect(negotiate { $0.replacingFirst("a=rtpmap:96 VP8/90000", with: "a=rtpmap:96 H264/90000") } != nil)
        #expect(negotiate { $0.replacingFirst("a=group:BUNDLE 0 1", with: "a=group:LS 0 1") } != nil)
        #expect(negotiate { $0.replacingEvery("a=ice-pwd:h1Gbn1nGW0yKJ9p4y7wF2Qrs", with: "a=ice-pwd:short") } != nil)
        #expect(negotiate { $0.replacingFirst("a=simulcast:recv h;m;l", with: "a=simulcast:recv x;y") } != nil)
        #expect(negotiate { $0 + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n" } != nil)
        #expect(negotiate { $0.replacingFirst("a=candidate:1 1 udp 2015363327", with: "a=candidate:1 1 udp x") } != nil)
        #expect(negotiate { $0.replacingEvery("a=rtcp-mux\r\n", with: "") } == .missing("a=rtcp-mux in section 0"))
    }

    @Test func malformedDescriptionsAreTypedErrors() {
        func parse(_ text: String) -> SDPError? {
            do { _ = try SessionDescription(parsing: text); return nil } catch { return error }
        }
        #expect(parse("") == .missing("v=0 line"))
        #expect(parse("v=1\r\n") != nil)
        #expect(parse("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\n") == .missing("t= line"))
        #expect(parse("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nnot a line\n") != nil)
        #expect(parse("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video x RTP/AVP 96\n") != nil)
        #expect(parse("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video\n") != nil)
        #expect(parse("v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\nm=video / RTP/AVP 96\n") != nil)  // fuzz finding: trapped
        #expect(parse(String(repeating: "a", count: SessionDescription.maximumLength + 1)) != nil)
        #expect((try? ICECandidate(parsing: "candidate:1 1 udp 1 10.0.0.1 9 typ host raddr")) == nil)
        #expect((try? DTLSFingerprint(parsing: "sha-256 ZZ:00")) == nil)
        let lf = "v=0\no=- 1 1 IN IP4 0.0.0.0\ns=-\nt=0 0\na=group:BUNDLE 0\nm=audio 9 RTP/AVP 0\na=mid:0\n"
        #expect((try? SessionDescription(parsing: lf))?.section(mid: "0")?.formats == ["0"])
    }

    @Test func aMalformedCandidateNamesItsLineAndText() throws {
        let line = "a=candidate:1 1 udp 2015363327 10.99.0.2 20000 typ host"
        let text = Self.janusLikeAnswer.replacingFirst(line, with: "a=candidate:1 1 udp 2015363327 10.99.0.2 99999 typ host")
        let number = try #require(Self.janusLikeAnswer.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).firstIndex { $0.hasPrefix(line) }) + 1
        #expect(throws: SDPError.malformedLine(line: number, reason: "a=candidate:1 1 udp 2015363327 10.99.0.2 99999 typ host: port 99999")) {
            try SessionDescription(parsing: text)
        }
        // A candidate read alone (trickled) has no line: its error names its text, not "line 0".
        let trickled = SDPError.malformedAttribute(attribute: "candidate:1 1 udp 0 10.0.0.1 9 typ host", reason: "priority 0")
        #expect(throws: trickled) { try ICECandidate(parsing: "candidate:1 1 udp 0 10.0.0.1 9 typ host") }
        #expect(trickled.description == "SDP a=candidate:1 1 udp 0 10.0.0.1 9 typ host: priority 0")
        // Shown to a person, a peer's line loses its control characters and is cut short.
        let hostile = SDPError.malformedLine(line: 7, reason: "a=candidate:\u{1B}]0;owned\u{07}" + String(repeating: "x", count: 10_000))
        #expect(hostile.description == "SDP line 7: a=candidate:]0;owned" + String(repeating: "x", count: 180) + "…")
    }
}

extension SDPTests {
    /// 1,500 random and mutated descriptions through the fuzz check (parse, candidates,
    /// fingerprints, an answer to a fixed offer, text round trip): never a trap.
    @Test func fifteenHundredRandomAndMutatedDescriptionsNeverTrapAndRoundTrip() {
        var generator = SeededGenerator(seed: 0x5D9)
        let seeds = [Array(Self.janusLikeAnswer.utf8), Array(Self.offer().sessionDescription.text.utf8)]
        let alphabet = Array("v=0 o-s t m a c b \r\n:;/ 0123456789 audio video UDP/TLS/RTP/SAVPF candidate rid simulcast recv send ~,".utf8)
        for round in 0..<1_500 {
            var input: [UInt8]
            if round % 3 == 0 {
                input = (0..<Int.random(in: 0...400, using: &generator)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            } else {
                input = seeds[round % 2]
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let index = Int.random(in: 0..<input.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: input[index] = alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                    case 1: input.remove(at: index)
                    default: input.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                    }
                }
            }
            if let violation = WireRoundTripCheck.sdp.violation(in: input) { Issue.record("round \(round): \(violation)") }
        }
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }

    func replacingEvery(_ target: String, with replacement: String) -> String {
        var result = self
        while let range = result.range(of: target) { result = result.replacingCharacters(in: range, with: replacement) }
        return result
    }
}
