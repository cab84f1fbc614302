import Testing
@testable import MediaCodecs

/// A minimal canonical WAV file.
private func wav(channels: Int = 1, rate: Int = 48_000, bits: Int = 16, format: Int = 1, samples: [Int16]) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    let data = samples.flatMap { le16(Int(UInt16(bitPattern: $0))) }
    let fmt = le16(format) + le16(channels) + le32(rate) + le32(rate * channels * bits / 8)
        + le16(channels * bits / 8) + le16(bits)
    let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le32(fmt.count) + fmt + Array("data".utf8) + le32(data.count) + data
    return Array("RIFF".utf8) + le32(body.count) + body
}

@Suite struct WAVReaderTests {
    @Test func readsMonoPCMIntoTwentyMillisecondFrames() throws {
        let samples = (0..<(960 * 2 + 10)).map { Int16(truncatingIfNeeded: $0) }
        let reader = try WAVReader(bytes: wav(samples: samples))
        #expect(reader.channels == .mono)
        #expect(reader.frameCount == 2)
        #expect(reader.frame(1)?.samples.first == 960)
        #expect(reader.frame(2) == nil)
    }

    @Test func readsStereo() throws {
        let reader = try WAVReader(bytes: wav(channels: 2, samples: Array(repeating: 7, count: 1920)))
        #expect(reader.channels == .stereo)
        #expect(reader.frameCount == 1)
    }

    @Test func rejectsWrongRateBitsAndChannels() {
        #expect(throws: WAVError.self) { try WAVReader(bytes: wav(rate: 44_100, samples: [0])) }
        #expect(throws: WAVError.self) { try WAVReader(bytes: wav(bits: 8, samples: [0])) }
        #expect(throws: WAVError.self) { try WAVReader(bytes: wav(channels: 3, samples: [0, 0, 0])) }
        #expect(throws: WAVError.self) { try WAVReader(bytes: wav(format: 3, samples: [0])) }
    }

    @Test func everyTruncationIsATypedError() {
        let file = wav(samples: [1, 2, 3])
        for length in 0..<(file.count - 6) {
            #expect(throws: WAVError.self) { try WAVReader(bytes: Array(file.prefix(length))) }
        }
    }

    @Test func rejectsNonWAV() {
        #expect(throws: WAVError.notWAV("missing RIFF/WAVE signature")) {
            try WAVReader(bytes: Array("RIFX....WAVEfmt ".utf8))
        }
    }
}

@Suite struct TestSignalTests {
    @Test func burstsAlternateTalkAndSilence() {
        let signal = TestSignal(talkFrames: 3, pauseFrames: 2)
        #expect((0..<5).map(signal.isTalking(frame:)) == [true, true, true, false, false])
        #expect(signal.frame(4).samples.allSatisfy { $0 == 0 })
        #expect(signal.frame(0).samples.contains { $0 != 0 })
    }

    @Test func framesAreTwentyMilliseconds() {
        #expect(TestSignal(channels: .stereo).frame(0).samples.count == 1920)
    }
}
