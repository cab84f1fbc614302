import CommandLineSupport
import Foundation
import MediaEngine
import Simulcast

/// `simulcast demo`: a real call on loopback UDP with SRTP (`DemoCall`): one publisher, the
/// forwarding node, four subscribers (viewports per layer, plus one whose downlink is throttled
/// mid-call). A live table while it runs, then a summary; `--json` and `--save` for the record.
enum DemoCommand {
    static let usage = """
    usage: simulcast demo [--seconds N] [--input FILE.y4m] [--size WxH] [--json PATH] [--save DIR]
                          [--throttle FROM-TO] [--throttle-kbps N] [--up-hold MS] [--growth PERCENT]
                          [--no-dynacast] [--e2ee-key BASE64] [--protocol udp-over-tcp|udp|tcp] [--quiet]
           simulcast demo --participants [N] [--seconds N] [--size WxH] [--throttle FROM-TO]
                          [--throttle-kbps N] [--turn SECONDS] [--mute p2,..] [--pin p1,..]
                          [--protocol udp-over-tcp|udp|tcp] [--screen-share p1] [--json PATH] [--quiet]
      --seconds N          call length in seconds, at least one frame (1/30 s; default 15); memory does not
                           grow with it except the per-event lists the summary and --json report
      --input FILE.y4m     publish a Y4M file (looped) instead of the built-in scene
      --size WxH           publisher's encoder size (default 1280x720; layers follow docs/layer-plan.md, the top one
                           cropped to a multiple of 2^(layers-1), with a note on stderr if it was)
      --json PATH          per subscriber: frames decoded, decoder errors, freezes, switches with
                           reasons and latencies, time on each layer (ms)
      --save DIR           DIR/<subscriber>.ivf: what each subscriber received (assembled frames)
      --throttle FROM-TO   seconds during which the last subscriber's downlink is throttled (default 3-7;
                           a call shorter than 15 s keeps that share of it, 20 % to 47 %, to 0.1 s)
      --throttle-kbps N    its rate meanwhile (default 300)
      --up-hold MS         the layer selector's up-switch hold (default 2000)
      --growth PERCENT     subscriber estimate growth per second without loss (default 100)
      --no-dynacast        keep every layer encoded even if nobody watches it
      --e2ee-key BASE64    encrypt every frame end to end (SFrame, RFC 9605, AES_128_GCM_SHA256_128) with
                           this 16-64-byte shared key: the node forwards what it cannot read
      --protocol P         how every participant reaches the room (docs/joining-a-room.md preferredProtocol; both demos):
                           udp-over-tcp (default: UDP first, TCP if UDP fails within 2 s), udp, tcp
      --quiet              no live table or per-second lines
      --participants [N]   a room instead: N publishers (default 3, at most 6; 640x360, 2 layers each)
                           speaking in turns, a viewer and a throttled viewer (default 200 kbps from
                           4 s to 9 s of 16) whose videos adaptive subscriptions pause and resume;
                           the live table shows quality levels and the active-speaker order, --json
                           adds quality changes, speaker snapshots and pause/resume events;
                           --mute: those publishers send silence (their video is paused first),
                           --pin: the throttled viewer pins them (paused last),
                           --screen-share: that publisher also shares the generated screen (960x540,
                           15 fps, two layers); adaptive subscriptions pause it after every camera
    """

    /// Whether the arguments ask for the room demo (`--participants`).
    static func isRoom(_ arguments: ArraySlice<String>) -> Bool {
        arguments.contains("--participants") || arguments.contains { $0.hasPrefix("--participants=") }
    }

