import CommandLineSupport
import RTPWire

/// Per-SSRC statistics of an RTP stream seen in a capture: the `simulcast inspect FILE.pcap`
/// summary (packets, payload types, sequence gaps and reordering, frames, key frames,
/// PictureID continuity, temporal ids).
struct StreamSummary {
    let ssrc: UInt32
    var packets = 0
    var bytes = 0
    var payloadTypes: Set<UInt8> = []
    var rids: Set<String> = []
    var duplicates = 0
    var reordered = 0
    var frames = 0
    var keyFrames = 0
    var pictureIDJumps = 0
    var temporalIds: Set<UInt8> = []
    var keyFrameSizes: Set<String> = []
    var parseErrors = 0
    private var unwrapper = SequenceNumberUnwrapper()
    private var highest: Int64?
    private var lowest: Int64?
    private var seen: Set<Int64> = []
    private var lastTimestamp: UInt32?
    private var lastPictureID: UInt16?

    init(ssrc: UInt32) { self.ssrc = ssrc }

    mutating func add(_ packet: RTPPacket, options: InspectOptions) {
        packets += 1
        bytes += packet.payload.count
        payloadTypes.insert(packet.header.payloadType)
        if let rid = try? packet.header.extensions?.value(RTPStreamID.self, map: options.extensionMap) {
            rids.insert(rid.value)
        }
        let sequence = unwrapper.unwrap(packet.header.sequenceNumber)
        if seen.contains(sequence) {
            duplicates += 1
            return
        }
        seen.insert(sequence)
        if let current = highest, sequence < current { reordered += 1 }
        highest = max(highest ?? sequence, sequence)
        lowest = min(lowest ?? sequence, sequence)
        if lastTimestamp != packet.header.timestamp {
            frames += 1
            lastTimestamp = packet.header.timestamp
        }
        guard options.vp8PayloadTypes.contains(packet.header.payloadType) else { return }
        guard let (descriptor, data) = try? VP8PayloadDescriptor.parse(packet.payload) else {
            parseErrors += 1
            return
        }
        guard descriptor.isStartOfFrame else { return }
        if let tid = descriptor.temporalID { temporalIds.insert(tid) }
        if let pictureID = descriptor.pictureID?.value {
            if let last = lastPictureID, pictureID != (last &+ 1) & 0x7FFF { pictureIDJumps += 1 }
            lastPictureID = pictureID
        }
        if let header = try? VP8PayloadHeader(parsing: data), let info = header.keyFrameInfo {
            keyFrames += 1
            keyFrameSizes.insert("\(info.width)x\(info.height)")
        }
    }

    /// Sequence numbers in the covered range that never arrived.
    var missing: Int {
        guard let lowest, let highest else { return 0 }
        return Int(highest - lowest + 1) - seen.count
    }

    var json: JSONValue {
        .object([
            ("ssrc", .int(Int(ssrc))), ("packets", .int(packets)), ("payloadBytes", .int(bytes)),
            ("payloadTypes", .array(payloadTypes.sorted().map { .int(Int($0)) })),
            ("rids", .array(rids.sorted().map { .string($0) })),
            ("sequenceGaps", .int(missing)), ("reordered", .int(reordered)), ("duplicates", .int(duplicates)),
            ("frames", .int(frames)), ("keyFrames", .int(keyFrames)),
            ("keyFrameSizes", .array(keyFrameSizes.sorted().map { .string($0) })),
            ("pictureIDJumps", .int(pictureIDJumps)),
            ("temporalIds", .array(temporalIds.sorted().map { .int(Int($0)) })),
            ("vp8ParseErrors", .int(parseErrors)),
        ])
    }
}
