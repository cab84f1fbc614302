import Foundation
import Glibc
import InteropTestSupport
import MediaCodecs
import Testing

/// Issue 28's acceptance with `simulcast call`, four OS processes in a real Janus room (Janus on the
/// peer host of scripts/netns-run.sh, the apps on the client host): alice (a 440 Hz tone) and bob
/// (660 Hz) hold a call; carol joins 5 s later receive-only and dave signalling-only; bob leaves
/// by SIGINT. Each of alice and bob decodes at least 90 % of the other's frames of the last 10 s
/// with no decoder error and hears the other's tone (the dominant frequency of the WAV it saved
/// within 2 %, concealment under 2 %); carol and dave are told of alice and bob (with their tracks)
/// before `roomJoined`; carol decodes both, dave receives nothing; everyone still there hears bob
/// leave within 2 s of the signal.
@Suite(.serialized) struct CallCommandInteropTests {
    struct App {
        let name: String
        let process = Process()
        let json: String

        /// Starts the app on the client host bound to its veth address, or on `home` with no address.
        init(_ name: String, executable: String, janus: URL, directory: String, home: HomeNetwork? = nil, _ arguments: [String]) throws {
            self.name = name
            json = "\(directory)/\(name).json"
            let common = ["call", "--janus", janus.absoluteString, "--name", name, "--quiet", "--json", json]
            if let home {
                home.runOnHomeHost(process, executable: executable, arguments: common + arguments)
            } else {
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = common + ["--bind", PrivateNamespace.localAddress] + arguments
            }
            FileManager.default.createFile(atPath: "\(directory)/\(name).log", contents: nil)
            let log = FileHandle(forWritingAtPath: "\(directory)/\(name).log")
            process.standardOutput = log
            process.standardError = log
            try process.run()
        }

