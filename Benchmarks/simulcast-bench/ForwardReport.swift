import CommandLineSupport

/// The readable table and the JSON of `simulcast-bench forward`.
struct ForwardReport {
    var recording: ForwardRecording
    var baseline: LibSRTPBaseline
    var selfCheck: Int64
    var results: [ForwardBenchmark.Result]
    /// The forward latency through the engine's real loop (nil: skipped).
    var latency: RoomForwardLatency.Result?
    var machine = MachineInfo.current()

    let build = MachineInfo.buildConfiguration

    var layers: String { recording.plan.layers.map { "\($0.width)x\($0.height)" }.joined(separator: ", ") }
    var videoPacketsPerRound: Int { recording.packets.filter { $0.layer != nil }.count }
    var audioPacketsPerRound: Int { recording.packets.count - videoPacketsPerRound }
    static let preferencesText = "subscriber i prefers high, medium, low for i % 3 (top, middle, lowest layer); "
        + "no bandwidth limit, no loss, no RTCP from subscribers"

    func table() -> String {
        let seconds = Double(recording.durationMicroseconds) / 1_000_000
        var lines: [String] = []
        lines.append("simulcast-bench forward (\(build) build): \(recording.plan.top.width)x\(recording.plan.top.height) "
            + "publication, layers \(layers) (L1T3) + Opus, \(recording.frames) frames (\(MarkdownTable.fmt(seconds, 1)) s: "
            + "\(videoPacketsPerRound) video + \(audioPacketsPerRound) audio packets) per round; "
            + "\(machine.cpus) CPUs (\(machine.cpuModel)).")
        lines.append("Path: SRTP unprotect -> TrackForwarder -> StreamRewriter -> SRTP protect -> sendto 127.0.0.1, per subscriber; "
            + Self.preferencesText + ".")
        lines.append("libsrtp2's own allocations (C loops): \(MarkdownTable.fmt(baseline.allocationsPerProtect, 2)) per srtp_protect, "
            + "\(MarkdownTable.fmt(baseline.allocationsPerUnprotect, 2)) per srtp_unprotect. "
            + "Allocation counter self-check: \(selfCheck).")
        lines.append("")
        lines.append("| subscribers | on layer (low/mid/top) | rounds | forwarded pkts | CPU ns/fwd pkt median | p95 | "
            + "CPU ns/incoming pkt | allocs/fwd pkt | libsrtp's | over libsrtp | service() allocs/subscriber | "
            + "protect ns | unprotect ns/in pkt | SRTP ns/fwd pkt | sendto ns | non-SRTP overhead | without sendto |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for result in results {
            let serviceAllocations = Double(result.serviceAllocations) / Double(max(1, result.serviceCalls * result.subscribers))
            lines.append("| \(result.subscribers) | \(result.subscribersPerLayer.map(String.init).joined(separator: "/")) | "
                + "\(result.rounds) | \(result.forwardedPackets) | \(MarkdownTable.fmt(result.nsPerForwardedPacket.median, 0)) | "
                + "\(MarkdownTable.fmt(result.nsPerForwardedPacket.p95, 0)) | \(MarkdownTable.fmt(result.cpuNsPerIncomingPacket, 0)) | "
                + "\(MarkdownTable.fmt(result.allocationsPerForwardedPacket, 3)) | "
                + "\(MarkdownTable.fmt(result.libSRTPAllocationsPerForwardedPacket(baseline), 3)) | "
                + "\(MarkdownTable.fmt(result.allocationsPerForwardedPacketOverBaseline(baseline), 3)) | "
                + "\(MarkdownTable.fmt(serviceAllocations, 1)) | \(MarkdownTable.fmt(result.floor.protectNanoseconds, 0)) | "
                + "\(MarkdownTable.fmt(result.floor.unprotectNanoseconds, 0)) | \(MarkdownTable.fmt(result.srtpNsPerForwardedPacket, 0)) | "
                + "\(MarkdownTable.fmt(result.floor.sendNanoseconds, 0)) | \(MarkdownTable.fmt(result.nonSRTPOverheadPercent, 0)) % | "
                + "\(MarkdownTable.fmt(result.overheadExcludingSendPercent, 0)) % |")
        }
        lines.append("")
        lines.append("CPU: thread CPU time (CLOCK_THREAD_CPUTIME_ID) of the node.handle calls, kernel sendto included, "
            + "per packet handed to a subscriber (video and audio). service(): once per round, between windows; it sends "
            + "each subscriber a sender report (one SRTCP protect) at most once a second of media time.")
        lines.append("protect ns: thread CPU of one libsrtp2 srtp_protect (SRTPSession.protectRTP, the subscribers' suite) per packet, "
            + "sendto ns: one loopback sendto of the protected packet, both over the same packet mix the node forwarded, measured "
            + "in the same run right after it; unprotect: one srtp_unprotect per incoming datagram of a round. SRTP ns/fwd pkt: "
            + "protect + unprotect x incoming/forwarded. non-SRTP overhead: (CPU ns/fwd pkt median - SRTP ns/fwd pkt) / "
            + "protect ns; without sendto: also minus the sendto floor.")
        if let latency {
            lines.append("")
            lines.append("Forward latency through the engine loop (a hosted room, a 640x360 camera played and subscribed to, "
                + "\(MarkdownTable.fmt(latency.seconds, 0)) s, \(latency.sends) sends): median "
                + "\(MarkdownTable.fmt(latency.medianMilliseconds, 3)) ms, p99 \(MarkdownTable.fmt(latency.p99Milliseconds, 3)) ms "
                + "from a datagram's arrival at the node's socket (kernel stamp) to its forwarded sendto "
                + "(goal: median at most \(RoomForwardLatency.goalMedianMilliseconds) ms).")
        }
        let notes = results.filter { $0.keyFrameRequestsSent > 0 || $0.sendFailures > 0 || $0.receivedUnprotectFailures > 0 }
        for result in notes {
            lines.append("note: \(result.subscribers) subscribers: \(result.keyFrameRequestsSent) key-frame requests, "
                + "\(result.sendFailures) send failures, \(result.receivedUnprotectFailures) received datagrams that did not unprotect")
        }
        return lines.joined(separator: "\n")
    }

