import Testing
import RTPWire

/// RFC 5761 §4: RTP and RTCP on one port, told apart by the second octet.
@Suite struct RTCPDemultiplexTests {
    @Test func secondOctetIn192Through223IsRTCP() throws {
        for second in UInt8(192)...223 {
            #expect(try RTPOrRTCP.classify([0x80, second]) == .rtcp)
        }
        #expect(try RTPOrRTCP.classify(RTCPSamples.compound) == .rtcp)
    }

    @Test func otherSecondOctetsAreRTP() throws {
        for second in [UInt8(0), 96, 111, 127, 128, 191, 224, 255] {
            #expect(try RTPOrRTCP.classify([0x80, second]) == .rtp)
        }
    }

    @Test func shortOrWrongVersionInputIsAnError() {
        #expect(throws: WireError.self) { try RTPOrRTCP.classify([0x80]) }
        #expect(throws: WireError.invalidValue(field: "RTP/RTCP version", value: 0)) {
            try RTPOrRTCP.classify([0x00, 200])
        }
    }
}
