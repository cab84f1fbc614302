import Foundation
import Testing
@testable import SimulcastCLI

/// Every command-line input a command cannot use is refused up front with one sentence
/// (issue 25, item 4): a Y4M file cut short or holding no frame, a length shorter than one
/// frame, an output path that cannot be written. Runs the built executable, as a user would,
/// with calls of 20 s that must never start: each refusal has to come back within a few seconds.
@Suite struct CommandInputRefusalTests {
    /// A scratch directory with Y4M files of 16x16 frames (384 bytes each): one whole frame
    /// then 5 bytes of the next, and a header alone; plus a regular file.
    final class Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-refusals-\(UUID().uuidString)").path
        var truncated: String { directory + "/truncated.y4m" }
        var headerOnly: String { directory + "/header-only.y4m" }
        var regularFile: String { directory + "/file" }

        init() throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let header = Array("YUV4MPEG2 W16 H16 F30:1 C420jpeg\n".utf8)
            let frame = Array("FRAME\n".utf8) + [UInt8](repeating: 128, count: 384)
            try Data(header + frame + Array("FRAME\n".utf8) + [1, 2, 3, 4, 5]).write(to: URL(fileURLWithPath: truncated))
            try Data(header).write(to: URL(fileURLWithPath: headerOnly))
            try Data("not a directory\n".utf8).write(to: URL(fileURLWithPath: regularFile))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs `simulcast arguments...`: it must exit 1 within 5 s (the calls asked for last 20 s)
    /// having printed one line on standard error; that line.
    private func refusal(_ arguments: [String]) throws -> String {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try SimulcastExecutable().run(arguments)
        let elapsed = clock.now - start
        let command = "simulcast " + arguments.joined(separator: " ")
        #expect(outcome.status == 1, "exit status of \(command)")
        #expect(elapsed < .seconds(5), "\(command) took \(elapsed) to refuse")
        #expect(outcome.standardError.hasSuffix("\n") && outcome.standardError.filter { $0 == "\n" }.count == 1,
                "\(command) printed \(outcome.standardError)")
        #expect(!outcome.standardOutput.contains("simulcast demo:"), "\(command) started the call")
        return outcome.standardError
    }

    @Test func aY4MFileCutShortIsRefusedByEveryCommandAsByEncode() throws {
        let scratch = try Scratch()
        let reason = "frame 1 of the Y4M file is cut short: 5 of 384 bytes\n"
        #expect(try refusal(["encode", "--input", scratch.truncated, "--out", scratch.directory + "/encode"])
                == "simulcast encode: " + reason)
        #expect(try refusal(["demo", "--input", scratch.truncated, "--seconds", "20", "--size", "640x360"])
                == "simulcast demo: " + reason)
        #expect(try refusal(["send", "--to", "127.0.0.1:9", "--input", scratch.truncated, "--seconds", "20"])
                == "simulcast send: " + reason)
        #expect(try refusal(["publish", "--janus", "http://127.0.0.1:9/janus", "--bind", "127.0.0.1",
                             "--input", scratch.truncated, "--seconds", "20"])
                == "simulcast publish: " + reason)
        // Nothing was written for the refused encode.
        #expect(!FileManager.default.fileExists(atPath: scratch.directory + "/encode"))
    }

    @Test func aY4MHeaderWithoutFramesIsRefusedByEveryCommandAsByEncode() throws {
        let scratch = try Scratch()
        let reason = "the Y4M file holds a header but no frames: expected a 'FRAME' line and the pixels of at least "
            + "one frame after it\n"
        #expect(try refusal(["encode", "--input", scratch.headerOnly, "--out", scratch.directory + "/encode"])
                == "simulcast encode: " + reason)
        #expect(try refusal(["demo", "--input", scratch.headerOnly, "--seconds", "20", "--size", "640x360"])
                == "simulcast demo: " + reason)
        #expect(try refusal(["send", "--to", "127.0.0.1:9", "--input", scratch.headerOnly, "--seconds", "20"])
                == "simulcast send: " + reason)
    }

    @Test func lengthsShorterThanOneFrameAreRefused() throws {
        let reason = "expected at least one frame interval (1/30 s at 30 fps), e.g. 15 or 2.5\n"
        #expect(try refusal(["demo", "--seconds", "1e-9"]) == "simulcast demo: --seconds 1e-9: " + reason)
        #expect(try refusal(["demo", "--participants", "--seconds", "0.02"]) == "simulcast demo: --seconds 0.02: " + reason)
        #expect(try refusal(["soak", "--seconds", "1e-9"]) == "simulcast soak: --seconds 1e-9: " + reason)
        #expect(try refusal(["soak", "--seconds", "20", "--sample-every", "0.001"])
                == "simulcast soak: --sample-every 0.001: " + reason)
    }

    /// `/proc` takes no new files, even from root; a directory is not a file; a file is not a
    /// directory.
    @Test func outputPathsThatCannotBeWrittenAreRefusedBeforeTheCall() throws {
        let scratch = try Scratch()
        let call = ["--seconds", "20", "--size", "640x360"]
        #expect(try refusal(["demo", "--json", "/proc/demo.json"] + call)
                == "simulcast demo: cannot write /proc/demo.json: No such file or directory\n")
        #expect(try refusal(["demo", "--json", scratch.directory] + call)
                == "simulcast demo: cannot write \(scratch.directory): Is a directory\n")
        #expect(try refusal(["demo", "--json", scratch.regularFile + "/demo.json"] + call)
                == "simulcast demo: cannot create directory \(scratch.regularFile): \(scratch.regularFile) exists and is not a directory\n")
        #expect(try refusal(["demo", "--save", "/proc"] + call)
                == "simulcast demo: cannot write into directory /proc: No such file or directory\n")
        #expect(try refusal(["demo", "--participants", "--json", "/proc/room.json", "--seconds", "20"])
                == "simulcast demo: cannot write /proc/room.json: No such file or directory\n")
        #expect(try refusal(["soak", "--json", "/proc/soak.json", "--seconds", "20", "--size", "640x360"])
                == "simulcast soak: cannot write /proc/soak.json: No such file or directory\n")
        #expect(try refusal(["send", "--to", "127.0.0.1:9", "--pcap", "/proc/send.pcap", "--seconds", "20"])
                == "simulcast send: cannot write /proc/send.pcap: No such file or directory\n")
        #expect(try refusal(["encode", "--out", "/proc/encode", "--frames", "1"])
                == "simulcast encode: cannot create directory /proc/encode: No such file or directory\n")
    }
}
