import CommandLineSupport
import Foundation
import MediaEngine
import MediaEngineTesting
import Simulcast

/// `simulcast call`: a call app over the public API. Joins a Janus VideoRoom
/// (`MediaEngine.joinJanusRoom`), publishes a camera (the built-in scene or a Y4M file) and a
/// microphone (a tone), consumes everyone in the room as they come (`participantJoined`,
/// `trackPublished`), shows a live table per remote participant, and at the end prints (and with
/// `--json` writes) a summary: what was sent, what was received from whom, the room's events in
/// order. SIGINT/SIGTERM leave the room cleanly.
enum CallCommand {
    static let usage = """
    usage: simulcast call --janus URL --name NAME [--bind IPV4] [--ice-server URL,...] [--ice-credentials USER:PASSWORD]
                          [--ice-transport-policy all|relay] [--room N] [--mode MODE]
                          [--input FILE.y4m] [--size WxH] [--tone HZ] [--screen-share] [--auto-consume true|false]
                          [--seconds S] [--json PATH] [--save DIR] [--quiet]
      --janus URL        Janus's HTTP API, e.g. http://10.0.0.1:8088/janus (VideoRoom plugin)
      --name NAME        this participant's id and display name in the room
      --bind IPV4        the one local address for ICE (default: every usable interface address)
      --ice-server URLS  STUN servers for server-reflexive candidates, e.g. stun:192.0.2.1:3478, and TURN servers
                         for relayed ones, e.g. turn:192.0.2.1:3478?transport=udp (comma-separated)
      --ice-credentials USER:PASSWORD
                         the TURN servers' long-term credentials
      --ice-transport-policy P
                         all (default) or relay: the camera's connection uses relayed candidates only
      --room N           the VideoRoom room (default 1234)
      --mode MODE        send-and-recv (default), recv-only (publishes nothing) or signalling-only (the room's
                         events only: no media at all)
      --input FILE.y4m   play this clip (looped) into the camera instead of the built-in scene
      --size WxH         camera encoder size (default 640x360)
      --tone HZ          the microphone's tone (default 440)
      --screen-share     also publish a screen share (the built-in slide scene)
      --auto-consume B   true (default): receive every camera and microphone in the room as it appears;
                         false: receive nothing
      --seconds S        how long to stay (default 30)
      --json PATH        write the summary as JSON
      --save DIR         write what arrives from each participant: DIR/<id>.ivf (video as received) and
                         DIR/<id>.wav (decoded audio, 48 kHz 16-bit mono)
      --quiet            no live table
    SIGTERM/SIGINT leave the room early.
    """

    struct Options {
        var url: URL
        var name: String
        var bind: String?
        var iceServers: [ICEServer]
        var iceTransportPolicy: ICETransportPolicy
        var room: Int
        var mode: RoomMode
        var input: String?
        var size: (width: Int, height: Int)
        var tone: Double
        var screenShare: Bool
        var autoConsume: Bool
        var seconds: Int
        var json: TextFileWriter?
        var save: String?
        var quiet: Bool
    }

    static func parse(_ arguments: ArraySlice<String>) throws -> Options {
        let options = try CommandLineArguments(arguments, valueOptions: ["janus", "name", "bind", "ice-server", "ice-credentials",
                                                                         "ice-transport-policy", "room", "mode", "input", "size",
                                                                         "tone", "auto-consume", "seconds", "json", "save"],
                                               flagOptions: ["screen-share", "quiet"])
        guard let janus = options.string("janus"), let url = URL(string: janus), url.scheme == "http" else {
            throw CommandError("--janus URL is required (http://HOST:PORT/janus)")
        }
        guard let name = options.string("name"), !name.isEmpty, name.count <= 64, !name.contains("|"), !name.contains("/") else {
            throw CommandError("--name NAME is required: 1 to 64 characters, without | or /")
        }
        var credentials: (username: String, password: String)?
        if let given = options.string("ice-credentials") {
            guard let colon = given.firstIndex(of: ":") else { throw CommandError("--ice-credentials must be USER:PASSWORD") }
            credentials = (String(given[..<colon]), String(given[given.index(after: colon)...]))
        }
        let iceServers = (options.string("ice-server")?.split(separator: ",").map {
            ICEServer(urls: [String($0)], username: credentials?.username, credential: credentials?.password)
        }) ?? []
        guard let iceTransportPolicy = ["all": ICETransportPolicy.all, "relay": .relay][options.string("ice-transport-policy") ?? "all"] else {
            throw CommandError("--ice-transport-policy must be all or relay")
        }
        for server in iceServers {
            do { _ = try server.parsedURLs() } catch { throw CommandError("--ice-server: \(error)") }
        }
        let modes: [String: RoomMode] = ["send-and-recv": .sendAndRecv, "recv-only": .recvOnly, "signalling-only": .signallingOnly]
        guard let mode = modes[options.string("mode") ?? "send-and-recv"] else {
            throw CommandError("--mode must be send-and-recv, recv-only or signalling-only")
        }
        guard let tone = Double(options.string("tone") ?? "440"), (20...20_000).contains(tone) else {
            throw CommandError("--tone must be a frequency from 20 to 20000 Hz")
        }
        guard let autoConsume = ["true": true, "false": false][options.string("auto-consume") ?? "true"] else {
            throw CommandError("--auto-consume must be true or false")
        }
        let save = options.string("save")
        if let save { try OutputFiles.createDirectory(save) }
        let json = try options.string("json").map { path throws(CommandError) in try OutputFiles.openForWriting(path) }
        return Options(url: url, name: name, bind: options.string("bind"), iceServers: iceServers,
                       iceTransportPolicy: iceTransportPolicy, room: try options.int("room", default: 1234, range: 1...Int(Int32.max)),
                       mode: mode, input: options.string("input"), size: try options.size("size", default: (640, 360)), tone: tone,
                       screenShare: options.flag("screen-share"), autoConsume: autoConsume,
                       seconds: try options.int("seconds", default: 30, range: 1...86_400), json: json, save: save,
                       quiet: options.flag("quiet"))
    }

    static func run(_ arguments: ArraySlice<String>) async throws {
        let options = try parse(arguments)
        let engine = MediaEngine()
        do {
            let summary = try await CallSession(options: options, engine: engine).run()
            await engine.close()
            let text = summary.serialized()
            if let json = options.json {
                try json.write(text + "\n")
                try json.close()
            }
            print(text)
        } catch {
            await engine.close()
            throw error
        }
    }
}
