import RTPWire
import SRTP

/// One round of the recording as the publisher would send it: renumbered for round `k` and
/// SRTP-protected with the publisher's keys, in one flat buffer reused from round to round.
/// Built between timed windows, so neither the renumbering nor the protection is measured.
struct ForwardRound {
    private(set) var storage: [UInt8]
    private(set) var offsets: [Int]
    private(set) var lengths: [Int]
    private(set) var mediaMicroseconds: [Int64]
    private var scratch: [UInt8] = []
    private let session: SRTPSession

    init(recording: ForwardRecording, keys: SRTPKeyingMaterial) throws {
        session = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        var offsets: [Int] = []
        var total = 0
        for packet in recording.packets {
            offsets.append(total)
            total += packet.bytes.count + SRTPSession.maxTrailerLength
        }
        storage = [UInt8](repeating: 0, count: total)
        self.offsets = offsets
        lengths = Array(repeating: 0, count: offsets.count)
        mediaMicroseconds = Array(repeating: 0, count: offsets.count)
        scratch.reserveCapacity(1500)
    }

    var count: Int { offsets.count }

    /// The protected datagram `index`.
    func datagram(_ index: Int) -> ArraySlice<UInt8> { storage[offsets[index]..<offsets[index] + lengths[index]] }

    /// Fills the buffer with round `round` (0, 1, 2, ... in order: SRTP refuses an index twice).
    mutating func prepare(_ round: Int, of recording: ForwardRecording) throws {
        let k = UInt32(truncatingIfNeeded: round)
        for (index, packet) in recording.packets.enumerated() {
            let step = recording.steps[packet.ssrc] ?? ForwardRecording.Step()
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: packet.bytes)
            try RTPHeader.rewrite(in: &scratch,
                                  sequenceNumber: packet.sequenceNumber &+ UInt16(truncatingIfNeeded: k) &* step.sequenceNumber,
                                  timestamp: packet.timestamp &+ k &* step.timestamp)
            if packet.layer != nil {
                try VP8PayloadDescriptor.rewrite(
                    in: &scratch, at: packet.descriptorOffset,
                    pictureID: packet.pictureID.map { ($0 &+ UInt16(truncatingIfNeeded: k) &* step.pictureID) & 0x7FFF },
                    tl0PicIdx: packet.tl0PicIdx.map { $0 &+ UInt8(truncatingIfNeeded: k) &* step.tl0PicIdx })
            }
            let offset = offsets[index]
            let room = packet.bytes.count + SRTPSession.maxTrailerLength
            let length = try scratch.withUnsafeBytes { source in
                try storage.withUnsafeMutableBytes { output in
                    try session.protectRTP(source, into: UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + room]))
                }
            }
            lengths[index] = length
            mediaMicroseconds[index] = Int64(round) * recording.durationMicroseconds + packet.mediaMicroseconds
        }
    }
}
