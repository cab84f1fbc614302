import Foundation
import Testing
import EngineCore
import SRTP

/// Runs `gst-launch-1.0` pipelines for the interop tests. A missing GStreamer is a failure with
/// a clear message (`make test` installs it through scripts/install-deps.sh), never a skip.
enum GStreamer {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "gst-launch-1.0 not found on PATH: install gstreamer1.0-tools, -plugins-base, -plugins-good and "
                + "-plugins-bad (scripts/install-deps.sh does it; `make test` runs that script)"
        }
    }

    static func launcher() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("gst-launch-1.0")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing()
    }

    /// A running pipeline whose output goes to a log file.
    ///
    /// Spawned with `posix_spawn` and an explicitly empty signal mask and default dispositions:
    /// the test runner's threads block SIGINT/SIGTERM, a mask a child would otherwise inherit
    /// (Foundation's `Process` keeps it), and then gst-launch would never see the SIGINT that
    /// `-e` turns into EOS.
    final class Pipeline {
        let pid: pid_t
        let log: URL
        private var exited = false

        init(_ elements: [String], log: URL) throws {
            let executable = try GStreamer.launcher().path
            self.log = log
            let argv = [executable, "-e"] + elements
            var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
            defer { for pointer in cArguments { free(pointer) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGINT)
            sigaddset(&defaults, SIGTERM)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, &attributes, &cArguments, environ)
            guard status == 0 else { throw SendTestError("posix_spawn \(executable) failed: \(status)") }
            pid = child
        }

        deinit {
            if !exited {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }

        /// SIGINT (gst-launch -e turns it into EOS so filesink flushes), then waits up to 10 s.
        func stop() throws {
            guard !exited else { return }
            kill(pid, SIGINT)
            let deadline = Date().addingTimeInterval(10)
            var status: Int32 = 0
            while Date() < deadline {
                if waitpid(pid, &status, WNOHANG) == pid {
                    exited = true
                    return
                }
                usleep(20_000)
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            exited = true
            Issue.record("gst-launch-1.0 did not stop within 10 s of SIGINT; log:\n\(logText)")
        }

        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        /// Waits until gst-launch says the pipeline is PLAYING (its udpsrc bound its port in the
        /// state changes before), at most `seconds`: a fixed sleep raced a slow start on a loaded
        /// machine (gst-launch took over a second to load its plugins and every frame went to a
        /// port nobody had bound yet).
        func waitUntilPlaying(seconds: Double = 20) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if logText.contains("Setting pipeline to PLAYING") { return }
                usleep(20_000)
            }
            throw SendTestError("gst-launch-1.0 not PLAYING after \(seconds) s; log:\n\(logText)")
        }
    }

    static func srtpCaps(media: String, clockRate: Int, encoding: String, payload: Int, ssrc: UInt32, keyHex: String,
                         suite: SRTPSuite = .aesCm128HmacSha1_80) -> String {
        // srtpdec's names for the suite (GCM authenticates by itself: auth null).
        let (cipher, auth): (String, String) = switch suite {
        case .aesCm128HmacSha1_80: ("aes-128-icm", "hmac-sha1-80")
        case .aesCm128HmacSha1_32: ("aes-128-icm", "hmac-sha1-32")
        case .aeadAes128Gcm: ("aes-128-gcm", "null")
        case .aeadAes256Gcm: ("aes-256-gcm", "null")
        }
        let rtcpAuth = suite == .aesCm128HmacSha1_32 ? "hmac-sha1-80" : auth  // RFC 5764 §4.1.2: SRTCP keeps 80 bits
        return "caps=application/x-srtp,media=(string)\(media),clock-rate=(int)\(clockRate),encoding-name=(string)\(encoding),"
            + "payload=(int)\(payload),ssrc=(uint)\(ssrc),srtp-key=(buffer)\(keyHex),srtp-cipher=(string)\(cipher),"
            + "srtp-auth=(string)\(auth),srtcp-cipher=(string)\(cipher),srtcp-auth=(string)\(rtcpAuth),roc=(uint)0"
    }
}

/// A UDP port that is free now, with port + 1 free too (RTCP goes there when not muxed).
func freePortPair() throws -> UInt16 {
    for _ in 0..<50 {
        let first = try UDPSocket()
        let port = first.localEndpoint.port
        guard port < UInt16.max - 1 else { continue }
        if (try? UDPSocket(bindingTo: .loopback(port: port + 1))) != nil { return port }
    }
    throw SendTestError("no free UDP port pair found")
}

struct SendTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.intValue ?? 0
}

/// A fixed 30-byte key||salt (base64 and hex).
let interopKey = fixedKeyAndSalt(for: .aesCm128HmacSha1_80)
let interopKeyBase64 = Data(interopKey).base64EncodedString()
let interopKeyHex = interopKey.map { String(format: "%02x", $0) }.joined()

/// A fixed master key || salt of `suite`'s length (the same bytes for every suite, cut to size).
func fixedKeyAndSalt(for suite: SRTPSuite) -> [UInt8] { (0..<suite.keyingMaterialLength).map { UInt8(($0 * 37 + 11) & 0xFF) } }