        /// Waits up to `seconds` for the app to end; its summary.
        func summary(within seconds: Double) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let data = try Data(contentsOf: URL(fileURLWithPath: json))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)'s summary")
        }
    }

    static func remote(_ summary: [String: Any], _ id: String) -> [String: Any] {
        (summary["remote"] as? [String: Any])?[id] as? [String: Any] ?? [:]
    }

    static func events(_ summary: [String: Any]) -> [String] {
        (summary["events"] as? [[String: Any]] ?? []).compactMap { $0["event"] as? String }
    }

    /// The dominant frequency of a saved WAV's middle part.
    static func tone(in path: String) throws -> Double {
        let samples = try WAVReader(path: path).samples
        let middle = samples.dropFirst(samples.count / 4).prefix(48_000)
        return dominantFrequency(of: Array(middle), in: 300...800)
    }

    @Test func aliceAndBobHoldACallCarolAndDaveFollowTheRoomAndBobLeaves() throws {
        try PrivateNamespace.require(for: "CallCommandInteropTests")
        let executable = try SimulcastExecutable().path
        let janus = try JanusHarness.start()
        defer { janus.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("call-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let alice = try App("alice", executable: executable, janus: janus.url, directory: directory,
                            ["--tone", "440", "--seconds", "17", "--save", "\(directory)/alice"])
        let bob = try App("bob", executable: executable, janus: janus.url, directory: directory,
                          ["--tone", "660", "--seconds", "60", "--save", "\(directory)/bob"])
        defer { for app in [alice, bob] where app.process.isRunning { kill(app.process.processIdentifier, SIGKILL) } }
        sleep(5)
        let carol = try App("carol", executable: executable, janus: janus.url, directory: directory, ["--mode", "recv-only", "--seconds", "12"])
        let dave = try App("dave", executable: executable, janus: janus.url, directory: directory, ["--mode", "signalling-only", "--seconds", "12"])
        defer { for app in [carol, dave] where app.process.isRunning { kill(app.process.processIdentifier, SIGKILL) } }
        sleep(8)
        let signalled = Date()
        kill(bob.process.processIdentifier, SIGINT)

        let bobSummary = try bob.summary(within: 15)
        let aliceSummary = try alice.summary(within: 30)
        let carolSummary = try carol.summary(within: 30)
        let daveSummary = try dave.summary(within: 30)
        #expect(bobSummary["stoppedBySignal"] as? Bool == true)

        // alice and bob: each decodes the other's video and hears the other's tone.
        for (receiver, sender, toneHz) in [(aliceSummary, bobSummary, 660.0), (bobSummary, aliceSummary, 440.0)] {
            let name = receiver["name"] as? String ?? "?", from = sender["name"] as? String ?? "?"
            let got = Self.remote(receiver, from)
            let sent = (sender["sent"] as? [String: Any])?["videoFramesLast10s"] as? Int ?? 0
            let decoded = got["framesDecodedLast10s"] as? Int ?? 0
            print("\(name) ← \(from): \(decoded) of \(sent) frames in the last 10 s, first frame \(got["firstFrameMs"] ?? "-") ms, "
                + "first audio \(got["firstAudioMs"] ?? "-") ms, concealed \(got["audioConcealedMs"] ?? "-") ms of \(got["audioBlocks"] ?? "-") blocks")
            #expect(sent > 200 && Double(decoded) >= 0.9 * Double(sent), "\(name) decoded \(decoded) of \(from)'s \(sent) frames")
            #expect(got["decoderErrors"] as? Int == 0)
            let wav = try #require(got["wav"] as? String)
            let heard = try Self.tone(in: wav)
            print("\(name) heard \(heard) Hz from \(from) (sent \(toneHz) Hz)")
            #expect(abs(heard - toneHz) <= 0.02 * toneHz, "\(name) heard \(heard) Hz from \(from), expected \(toneHz)")
            let blocks = got["audioBlocks"] as? Int ?? 0, concealed = got["audioConcealedMs"] as? Int ?? .max
            #expect(blocks > 300 && Double(concealed) < 0.02 * Double(blocks * 20), "\(name): \(concealed) ms concealed of \(blocks) blocks")
        }

        // carol and dave: told of alice and bob with their tracks before roomJoined.
        for summary in [carolSummary, daveSummary] {
            let events = Self.events(summary)
            let joinedRoom = try #require(events.firstIndex(of: "room joined"), "\(events)")
            for name in ["alice", "bob"] {
                let told = events.firstIndex { $0.hasPrefix("participant joined: \(name) ") && $0.contains("camera") && $0.contains("microphone") }
                #expect(told.map { $0 < joinedRoom } == true, "\(summary["name"] ?? "?") was not told of \(name) first: \(events)")
            }
        }
        print("carol's events: \(Self.events(carolSummary).prefix(6))")
        for name in ["alice", "bob"] {
            #expect((Self.remote(carolSummary, name)["framesDecoded"] as? Int ?? 0) > 60)
            #expect(Self.remote(carolSummary, name)["decoderErrors"] as? Int == 0)
            #expect(Self.remote(daveSummary, name)["framesDecoded"] as? Int == 0 && Self.remote(daveSummary, name)["audioBlocks"] as? Int == 0)
        }

        // bob's leaving, heard by everyone still there within 2 s of the signal.
        for summary in [aliceSummary, carolSummary, daveSummary] {
            let joinedAt = summary["joinedAtUnixMs"] as? Int ?? 0
            let leftAt = try #require(Self.remote(summary, "bob")["leftAtMs"] as? Int, "\(summary["name"] ?? "?") never heard bob leave")
            let heard = Double(joinedAt + leftAt) / 1_000 - signalled.timeIntervalSince1970
            print("\(summary["name"] ?? "?") heard bob leave \(Int(heard * 1_000)) ms after his SIGINT")
            #expect(heard >= -0.1 && heard <= 2, "\(summary["name"] ?? "?") heard bob leave \(heard) s after the signal")
        }
    }

    /// Issue 29's first step: alice sits behind a NAT (`HomeNetwork`) and passes no address; she
    /// gathers a host candidate on her only usable interface and a server-reflexive one from coturn
    /// (STUN on the peer host), and holds the call with bob through Janus: each decodes the other.
    @Test func behindANATAliceGathersHerOwnCandidatesAndTheCallWorks() throws {
        try PrivateNamespace.require(for: "CallCommandInteropTests")
        let executable = try SimulcastExecutable().path
        let coturn = try Coturn(port: 34_795)
        defer { coturn.stop() }
        let home = try HomeNetwork()
        defer { home.tearDown() }
        let janus = try JanusHarness.start()
        defer { janus.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("call-nat-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let alice = try App("alice", executable: executable, janus: janus.url, directory: directory, home: home,
                            ["--ice-server", "stun:\(PrivateNamespace.peerAddress):\(coturn.port)", "--seconds", "12"])
        let bob = try App("bob", executable: executable, janus: janus.url, directory: directory, ["--seconds", "12"])
        defer { for app in [alice, bob] where app.process.isRunning { kill(app.process.processIdentifier, SIGKILL) } }
        let aliceSummary = try alice.summary(within: 40)
        let bobSummary = try bob.summary(within: 40)
        for (receiver, from) in [(aliceSummary, "bob"), (bobSummary, "alice")] {
            let got = Self.remote(receiver, from)
            print("\(receiver["name"] ?? "?") ← \(from): \(got["framesDecoded"] ?? "-") frames, \(got["audioBlocks"] ?? "-") audio blocks")
            #expect((got["framesDecoded"] as? Int ?? 0) > 150 && got["decoderErrors"] as? Int == 0)
            #expect((got["audioBlocks"] as? Int ?? 0) > 250)
        }
    }
}
