import Testing
import RTPWire
import MediaCodecs

@Suite struct OpusErrorTests {
    @Test(arguments: [0, 480, 959, 961, 1_920])
    func encoderRejectsFramesThatAreNot20Milliseconds(_ samplesPerChannel: Int) throws {
        let encoder = try OpusEncoder()
        let frame = AudioFrame(channels: .mono, samples: Array(repeating: 0, count: samplesPerChannel))
        #expect(throws: OpusError.wrongFrameSize(expected: 960, actual: samplesPerChannel)) {
            try encoder.encode(frame)
        }
    }

    @Test func encoderRejectsTheWrongChannelCount() throws {
        let mono = try OpusEncoder()
        #expect(throws: OpusError.wrongChannelCount(expected: 1, actual: 2)) {
            try mono.encode(.silence(channels: .stereo))
        }
        let stereo = try OpusEncoder(configuration: .init(channels: .stereo))
        #expect(throws: OpusError.wrongChannelCount(expected: 2, actual: 1)) {
            try stereo.encode(.silence(channels: .mono))
        }
    }

    @Test func emptyOutputBufferIsALibopusBadArgument() throws {
        let encoder = try OpusEncoder(configuration: .init(bitrate: 128_000))
        var empty: [UInt8] = []
        let frame = OpusTestSignals.sineFrames(count: 1)[0]
        #expect(throws: OpusError.library(code: OpusError.badArgumentCode, message: "invalid argument")) {
            try encoder.encode(frame, into: &empty)
        }
    }

    @Test func encoderSqueezesIntoATinyBufferRatherThanFailing() throws {
        // libopus answers a 2-byte budget with a TOC-only packet (the decoder conceals it).
        let encoder = try OpusEncoder(configuration: .init(bitrate: 128_000))
        var tiny = [UInt8](repeating: 0, count: 2)
        #expect(try encoder.encode(OpusTestSignals.sineFrames(count: 1)[0], into: &tiny) <= 2)
    }

    @Test(arguments: [0, 5_999, 510_001, -1])
    func bitrateOutsideOpusRangeIsRejected(_ bitrate: Int) {
        #expect(throws: OpusError.self) { try OpusEncoder(configuration: .init(bitrate: bitrate)) }
    }

    @Test(arguments: [-1, 101])
    func packetLossOutside0To100IsRejected(_ percent: Int) throws {
        let encoder = try OpusEncoder()
        #expect(throws: OpusError.invalidConfiguration("expected packet loss \(percent)% outside 0...100")) {
            try encoder.setExpectedPacketLoss(percent: percent)
        }
        #expect(encoder.configuration.expectedPacketLossPercent == 10)
    }

    @Test func settingsChangeAtRuntime() throws {
        let encoder = try OpusEncoder()
        try encoder.setBitrate(16_000)
        try encoder.setExpectedPacketLoss(percent: 30)
        #expect(encoder.configuration.bitrate == 16_000)
        #expect(encoder.configuration.expectedPacketLossPercent == 30)
    }

    @Test func corruptPacketIsATypedLibopusErrorWithItsText() throws {
        let decoder = try OpusDecoder()
        // TOC code 3 (arbitrary frame count) announcing zero frames: invalid (RFC 6716 §3.2.5).
        #expect(throws: OpusError.library(code: OpusError.invalidPacketCode, message: "corrupted stream")) {
            try decoder.decode([0x03, 0x00])
        }
        #expect(throws: OpusError.self) { try decoder.decode([]) }
    }

    @Test func decoderOutputTooSmallForConcealmentIsAFrameSizeError() throws {
        let decoder = try OpusDecoder()
        var short = [Int16](repeating: 0, count: 959)
        #expect(throws: OpusError.wrongFrameSize(expected: 960, actual: 959)) {
            try decoder.concealLoss(into: &short)
        }
    }

    @Test func errorsDescribeThemselves() {
        #expect(String(describing: OpusError.wrongFrameSize(expected: 960, actual: 480)) == "an Opus frame must hold 960 samples per channel (20 ms at 48 kHz); got 480")
        #expect(String(describing: OpusError.library(code: -1, message: "invalid argument")) == "libopus failed with error -1: invalid argument")
        #expect(String(describing: OpusError.wrongChannelCount(expected: 2, actual: 1))
                == "the frame has 1 channel(s) but the codec was set up for 2")
    }
}

@Suite struct OpusAudioLevelTests {
    @Test func fullScaleSineIsAbout3DBov() {
        let frame = OpusTestSignals.sineFrames(count: 1, amplitude: 32_767, frequency: { _ in 1_000 })[0]
        #expect(frame.audioLevel.level == 3)
        #expect(frame.audioLevel.voiceActivity)
    }

    @Test func digitalSilenceIs127WithoutVoice() {
        #expect(AudioFrame.silence(channels: .mono).audioLevel == AudioLevel(clampingLevel: 127, voiceActivity: false))
        #expect(AudioFrame.silence(channels: .stereo).audioLevel == .silence)
        #expect(AudioLevel(measuring: [Int16]()) == .silence)
    }

    @Test func levelFollowsRMSInMinusDBov() {
        // Half scale: 3 dB + 6 dB.
        #expect(OpusTestSignals.sineFrames(count: 1, amplitude: 16_384)[0].audioLevel.level == 9)
        // Full-scale square wave: RMS is full scale.
        #expect(AudioLevel(measuring: (0..<960).map { $0 % 2 == 0 ? Int16.min : Int16.max }).level == 0)
        // ±1 LSB square wave: −20·log10(1/32768) ≈ 90.3 dBov.
        #expect(AudioLevel(measuring: (0..<960).map { $0 % 2 == 0 ? Int16(-1) : 1 }).level == 90)
    }

    @Test func voiceActivityIsAnEnergyGateAtMinus50DBov() {
        let quiet = OpusTestSignals.sineFrames(count: 1, amplitude: 100)[0].audioLevel  // ≈ 53 dBov
        let speech = OpusTestSignals.sineFrames(count: 1, amplitude: 1_000)[0].audioLevel // ≈ 33 dBov
        #expect(quiet.level == 53 && !quiet.voiceActivity)
        #expect(speech.level == 33 && speech.voiceActivity)
        #expect(AudioLevel(measuring: AudioFrame.silence(channels: .mono).samples, voiceActivityThreshold: 127).voiceActivity == false)
        #expect(AudioLevel(measuring: OpusTestSignals.sineFrames(count: 1, amplitude: 100)[0].samples,
                           voiceActivityThreshold: 60).voiceActivity)
    }

    @Test func levelIsClampedTo127() {
        #expect(AudioLevel(clampingLevel: 200, voiceActivity: false).level == 127)
    }
}
