/// The invariant of `StreamDeframer` on any byte stream cut into any pieces (RFC 4571 §2), with a
/// whole-stream walk of the length prefixes as the oracle: the fuzz target `framing` and the
/// corpus replay test run this one check.
///
/// The input's first byte picks the largest packet (1 + 8 × byte), its second the size of the
/// pieces the stream arrives in (1 + byte), the rest is the stream. The deframer, fed piece by
/// piece into a buffer barely larger than one packet, must hand out exactly the oracle's
/// non-empty packets in order, fail exactly where the oracle meets a length above the largest
/// packet, hold exactly the incomplete tail otherwise, never hold more than its capacity, and
/// never stall. Re-framing what it handed out (`StreamFramer`) must deframe to the same packets.
public enum StreamDeframerAgreement {
    /// The first disagreement on `bytes`, or nil.
    public static func violation(in bytes: [UInt8]) -> String? {
        guard bytes.count >= 2 else { return nil }
        let maximum = 1 + Int(bytes[0]) * 8
        let piece = 1 + Int(bytes[1])
        let stream = Array(bytes[2...])
        let expected = oracle(stream, maximum: maximum)
        let capacity = maximum + 2 + 16
        var deframer = StreamDeframer(maximumPacketSize: maximum, capacity: capacity)
        var packets: [[UInt8]] = []
        var failed = false
        var offset = 0
        feeding: while offset < stream.count || deframer.bufferedBytes > 0 {
            let end = min(offset + piece, stream.count)
            let taken = stream[offset..<end].withUnsafeBytes { deframer.append($0) }
            offset += taken
            guard deframer.bufferedBytes <= capacity else { return "holds \(deframer.bufferedBytes) bytes, capacity \(capacity)" }
            var handed = 0
            do {
                while let packet = try deframer.nextPacket({ Array($0) }) {
                    packets.append(packet)
                    handed += 1
                }
            } catch {
                failed = true
                break feeding
            }
            if offset == stream.count { break }
            if taken == 0, handed == 0 { return "stalled at offset \(offset) holding \(deframer.bufferedBytes) bytes" }
        }
        guard failed == expected.failed else {
            return failed ? "failed where the oracle did not" : "missed a length above \(maximum)"
        }
        guard packets == expected.packets else { return "handed out \(packets.count) packets, the oracle \(expected.packets.count)" }
        if !failed, deframer.bufferedBytes != expected.tail { return "holds \(deframer.bufferedBytes) bytes, tail is \(expected.tail)" }
        var reframed: [UInt8] = []
        for packet in packets {
            do { try StreamFramer.append(packet, to: &reframed) } catch { return "cannot re-frame a \(packet.count)-byte packet" }
        }
        let again = oracle(reframed, maximum: maximum)
        guard !again.failed, again.tail == 0, again.packets == packets else { return "re-framed packets deframe differently" }
        return nil
    }

    /// The stream's non-empty packets in order, whether a length above `maximum` ends it, and the
    /// bytes of an incomplete last frame.
    static func oracle(_ stream: [UInt8], maximum: Int) -> (packets: [[UInt8]], failed: Bool, tail: Int) {
        var packets: [[UInt8]] = []
        var offset = 0
        while stream.count - offset >= 2 {
            let length = Int(stream[offset]) << 8 | Int(stream[offset + 1])
            if length > maximum { return (packets, true, 0) }
            guard stream.count - offset - 2 >= length else { break }
            if length > 0 { packets.append(Array(stream[(offset + 2)..<(offset + 2 + length)])) }
            offset += 2 + length
        }
        return (packets, false, stream.count - offset)
    }
}
