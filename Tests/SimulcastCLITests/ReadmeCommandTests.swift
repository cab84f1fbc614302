import EngineCore
import Foundation
import Testing

/// Every row of README.md's command table works as written: each `--option` a row names is
/// accepted (`--help` after the row's leading arguments exits 0 only if the option is known),
/// and each row runs with small inputs to exit 0. `make` rows check that the target exists
/// (`make -n`) and run what it runs in small; a row this test has no small run for fails it, so
/// a new row cannot go untested. `make janus-demo` and `publish --janus` need a Janus: `make test`
/// runs them (scripts/janus-test.sh, scripts/janus-videoroom-acceptance.sh), here only their
/// options and target are checked.
@Suite(.serialized) struct ReadmeCommandTests {
    /// A small run per row, keyed by the start of the row's command (after `swift run [-c release]`);
    /// the longest key that starts the row wins. `$OUT` is a scratch directory, `$TO` a UDP sink's address, `$ROOT` the package.
    static let smallRuns: [(key: String, runs: [[String]])] = [
        ("simulcast encode", [["simulcast", "encode", "--frames", "3", "--size", "320x180", "--max-layer", "2", "--out", "$OUT/encode"]]),
        ("simulcast demo [", [["simulcast", "demo", "--seconds", "2", "--size", "320x180", "--quiet", "--json", "$OUT/demo.json",
                               "--save", "$OUT/demo"]]),
        ("simulcast demo --participants", [["simulcast", "demo", "--participants", "2", "--seconds", "2", "--quiet",
                                            "--json", "$OUT/room.json"]]),
        ("simulcast demo --protocol", [["simulcast", "demo", "--protocol", "tcp", "--seconds", "2", "--size", "320x180", "--quiet"]]),
        ("simulcast demo --e2ee-key", [["simulcast", "demo", "--e2ee-key", Self.key32, "--seconds", "2", "--size", "320x180", "--quiet"]]),
        ("simulcast send --to", [["simulcast", "send", "--to", "$TO", "--frames", "5", "--fast", "--size", "320x180",
                                  "--pcap", "$OUT/send.pcap"]]),
        ("simulcast send ...", [["simulcast", "send", "--to", "$TO", "--frames", "5", "--fast", "--size", "320x180",
                                 "--sdes-offer", "$OUT/offer.sdp", "--e2ee-key", Self.key32]]),
        ("simulcast inspect --hex", [["simulcast", "inspect", "--hex", "81ce0002 00000001 00000002"]]),
        ("simulcast inspect FILE.pcap", [["simulcast", "send", "--to", "$TO", "--frames", "5", "--fast",
                                          "--size", "320x180", "--insecure", "--pcap", "$OUT/inspect.pcap"],
                                         ["simulcast", "inspect", "$OUT/inspect.pcap"]]),
        ("simulcast advise", [["simulcast", "advise", "--cpu-budget", "20%", "--frames", "4"]]),
        ("simulcast-bench wire", [["simulcast-bench", "wire", "--iterations", "50", "--runs", "1"]]),
        ("simulcast-bench srtp", [["simulcast-bench", "srtp", "--packets", "20", "--repeat", "1"]]),
        ("simulcast-bench allocations", [["simulcast-bench", "allocations"]]),
        ("simulcast-bench screen", [["simulcast-bench", "screen", "--seconds", "8", "--size", "640x360",
                                     "--json", "$OUT/screen.json", "--markdown", "$OUT/screen.md"]]),
        ("simulcast-bench forward", [["simulcast-bench", "forward", "--quick", "--subscribers", "1"]]),
        ("simulcast-bench relay", [["simulcast-bench", "relay", "--packets", "2000"]]),
        ("simulcast-bench receive", [["simulcast-bench", "receive", "--quick", "--size", "640x360"]]),
        ("simulcast-bench charts", [["simulcast-bench", "charts", "--encode", "$ROOT/bench-results/encode.json",
                                     "--encode-svg", "$OUT/charts.svg"]]),
        ("make bench-instructions", [["make", "-n", "bench-instructions"]]),
        ("make bench", [["make", "-n", "bench"],
                        ["simulcast-bench", "encode", "--frames", "2", "--repeat", "1", "--clips", "scene", "--size", "320x180",
                         "--json", "$OUT/encode.json", "--markdown", "$OUT/encode.md", "--svg", "$OUT/encode.svg"],
                        ["simulcast-bench", "charts", "--encode", "$OUT/encode.json"]]),
        ("make cc-eval", [["make", "-n", "cc-eval"]]),  // its smoke case runs in make test before swift test
        ("make fuzz", [["make", "-n", "fuzz"]]),         // every target runs 5 s in make test (scripts/fuzz-smoke.sh)
        ("make janus-demo", [["make", "-n", "janus-demo"]]),
        ("make virtual-time-repeat", [["make", "-n", "virtual-time-repeat"]]),  // the suites themselves run in make test
        ("simulcast publish", []),                       // needs a Janus: scripts/janus-videoroom-acceptance.sh
        ("simulcast call", []),                          // needs a Janus: CallCommandInteropTests (namespace group)
    ]

