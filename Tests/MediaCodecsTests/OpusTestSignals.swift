import Foundation
import MediaCodecs

/// Test signals and measures for the Opus tests (deterministic: no random source).
enum OpusTestSignals {
    /// `frames` consecutive 20 ms frames of a sine with continuous phase; `frequency(frameIndex)`
    /// lets a test change pitch mid-stream.
    static func sineFrames(count frames: Int, channels: AudioFrame.Channels = .mono, amplitude: Double = 16_000,
                           frequency: (Int) -> Double = { _ in 440 }) -> [AudioFrame] {
        var phase = 0.0
        return (0..<frames).map { index in
            let step = 2 * Double.pi * frequency(index) / Double(AudioFrame.sampleRate)
            var samples: [Int16] = []
            samples.reserveCapacity(AudioFrame.samplesPerChannel20ms * channels.count)
            for _ in 0..<AudioFrame.samplesPerChannel20ms {
                let value = Int16((amplitude * sin(phase)).rounded())
                for channel in 0..<channels.count {
                    // Stereo: the right channel is the left at half level, so channels differ.
                    samples.append(channel == 0 ? value : value / 2)
                }
                phase += step
            }
            return AudioFrame(channels: channels, samples: samples)
        }
    }

    /// Signal-to-noise ratio in dB of `decoded` against `reference` (same length).
    static func snr<A: Collection, B: Collection>(reference: A, decoded: B) -> Double
    where A.Element == Int16, B.Element == Int16 {
        var signal = 0.0, noise = 0.0
        for (x, y) in zip(reference, decoded) {
            signal += Double(x) * Double(x)
            noise += (Double(x) - Double(y)) * (Double(x) - Double(y))
        }
        return 10 * log10(signal / max(noise, 1))
    }

    /// Normalised cross-correlation of `a` and `b` (same length), in -1...1.
    static func correlation(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return ab / max((aa * bb).squareRoot(), 1)
    }

    /// The lag in `lags` by which `output` best follows `input` over `window`: the codec delay.
    static func bestLag(input: [Int16], output: [Int16], lags: ClosedRange<Int>, window: Range<Int>) -> Int {
        let scores = lags.map { lag in
            correlation(input[window], output[(window.lowerBound + lag)..<(window.upperBound + lag)])
        }
        return lags.lowerBound + scores.indices.max { scores[$0] < scores[$1] }!
    }
}
