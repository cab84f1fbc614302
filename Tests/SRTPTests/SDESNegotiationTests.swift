import Testing
@testable import SRTP

/// SDES offer/answer (RFC 4568 §5.1, §7.1): AEAD-GCM is preferred when the peer offers it, the
/// answer keeps the offer's tag, and media protected with each side's key opens on the other.
@Suite struct SDESNegotiationTests {
    @Test func theOfferListsEverySupportedSuiteMostPreferredFirstWithFreshKeys() throws {
        var random = SystemRandomNumberGenerator()
        let offer = try SDESNegotiation.offer(using: &random)
        #expect(offer.map(\.suite) == SRTPSuite.preferredSupported)
        #expect(offer.map(\.tag) == Array(1...offer.count))
        #expect(offer.first?.suite == .aeadAes128Gcm)  // Debian's libsrtp2 runs GCM
        // Each line parses back to the same suite and key.
        for attribute in offer {
            let parsed = try SDESCryptoAttribute(parsing: "a=" + attribute.sdpValue)
            #expect(parsed.tag == attribute.tag && parsed.suite == attribute.suite)
            #expect(Array(parsed.keyingMaterial.secret.bytes) == Array(attribute.keyingMaterial.secret.bytes))
        }
        #expect(Set(offer.map { Array($0.keyingMaterial.secret.bytes) }).count == offer.count)
    }

    @Test func anAnswerPicksGCMWhenOfferedWhateverTheOfferOrder() throws {
        var random = SystemRandomNumberGenerator()
        let offered = [
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
            "a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
            "a=crypto:3 AEAD_AES_256_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKis",
            "a=crypto:4 AEAD_AES_128_GCM inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw",
        ]
        let agreement = try SDESNegotiation.answer(offered: offered, using: &random)
        #expect(agreement.remote.suite == .aeadAes128Gcm && agreement.remote.tag == 4)
        #expect(agreement.local.suite == .aeadAes128Gcm && agreement.local.tag == 4)
        #expect(Array(agreement.local.keyingMaterial.secret.bytes) != Array(agreement.remote.keyingMaterial.secret.bytes))
        // Only AES-CM offered: the 80-bit tag before the 32-bit one.
        let classic = try SDESNegotiation.answer(offered: Array(offered.prefix(2)).reversed(), using: &random)
        #expect(classic.local.suite == .aesCm128HmacSha1_80 && classic.local.tag == 1)
    }

    @Test func linesThatCannotBeUsedArePassedOverAndNoneUsableIsATypedError() throws {
        var random = SystemRandomNumberGenerator()
        let offered = [
            "a=crypto:1 F8_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",  // unknown suite
            "a=crypto:2 AEAD_AES_128_GCM inline:not*base64",                                   // bad key
            "a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20",  // lifetime
            "a=crypto:4 AES_CM_128_HMAC_SHA1_32 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
        ]
        #expect(try SDESNegotiation.answer(offered: offered, using: &random).local.tag == 4)
        #expect(throws: SRTPError.noCommonSuite(offered: 3)) {
            try SDESNegotiation.answer(offered: Array(offered.prefix(3)), using: &random)
        }
        #expect(throws: SRTPError.noCommonSuite(offered: 1)) {
            try SDESNegotiation.answer(offered: [offered[3]], preference: [.aeadAes128Gcm], using: &random)
        }
    }

    /// Offer → answer, then RTP both ways through real libsrtp sessions keyed from the lines.
    @Test func mediaFlowsBothWaysWithTheNegotiatedKeys() throws {
        var random = SystemRandomNumberGenerator()
        let offer = try SDESNegotiation.offer(using: &random)
        let agreement = try SDESNegotiation.answer(offered: offer.map { "a=" + $0.sdpValue }, using: &random)
        let offererSends = try #require(offer.first { $0.tag == agreement.local.tag })
        #expect(offererSends.suite == .aeadAes128Gcm)
        let packet = rtpPacket(sequence: 1)
        // Offerer → answerer: the offerer's key; answerer → offerer: the answer's key.
        let forward = try protect(packet, with: SRTPSession(direction: .outbound, keyingMaterial: offererSends.keyingMaterial))
        #expect(forward.count == packet.count + 16)  // the GCM tag
        #expect(try unprotect(forward, with: SRTPSession(direction: .inbound, keyingMaterial: agreement.remote.keyingMaterial)) == packet)
        let back = try protect(packet, with: SRTPSession(direction: .outbound, keyingMaterial: agreement.local.keyingMaterial))
        let answerInOffererHands = try SDESCryptoAttribute(parsing: "a=" + agreement.local.sdpValue)
        #expect(try unprotect(back, with: SRTPSession(direction: .inbound, keyingMaterial: answerInOffererHands.keyingMaterial)) == packet)
    }
}
