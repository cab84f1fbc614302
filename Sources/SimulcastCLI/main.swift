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
  call      a call app in a Janus VideoRoom: publish camera + microphone, receive everyone, live table, summary
  advise    measure this machine's encode cost per configuration and pick the best that fits --cpu-budget
  soak      a long loopback call through the public API (publisher, room, N viewers), sampling RSS
run `simulcast <command> --help` for its options
"""

/// Each command's usage, printed for `simulcast <command> --help`.
let commandUsages: [String: String] = [
    "demo": DemoCommand.usage, "encode": EncodeCommand.usage, "inspect": InspectCommand.usage, "send": SendCommand.usage,
    "publish": PublishCommand.usage, "call": CallCommand.usage, "advise": AdviseCommand.usage, "soak": SoakCommand.usage,
]

let arguments = CommandLine.arguments.dropFirst()
let command = arguments.first
let rest = arguments.dropFirst()
do {
    // Every command parses its arguments before it starts anything; `--help` among them throws
    // `.helpRequested` once the rest parsed (an unknown option is still an error).
    switch command {
    case "demo":
        if DemoCommand.isRoom(rest) { try await RoomDemo.run(rest) } else { try await DemoCommand.run(rest) }
    case "encode":
        try EncodeCommand.run(rest)
    case "inspect":
        exit(try InspectCommand.run(rest))
    case "send":
        try await SendCommand.run(rest)
    case "publish":
        try await PublishCommand.run(rest)
    case "call":
        try await CallCommand.run(rest)
    case "advise":
        try AdviseCommand.run(rest)
    case "soak":
        try await SoakCommand.run(rest)
    case "--help", "-h", "help":
        print(usage)
    default:
        writeToStandardError(usage + "\n")
        exit(2)
    }
} catch CommandLineArguments.ParseError.helpRequested {
    print(command.flatMap { commandUsages[$0] } ?? usage)
} catch {
    writeToStandardError("simulcast \(command ?? ""): \(errorMessage(error))\n")
    exit(1)
}
