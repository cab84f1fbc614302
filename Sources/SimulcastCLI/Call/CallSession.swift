import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting
import Simulcast

/// One run of `simulcast call` (`CallCommand`): join, publish, consume everyone, the live table,
/// leave at the end or on a signal, and the summary. Everything goes through the public API.
struct CallSession {
    let options: CallCommand.Options
    let engine: MediaEngine

    /// The room's events in the order they came, with their time since joining (the summary's `events`).
    private final class EventLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [JSONValue] = []
        func append(_ event: ParticipantEvent, atMilliseconds: Int) {
            lock.withLock { entries.append(.object([("atMs", .int(atMilliseconds)), ("event", .string(event.description))])) }
        }
        var all: [JSONValue] { lock.withLock { entries } }
    }

    func run() async throws -> JSONValue {
        let started = ContinuousClock.now
        let participant = try await engine.joinJanusRoom(url: options.url, room: options.room, participantId: options.name,
                                                         localAddress: options.bind, iceServers: options.iceServers,
                                                         iceTransportPolicy: options.iceTransportPolicy,
                                                         name: options.name, mode: options.mode, autoConsume: options.autoConsume)
        let joined = ContinuousClock.now
        let joinedAtUnixMilliseconds = Int(Date().timeIntervalSince1970 * 1_000)
        let published = try await publish(participant)
        let publishedAfter = ContinuousClock.now - joined
        // The pair ICE selected for the camera (RFC 8445 §7.2.5.3.2), as the stats name it.
        let selectedPair = try? await published.camera?.stats().selectedCandidatePair
        let stop = StopSignals.install()
        let seconds = options.seconds
        // The end: the time is up or a signal came; either way the participant leaves (its events end).
        let ending = Task {
            // `restore` ends the wait for a signal (false): the time is up.
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                stop.restore()
            }
            let signalled = await stop.stopped()
            timer.cancel()
            stop.restore()
            await participant.leave()
            return signalled
        }
        let playing = Task { await published.play(seconds: seconds) }
        let receptions = Receptions(joined: joined)
        let quiet = options.quiet
        let table = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let rows = await receptions.sampledRows()
                if !quiet { for row in rows { print(row) } }
            }
        }

        let log = EventLog()
        var roomJoined: Int?
        var pending: [RemoteParticipant] = []
        let consumes = options.autoConsume && options.mode != .signallingOnly
        for await event in participant.events {
            let atMilliseconds = Int((ContinuousClock.now - joined) / .milliseconds(1))
            log.append(event, atMilliseconds: atMilliseconds)
            switch event {
            case let .participantJoined(remote):
                await receptions.add(remote)
                if roomJoined == nil { pending.append(remote) } else if consumes { await receptions.consume(remote, by: participant, save: options.save) }
            case .roomJoined:
                roomJoined = atMilliseconds
                if consumes { for remote in pending { await receptions.consume(remote, by: participant, save: options.save) } }
                pending = []
            case let .trackPublished(participantId, track):
                if roomJoined != nil, consumes {
                    await receptions.consume(RemoteParticipant(id: participantId, displayName: participantId, tracks: [track]),
                                             by: participant, save: options.save)
                }
            case let .participantLeft(participantId):
                await receptions.left(participantId)
            case let .subscriptionPaused(publisherId, reason):
                await receptions.paused(publisherId, reason: reason.rawValue)
            case let .subscriptionResumed(publisherId, _):
                await receptions.paused(publisherId, reason: nil)
            case let .activeSpeakersChanged(speakers):
                await receptions.speaking(Set(speakers.map(\.participantId)))
            case let .dominantSpeakerChanged(participantId):
                await receptions.dominant(participantId)
            case let .failure(error):
                writeToStandardError("simulcast call: \(error)\n")
            default:
                break
            }
        }
        table.cancel()
        let signalled = await ending.value
        let sent = await playing.value
        let remote = await receptions.finish()
        return .object([
            ("name", .string(options.name)), ("room", .int(options.room)), ("mode", .string(options.mode.rawValue)),
            ("autoConsume", .bool(options.autoConsume)), ("joinMs", .int(Int((joined - started) / .milliseconds(1)))),
            ("joinedAtUnixMs", .int(joinedAtUnixMilliseconds)),
            ("roomJoinedMs", roomJoined.map { .int($0) } ?? .null), ("stoppedBySignal", .bool(signalled)),
            ("publishMs", .int(Int(publishedAfter / .milliseconds(1)))),
            ("selectedCandidatePair", selectedPair.map { .string($0.description) } ?? .null),
            ("sent", sent), ("remote", remote), ("events", .array(log.all)),
        ])
    }

    /// What this participant publishes, and how it plays its sources.
    private struct Published: Sendable {
        var camera: LocalVideoTrack?
        var microphone: LocalAudioTrack?
        var screen: LocalVideoTrack?
        var input: String?
        var tone: Double

        /// Plays the scene (or the clip), the tone and the slides until `seconds` pass or the
        /// participant leaves; what was sent, with the camera's frames of the last 10 s.
        func play(seconds: Int) async -> JSONValue {
            var framesAt: [Int] = []
            let sampler = Task {
                while !Task.isCancelled {
                    framesAt.append(camera?.framesPlayed ?? 0)
                    try? await Task.sleep(for: .seconds(1))
                }
                return framesAt
            }
            async let video: Void = playCamera(seconds: seconds)
            async let audio: Void = playMicrophone(seconds: seconds)
            async let slides: Void = playScreen(seconds: seconds)
            _ = await (video, audio, slides)
            sampler.cancel()
            let samples = await sampler.value
            let videoFrames = camera?.framesPlayed ?? 0
            return .object([
                ("videoFrames", .int(videoFrames)), ("videoFramesLast10s", .int(videoFrames - (samples.count > 10 ? samples[samples.count - 10] : 0))),
                ("audioFrames", .int(microphone?.framesPlayed ?? 0)), ("toneHz", microphone == nil ? .null : .double(tone)),
                ("screenFrames", .int(screen?.framesPlayed ?? 0)),
            ])
        }

        private func playCamera(seconds: Int) async {
            guard let camera, let top = camera.layerSizes.last else { return }
            let frames = seconds * 30
            let source: any VideoFrameSource
            do {
                source = try input.map { try Y4MFileSource(path: $0, width: top.width, height: top.height, loops: true).prefix(frames) }
                    ?? TestSceneSource(width: top.width, height: top.height, frames: frames)
            } catch {
                writeToStandardError("simulcast call: \(error)\n")
                return
            }
            try? await camera.play(from: source)
        }

        private func playMicrophone(seconds: Int) async {
            guard let microphone else { return }
            try? await microphone.play(from: ToneSource(frequencyHz: tone, amplitude: 0.3, talkFrames: seconds * 50, frames: seconds * 50))
        }

        private func playScreen(seconds: Int) async {
            guard let screen, let top = screen.layerSizes.last,
                  let source = try? ScreenTestSceneSource(width: top.width, height: top.height, frames: seconds * 15) else { return }
            try? await screen.play(from: source)
        }
    }

    /// Publishes the microphone (it rides the camera's peer connection, so first), the camera and
    /// the screen share, as the mode allows.
    private func publish(_ participant: LocalParticipant) async throws -> Published {
        var published = Published(input: options.input, tone: options.tone)
        guard options.mode == .sendAndRecv else { return published }
        let microphone = participant.createMicrophoneAudioTrack()
        try await participant.publish(microphone)
        published.microphone = microphone
        let camera = try participant.createCameraVideoTrack(encoderConfig: CameraEncoderConfig(width: options.size.width,
                                                                                               height: options.size.height))
        try await participant.publish(camera)
        published.camera = camera
        if options.screenShare {
            let screen = try participant.createScreenShareVideoTrack()
            try await participant.publish(screen)
            published.screen = screen
        }
        return published
    }
}

