import RTPWire

/// Recognises SRTCP (RFC 3711 §3.4) in a capture read without its key. SRTCP leaves the first
/// 8 bytes of the first RTCP packet in the clear (version, count, packet type, length, sender
/// SSRC) and appends, after the ciphertext, the E flag and a 31-bit index (and an
/// authentication tag: 10 or 4 bytes after the index for AES_CM with HMAC-SHA1, RFC 3711 §4.2;
/// before it, 16 bytes, for AEAD-GCM, RFC 7714 §9.1). A compound that does not parse but whose
/// first header does, whose first packet ends inside the datagram and whose index word has E
/// set in one of those places is counted as SRTCP by that first packet's type, instead of as
/// "not RTP or RTCP".
enum EncryptedRTCP {
    /// The clear first packet's type name (`SR`, `RR`, ...), or nil if `datagram` does not look
    /// like SRTCP.
    static func firstPacketType(_ datagram: [UInt8]) -> String? {
        guard datagram.count >= 8 + 4 + 4, datagram[0] >> 6 == 2 else { return nil }
        let firstLength = ((Int(datagram[2]) << 8 | Int(datagram[3])) + 1) * 4
        guard firstLength <= datagram.count - 8 else { return nil }
        // The E||index word: last for AEAD-GCM, before a 10- or 4-byte tag for HMAC-SHA1.
        let encrypted = [4, 14, 8].contains { offset in
            datagram.count - offset >= firstLength && datagram[datagram.count - offset] & 0x80 != 0
        }
        guard encrypted else { return nil }
        switch datagram[1] {
        case 200: return "SR"
        case 201: return "RR"
        case 202: return "SDES"
        case 203: return "BYE"
        case 204: return "APP"
        case 205: return "RTPFB"
        case 206: return "PSFB"
        default: return nil
        }
    }
}