    /// The call's options and the parsed arguments; throws on any invalid argument, starts nothing.
    static func parse(_ arguments: ArraySlice<String>) throws -> (options: DemoCall.Options, parsed: CommandLineArguments) {
        let parsed = try CommandLineArguments(
            arguments,
            valueOptions: ["seconds", "input", "size", "json", "save", "throttle", "throttle-kbps", "up-hold", "growth", "e2ee-key",
                           "protocol"],
            flagOptions: ["no-dynacast", "quiet"])
        var options = DemoCall.Options()
        let size = try parsed.size("size", default: (1280, 720))
        options.size = (size.width, size.height)
        let frameRate = CameraEncoderConfig(width: size.width, height: size.height).frameRate
        if let seconds = try parsed.duration("seconds", atLeastOneFrameAt: frameRate) { options.seconds = seconds }
        options.input = parsed.string("input")
        if let window = try parsed.secondsWindow("throttle") {
            options.throttleFromSeconds = window.from
            options.throttleToSeconds = window.to
        } else if options.seconds < 15 {
            // Keep the default window's shape (3-7 s of 15) on shorter calls.
            options.throttleFromSeconds = throttleMoment(seconds: options.seconds, share: 3.0 / 15)
            options.throttleToSeconds = throttleMoment(seconds: options.seconds, share: 7.0 / 15)
        }
        options.throttleKbps = try parsed.int("throttle-kbps", default: 300, range: 10...100_000)
        options.upSwitchHoldMilliseconds = Int64(try parsed.int("up-hold", default: 2000, range: 0...60_000))
        options.estimateGrowthPerSecond = Double(try parsed.int("growth", default: 100, range: 1...1000)) / 100
        options.saveDirectory = parsed.string("save")
        options.dynaCast = !parsed.flag("no-dynacast")
        options.e2ee = try E2EEKeyArgument.options(parsed.string("e2ee-key"))
        options.preferredProtocol = try preferredProtocol(parsed.string("protocol"))
        return (options, parsed)
    }

    /// `--protocol`'s value (nil: the default, `.udpOverTCP`).
    static func preferredProtocol(_ value: String?) throws(CommandLineArguments.ParseError) -> PreferredProtocol {
        switch value {
        case nil, "udp-over-tcp": return .udpOverTCP
        case "udp": return .udpOnly
        case "tcp": return .tcpOnly
        case let other?: throw .invalidValue(option: "--protocol", value: other, expected: "udp-over-tcp, udp or tcp")
        }
    }

    @discardableResult
    static func run(_ arguments: ArraySlice<String>, output: @escaping @Sendable (String) -> Void = { print($0) }) async throws -> DemoReport {
        let (options, parsed) = try parse(arguments)
        // Outputs are opened before the call starts: a path that cannot be written is refused now.
        let json = try parsed.string("json").map { path throws(CommandError) in (path, try OutputFiles.openForWriting(path)) }
        if let note = sizeNotice(requestedWidth: options.size.width, height: options.size.height,
                                 plan: try LayerPlan(width: options.size.width, height: options.size.height)) {
            writeToStandardError(note + "\n")
        }
        let call = try await DemoCall.start(options: options)
        let report: DemoReport
        do {
            output("simulcast demo: \(call.layerSizes.map { "\($0.width)x\($0.height)" }.joined(separator: " + ")) "
                + "\(options.input.map { "from \($0)" } ?? "built-in scene") → hosted room → "
                + "\(call.viewers.count) subscribers, SRTP on\(options.e2ee == nil ? "" : ", E2EE (SFrame) on"), \(secondsText(options.seconds)) s; "
                + "protocol \(protocolName(options.preferredProtocol)); "
                + "'\(call.viewers.last?.id ?? "")' throttled "
                + "to \(options.throttleKbps) kbps from \(secondsText(options.throttleFromSeconds)) s to \(secondsText(options.throttleToSeconds)) s")
            let live = parsed.flag("quiet") ? nil : LiveTable(call: call, redraw: isatty(STDOUT_FILENO) != 0, output: output)
            try await call.run { second in await live?.update(second: second) }
            var paths: [String: String] = [:]
            if let directory = options.saveDirectory {
                for viewer in call.viewers { paths[viewer.id] = DemoCall.capturePath(directory: directory, viewer: viewer.id) }
            }
            report = try await DemoReport(call: call, ivfPaths: paths)
            try await call.finish()
        } catch {
            await call.engine.close()
            throw error
        }
        output("")
        output(report.summaryTable)
        output("")
        output("publisher: \(report.publisherFrames) frames, \(report.publisherKeyFrames) key-frame request(s) honoured, "
            + "sending layers \(report.publisherSending), dynaCast \(options.dynaCast ? "on" : "off"); "
            + "node sent \(report.nodeKeyFrameRequests) PLI(s) upstream")
        output("transport: " + report.viewers.map { viewer in
            "\(viewer.id) over \(viewer.finalStats?.transportProtocol?.rawValue ?? "unconfirmed UDP")"
                + (viewer.finalStats?.protocolSwitchMilliseconds.map { " (switched from UDP after \($0) ms)" } ?? "")
        }.joined(separator: ", "))
        let tcp = report.nodeTCP
        if tcp.accepted > 0 {
            output("node TCP: \(tcp.accepted) connection(s) accepted, \(tcp.proven) proven; \(tcp.closedUnproven) closed unproven, "
                + "\(tcp.droppedUnproven) datagram(s) from unproven ones dropped, \(tcp.sendsRefused) send(s) to them refused, "
                + "\(tcp.acceptFailuresForResources) accept failure(s) for want of descriptors")
        }
        if let (path, file) = json {
            try file.write(report.json.serialized() + "\n")
            try file.close()
            output("JSON: \(path)")
        }
        let ivf = report.viewers.compactMap(\.ivfPath)
        if !ivf.isEmpty { output("IVF: \(ivf.sorted().joined(separator: ", "))") }
        return report
    }
}

