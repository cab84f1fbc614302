import Simulcast
import Testing
@testable import EngineCore

@Suite struct NegotiatedPublishingTests {
    @Test func offeredRIDsNameTheLayersHighestFirst() throws {
        #expect(NegotiatedPublishing.offeredRIDs(for: try LayerPlan(width: 1280, height: 720)) == ["f", "h", "q"])
        #expect(NegotiatedPublishing.offeredRIDs(for: try LayerPlan(width: 640, height: 360)) == ["f", "q"])
        #expect(NegotiatedPublishing.offeredRIDs(for: try LayerPlan(width: 320, height: 180)) == [])
    }

    @Test func theAnswersRIDsNarrowThePlan() throws {
        let camera = try LayerPlan(width: 1280, height: 720)
        func sizes(_ accepted: [String]) throws -> [String] {
            try NegotiatedPublishing.plan(for: camera, accepted: accepted).layers.map { "\($0.width)x\($0.height)" }
        }
        #expect(try sizes(["f", "h", "q"]) == ["320x180", "640x360", "1280x720"])
        #expect(try sizes(["h", "q", "f"]) == ["320x180", "640x360", "1280x720"])
        #expect(try sizes(["f", "q"]) == ["320x180", "1280x720"])       // MAX_LAYER_2
        #expect(try sizes([]) == ["1280x720"])                          // no simulcast: the top layer
        #expect(try sizes(["q"]) == ["320x180"])
        #expect(try sizes(["h"]) == ["640x360"])
        #expect(throws: NegotiatedPublishing.UnsupportedRIDs.self) { try sizes(["f", "h"]) }
        #expect(throws: NegotiatedPublishing.UnsupportedRIDs.self) { try sizes(["x"]) }
        // A single-layer plan sends no RID.
        let single = try NegotiatedPublishing.plan(for: camera, accepted: [])
        #expect(VideoTrackConfiguration.rids(layerCount: single.layers.count) == [nil])
    }
}