    static let key32 = Data((0..<32).map { UInt8($0) }).base64EncodedString()

    @Test func everyRowHasASmallRun() throws {
        let table = try ReadmeCommandTable.load()
        #expect(table.commands.count >= 20, "README.md's command table has \(table.commands.count) rows")
        for command in table.commands.map(ReadmeCommand.init) {
            #expect(Self.smallRun(for: command) != nil, "README row '\(command.text)' has no small run in ReadmeCommandTests")
        }
    }

    @Test func everyOptionARowNamesIsAccepted() throws {
        for command in try ReadmeCommandTable.load().commands.map(ReadmeCommand.init) where !command.isMake {
            let executable = try SimulcastExecutable(name: command.executable)
            for option in command.options {
                #expect(try executable.acceptsOption([command.subcommand] + command.leadingArguments + ["--help", option]),
                        "README row '\(command.text)': \(option) is not accepted")
            }
        }
    }

    @Test func everyRowRunsWithSmallInputs() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("readme-commands-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // What `send --sdes-offer` answers: a receiver offering AES-CM and AEAD-GCM.
        try ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:" + Data(repeating: 3, count: 30).base64EncodedString() + "\n"
             + "a=crypto:2 AEAD_AES_128_GCM inline:" + Data(repeating: 5, count: 28).base64EncodedString() + "\n")
            .write(to: scratch.appendingPathComponent("offer.sdp"), atomically: true, encoding: .utf8)
        let sink = try UDPSocket()
        for command in try ReadmeCommandTable.load().commands.map(ReadmeCommand.init) {
            guard let runs = Self.smallRun(for: command) else { continue }  // everyRowHasASmallRun says so
            for run in runs {
                let arguments = run.map {
                    $0.replacingOccurrences(of: "$OUT", with: scratch.path).replacingOccurrences(of: "$TO", with: "\(sink.localEndpoint)")
                        .replacingOccurrences(of: "$ROOT", with: ReadmeCommandTable.packageRoot.path)
                }
                let outcome: SimulcastExecutable.Outcome
                if arguments[0] == "make" {
                    outcome = try SimulcastExecutable(path: "/usr/bin/make")
                        .run(["-C", ReadmeCommandTable.packageRoot.path] + arguments.dropFirst(), timeoutSeconds: 30)
                } else {
                    outcome = try SimulcastExecutable(name: arguments[0]).run(Array(arguments.dropFirst()), timeoutSeconds: 120)
                }
                #expect(outcome.status == 0 && !outcome.timedOut,
                        "README row '\(command.text)': \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.standardError.suffix(400))")
            }
        }
    }

    /// The `make fuzz` row names every target scripts/fuzz.sh runs, and says how many there are.
    @Test func theFuzzRowNamesEveryTarget() throws {
        let script = try String(contentsOf: ReadmeCommandTable.packageRoot.appendingPathComponent("scripts/fuzz.sh"), encoding: .utf8)
        let targets = script.split(separator: "\n").filter { $0.hasPrefix("WIRE_TARGETS=(") || $0.hasPrefix("ENGINE_TARGETS=(") }
            .flatMap { $0.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }.split(separator: " ").map(String.init) }
        #expect(targets.count >= 19)
        let readme = try String(contentsOf: ReadmeCommandTable.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `make fuzz") })
        for target in targets { #expect(row.contains(" \(target),") || row.contains(" \(target))") || row.contains("(\(target),"), "\(target)") }
        #expect(row.contains("target, \(targets.count):"), "the row's count of targets")
    }

    /// The runs of the longest key that starts `command`.
    static func smallRun(for command: ReadmeCommand) -> [[String]]? {
        let text = command.words.joined(separator: " ")
        return smallRuns.filter { text.hasPrefix($0.key) }.max { $0.key.count < $1.key.count }?.runs
    }
}
