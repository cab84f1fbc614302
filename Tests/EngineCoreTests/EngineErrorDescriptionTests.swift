import Testing
import RTPWire
import SRTP
@testable import EngineCore

/// Engine errors read as sentences with the value and what is allowed (issue 11, item 5).
@Suite struct EngineErrorDescriptionTests {
    @Test func networkErrors() {
        #expect(throws: NetworkError.portOutOfRange(70_000)) { try NetworkEndpoint(parsing: "127.0.0.1:70000") }
        #expect(NetworkError.portOutOfRange(70_000).description == "port 70000 is out of range: use 1 to 65535")
        #expect(NetworkError.invalidAddress("foo").description
                == "'foo' is not an address: expected IPv4:PORT, [IPv6]:PORT or localhost:PORT (e.g. 127.0.0.1:5004, [2001:db8::1]:5004), "
                   + "or IPv4:P1,P2,P3 where a port list is allowed")
        #expect(NetworkError.socketFailed(operation: "bind 127.0.0.1:1", errno: 13).description
                == "bind 127.0.0.1:1 failed: Permission denied")
    }

    @Test func publisherErrorsNameTheLayerThatFailed() {
        #expect(PublisherError.srtp(.authenticationFailed).description
                == "SRTP: the SRTP/SRTCP packet failed authentication: wrong key or suite, or the packet was altered")
        #expect(PublisherError.packetTooLarge(size: 3000, limit: 2048).description
                == "a packet of 3000 bytes is larger than the send path's limit of 2048 bytes")
        #expect(PublisherError.trackNotConfigured("audio").description
                == "this publisher has no audio track: add one to its PublisherConfiguration first")
        #expect(PublisherError.file(path: "/nope/x.pcap", errno: 2).description == "cannot write /nope/x.pcap: No such file or directory")
        #expect(PublisherError.webcamQuality(.cameraOff).description
                == "the webcam quality cannot be set while the camera is off: turn the camera on first")
    }

    @Test func roomAndForwarderErrors() {
        let room = RoomNode()
        do {
            try room.addFeed(publisher: "ghost", ForwardedSubscriberConfiguration(
                id: "viewer", outputSSRC: 1, destination: .loopback(port: 9),
                sendKeys: nil, receiveKeys: nil))
            Issue.record("a feed of an unknown publisher was added")
        } catch {
            #expect("\(error)" == "the room has no publisher 'ghost': call addPublisher for it first")
        }
        #expect(RoomError.unknownSubscriber("v").description == "the room has no subscriber 'v': call addSubscriber for it first")
        #expect(ForwarderError.unknownSSRC(42).description == "SSRC 42 is not one of this track's layers")
        #expect(ForwarderError.unknownSubscriber("v").description == "the forwarder has no subscriber 'v': add it first")
        #expect(ForwarderError.malformed(.truncated(field: "RTP header", needed: 12, available: 2)).description
                == "the packet is not RTP carrying VP8 (RFC 3550, RFC 7741): cut short: RTP header needs 12 byte(s) but only 2 remain")
    }
}
