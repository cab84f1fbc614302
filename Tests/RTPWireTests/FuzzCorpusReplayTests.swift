import Foundation
import Testing
import RTPWire

/// Replays every seed in Tests/Fuzz/Corpus/<target>/ and every finding in
/// Tests/Fuzz/FailCases/<target>/ through the parser the target fuzzes: errors are fine, traps
/// are not, and a successful parse must survive the same round trip the fuzz target checks.
@Suite struct FuzzCorpusReplayTests {
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

    @Test func corpusIsPresent() {
        let targets = Set(Self.inputs.map(\.target))
        #expect(targets.isSuperset(of: ["rtcp", "pcap"]))
    }

    @Test func everyCorpusAndFailCaseFileReplaysWithoutCrashing() throws {
        var replayed = 0
        for (target, file) in Self.inputs {
            let bytes = [UInt8](try Data(contentsOf: file))
            switch target {
            case "rtcp":
                replayRTCP(bytes, file: file.lastPathComponent)
            case "pcap":
                replayPcap(bytes, file: file.lastPathComponent)
            default:
                // Targets of other parsers (the RTP helper's rtp, vp8, opus) get their replay
                // cases here when their fuzz targets land.
                continue
            }
            replayed += 1
        }
        #expect(replayed > 0)
    }

    func replayRTCP(_ bytes: [UInt8], file: String) {
        _ = try? RTPOrRTCP.classify(bytes)
        guard let packet = try? RTCPCompoundPacket(parsing: bytes) else { return }
        do {
            let serialized = try packet.serialized()
            #expect(try RTCPCompoundPacket(parsing: serialized) == packet, "rtcp/\(file)")
        } catch {
            Issue.record("rtcp/\(file): parsed packet failed to round-trip: \(error)")
        }
    }

    func replayPcap(_ bytes: [UInt8], file: String) {
        guard var reader = try? PcapReader(bytes) else { return }
        var steps = 0
        while steps <= bytes.count {
            steps += 1
            do {
                guard let record = try reader.next() else { return }
                _ = record.payload.count
            } catch {
                continue
            }
        }
        Issue.record("pcap/\(file): reader did not reach the end")
    }
}
