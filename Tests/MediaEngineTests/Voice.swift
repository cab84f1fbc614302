import Foundation
import MediaEngine
import Synchronization

/// A microphone fed 20 ms frames in real time from a task: a tone whose amplitude the test sets
/// (0: digital silence), as someone talking and falling silent.
final class Voice: Sendable {
    private let amplitude = Mutex<Int>(0)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ microphone: LocalAudioTrack, frequency: Double) {
        let running = Task { [self] in
            let start = ContinuousClock.now
            var index = 0
            while !Task.isCancelled {
                let level = Double(amplitude.withLock { $0 })
                let samples = (0..<960).map { Int16(level * sin(Double(index * 960 + $0) * 2 * .pi * frequency / 48_000)) }
                guard (try? microphone.push(pcm: samples, channels: 1)) != nil else { return }
                index += 1
                try? await Task.sleep(until: start + .milliseconds(20 * index), clock: .continuous)
            }
        }
        task.withLock { $0 = running }
    }

    /// Speaks at `amplitude` (of 32767) from the next frame on.
    func speak(amplitude value: Int) { amplitude.withLock { $0 = value } }

    func stop() { task.withLock { $0?.cancel() } }
}
