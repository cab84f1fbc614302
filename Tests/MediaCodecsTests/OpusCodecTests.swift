import Testing
import MediaCodecs

@Suite struct OpusCodecTests {
    @Test(arguments: AudioFrame.Channels.allCases)
    func oneSecondOfSineSurvivesEncodeAndDecode(_ channels: AudioFrame.Channels) throws {
        let encoder = try OpusEncoder(configuration: .init(channels: channels, bitrate: 64_000))
        let decoder = try OpusDecoder(channels: channels)
        let frames = OpusTestSignals.sineFrames(count: 50, channels: channels)
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        var input: [Int16] = [], output: [Int16] = []
        for frame in frames {
            let length = try encoder.encode(frame, into: &packet)
            #expect(length > 0 && length <= OpusEncoder.maxPacketSize)
            let decoded = try decoder.decode(Array(packet[..<length]))
            #expect(decoded.samplesPerChannel == 960)
            #expect(decoded.channels == channels)
            // Compare the left (or only) channel.
            input += stride(from: 0, to: frame.samples.count, by: channels.count).map { frame.samples[$0] }
            output += stride(from: 0, to: decoded.samples.count, by: channels.count).map { decoded.samples[$0] }
        }
        // The decoded signal lags by about the encoder's look-ahead (312 samples = 6.5 ms). A pure
        // 440 Hz tone repeats every ~109 samples, so refine the delay within half a period of it,
        // on 100 ms after a 100 ms warm-up, then measure the rest of the second.
        let lookahead = try encoder.lookahead()
        let lag = OpusTestSignals.bestLag(input: input, output: output,
                                          lags: (lookahead - 54)...(lookahead + 54), window: 4_800..<9_600)
        let measured = 4_800..<(48_000 - 1_000)
        let aligned = output[(measured.lowerBound + lag)..<(measured.upperBound + lag)]
        let correlation = OpusTestSignals.correlation(input[measured], aligned)
        let snr = OpusTestSignals.snr(reference: input[measured], decoded: aligned)
        print("Opus \(channels) 64 kb/s: lookahead \(try encoder.lookahead()), best lag \(lag), correlation \(correlation), SNR \(snr) dB")
        #expect(correlation > 0.99)
        #expect(snr > 15)
    }

    @Test func packetLossConcealmentProduces960Samples() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        for frame in OpusTestSignals.sineFrames(count: 5) {
            _ = try decoder.decode(encoder.encode(frame))
        }
        let concealed = try decoder.concealLoss()
        #expect(concealed.samplesPerChannel == 960)
        #expect(concealed.channels == .mono)
        #expect(concealed.audioLevel.level < 127, "concealment continues the tone, not silence")
    }

    @Test func fecRecoversALostFrameBetterThanConcealment() throws {
        // The pitch jumps at the lost frame, so concealment (which extrapolates the old pitch)
        // is poor while the FEC copy carried by the next packet has the new pitch.
        let lost = 30
        let frames = OpusTestSignals.sineFrames(count: 40) { $0 < lost ? 300 : 900 }
        let encoder = try OpusEncoder(configuration: .init(bitrate: 24_000, inbandFEC: true, expectedPacketLossPercent: 20))
        let packets = try frames.map { frame throws(OpusError) in try encoder.encode(frame) }

        let reference = try OpusDecoder(), withFEC = try OpusDecoder(), withPLC = try OpusDecoder()
        var expected = AudioFrame.silence(channels: .mono), recovered = expected, concealed = expected
        for index in 0..<lost + 2 {
            let decoded = try reference.decode(packets[index])
            if index == lost {
                expected = decoded
                recovered = try withFEC.decodeFEC(from: packets[index + 1])
                concealed = try withPLC.concealLoss()
            } else {
                _ = try withFEC.decode(packets[index])
                _ = try withPLC.decode(packets[index])
            }
        }
        #expect(recovered.samplesPerChannel == 960)
        let fecSNR = OpusTestSignals.snr(reference: expected.samples, decoded: recovered.samples)
        let plcSNR = OpusTestSignals.snr(reference: expected.samples, decoded: concealed.samples)
        print("FEC SNR \(fecSNR) dB vs PLC SNR \(plcSNR) dB against the decoded original")
        #expect(fecSNR > plcSNR + 3)
    }

    @Test func dtxTurnsSilenceIntoTinyPackets() throws {
        let encoder = try OpusEncoder(configuration: .init(dtx: true))
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
        var sizes: [Int] = []
        for _ in 0..<100 {
            sizes.append(try encoder.encode(.silence(channels: .mono), into: &packet))
        }
        print("DTX packet sizes: \(sizes)")
        // In DTX libopus sends a 1-byte packet per frame plus a comfort-noise update every 400 ms.
        let tail = sizes.suffix(50)
        #expect(tail.filter { $0 <= 2 }.count >= 45)
        #expect(tail.allSatisfy { $0 <= 30 })
        #expect(tail.reduce(0, +) < 50 * 5)
        #expect(try encoder.isInDTX())
    }

    @Test func withoutDTXSilenceStillProducesPacketsButNotInDTX() throws {
        let encoder = try OpusEncoder(configuration: .init(dtx: false))
        for _ in 0..<50 { _ = try encoder.encode(.silence(channels: .mono)) }
        #expect(try encoder.isInDTX() == false)
    }
}
