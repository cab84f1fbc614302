import CommandLineSupport
import Foundation
import MediaEngine
import Simulcast

/// `simulcast demo --participants [N]`: runs a `RoomCall`, a live table while it runs, then a
/// summary and optionally the JSON.
enum RoomDemo {
    /// The call's options and the parsed arguments; throws on any invalid argument, starts nothing.
    static func parse(_ arguments: ArraySlice<String>) throws -> (options: RoomCall.Options, parsed: CommandLineArguments) {
        // `--participants` may come without a number: 3.
        var normalized: [String] = []
        var iterator = Array(arguments)[...]
        while let argument = iterator.popFirst() {
            normalized.append(argument)
            if argument == "--participants", iterator.first.map({ Int($0) == nil }) ?? true { normalized.append("3") }
        }
        let parsed = try CommandLineArguments(
            normalized, valueOptions: ["participants", "seconds", "size", "json", "throttle", "throttle-kbps", "turn", "mute", "pin",
                                     "protocol", "screen-share"],
            flagOptions: ["quiet"])
        var options = RoomCall.Options()
        options.participants = try parsed.int("participants", default: 3, range: 2...6)
        let size = try parsed.size("size", default: (640, 360))
        options.size = (size.width, size.height)
        let frameRate = CameraEncoderConfig(width: size.width, height: size.height).frameRate
        if let seconds = try parsed.duration("seconds", atLeastOneFrameAt: frameRate) {
            options.seconds = seconds
            if parsed.string("throttle") == nil {
                // Keep the default window's shape (4-9 s of 16).
                options.throttleFromSeconds = throttleMoment(seconds: seconds, share: 4.0 / 16)
                options.throttleToSeconds = throttleMoment(seconds: seconds, share: 9.0 / 16)
            }
        }
        if let window = try parsed.secondsWindow("throttle") {
            options.throttleFromSeconds = window.from
            options.throttleToSeconds = window.to
        }
        options.throttleKbps = try parsed.int("throttle-kbps", default: 200, range: 10...100_000)
        options.preferredProtocol = try DemoCommand.preferredProtocol(parsed.string("protocol"))
        if let text = parsed.string("turn") {
            guard let turn = Double(text), turn >= 0.5, turn <= 10 else {
                throw CommandError("--turn \(text): expected seconds per speaking turn, 0.5 to 10")
            }
            options.turnSeconds = turn
        }

        let ids = Set((1...options.participants).map { "p\($0)" })
        for (name, text) in [("mute", parsed.string("mute")), ("pin", parsed.string("pin"))] {
            guard let text else { continue }
            let chosen = Set(text.split(separator: ",").map(String.init))
            guard chosen.isSubset(of: ids) else {
                throw CommandError("--\(name) \(text): expected publisher ids among \(ids.sorted().joined(separator: ","))")
            }
            if name == "mute" { options.muted = chosen } else { options.pinned = chosen }
        }
        if let sharer = parsed.string("screen-share") {
            guard ids.contains(sharer) else {
                throw CommandError("--screen-share \(sharer): expected one publisher id among \(ids.sorted().joined(separator: ","))")
            }
            options.screenSharer = sharer
        }
        options.recordsSpeakerSnapshots = parsed.string("json") != nil
        return (options, parsed)
    }

    @discardableResult
    static func run(_ arguments: ArraySlice<String>, output: @escaping @Sendable (String) -> Void = { print($0) }) async throws -> RoomCall {
        let (options, parsed) = try parse(arguments)
        // Outputs are opened before the call starts: a path that cannot be written is refused now.
        let json = try parsed.string("json").map { path throws(CommandError) in (path, try OutputFiles.openForWriting(path)) }
        if let note = sizeNotice(requestedWidth: options.size.width, height: options.size.height,
                                 plan: try LayerPlan(width: options.size.width, height: options.size.height)) {
            writeToStandardError(note + "\n")
        }
        let call = try await RoomCall.start(options: options)
        var pausedAtEnd: [String: [String]] = [:]
        var droppedByThrottle = 0
        do {
            let budget = try await call.room.budget(publisher: call.speakers[0].id)
            output("simulcast demo --participants \(options.participants): \(call.speakers.count) publishers "
                + "(\(call.layerSizes.map { "\($0.width)x\($0.height)" }.joined(separator: " + ")), Opus speaking in "
                + "\(secondsText(options.turnSeconds)) s turns) → room → viewer + throttled (\(options.throttleKbps) kbps from "
                + "\(secondsText(options.throttleFromSeconds)) s to \(secondsText(options.throttleToSeconds)) s), SRTP on, "
                + "\(secondsText(options.seconds)) s; "
                + "lowest video layer budgeted at \((budget.lowestVideo ?? 0) / 1000) kbps, audio at \(budget.audio / 1000) kbps")
            let quiet = parsed.flag("quiet")
            if !quiet {
                output("each second: the speakers (level 0-1) and the dominant one, then per viewer: its id, "
                    + "quality level, downlink estimate, link limit, frames per publisher, paused videos")
            }
            try await call.run { second in
                guard !quiet else { return }
                output("t=\(second)s " + (await call.tableRows()).joined(separator: "\n      "))
            }
            for viewer in call.viewers { pausedAtEnd[viewer.id] = try await call.room.adaptiveState(of: viewer.id).paused }
            droppedByThrottle = try await call.room.droppedByDownlinkLimit(of: "throttled")
            await call.finish()
        } catch {
            await call.engine.close()
            throw error
        }

        let roomLog = call.log.withLock { $0 }
        output("")
        output("adaptive subscriptions:")
        for event in roomLog.adaptiveEvents {
            let what = event.paused ? "paused (\(event.reason ?? "-"))" : "resumed (\(event.reason ?? "promoted"))"
            output("  \(String(format: "%6.2f", Double(event.atMilliseconds) / 1000)) s  \(event.subscriber): \(event.participant) \(what)")
        }
        if roomLog.adaptiveEvents.isEmpty { output("  (none)") }
        output("dominant speaker changes: " + roomLog.dominantChanges.map {
            "\(String(format: "%.1f", Double($0.atMilliseconds) / 1000)) s → \($0.dominant ?? "nobody")"
        }.joined(separator: ", "))
        for viewer in call.viewers {
            let viewerLog = viewer.log.withLock { $0 }
            output("\(viewer.id): quality \(viewerLog.qualityChanges.last.map { "\($0.current)" } ?? "unknown"), "
                + "quality changes \(viewerLog.qualityChanges.map { "\($0.previous)→\($0.current)" }.joined(separator: ", ")), "
                + "frames decoded " + call.videoNames.map { "\($0) \(viewerLog.framesDecoded[$0] ?? 0)" }.joined(separator: ", ")
                + (viewer.throttled ? ", link dropped \(droppedByThrottle) datagrams" : ""))
        }
        output("speaker snapshots: \(roomLog.snapshotCount)")
        if let (path, file) = json {
            try file.write(call.json(pausedAtEnd: pausedAtEnd).serialized() + "\n")
            try file.close()
            output("JSON: \(path)")
        }
        return call
    }
}
