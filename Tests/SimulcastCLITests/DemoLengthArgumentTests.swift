import Testing
import CommandLineSupport
@testable import SimulcastCLI

/// Both demos take any positive, finite `--seconds` (issue 11, item 7): long calls are allowed,
/// nonsense lengths are readable errors. Parsing only; nothing is started.
@Suite struct DemoLengthArgumentTests {
    @Test(arguments: ["30", "600", "3600", "86400", "0.5", "1e9"])
    func callDemoAcceptsAnyPositiveLength(seconds: String) throws {
        let (options, _) = try DemoCommand.parse(["--seconds", seconds])
        #expect(options.seconds == Double(seconds))
    }

    @Test(arguments: ["30", "3600", "86400", "0.5"])
    func roomDemoAcceptsAnyPositiveLength(seconds: String) throws {
        let (options, _) = try RoomDemo.parse(["--participants", "--seconds", seconds])
        #expect(options.seconds == Double(seconds))
        // The throttle window keeps its shape (4-9 s of 16) at any length, to 0.1 s.
        #expect(options.throttleFromSeconds == (options.seconds / 4 * 10).rounded() / 10)
        #expect(options.throttleToSeconds == (options.seconds * 9 / 16 * 10).rounded() / 10)
    }

    /// A short call's default window is a tenth-of-a-second figure in the header and the JSON
    /// (a 6 s call was throttled "from 1.2000000000000002 s"); 15 s and longer keep 3-7 s.
    @Test func defaultThrottleWindowsAreTenthsOfASecond() throws {
        let short = try DemoCommand.parse(["--seconds", "6"]).options
        #expect(short.throttleFromSeconds == 1.2 && short.throttleToSeconds == 2.8)
        #expect(secondsText(short.throttleFromSeconds) == "1.2" && secondsText(short.throttleToSeconds) == "2.8")
        let long = try DemoCommand.parse(["--seconds", "60"]).options
        #expect(long.throttleFromSeconds == 3 && long.throttleToSeconds == 7 && secondsText(long.throttleFromSeconds) == "3")
        let room = try RoomDemo.parse(["--participants", "--seconds", "7"]).options
        #expect(room.throttleFromSeconds == 1.8 && room.throttleToSeconds == 3.9)
    }

    @Test(arguments: ["0", "-5", "nan", "inf", "-inf", "1e999", "ten", ""])
    func nonsenseLengthsAreReadableErrors(seconds: String) {
        expectBothDemosRefuse(seconds, saying: "expected a positive, finite number of seconds, e.g. 15 or 2.5")
    }

    /// A call shorter than one frame interval (1/30 s) would send no frame (issue 25, item 4).
    @Test(arguments: ["1e-9", "0.01", "0.0333"])
    func lengthsShorterThanOneFrameAreReadableErrors(seconds: String) {
        expectBothDemosRefuse(seconds, saying: "expected at least one frame interval (1/30 s at 30 fps), e.g. 15 or 2.5")
    }

    /// `demo` and `demo --participants` both refuse `--seconds seconds` with `reason`.
    private func expectBothDemosRefuse(_ seconds: String, saying reason: String) {
        for parse in [{ _ = try DemoCommand.parse(["--seconds", seconds]) },
                      { _ = try RoomDemo.parse(["--participants", "3", "--seconds", seconds]) }] {
            do {
                try parse()
                Issue.record("--seconds \(seconds) was accepted")
            } catch {
                #expect("\(error)" == "--seconds \(seconds): \(reason)")
            }
        }
    }

    @Test func oneFrameIntervalIsLongEnough() throws {
        #expect(try DemoCommand.parse(["--seconds", "0.034"]).options.seconds == 0.034)
        #expect(try RoomDemo.parse(["--participants", "--seconds", "0.034"]).options.seconds == 0.034)
    }

    @Test func anInfiniteThrottleWindowIsRejected() {
        #expect(throws: CommandLineArguments.ParseError.self) { _ = try DemoCommand.parse(["--throttle", "1-inf"]) }
    }

    @Test func theRoomDemoKeepsSpeakerSnapshotsOnlyForTheJSON() throws {
        #expect(try RoomDemo.parse(["--participants", "--seconds", "3600"]).options.recordsSpeakerSnapshots == false)
        #expect(try RoomDemo.parse(["--participants", "--json", "/tmp/room.json"]).options.recordsSpeakerSnapshots)
    }

    @Test func theDurationSaturatesInsteadOfTrapping() {
        #expect(microseconds(seconds: 2.5) == 2_500_000)
        #expect(microseconds(seconds: 1e300) == .max)
        #expect(microseconds(seconds: 0) == 0)
    }
}
