import Testing
@testable import SRTP

/// SRTP errors read as sentences with the suite, the lengths and what is allowed (issue 11,
/// item 5), and never show key bytes.
@Suite struct SRTPErrorDescriptionTests {
    @Test func aShortKeySaysHowLongItMustBe() {
        do {
            _ = try SRTPKeyingMaterial(keyAndSalt: [1, 2, 3])
            Issue.record("a 3-byte key was accepted")
        } catch {
            #expect(error.description
                    == "the SRTP key for AES_CM_128_HMAC_SHA1_80 must be 30 bytes (16-byte key + 14-byte salt); got 3")
        }
        #expect(SRTPError.badKeyLength(suite: .aeadAes256Gcm, field: .masterKey, expected: 32, actual: 16).description
                == "the SRTP master key for AEAD_AES_256_GCM must be 32 bytes; got 16")
        #expect(SRTPError.badKeyLength(suite: .aeadAes128Gcm, field: .masterSalt, expected: 12, actual: 14).description
                == "the SRTP master salt for AEAD_AES_128_GCM must be 12 bytes; got 14")
    }

    @Test func packetAndSessionErrors() {
        #expect(SRTPError.authenticationFailed.description
                == "the SRTP/SRTCP packet failed authentication: wrong key or suite, or the packet was altered")
        #expect(SRTPError.replayed(.duplicate).description
                == "the SRTP/SRTCP packet is a replay: a packet with its index was already received")
        #expect(SRTPError.replayed(.tooOld).description == "the SRTP/SRTCP packet is too old: its index lies behind the replay window")
        #expect(SRTPError.bufferTooSmall(needed: 1210, available: 1200).description
                == "the output buffer holds 1200 bytes but the result needs 1210")
        #expect(SRTPError.invalidReplayWindow(10).description == "a replay window of 10 packets is out of range: use 64 to 32767")
        #expect(SRTPError.wrongDirection(.inbound).description
                == "this SRTP session is inbound: it can only unprotect (use an outbound session to protect)")
        #expect(SRTPError.malformedPacket("2 bytes").description == "not an RTP or RTCP packet libsrtp2 can process: 2 bytes")
        #expect(SRTPError.library(status: 2, name: "srtp_err_status_bad_param").description
                == "libsrtp2 failed with srtp_err_status_bad_param (status 2)")
        #expect(SRTPError.unsupportedSuite(.aeadAes256Gcm).description
                .hasPrefix("the installed libsrtp2 cannot run AEAD_AES_256_GCM (built without its cipher); usable suites: AES_CM_128_HMAC_SHA1_80"))
    }

    @Test func cryptoLineErrorsSayWhatRFC4568Allows() {
        func message(_ line: String) -> String {
            do {
                _ = try SDESCryptoAttribute(parsing: line)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(message("a=crypto:1 AES_CM_999 inline:AAAA")
                == "the a=crypto line cannot be used: unknown crypto-suite 'AES_CM_999'; known: "
                   + "AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32, AEAD_AES_128_GCM, AEAD_AES_256_GCM")
        #expect(message("a=crypto:1 AES_CM_128_HMAC_SHA1_80 uri:AAAA")
                == "the a=crypto line cannot be used: key method 'uri' is not supported; only 'inline:' is (RFC 4568 §6.1)")
        #expect(message("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:!!!!")
                == "the a=crypto line cannot be used: the inline key||salt is not valid base64")
        #expect(message("a=rtpmap:96 VP8/90000").hasPrefix("the a=crypto line cannot be used: does not start with 'crypto:' (expected "))
    }

    @Test func descriptionsNeverShowKeyBytes() {
        let error = SRTPError.badKeyLength(suite: .default, field: .concatenated, expected: 30, actual: 29)
        #expect(!error.description.contains("SRTPError"))
        #expect(!"\(error)".contains("badKeyLength"))
    }
}
