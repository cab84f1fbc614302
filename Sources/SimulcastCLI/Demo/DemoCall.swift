import Foundation
import MediaCodecs
import MediaEngine
import MediaEngineTesting
import Synchronization

/// The call `simulcast demo` runs, through the public API alone: a room the engine hosts on
/// loopback (UDP, SRTP on every hop), one publisher with a simulcast camera playing the built-in
/// scene (or a Y4M file), and four subscribers: one viewport per layer, plus a "throttled" one
/// with the top layer's viewport whose downlink the room squeezes for a while
/// (`MediaEngineTesting`'s `limitDownlink`), so its estimate falls for real and the forwarder
/// steps it down and back up. dynaCast is on unless turned off. The engine's thread runs the
/// media; this type only starts things, moves the throttle at its times, and keeps what the
/// events say.
final class DemoCall: Sendable {
    struct Options {
        var seconds: Double = 15
        var size = (width: 1280, height: 720)
        var input: String?
        var throttleKbps = 300
        var throttleFromSeconds = 3.0
        var throttleToSeconds = 7.0
        /// The layer selector's up-switch hold (docs/receiving.md hysteresis: no faster oscillation), ms.
        var upSwitchHoldMilliseconds: Int64 = 2000
        /// How fast a subscriber's estimate grows without loss, per second (1.0 = doubles each
        /// second; without bandwidth probing this is what brings a recovered link back up).
        var estimateGrowthPerSecond = 1.0
        var saveDirectory: String?
        var dynaCast = true
        /// End-to-end encryption (SFrame, RFC 9605): the node forwards frames it cannot read.
        var e2ee: E2EEOptions?
        /// How every participant reaches the room (docs/joining-a-room.md).
        var preferredProtocol = PreferredProtocol.udpOverTCP
    }

    /// One subscriber and what its events and frames said.
    final class Viewer: Sendable {
        let id: String
        let viewport: VideoSize
        let viewportLayer: Int
        let throttled: Bool
        let participant: LocalParticipant
        let remote: RemoteVideoTrack
        let log = Mutex(ViewerLog())

        init(id: String, viewport: VideoSize, viewportLayer: Int, throttled: Bool, participant: LocalParticipant,
             remote: RemoteVideoTrack) {
            self.id = id
            self.viewport = viewport
            self.viewportLayer = viewportLayer
            self.throttled = throttled
            self.participant = participant
            self.remote = remote
        }
    }

    /// A viewer's switches (with their time into the call) and decoded frame sizes.
    struct ViewerLog: Sendable {
        var switches: [DemoSwitch] = []
        var decodedSizes: [String: Int] = [:]
        var framesSeen = 0
    }

    let options: Options
    let layerSizes: [VideoSize]
    let engine: MediaEngine
    let room: Room
    let publisher: LocalParticipant
    let camera: LocalVideoTrack
    let viewers: [Viewer]
    let publisherEvents = Mutex<[DemoPublisherEvent]>([])
    let timeline = DemoTimeline()
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// The viewers' names by layer, then the throttled one.
    static let viewerNames = ["small", "medium", "large"]

    private init(options: Options, layerSizes: [VideoSize], engine: MediaEngine, room: Room, publisher: LocalParticipant,
                 camera: LocalVideoTrack, viewers: [Viewer]) {
        self.options = options
        self.layerSizes = layerSizes
        self.engine = engine
        self.room = room
        self.publisher = publisher
        self.camera = camera
        self.viewers = viewers
    }

