import Foundation
import Testing
@testable import MediaCodecs

/// A 1 kHz tone through Opus keeps its frequency and level (issue 5 acceptance), measured on the
/// decoded signal after the codec's warm-up.
@Suite struct OpusToneTests {
    @Test func oneKilohertzToneKeepsItsFrequencyAndLevel() throws {
        let signal = TestSignal(frequencyHz: 1_000, amplitude: 0.3)
        let encoder = try OpusEncoder(configuration: .init(bitrate: 32_000))
        let decoder = try OpusDecoder(channels: .mono)
        var decoded: [Int16] = []
        for index in 0..<50 {  // one second
            decoded += try decoder.decode(try encoder.encode(signal.frame(index))).samples
        }
        let steady = Array(decoded[9_600...])  // skip 200 ms of warm-up
        // Frequency from rising zero crossings over the steady part.
        var crossings = 0
        for index in 1..<steady.count where steady[index - 1] < 0 && steady[index] >= 0 { crossings += 1 }
        let frequency = Double(crossings) / (Double(steady.count) / 48_000)
        // Level as RMS in dBFS, against the input's.
        func rmsDecibels(_ samples: [Int16]) -> Double {
            let meanSquare = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
            return 10 * log10(meanSquare / (32_768.0 * 32_768.0))
        }
        let inputLevel = rmsDecibels(signal.frame(20).samples)
        let outputLevel = rmsDecibels(steady)
        print("1 kHz tone through Opus: measured \(frequency) Hz, level \(outputLevel) dBFS vs input \(inputLevel) dBFS")
        #expect(abs(frequency - 1_000) <= 10)
        #expect(abs(outputLevel - inputLevel) <= 1)
    }
}
