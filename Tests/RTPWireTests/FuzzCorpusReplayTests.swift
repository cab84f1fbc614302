import Foundation
import Testing
import RTPWire

/// Replays every seed in Tests/Fuzz/Corpus/<target>/ and every finding in
/// Tests/Fuzz/FailCases/<target>/ through the parser the target fuzzes: errors are fine, traps
/// are not, and a successful parse must survive the same round trip the fuzz target checks.
///
/// The engine targets (file readers, SRTP, endpoints) need the sanitizer build of
/// Tests/Fuzz/EngineTargets: scripts/fuzz-engine.sh replays their directories (`make fuzz-smoke`).
@Suite struct FuzzCorpusReplayTests {
    /// Targets of Tests/Fuzz/EngineTargets, replayed by scripts/fuzz-engine.sh instead.
    static let engineTargets: Set<String> = ["y4m", "ivf", "wav", "pcapfile", "srtp", "publisher", "subscriber", "node", "ice", "dtls", "janus", "turn", "bundle"]

    static var fuzzDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz")
    }

    /// (target name, file) for every non-hidden file of every target directory.
    static var inputs: [(target: String, file: URL)] {
        let manager = FileManager.default
        var inputs: [(String, URL)] = []
        for kind in ["Corpus", "FailCases"] {
            let root = fuzzDirectory.appendingPathComponent(kind)
            let targets = (try? manager.contentsOfDirectory(atPath: root.path)) ?? []
            for target in targets.sorted() where !target.hasPrefix(".") {
                let directory = root.appendingPathComponent(target)
                let files = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
                for file in files.sorted() where !file.hasPrefix(".") {
                    inputs.append((target, directory.appendingPathComponent(file)))
                }
            }
        }
        return inputs
    }

    @Test func corpusIsPresentForEveryTarget() {
        let targets = Set(Self.inputs.map(\.target))
        #expect(targets.isSuperset(of: WireRoundTripCheck.allCases.map(\.rawValue)))
    }

    @Test func everyCorpusAndFailCaseFileKeepsTheRoundTripInvariants() throws {
        var replayed = 0
        for (target, file) in Self.inputs where !Self.engineTargets.contains(target) {
            guard let check = WireRoundTripCheck(rawValue: target) else {
                Issue.record("\(target)/\(file.lastPathComponent): no parser check named \(target)")
                continue
            }
            let bytes = [UInt8](try Data(contentsOf: file))
            if let violation = check.violation(in: bytes) {
                Issue.record("\(target)/\(file.lastPathComponent): \(violation)")
            }
            replayed += 1
        }
        #expect(replayed > 0)
    }
}
