import CommandLineSupport
import Foundation
import MediaCodecs
import RTPWire

/// `simulcast inspect`: a debugging view of packets.
/// `--hex HEX` prints one RTP or RTCP packet (RFC 5761 §4 demultiplexing) as JSON, or
/// `{"error": NAME, "detail": ...}` and exit status 1; `FILE.pcap` prints a per-SSRC summary.
enum InspectCommand {
    static let usage = """
    usage: simulcast inspect --hex HEX [--ext ID=NAME,...] [--vp8-pt PT,...] [--opus-pt PT,...]
           simulcast inspect FILE.pcap [same options]
      --ext      header extension ids (default 1=audio-level,2=abs-send-time,3=transport-cc,4=mid,
                 10=rid,11=repaired-rid); names: audio-level abs-send-time transport-cc mid rid repaired-rid
      --vp8-pt   payload types parsed as VP8 (RFC 7741; default 96)
      --opus-pt  payload types parsed as Opus (RFC 7587; default 111)
    """

    /// Runs the command; returns the exit status.
    static func run(_ arguments: ArraySlice<String>) throws -> Int32 {
        let options = try CommandLineArguments(arguments, valueOptions: ["hex", "ext", "vp8-pt", "opus-pt"],
                                               maxPositionals: 1)
        let inspect = try InspectOptions(options)
        if let hex = options.string("hex") {
            let (json, ok) = describe(hex: hex, options: inspect)
            print(json.serialized())
            return ok ? 0 : 1
        }
        guard let path = options.positionals.first else { throw CommandError("give --hex HEX or a pcap file\n" + usage) }
        let bytes: [UInt8]
        do { bytes = try InputFile.readAll(path) } catch {
            throw CommandError("cannot read \(error.path) as a pcap capture: \(error.reason)")
        }
        let (json, ok) = summarize(pcap: bytes, options: inspect)
        print(json.serialized())
        return ok ? 0 : 1
    }

    static func describe(hex: String, options: InspectOptions) -> (JSONValue, Bool) {
        let bytes: [UInt8]
        do { bytes = try HexInput.parse(hex) } catch {
            return (.object([("error", "invalidHex"), ("detail", .string(error.description))]), false)
        }
        do {
            switch try RTPOrRTCP.classify(bytes) {
            case .rtp: return (PacketDescription.rtp(try RTPPacket(parsing: bytes), options: options), true)
            case .rtcp: return (PacketDescription.rtcp(try RTCPCompoundPacket(parsing: bytes)), true)
            }
        } catch {
            return (.object([("error", .string(error.name)), ("detail", .string(error.description))]), false)
        }
    }

    static func summarize(pcap bytes: [UInt8], options: InspectOptions) -> (JSONValue, Bool) {
        var reader: PcapReader
        do { reader = try PcapReader(bytes) } catch {
            let detail: String
            if case let .invalidValue("pcap magic", value) = error {
                detail = "not a pcap capture: it starts with 0x" + String(UInt32(truncatingIfNeeded: value), radix: 16)
                    + ", not a pcap magic number (a1b2c3d4 or a1b23c4d, either byte order)"
            } else {
                detail = "not a pcap capture: \(error)"
            }
            return (.object([("error", .string(error.name)), ("detail", .string(detail))]), false)
        }
        var streams: [UInt32: StreamSummary] = [:]
        var order: [UInt32] = []
        var rtcpTypes: [String: Int] = [:]
        var udpPackets = 0, notRTP = 0, badFrames = 0
        while true {
            let record: PcapRecord?
            do { record = try reader.next() } catch {
                badFrames += 1
                continue
            }
            guard let record else { break }
            udpPackets += 1
            guard let kind = try? RTPOrRTCP.classify(record.payload) else {
                notRTP += 1
                continue
            }
            switch kind {
            case .rtp:
                guard let packet = try? RTPPacket(parsing: record.payload) else {
                    notRTP += 1
                    continue
                }
                let ssrc = packet.header.ssrc
                if streams[ssrc] == nil {
                    streams[ssrc] = StreamSummary(ssrc: ssrc)
                    order.append(ssrc)
                }
                streams[ssrc]?.add(packet, options: options)
            case .rtcp:
                guard let compound = try? RTCPCompoundPacket(parsing: record.payload) else {
                    notRTP += 1
                    continue
                }
                for packet in compound.packets { rtcpTypes[rtcpName(packet), default: 0] += 1 }
            }
        }
        let json = JSONValue.object([
            ("udpPackets", .int(udpPackets)), ("notRTPOrRTCP", .int(notRTP)), ("malformedFrames", .int(badFrames)),
            ("streams", .array(order.compactMap { streams[$0]?.json })),
            ("rtcp", .object(rtcpTypes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
        ])
        return (json, true)
    }

    private static func rtcpName(_ packet: RTCPPacket) -> String {
        switch packet {
        case .senderReport: return "SR"
        case .receiverReport: return "RR"
        case .sourceDescription: return "SDES"
        case .goodbye: return "BYE"
        case .applicationDefined: return "APP"
        case .genericNACK: return "NACK"
        case .transportWideFeedback: return "TWCC"
        case .pictureLossIndication: return "PLI"
        case .fullIntraRequest: return "FIR"
        case .receiverEstimatedMaxBitrate: return "REMB"
        case .unknown: return "unknown"
        }
    }
}