/// Every remote participant's `RemoteReception`, by id, and the order in which each one's tracks
/// are consumed (one at a time: a participant's camera, then its microphone).
actor Receptions {
    private let joined: ContinuousClock.Instant
    private var byId: [String: RemoteReception] = [:]
    private var order: [String] = []

    init(joined: ContinuousClock.Instant) { self.joined = joined }

    func add(_ remote: RemoteParticipant) async {
        if let existing = byId[remote.id] {
            await existing.rename(remote.displayName)
            return
        }
        byId[remote.id] = RemoteReception(participantId: remote.id, displayName: remote.displayName, joined: joined)
        order.append(remote.id)
    }

    /// Consumes what `remote` lists: its camera, then its microphone.
    func consume(_ remote: RemoteParticipant, by participant: LocalParticipant, save: String?) async {
        if byId[remote.id] == nil { await add(remote) }
        guard let reception = byId[remote.id] else { return }
        let kinds = Set(remote.tracks.map(\.kind))
        if kinds.contains(.camera) { await reception.consumeCamera(of: participant, saveDirectory: save) }
        if kinds.contains(.microphone) { await reception.consumeMicrophone(of: participant, saveDirectory: save) }
    }

    func left(_ id: String) async { await byId[id]?.noteLeft() }
    func paused(_ id: String, reason: String?) async { await byId[id]?.notePaused(reason) }
    /// The room's active speakers now (`.activeSpeakersChanged`).
    func speaking(_ ids: Set<String>) async {
        for (id, reception) in byId { await reception.noteSpeaking(ids.contains(id)) }
    }
    /// The room's dominant speaker now (`.dominantSpeakerChanged`).
    func dominant(_ dominantId: String?) async {
        for (id, reception) in byId { await reception.noteDominant(id == dominantId) }
    }

    /// Samples every reception's stats; the live table's rows.
    func sampledRows() async -> [String] {
        var rows: [String] = []
        for id in order {
            guard let reception = byId[id] else { continue }
            await reception.sample()
            rows.append(await reception.liveRow())
        }
        return rows
    }

    func finish() async -> JSONValue {
        var summary: [(String, JSONValue)] = []
        for id in order { if let reception = byId[id] { summary.append((id, await reception.finish())) } }
        return .object(summary)
    }
}
