import CommandLineSupport
import Foundation

/// The `simulcast` command-line tool: one subcommand per job.
let usage = """
usage: simulcast <command> [options]
  demo      a loopback call through the public API: publisher → hosted room → 4 subscribers (one throttled mid-call), SRTP;
            --participants N: a room of N speaking publishers, adaptive subscriptions for a throttled viewer
  encode    encode the built-in scene or a Y4M file into simulcast VP8 layers (IVF per layer)
  inspect   print one RTP/RTCP packet (--hex) or summarise a pcap file as JSON
  send      publish simulcast VP8 (+ Opus) over SRTP/UDP to one port or one port per layer
  publish   join a Janus VideoRoom as a WebRTC publisher (ICE, DTLS-SRTP, simulcast by RID)
  advise    measure this machine's encode cost per configuration and pick the best that fits --cpu-budget
  soak      a long loopback call through the public API (publisher, room, N viewers), sampling RSS
run `simulcast <command> --help` for its options
"""

let arguments = CommandLine.arguments.dropFirst()
let command = arguments.first
let rest = arguments.dropFirst()
do {
    switch command {
    case "demo":
        if rest.contains("--help") { print(DemoCommand.usage); exit(0) }
        if DemoCommand.isRoom(rest) { try await RoomDemo.run(rest) } else { try await DemoCommand.run(rest) }
    case "encode":
        if rest.contains("--help") { print(EncodeCommand.usage); exit(0) }
        try EncodeCommand.run(rest)
    case "inspect":
        if rest.contains("--help") { print(InspectCommand.usage); exit(0) }
        exit(try InspectCommand.run(rest))
    case "send":
        if rest.contains("--help") { print(SendCommand.usage); exit(0) }
        try await SendCommand.run(rest)
    case "publish":
        if rest.contains("--help") { print(PublishCommand.usage); exit(0) }
        try await PublishCommand.run(rest)
    case "advise":
        if rest.contains("--help") { print(AdviseCommand.usage); exit(0) }
        try AdviseCommand.run(rest)
    case "soak":
        if rest.contains("--help") { print(SoakCommand.usage); exit(0) }
        try await SoakCommand.run(rest)
    case "--help", "-h", "help":
        print(usage)
    default:
        writeToStandardError(usage + "\n")
        exit(2)
    }
} catch {
    writeToStandardError("simulcast \(command ?? ""): \(errorMessage(error))\n")
    exit(1)
}
