import MediaEngine
import Testing

/// `EncoderAdvisor` and `CPUBudget` as a client sees them (`import MediaEngine` only).
@Suite struct EncoderAdvisorTests {
    static let hd = VideoSize(width: 1280, height: 720)

    static func measurement(_ layers: EncoderCandidate.Layers, _ size: VideoSize = hd, fps: Int = 30,
                            cpuUsed: Int = -6, cost: Double) -> EncoderMeasurement {
        EncoderMeasurement(candidate: EncoderCandidate(layers: layers, size: size, frameRate: fps, cpuUsed: cpuUsed),
                           cpuPercentOfOneCore: cost, layers: [])
    }

    @Test(arguments: ["0", "0%", "150%", "100.5", "-5%", "twenty", "", "%", "nan", "1e400"])
    func aBadBudgetIsATypedError(_ text: String) {
        #expect(throws: CPUBudgetError.self) { try CPUBudget(parsing: text) }
    }

    @Test func badBudgetsSayWhatIsWrong() {
        #expect(throws: CPUBudgetError.notPositive(0)) { try CPUBudget(parsing: "0") }
        #expect(throws: CPUBudgetError.notPositive(-5)) { try CPUBudget(parsing: "-5%") }
        #expect(throws: CPUBudgetError.aboveOneCore(150)) { try CPUBudget(parsing: "150%") }
        #expect(throws: CPUBudgetError.notANumber("text")) { try CPUBudget(parsing: "text") }
        #expect(CPUBudgetError.aboveOneCore(150).description.contains("at most 100%"))
        #expect(CPUBudgetError.notANumber("text").description.contains("'text' is not a number"))
    }

    @Test func budgetsParseAsUsersWriteThem() throws {
        #expect(try CPUBudget(parsing: "20%").percentOfOneCore == 20)
        #expect(try CPUBudget(parsing: "20").percentOfOneCore == 20)
        #expect(try CPUBudget(parsing: " 12.5 % ").percentOfOneCore == 12.5)
        #expect(try CPUBudget(parsing: "100%").percentOfOneCore == 100)
    }

    @Test func aBudgetBetweenTheTwoCostsChoosesMaxLayer2AndAboveChoosesMaxLayer3() throws {
        let measured = [Self.measurement(.maxLayer3, cost: 27), Self.measurement(.maxLayer2, cost: 21),
                        Self.measurement(.single, cost: 20.5),
                        Self.measurement(.maxLayer3, cpuUsed: -10, cost: 19), Self.measurement(.maxLayer3, fps: 15, cost: 14),
                        Self.measurement(.maxLayer3, VideoSize(width: 640, height: 360), cost: 8)]
        #expect(try EncoderAdvisor.choose(budget: CPUBudget(percentOfOneCore: 24), from: measured).candidate.layers == .maxLayer2)
        let above = try EncoderAdvisor.choose(budget: CPUBudget(percentOfOneCore: 30), from: measured)
        #expect(above.candidate == EncoderCandidate(layers: .maxLayer3, size: Self.hd, frameRate: 30))
        // Below the 720p30 cpu_used -6 set: faster encoding keeps 720p30 before the frame rate drops.
        #expect(try EncoderAdvisor.choose(budget: CPUBudget(percentOfOneCore: 20), from: measured).candidate.cpuUsed == -10)
        #expect(try EncoderAdvisor.choose(budget: CPUBudget(percentOfOneCore: 15), from: measured).candidate.frameRate == 15)
        #expect(try EncoderAdvisor.choose(budget: CPUBudget(percentOfOneCore: 10), from: measured).candidate.size.width == 640)
    }

