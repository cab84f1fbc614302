import CommandLineSupport
import RTPWire

/// Per-SSRC statistics of an RTP stream seen in a capture: the `simulcast inspect FILE.pcap`
/// summary (packets, payload types, sequence gaps and reordering, frames, key frames,
/// PictureID continuity, temporal ids).
///
/// What comes from the RTP header (packets, sequence numbers, timestamps, RIDs) is true of SRTP
/// too; what comes from the payload (the VP8 descriptor and key frames) is not when the payload
/// is encrypted. A stream whose descriptors look like ciphertext (`VP8DescriptorShape`) reports
/// `"payload": "encrypted"` and leaves the payload's facts out rather than report noise.
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
    /// The packets were SRTP opened with the capture's key.
    var decrypted = false
    private var shape = VP8DescriptorShape()
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
        shape.add(packet.payload[...])
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

    /// The VP8 payloads look like ciphertext, not like any packetizer's descriptors.
    var payloadLooksEncrypted: Bool { shape.looksEncrypted }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("ssrc", .int(Int(ssrc))), ("packets", .int(packets)), ("payloadBytes", .int(bytes)),
            ("payloadTypes", .array(payloadTypes.sorted().map { .int(Int($0)) })),
            ("rids", .array(rids.sorted().map { .string($0) })),
            ("sequenceGaps", .int(missing)), ("reordered", .int(reordered)), ("duplicates", .int(duplicates)),
            ("frames", .int(frames)),
        ]
        if payloadLooksEncrypted {
            fields.append(("payload", "encrypted"))
            return .object(fields)
        }
        fields.append(("payload", decrypted ? "decrypted" : "clear"))
        fields += [
            ("keyFrames", .int(keyFrames)),
            ("keyFrameSizes", .array(keyFrameSizes.sorted().map { .string($0) })),
            ("pictureIDJumps", .int(pictureIDJumps)),
            ("temporalIds", .array(temporalIds.sorted().map { .int(Int($0)) })),
            ("vp8ParseErrors", .int(parseErrors)),
        ]
        return .object(fields)
    }
}
