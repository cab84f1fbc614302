/// Whether a stream's VP8 payload descriptors (RFC 7741 §4.2) look like one sender's, or like
/// ciphertext. A sender keeps one descriptor layout for a whole stream: the X, N and reserved
/// bits of the first byte, the I/L/T/K byte, the PictureID's M bit. Only S and the partition
/// index change from packet to packet. SRTP (RFC 3711) encrypts the RTP payload, descriptor
/// included, so an encrypted stream's "descriptors" are random bytes: few share a layout and
/// reserved bits are set. The count of layouts kept is bounded (`maximumLayouts`; the rest
/// count as `otherLayouts`), so a long capture of noise cannot grow it.
struct VP8DescriptorShape {
    static let maximumLayouts = 32

    private(set) var packets = 0
    private(set) var layouts: [UInt32: Int] = [:]
    private(set) var otherLayouts = 0
    private(set) var reservedBitsSet = 0

    /// Counts the layout of one VP8 payload's first bytes.
    mutating func add(_ payload: ArraySlice<UInt8>) {
        guard let first = payload.first else { return }
        packets += 1
        var layout = UInt32(first & 0b1110_1000)  // X, R, N, R: S and PID excluded
        if first & 0b0100_1000 != 0 { reservedBitsSet += 1 }
        if first & 0x80 != 0, payload.count > 1 {
            let extensions = payload[payload.startIndex + 1]
            layout |= UInt32(extensions) << 8
            if extensions & 0x80 != 0, payload.count > 2 {
                layout |= UInt32(payload[payload.startIndex + 2] & 0x80) << 16  // PictureID M bit
            }
        }
        if layouts[layout] != nil || layouts.count < Self.maximumLayouts {
            layouts[layout, default: 0] += 1
        } else {
            otherLayouts += 1
        }
    }

    /// True when fewer than 90 % of the packets share one layout, or more than 10 % set a
    /// reserved bit: not what any VP8 packetizer writes.
    var looksEncrypted: Bool {
        guard packets > 0 else { return false }
        let common = layouts.values.max() ?? 0
        return Double(common) < 0.9 * Double(packets) || Double(reservedBitsSet) > 0.1 * Double(packets)
    }
}