    @Test func aBudgetBelowEveryCostIsATypedErrorNamingTheCheapest() throws {
        let measured = [Self.measurement(.maxLayer3, cost: 27), Self.measurement(.single, cost: 9)]
        let budget = try CPUBudget(percentOfOneCore: 5)
        #expect(throws: EncoderAdvisorError.nothingFits(budget: budget, cheapest: measured[1])) {
            try EncoderAdvisor.choose(budget: budget, from: measured)
        }
    }

    @Test func theChoiceDoesNotDependOnTheOrderOfTheMeasurements() throws {
        let measured = [Self.measurement(.maxLayer3, cost: 27), Self.measurement(.maxLayer2, cost: 21),
                        Self.measurement(.single, cost: 20), Self.measurement(.maxLayer2, fps: 15, cost: 11)]
        let budget = try CPUBudget(percentOfOneCore: 25)
        let forward = try EncoderAdvisor.choose(budget: budget, from: measured)
        #expect(try EncoderAdvisor.choose(budget: budget, from: measured.reversed()) == forward)
    }

    @Test func badAdvisorSettingsAreTypedErrors() {
        #expect(throws: EncoderAdvisorError.noCandidates) { try EncoderAdvisor(candidates: []) }
        #expect(throws: EncoderAdvisorError.invalidFrameCount(1)) { try EncoderAdvisor(framesPerMeasurement: 1) }
        let sixty = EncoderCandidate(layers: .single, size: Self.hd, frameRate: 60)
        #expect(throws: EncoderAdvisorError.self) { try EncoderAdvisor(candidates: [sixty]) }
        let tooFast = EncoderCandidate(layers: .single, size: Self.hd, frameRate: 30, cpuUsed: -40)
        #expect(throws: EncoderAdvisorError.self) { try EncoderAdvisor(candidates: [tooFast], framesPerMeasurement: 4).measure() }
    }

    @Test func theCostIsTheMedianCPUTimePerFrameTimesTheFrameRate() throws {
        final class SteppingClock: @unchecked Sendable {
            var now: Int64 = 0
            func read() -> Int64 { now += 5_000_000; return now }  // every encode "takes" 5 ms
        }
        let clock = SteppingClock()
        let small = VideoSize(width: 640, height: 360)
        let advisor = try EncoderAdvisor(candidates: [EncoderCandidate(layers: .single, size: small, frameRate: 30),
                                                      EncoderCandidate(layers: .single, size: small, frameRate: 15)],
                                         framesPerMeasurement: 4)
        let measured = try advisor.measure(cpuClock: clock.read)
        #expect(measured.map(\.cpuPercentOfOneCore) == [15, 7.5])
        #expect(measured.allSatisfy { $0.layers.count == 1 && $0.layers[0].width == 640 && $0.layers[0].kbps > 0 })
    }

    /// A burst of contention (eight encodes in a row costing 50 ms instead of 5 ms, the 15th to
    /// the 22nd) lands in the middle of the measurement. Measured one after the other (after a
    /// 12-frame warm-up) it would fall on MAX_LAYER_3 alone (8 of its 11 counted frames, median
    /// 50 ms); encoded frame by frame in turn, each layer variant takes 4 and both medians stay 5 ms.
    @Test func aBurstOfContentionFallsOnEveryLayerVariantAlike() throws {
        final class BurstClock: @unchecked Sendable {
            var now: Int64 = 0
            var reads = 0
            func read() -> Int64 {  // two reads per encode: the cost is the second read's step
                reads += 1
                now += (29...44).contains(reads) ? 50_000_000 : 5_000_000
                return now
            }
        }
        let small = VideoSize(width: 640, height: 360)
        let advisor = try EncoderAdvisor(candidates: [EncoderCandidate(layers: .maxLayer3, size: small, frameRate: 30),
                                                      EncoderCandidate(layers: .maxLayer2, size: small, frameRate: 30)],
                                         framesPerMeasurement: 12)
        let measured = try advisor.measure(cpuClock: BurstClock().read)
        #expect(measured.map(\.candidate.layers) == [.maxLayer3, .maxLayer2])
        #expect(measured.map(\.cpuPercentOfOneCore) == [15, 15])
    }

    /// A real measurement (libvpx, a few frames of the built-in scene): budgets derived from the
    /// measured costs, so the test holds on any machine at any load.
    @Test func aRealMeasurementChoosesMaxLayer2BetweenTheCostsAndMaxLayer3Above() throws {
        let candidates = [EncoderCandidate.Layers.maxLayer3, .maxLayer2, .single].map {
            EncoderCandidate(layers: $0, size: Self.hd, frameRate: 30)
        }
        let advisor = try EncoderAdvisor(candidates: candidates, framesPerMeasurement: 12)
        let measured = try advisor.measure()
        #expect(measured.map(\.candidate) == candidates)
        let two = try #require(measured.first { $0.candidate.layers == .maxLayer2 })
        let three = try #require(measured.first { $0.candidate.layers == .maxLayer3 })
        #expect(two.layers.count == 2 && three.layers.count == 3)
        #expect(three.layers.allSatisfy { $0.kbps > 0 && $0.psnr > 25 })
        try #require(two.cpuPercentOfOneCore < three.cpuPercentOfOneCore && three.cpuPercentOfOneCore < 100,
                     "measured: \(measured.map { "\($0.candidate.layers.rawValue) \($0.cpuPercentOfOneCore) %" })")
        let between = try CPUBudget(percentOfOneCore: (two.cpuPercentOfOneCore + three.cpuPercentOfOneCore) / 2)
        #expect(try EncoderAdvisor.choose(budget: between, from: measured).candidate.layers == .maxLayer2)
        let above = try CPUBudget(percentOfOneCore: (three.cpuPercentOfOneCore + 100) / 2)
        #expect(try EncoderAdvisor.choose(budget: above, from: measured).candidate.layers == .maxLayer3)
    }
}