    func json() -> JSONValue {
        let runs: [JSONValue] = results.map { result in
            .object([
                ("subscribers", .int(result.subscribers)),
                ("subscribersPerLayer", .array(result.subscribersPerLayer.map { .int($0) })),
                ("warmUpRounds", .int(result.warmUpRounds)),
                ("rounds", .int(result.rounds)),
                ("incomingPackets", .int(result.incomingPackets)),
                ("forwardedPackets", .int(result.forwardedPackets)),
                ("forwardedVideoPackets", .int(result.forwardedVideoPackets)),
                ("forwardedAudioPackets", .int(result.forwardedAudioPackets)),
                ("cpuNsPerForwardedPacket", .object([
                    ("median", .double(result.nsPerForwardedPacket.median)),
                    ("p95", .double(result.nsPerForwardedPacket.p95)),
                    ("min", .double(result.nsPerForwardedPacket.min)),
                    ("max", .double(result.nsPerForwardedPacket.max)),
                    ("overall", .double(result.cpuNsPerForwardedPacket)),
                ])),
                ("cpuNsPerIncomingPacket", .double(result.cpuNsPerIncomingPacket)),
                ("srtpProtectNsPerPacket", .double(result.floor.protectNanoseconds)),
                ("sendtoNsPerPacket", .double(result.floor.sendNanoseconds)),
                ("srtpUnprotectNsPerIncomingPacket", .double(result.floor.unprotectNanoseconds)),
                ("srtpNsPerForwardedPacket", .double(result.srtpNsPerForwardedPacket)),
                ("floorPackets", .int(result.floor.packets)),
                ("nonSRTPOverheadPercent", .double(result.nonSRTPOverheadPercent)),
                ("nonSRTPOverheadExcludingSendtoPercent", .double(result.overheadExcludingSendPercent)),
                ("allocations", .int(Int(result.allocations))),
                ("allocationsPerForwardedPacket", .double(result.allocationsPerForwardedPacket)),
                ("libsrtpAllocationsPerForwardedPacket", .double(result.libSRTPAllocationsPerForwardedPacket(baseline))),
                ("allocationsPerForwardedPacketOverBaseline", .double(result.allocationsPerForwardedPacketOverBaseline(baseline))),
                ("allocatedBytesPerForwardedPacket",
                 .double(Double(result.allocatedBytes) / Double(max(1, result.forwardedPackets)))),
                ("keyFrameRequestsSent", .int(result.keyFrameRequestsSent)),
                ("sendFailures", .int(result.sendFailures)),
                ("receivedDatagrams", .int(result.received)),
                ("receivedUnprotectFailures", .int(result.receivedUnprotectFailures)),
                ("service", .object([
                    ("calls", .int(result.serviceCalls)),
                    ("allocationsPerCall", .double(Double(result.serviceAllocations) / Double(max(1, result.serviceCalls)))),
                    ("cpuNsPerCall", .double(Double(result.serviceNanoseconds) / Double(max(1, result.serviceCalls)))),
                ])),
            ])
        }
        return .object([
            ("benchmark", "forward"),
            ("build", .string(build)),
            ("machine", .object([("cpus", .int(machine.cpus)), ("cpuModel", .string(machine.cpuModel))])),
            ("recording", .object([
                ("width", .int(recording.plan.top.width)),
                ("height", .int(recording.plan.top.height)),
                ("layers", .array(recording.plan.layers.map { .string("\($0.width)x\($0.height)") })),
                ("frames", .int(recording.frames)),
                ("seconds", .double(Double(recording.durationMicroseconds) / 1_000_000)),
                ("videoPacketsPerRound", .int(videoPacketsPerRound)),
                ("audioPacketsPerRound", .int(audioPacketsPerRound)),
            ])),
            ("preferences", .string(Self.preferencesText)),
            ("libsrtpBaseline", .object([
                ("calls", .int(baseline.calls)),
                ("allocationsPerProtect", .double(baseline.allocationsPerProtect)),
                ("allocationsPerUnprotect", .double(baseline.allocationsPerUnprotect)),
            ])),
            ("allocationCounterSelfCheck", .int(Int(selfCheck))),
            ("runs", .array(runs)),
            ("roomForwardLatency", latency.map { latency in
                .object([
                    ("seconds", .double(latency.seconds)),
                    ("sends", .int(latency.sends)),
                    ("medianMilliseconds", .double(latency.medianMilliseconds)),
                    ("p99Milliseconds", .double(latency.p99Milliseconds)),
                    ("goalMedianMilliseconds", .double(RoomForwardLatency.goalMedianMilliseconds)),
                ])
            } ?? .null),
        ])
    }
}