    /// Hosts the room, publishes the camera and subscribes every viewer; nothing plays yet. A
    /// `--save` directory that cannot be written or an input file that cannot be played to its
    /// end is refused first, before the engine starts.
    static func start(options: Options) async throws -> DemoCall {
        if let directory = options.saveDirectory { try OutputFiles.createDirectory(directory) }
        if let input = options.input { _ = try Y4MReader.frameCount(path: input) }
        let engine = MediaEngine()
        do {
            let room = try await engine.hostRoom(options: RoomOptions(autoConsume: false, dynaCast: options.dynaCast, e2ee: options.e2ee).tuned(
                upSwitchHoldMilliseconds: options.upSwitchHoldMilliseconds, estimateGrowthPerSecond: options.estimateGrowthPerSecond,
                maximumReceiveEstimateBitsPerSecond: 8_000_000))
            let publisher = try await room.join(participantId: "publisher", preferredProtocol: options.preferredProtocol)
            let camera = try publisher.createCameraVideoTrack(
                encoderConfig: CameraEncoderConfig(width: options.size.width, height: options.size.height))
            try await publisher.publish(camera)
            let sizes = camera.layerSizes
            var specs: [(String, VideoSize, Int, Bool)] = sizes.enumerated().map { index, size in
                (index < viewerNames.count ? viewerNames[index] : "layer\(index)", size, index, false)
            }
            specs.append(("throttled", sizes[sizes.count - 1], sizes.count - 1, true))
            var viewers: [Viewer] = []
            for (id, viewport, layer, throttled) in specs {
                let participant = try await room.join(participantId: id, preferredProtocol: options.preferredProtocol)
                let remote = try await participant.subscribe(to: "publisher")
                try await remote.setViewPort(width: viewport.width, height: viewport.height)
                if let directory = options.saveDirectory {
                    try await remote.startRecording(ivfPath: capturePath(directory: directory, viewer: id))
                }
                viewers.append(Viewer(id: id, viewport: viewport, viewportLayer: layer, throttled: throttled,
                                      participant: participant, remote: remote))
            }
            return DemoCall(options: options, layerSizes: sizes, engine: engine, room: room, publisher: publisher,
                            camera: camera, viewers: viewers)
        } catch {
            await engine.close()
            throw error
        }
    }

    private var elapsedMilliseconds: Int64 { timeline.elapsedMilliseconds }

    /// Plays the camera for `options.seconds`, squeezing the throttled viewer's downlink in its
    /// window; `tick(elapsedSeconds)` about once a second.
    func run(tick: (Int) async -> Void) async throws {
        let top = layerSizes[layerSizes.count - 1]
        let input = options.input
        /// The camera's pictures: the Y4M file (looped) or the built-in scene.
        @Sendable func source() throws -> any VideoFrameSource {
            if let input { return try Y4MFileSource(path: input, width: top.width, height: top.height, loops: true) }
            return try TestSceneSource(width: top.width, height: top.height)
        }
        listen()
        let camera = camera
        let playing = Task { try await camera.play(from: source()) }
        defer { playing.cancel() }
        try await timeline.run(seconds: options.seconds, throttle: ("throttled", options.throttleKbps, options.throttleFromSeconds,
                                                                    options.throttleToSeconds), room: room, tick: tick)
    }

    /// Keeps each viewer's layer switches and decoded sizes, and the publisher's dynaCast changes.
    private func listen() {
        for viewer in viewers {
            let task = Task { [self] in
                for await event in viewer.participant.events {
                    guard case let .layerSwitched(change) = event else { continue }
                    let at = elapsedMilliseconds
                    viewer.log.withLock { $0.switches.append(DemoSwitch(atMilliseconds: at, event: change)) }
                }
            }
            let frames = Task {
                for await frame in viewer.remote.frames {
                    viewer.log.withLock {
                        $0.decodedSizes["\(frame.width)x\(frame.height)", default: 0] += 1
                        $0.framesSeen += 1
                    }
                }
            }
            tasks.withLock { $0 += [task, frames] }
        }
        let dynaCast = Task { [self] in
            for await event in publisher.events {
                guard case let .publishedLayersChanged(change) = event else { continue }
                let at = elapsedMilliseconds
                publisherEvents.withLock {
                    $0.append(DemoPublisherEvent(atMilliseconds: at, wanted: change.wanted, sending: change.sending,
                                                 paused: change.paused, resumed: change.resumed))
                }
            }
        }
        tasks.withLock { $0.append(dynaCast) }
    }

    /// Ends the call: recordings finish, the engine closes (every stream says goodbye).
    func finish() async throws {
        if options.saveDirectory != nil {
            for viewer in viewers { try await viewer.remote.stopRecording() }
        }
        await engine.close()
        for task in tasks.withLock({ $0 }) { await task.value }
    }

    /// Where `--save DIR` puts a viewer's capture.
    static func capturePath(directory: String, viewer id: String) -> String {
        (directory as NSString).appendingPathComponent("\(id).ivf")
    }
}

/// A layer switch as the demo reports it.
struct DemoSwitch: Sendable {
    var atMilliseconds: Int64
    var event: LayerSwitch
}

/// A dynaCast change on the publisher.
struct DemoPublisherEvent: Sendable {
    var atMilliseconds: Int64
    var wanted: [Int]
    var sending: [Int]
    var paused: [Int]
    var resumed: [Int]
}
