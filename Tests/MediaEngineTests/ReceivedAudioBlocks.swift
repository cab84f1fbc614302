import MediaCodecs
import MediaEngine
import Synchronization

/// Every block a remote microphone's stream yields, read by a task of its own until the stream
/// ends (tests read them while the engine runs).
final class ReceivedAudioBlocks: Sendable {
    private final class Store: Sendable {
        let blocks = Mutex<[ReceivedAudioFrame]>([])
    }

    private let store = Store()
    /// The reading task: it ends when the stream finishes.
    let reader: Task<Void, Never>

    init(_ track: RemoteAudioTrack) {
        let (frames, store) = (track.frames, store)
        reader = Task {
            for await frame in frames { store.blocks.withLock { $0.append(frame) } }
        }
    }

    var all: [ReceivedAudioFrame] { store.blocks.withLock { $0 } }
    var count: Int { store.blocks.withLock { $0.count } }
}
