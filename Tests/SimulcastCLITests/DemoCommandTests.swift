import Foundation
import MediaCodecs
import Testing
import Simulcast
import Synchronization
@testable import SimulcastCLI

/// A short `simulcast demo` run in-process (real time, loopback UDP, SRTP): the throttled
/// subscriber steps down for bandwidth and back up, with latencies; the others stay on their
/// viewport's layer; the JSON says so too.
@Suite(.serialized) struct DemoCommandTests {
    /// Also with end-to-end encryption (`--e2ee-key`): the node switches layers on frames it
    /// cannot read, and every subscriber opens and decodes them.
    @Test(arguments: [false, true])
    func throttledSubscriberStepsDownAndBackUpWhileTheOthersKeepTheirViewportLayer(e2ee: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("demo-test-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let jsonPath = directory.appendingPathComponent("demo.json").path
        // 960x540 (240x136-ish, 480x270, 960x540) keeps the debug build's CPU in check; the short
        // call gets a short hold and a fast estimate ramp so the way back up fits in it.
        let lines = OutputLines()
        let report = try await DemoCommand.run(
            ["--seconds", "8", "--size", "960x540", "--throttle", "1.5-3.5", "--throttle-kbps", "250",
             "--up-hold", "1000", "--growth", "200", "--json", jsonPath, "--save", directory.path]
                + (e2ee ? ["--e2ee-key", Data((0..<32).map { UInt8($0) }).base64EncodedString()] : []),
            output: { lines.append($0) })
        print(lines.text)

        let throttled = try #require(report.viewers.first { $0.throttled })
        let switches = throttled.switches.filter { $0.event.from != nil }
        let down = try #require(switches.first { $0.event.reason == .bandwidthDown })
        #expect(down.atMilliseconds >= 1_400)
        let downSpatial = switches.filter { $0.event.reason == .bandwidthDown }.compactMap { $0.event.to?.spatial }.min()
        #expect(downSpatial.map { $0 < throttled.viewportLayer } == true)
        let up = switches.last { $0.event.reason == .bandwidthUp && $0.event.to?.spatial == throttled.viewportLayer }
        #expect(up != nil)
        #expect((up?.atMilliseconds ?? 0) > down.atMilliseconds)
        #expect(throttled.finalLayer?.spatial == throttled.viewportLayer)
        #expect(switches.allSatisfy { $0.event.latencyMilliseconds >= 0 && $0.event.latencyMilliseconds < 2_000 })
        #expect(throttled.droppedByLink > 0)
        #expect(throttled.decoderErrors == 0)
        #expect(report.viewers.allSatisfy { ($0.finalStats?.framesUndecryptable ?? 0) == 0 })
        #expect(lines.text.contains("E2EE (SFrame) on") == e2ee)

        for viewer in report.viewers where !viewer.throttled {
            #expect(viewer.switches.allSatisfy { $0.event.reason == .client })
            #expect(viewer.finalLayer?.spatial == viewer.viewportLayer)
            let onViewport = viewer.spatialMilliseconds(layerCount: report.layerSizes.count)[viewer.viewportLayer]
            #expect(Double(onViewport) >= 0.9 * report.seconds * 1000)
            #expect(viewer.decoderErrors == 0)
            #expect(viewer.framesDecoded >= 150)
        }
        #expect(report.viewers.map(\.viewportLayer) == [0, 1, 2, 2])

        // The JSON carries the same story.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any]
        let subscribers = try #require(json?["subscribers"] as? [[String: Any]])
        #expect(subscribers.count == 4)
        let last = try #require(subscribers.last)
        let reasons = (last["switches"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
        #expect(reasons.contains("bandwidthDown") && reasons.contains("bandwidthUp"))
        for subscriber in subscribers {
            for key in ["framesDecoded", "decoderErrors", "freezes", "switches", "timeOnLayerMs", "ivf"] {
                #expect(subscriber[key] != nil, "missing \(key)")
            }
        }
        // And what each subscriber received was saved, under a header that says the size it
        // received (its viewport's layer), not the publisher's top layer.
        for viewer in report.viewers {
            let path = try #require(viewer.ivfPath)
            #expect(FileManager.default.fileExists(atPath: path))
            guard !viewer.throttled else { continue }
            let reader = try IVFReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            #expect("\(reader.width)x\(reader.height)" == report.layerSizes[viewer.viewportLayer], "\(path)")
        }
    }
}

/// What a command printed, collected from whatever thread it prints on.
final class OutputLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
