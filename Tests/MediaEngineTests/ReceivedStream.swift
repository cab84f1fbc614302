import MediaCodecs
import MediaEngine
import Synchronization

/// Everything a remote track's stream yields, read by a task of its own until the stream ends
/// (tests read them while the engine runs).
final class ReceivedStream<Element: Sendable>: Sendable {
    private final class Store: Sendable {
        let elements = Mutex<[Element]>([])
    }

    private let store = Store()
    /// The reading task: it ends when the stream finishes.
    let reader: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let store = store
        reader = Task {
            for await element in stream { store.elements.withLock { $0.append(element) } }
        }
    }

    var all: [Element] { store.elements.withLock { $0 } }
    var count: Int { store.elements.withLock { $0.count } }
}

/// A remote microphone's blocks.
typealias ReceivedAudioBlocks = ReceivedStream<ReceivedAudioFrame>

extension ReceivedStream where Element == ReceivedAudioFrame {
    convenience init(_ track: RemoteAudioTrack) { self.init(track.frames) }
}

extension ReceivedStream where Element == VideoFrame {
    convenience init(_ track: RemoteVideoTrack) { self.init(track.frames) }
}
