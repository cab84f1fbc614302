import CommandLineSupport
import Foundation
import EngineCore

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
            normalized, valueOptions: ["participants", "seconds", "size", "json", "throttle", "throttle-kbps", "turn", "mute", "pin"],
            flagOptions: ["quiet"])
        var options = RoomCall.Options()
        options.participants = try parsed.int("participants", default: 3, range: 2...6)
        if let seconds = try parsed.positiveSeconds("seconds") {
            options.seconds = seconds
            if parsed.string("throttle") == nil {
                // Keep the default window's shape (4-9 s of 16).
                options.throttleFromSeconds = seconds / 4
                options.throttleToSeconds = seconds * 9 / 16
            }
        }
        let size = try parsed.size("size", default: (640, 360))
        options.size = (size.width, size.height)
        if let window = try parsed.secondsWindow("throttle") {
            options.throttleFromSeconds = window.from
            options.throttleToSeconds = window.to
        }
        options.throttleKbps = try parsed.int("throttle-kbps", default: 200, range: 10...100_000)
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
        options.recordsSpeakerSnapshots = parsed.string("json") != nil
        return (options, parsed)
    }

    @discardableResult
    static func run(_ arguments: ArraySlice<String>, output: @escaping (String) -> Void = { print($0) }) throws -> RoomCall {
        let (options, parsed) = try parse(arguments)
        if let path = parsed.string("json") { try OutputFiles.createParentDirectory(of: path) }
        let call = try RoomCall(options: options)
        if let note = sizeNotice(requestedWidth: options.size.width, height: options.size.height, plan: call.plan) {
            writeToStandardError(note + "\n")
        }
        output("simulcast demo --participants \(options.participants): \(call.speakers.count) publishers "
            + "(\(call.plan.layers.map { "\($0.width)x\($0.height)" }.joined(separator: " + ")), Opus speaking in "
            + "\(options.turnSeconds) s turns) → room → viewer + throttled (\(options.throttleKbps) kbps from "
            + "\(options.throttleFromSeconds) s to \(options.throttleToSeconds) s), SRTP on, \(options.seconds) s; "
            + "lowest video layer budgeted at \((call.room.lowestVideoBitsPerSecond(of: call.speakers[0].id) ?? 0) / 1000) kbps, "
            + "audio at \(call.room.audioBitsPerSecond / 1000) kbps")
        let quiet = parsed.flag("quiet")
        try call.run { second in
            guard !quiet else { return }
            output("t=\(second)s " + call.tableRows().joined(separator: "\n      "))
        }

        output("")
        output("adaptive subscriptions:")
        for (at, record) in call.adaptiveEvents {
            let what: String
            switch record.event.kind {
            case let .paused(reason): what = "paused (\(reason.rawValue))"
            case let .resumed(reason): what = "resumed (\(reason?.rawValue ?? "promoted"))"
            }
            output("  \(String(format: "%6.2f", Double(at) / 1000)) s  \(record.subscriberId): \(record.event.participantId) \(what)")
        }
        if call.adaptiveEvents.isEmpty { output("  (none)") }
        output("dominant speaker changes: " + call.dominantChanges.map {
            "\(String(format: "%.1f", Double($0.atMilliseconds) / 1000)) s → \($0.dominant ?? "nobody")"
        }.joined(separator: ", "))
        for viewer in call.viewers {
            output("\(viewer.id): quality \(viewer.quality.connectionQuality().map { "\($0.overall)" } ?? "unknown"), "
                + "quality changes \(viewer.qualityChanges.map { "\($0.change.previous)→\($0.change.overall)" }.joined(separator: ", ")), "
                + "frames decoded " + call.speakers.map { "\($0.id) \(viewer.framesDecoded[$0.id] ?? 0)" }.joined(separator: ", ")
                + (viewer.link.map { ", link dropped \($0.dropped) datagrams" } ?? ""))
        }
        output("speaker snapshots: \(call.snapshotCount)")
        if let path = parsed.string("json") {
            try OutputFiles.write(call.json.serialized() + "\n", to: path)
            output("JSON: \(path)")
        }
        return call
    }
}
