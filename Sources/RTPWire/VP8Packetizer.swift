/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4.4), each starting with a payload
/// descriptor that always carries a 15-bit PictureID, TL0PICIDX, TID/Y and KEYIDX (docs/wire-and-security.md).
///
/// - Every payload (descriptor + data) is at most `payloadBudget` bytes, and the data sizes of one
///   frame's payloads differ by at most one byte.
/// - Only the first payload has S = 1; PID is always 0 (no partition-aligned packetization).
/// - The caller sets the RTP marker bit on the payload reported as last.
/// - PictureID: the first frame carries `initialPictureID`; each later frame adds one, mod 2^15.
/// - TL0PICIDX: the first frame carries `initialTL0PicIdx`; each later TL0 frame (TID 0) adds one,
///   mod 2^8, and carries the new value; frames with TID > 0 carry the latest TL0 frame's value.
/// - KEYIDX: 0 for the first key frame, plus one (mod 32) for each later key frame.
///
/// The hot path writes into one reused internal buffer and hands out views of it, so
/// packetizing does not allocate once the buffer has grown to the budget.
public struct VP8Packetizer: Sendable {
    /// Bytes of the descriptor this packetizer writes: X|S byte, I|L|T|K byte, 2-byte PictureID,
    /// TL0PICIDX, TID|Y|KEYIDX (RFC 7741 §4.2).
    public static let descriptorLength = 6
    /// Default payload budget: fits a 1500-byte MTU with IP/UDP/RTP/SRTP headers and extensions.
    public static let defaultPayloadBudget = 1200

    /// Maximum bytes of one RTP payload (descriptor + VP8 data).
    public var payloadBudget: Int
    /// The PictureID the next frame will carry.
    public private(set) var nextPictureID: UInt16
    /// The TL0PICIDX most recently written (or the initial value before the first frame).
    public private(set) var currentTL0PicIdx: UInt8
    /// The KEYIDX of the most recent key frame.
    public private(set) var currentKeyIndex: UInt8
    private var hasEmittedFrame = false
    private var hasEmittedKeyFrame = false
    private var scratch: [UInt8] = []

    /// A packetizer starting from explicit counter values (PictureID is reduced mod 2^15).
    public init(payloadBudget: Int = VP8Packetizer.defaultPayloadBudget, initialPictureID: UInt16,
                initialTL0PicIdx: UInt8) {
        self.payloadBudget = payloadBudget
        self.nextPictureID = initialPictureID & 0x7FFF
        self.currentTL0PicIdx = initialTL0PicIdx
        self.currentKeyIndex = 0
    }

    /// A packetizer starting from random counters drawn from `generator` (RFC 7741 §4.2 recommends
    /// a random initial PictureID).
    public init<Generator: RandomNumberGenerator>(payloadBudget: Int = VP8Packetizer.defaultPayloadBudget,
                                                  using generator: inout Generator) {
        self.init(payloadBudget: payloadBudget,
                  initialPictureID: UInt16.random(in: 0...0x7FFF, using: &generator),
                  initialTL0PicIdx: UInt8.random(in: 0...UInt8.max, using: &generator))
    }

    /// A packetizer starting from random counters drawn from the system generator.
    public init(payloadBudget: Int = VP8Packetizer.defaultPayloadBudget) {
        var generator = SystemRandomNumberGenerator()
        self.init(payloadBudget: payloadBudget, using: &generator)
    }

    /// The data sizes the payloads of a `frameLength`-byte frame get under `payloadBudget`:
    /// as few payloads as possible, larger ones first, sizes differing by at most one.
    /// Throws `PacketizerError` for an empty frame or a budget below descriptor + 1 byte.
    public static func payloadDataSizes(frameLength: Int, payloadBudget: Int) throws(PacketizerError) -> (count: Int, base: Int, largerCount: Int) {
        guard frameLength > 0 else { throw .emptyFrame }
        guard payloadBudget > descriptorLength else {
            throw .payloadBudgetTooSmall(budget: payloadBudget, minimum: descriptorLength + 1)
        }
        let capacity = payloadBudget - descriptorLength  // ≥ 1 by the guard.
        // frameLength > 0 and capacity ≥ 1, so count ≥ 1 and no overflow: (a + b - 1) / b with a,b > 0
        // is computed as (a - 1) / b + 1.
        let count = (frameLength - 1) / capacity + 1
        return (count, frameLength / count, frameLength % count)
    }

    /// Packetizes `frame`, calling `emit` once per payload in order with a view of the payload
    /// (valid only during the call) and whether it is the frame's last (set the RTP marker).
    /// Advances the PictureID / TL0PICIDX / KEYIDX counters only on success.
    public mutating func packetize(_ frame: EncodedFrame,
                                   emit: (_ payload: ArraySlice<UInt8>, _ isLast: Bool) -> Void) throws(PacketizerError) {
        let sizes = try VP8Packetizer.payloadDataSizes(frameLength: frame.data.count, payloadBudget: payloadBudget)
        guard frame.temporalId <= 3 else {
            throw .outOfRange(field: "VP8 TID", value: Int(frame.temporalId))
        }
        let pictureID = nextPictureID
        var tl0PicIdx = currentTL0PicIdx
        if frame.temporalId == 0 && hasEmittedFrame { tl0PicIdx &+= 1 }  // 8-bit wrap is the intent.
        var keyIndex = currentKeyIndex
        if frame.keyFrame && hasEmittedKeyFrame { keyIndex = (keyIndex &+ 1) & 0x1F }

        var descriptor = VP8PayloadDescriptor(startOfPartition: true, partitionIndex: 0,
                                              pictureID: .fifteenBit(pictureID), tl0PicIdx: tl0PicIdx,
                                              temporalID: frame.temporalId, layerSync: frame.layerSync,
                                              keyIndex: keyIndex)
        scratch.reserveCapacity(payloadBudget)
        var offset = frame.data.startIndex
        for index in 0..<sizes.count {
            let length = sizes.base + (index < sizes.largerCount ? 1 : 0)
            scratch.removeAll(keepingCapacity: true)
            descriptor.startOfPartition = index == 0
            // Fields were range-checked above, so this cannot throw.
            try? descriptor.serialize(into: &scratch)
            scratch.append(contentsOf: frame.data[offset..<(offset + length)])
            offset += length
            emit(scratch[...], index == sizes.count - 1)
        }

        hasEmittedFrame = true
        if frame.keyFrame { hasEmittedKeyFrame = true }
        currentTL0PicIdx = tl0PicIdx
        currentKeyIndex = keyIndex
        nextPictureID = (pictureID &+ 1) & 0x7FFF  // pictureID ≤ 0x7FFF, so +1 cannot overflow UInt16.
    }

    /// Packetizes `frame` into fresh arrays (convenience for tests and tools; allocates).
    public mutating func packetize(_ frame: EncodedFrame) throws(PacketizerError) -> [(payload: [UInt8], isLast: Bool)] {
        var result: [(payload: [UInt8], isLast: Bool)] = []
        try packetize(frame) { payload, isLast in result.append((Array(payload), isLast)) }
        return result
    }
}
