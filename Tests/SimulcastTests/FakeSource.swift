@testable import Simulcast

/// A simulcast source producing L1T3 frames (TIDs 0,2,1,2) with wrapping header counters.
struct FakeSource {
    let id: UInt32
    var sequence: UInt16
    var timestamp: UInt32
    var pictureId: UInt16
    var tl0PicIdx: UInt8
    var packetsPerFrame = 3
    private var frameIndex = 0
    private var started = false
    /// Whether the last frame carried the Y bit: the first TL2 and TL1 frames after each TL0
    /// (docs/layer-plan.md), and key frames.
    private(set) var lastFrameLayerSync = false

    init(id: UInt32, sequence: UInt16, timestamp: UInt32, pictureId: UInt16, tl0PicIdx: UInt8) {
        self.id = id
        self.sequence = sequence
        self.timestamp = timestamp
        self.pictureId = pictureId
        self.tl0PicIdx = tl0PicIdx
    }

    /// The packets of the next frame (30 fps: 3000 ticks apart).
    mutating func nextFrame(key: Bool = false, at time: Int64, startsNewSource: Bool = false) -> [SourcePacket] {
        if key { frameIndex = 0 }
        let tid: UInt8 = [0, 2, 1, 2][frameIndex % 4]
        if started {
            timestamp &+= 3000
            pictureId = (pictureId &+ 1) & 0x7FFF
            if tid == 0 { tl0PicIdx &+= 1 }
        }
        started = true
        lastFrameLayerSync = key || frameIndex % 4 == 1 || frameIndex % 4 == 2
        frameIndex += 1
        var packets: [SourcePacket] = []
        for index in 0..<packetsPerFrame {
            packets.append(SourcePacket(sourceId: id, sequenceNumber: sequence, timestamp: timestamp,
                                        pictureId: pictureId, tl0PicIdx: tl0PicIdx, temporalId: tid,
                                        isKeyFrame: key, isFirstPacketOfFrame: index == 0,
                                        startsNewSource: startsNewSource && index == 0, arrivalMilliseconds: time))
            sequence &+= 1
        }
        return packets
    }
}