/// The per-subscriber table while the call runs, from each received video's stats: redrawn in
/// place on a terminal, otherwise one line per second after one line naming the columns.
private final class LiveTable {
    static let columns = "subscriber  layer  fps   kbps  loss  freezes  est. kbps  rtt ms  downlink"
    private let call: DemoCall
    private let redraw: Bool
    private let output: (String) -> Void
    private var drawn = false
    /// Frames decoded and bytes received at the previous update, per viewer.
    private var previous: [String: (frames: Int, bytes: Int)] = [:]

    init(call: DemoCall, redraw: Bool, output: @escaping (String) -> Void) {
        self.call = call
        self.redraw = redraw
        self.output = output
    }

    func update(second: Int) async {
        var rows: [String] = []
        for viewer in call.viewers {
            guard let stats = try? await viewer.remote.stats() else { continue }
            let last = previous[viewer.id] ?? (0, 0)
            previous[viewer.id] = (stats.framesDecoded, stats.bytesReceived)
            let layer = stats.currentSpatialLayer.map { LayerTarget(spatial: $0, temporal: stats.currentTemporalLayer ?? 0).description } ?? "-"
            rows.append(formatRow(viewer.id, layer, stats.framesDecoded - last.frames, (stats.bytesReceived - last.bytes) * 8 / 1000,
                                  (stats.fractionLost ?? 0) * 100, stats.freezeCount, stats.availableBitsPerSecond.map { $0 / 1000 },
                                  stats.roundTripMilliseconds, viewer.throttled && second > Int(call.options.throttleFromSeconds)
                                      && Double(second) <= call.options.throttleToSeconds ? call.options.throttleKbps : nil))
        }
        if redraw {
            var text = drawn ? "\u{1B}[\(call.viewers.count + 2)A" : ""
            text += "\u{1B}[2K t=\(second)s".padding(toLength: 9, withPad: " ", startingAt: 0)
                + Self.columns + "\n"
            text += "\u{1B}[2K" + String(repeating: "-", count: 86) + "\n"
            for row in rows { text += "\u{1B}[2K" + row + "\n" }
            output(String(text.dropLast()))
            drawn = true
        } else {
            if !drawn { output("each second, per subscriber: " + Self.columns) }
            drawn = true
            output("t=\(second)s " + rows.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " | "))
        }
    }
}

/// One live-table row: subscriber, layer, fps, kbps, loss %, freezes, estimate kbps, rtt, downlink limit.
private func formatRow(_ id: String, _ layer: String, _ fps: Int, _ kbps: Int, _ loss: Double, _ freezes: Int,
                       _ estimate: Int?, _ rtt: Double?, _ downlinkKbps: Int?) -> String {
    " " + [id.padding(toLength: 12, withPad: " ", startingAt: 0),
           layer.padding(toLength: 5, withPad: " ", startingAt: 0),
           String(format: "%4d", fps), String(format: "%6d", kbps),
           String(format: "%4.1f%%", loss), String(format: "%7d", freezes),
           estimate.map { String(format: "%9d", $0) } ?? "        -", rtt.map { String(format: "%7.1f", $0) } ?? "      -",
           " " + (downlinkKbps.map { "\($0) kbps" } ?? "open")].joined(separator: " ")
}

/// `--protocol`'s spelling of a preference.
private func protocolName(_ preference: PreferredProtocol) -> String {
    switch preference {
    case .udpOverTCP: return "udp-over-tcp"
    case .udpOnly: return "udp"
    case .tcpOnly: return "tcp"
    }
}
