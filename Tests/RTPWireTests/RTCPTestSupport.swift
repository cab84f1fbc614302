import RTPWire

/// Bytes from a hex string; spaces and newlines are ignored. Test-only, traps on bad input.
func rtcpHex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// Hand-assembled wire images of every packet kind, each a complete compound packet.
enum RTCPSamples {
    /// SR with one report block (cumulative lost −2).
    static let senderReport = rtcpHex("""
        81c8000c 11223344 ddccbbaa 12345678 0001e240 0000000a 000003e8
        55667788 1afffffe 0001002a 00000010 12345678 00008000
        """)
    /// SR without blocks and with a 4-octet profile-specific extension.
    static let senderReportWithExtension = rtcpHex("""
        80c80007 11223344 ddccbbaa 12345678 0001e240 0000000a 000003e8 deadbeef
        """)
    /// RR with one report block.
    static let receiverReport = rtcpHex("""
        81c90007 11223344 55667788 05000003 0002ffff 00000020 abcdef01 00010000
        """)
    /// SDES with two chunks: CNAME "abc"; CNAME "ab" + TOOL "x".
    static let sourceDescription = rtcpHex("""
        82ca0006 11223344 01036162 63000000 55667788 01026162 06017800
        """)
    /// BYE of two sources with reason "gone".
    static let goodbye = rtcpHex("82cb0004 11223344 55667788 04676f6e 65000000")
    /// BYE of one source without reason.
    static let goodbyeWithoutReason = rtcpHex("81cb0001 11223344")
    /// APP subtype 5, name "TEST", 4 data octets.
    static let applicationDefined = rtcpHex("85cc0003 11223344 54455354 01020304")
    /// Generic NACK: PID 1234, BLP bits 0 and 2 (1235, 1237 lost).
    static let genericNACK = rtcpHex("81cd0003 11223344 55667788 04d20005")
    /// PLI.
    static let pictureLossIndication = rtcpHex("81ce0002 11223344 55667788")
    /// FIR for SSRC 0x55667788, sequence number 7.
    static let fullIntraRequest = rtcpHex("84ce0004 11223344 00000000 55667788 07000000")
    /// REMB 4 160 000 bps (exp 4, mantissa 260 000) for one SSRC.
    static let remb = rtcpHex("8fce0005 11223344 00000000 52454d42 0113f7a0 55667788")
    /// TWCC: base 100, 5 packets in one two-bit vector (small, large, lost, small, small),
    /// deltas 16, −200, 0, 255, one null octet to the word boundary.
    static let transportWideFeedback = rtcpHex("""
        8fcd0006 11223344 55667788 00640005 00010207 d85010ff 3800ff00
        """)
    /// TWCC across the sequence wrap: base 65534, 17 packets as a run of 3 received-small and a
    /// one-bit vector; reference time −1.
    static let transportWideFeedbackRunAndVector = rtcpHex("""
        8fcd0007 11223344 55667788 fffe0011 ffffff01 20039800 01020304 05000000
        """)
    /// The first TWCC sample but word-aligned with the P bit (one padding octet) instead of a
    /// null octet, as newer libwebrtc writes it.
    static let transportWideFeedbackPadded = rtcpHex("""
        afcd0006 11223344 55667788 00640005 00010207 d85010ff 3800ff01
        """)
    /// RR without blocks, padded with 4 octets.
    static let paddedReceiverReport = rtcpHex("a0c90002 11223344 00000004")
    /// XR (PT 207), not interpreted.
    static let unknownType = rtcpHex("80cf0002 11223344 01020304")
    /// RTPFB FMT 3 (TMMBR), not interpreted.
    static let unknownTransportFeedback = rtcpHex("83cd0004 11223344 55667788 01020304 05060708")
    /// PSFB FMT 15 with an identifier other than REMB.
    static let unknownApplicationFeedback = rtcpHex("8fce0003 11223344 00000000 41424344")

    /// A typical compound: SR, SDES CNAME, REMB, TWCC with P-bit padding.
    static var compound: [UInt8] {
        senderReport + sourceDescription + remb + transportWideFeedbackPadded
    }
}
