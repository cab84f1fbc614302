import Testing
@testable import RTPWire

/// Wire and packetizer errors read as sentences (issue 11, item 5).
@Suite struct WireErrorDescriptionTests {
    @Test func wireErrors() {
        #expect(WireError.truncated(field: "RTP header", needed: 12, available: 3).description
                == "cut short: RTP header needs 12 byte(s) but only 3 remain")
        #expect(WireError.invalidValue(field: "RTP version", value: 1).description
                == "RTP version has the value 1, which the format does not allow")
        #expect(WireError.unsupported("pcapng file (only classic pcap is read)").description
                == "well-formed but not supported here: pcapng file (only classic pcap is read)")
        #expect(WireError.outOfRange(field: "PictureID", value: 70_000).description == "PictureID 70000 does not fit its wire field")
    }

    @Test func aShortPacketSaysWhatWasShort() {
        do {
            _ = try RTPPacket(parsing: [0x80, 0x60, 0x00])
            Issue.record("a 3-byte packet parsed")
        } catch {
            #expect(error.description.hasPrefix("cut short: "))
            #expect(error.description.contains("remain"))
        }
    }

    @Test func packetizerErrors() {
        #expect(PacketizerError.payloadBudgetTooSmall(budget: 3, minimum: 7).description
                == "a payload budget of 3 bytes is too small: the payload descriptor plus one byte of media need at least 7")
        #expect(PacketizerError.emptyFrame.description
                == "the frame is empty: every packet must carry at least one byte of media (RFC 7741 §4.4, RFC 7587 §4.2)")
        #expect(PacketizerError.outOfRange(field: "VP8 TID", value: 5).description
                == "VP8 TID 5 does not fit its wire field (0 to 3, RFC 7741 §4.2)")
        #expect(PacketizerError.invalidMedia(.invalidValue(field: "Opus TOC", value: 255)).description
                == "the media is not a valid packet of its codec: Opus TOC has the value 255, which the format does not allow")
    }
}
