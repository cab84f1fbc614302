// Command pion-parse times pion/rtp on the packet `simulcast-bench wire --packet-out PATH` wrote:
// rtp.Packet.Unmarshal + two GetExtension calls + codecs.VP8Packet.Unmarshal per op, the work of
// the wire benchmark's rtp_view_parse row. Built by scripts/bench-pion.sh in GOPATH mode against
// Debian's golang-github-pion-rtp-dev; prints one JSON object.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"unsafe"

	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
)

var sink int

// threadCPUNanoseconds reads CLOCK_THREAD_CPUTIME_ID (3) for the calling OS thread, the clock the
// Swift side's cpuNsPerOp uses: time the thread spent preempted on a shared machine is not in it.
func threadCPUNanoseconds() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func main() {
	first := flag.Uint("ext1", 2, "first extension id to look up (abs-send-time in the engine's default map)")
	second := flag.Uint("ext2", 3, "second extension id to look up (transport-cc in the engine's default map)")
	runs := flag.Int("runs", 5, "benchmark runs; ns/op is their median")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pion-parse [-ext1 ID] [-ext2 ID] [-runs N] PACKET_FILE")
		os.Exit(2)
	}
	packet, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ext1, ext2 := uint8(*first), uint8(*second)

	// The packet must parse with both extensions and a VP8 descriptor before anything is timed.
	var check rtp.Packet
	var checkVP8 codecs.VP8Packet
	if err := check.Unmarshal(packet); err != nil {
		fmt.Fprintln(os.Stderr, "packet does not parse:", err)
		os.Exit(1)
	}
	if check.GetExtension(ext1) == nil || check.GetExtension(ext2) == nil {
		fmt.Fprintln(os.Stderr, "packet lacks an extension")
		os.Exit(1)
	}
	if _, err := checkVP8.Unmarshal(check.Payload); err != nil {
		fmt.Fprintln(os.Stderr, "VP8 descriptor does not parse:", err)
		os.Exit(1)
	}

	operation := func(b *testing.B) {
		b.ReportAllocs()
		var p rtp.Packet
		var vp8 codecs.VP8Packet
		sum := 0
		for i := 0; i < b.N; i++ {
			if err := p.Unmarshal(packet); err != nil {
				b.Fatal(err)
			}
			a := p.GetExtension(ext1)
			t := p.GetExtension(ext2)
			data, err := vp8.Unmarshal(p.Payload)
			if err != nil {
				b.Fatal(err)
			}
			sum += int(p.SequenceNumber) + len(a) + len(t) + int(vp8.PictureID) + len(data)
		}
		sink += sum
	}
	var samples []float64
	var allocs int64
	for i := 0; i < *runs; i++ {
		result := testing.Benchmark(operation)
		samples = append(samples, float64(result.T.Nanoseconds())/float64(result.N))
		allocs = result.AllocsPerOp()
	}
	sort.Float64s(samples)

	// The same loop timed in thread CPU time, pinned to one OS thread, N as testing chose.
	runtime.LockOSThread()
	var p rtp.Packet
	var vp8 codecs.VP8Packet
	var cpuSamples []float64
	const iterations = 1000000
	for i := 0; i < *runs; i++ {
		sum := 0
		start := threadCPUNanoseconds()
		for j := 0; j < iterations; j++ {
			if err := p.Unmarshal(packet); err != nil {
				panic(err)
			}
			a := p.GetExtension(ext1)
			t := p.GetExtension(ext2)
			data, err := vp8.Unmarshal(p.Payload)
			if err != nil {
				panic(err)
			}
			sum += int(p.SequenceNumber) + len(a) + len(t) + int(vp8.PictureID) + len(data)
		}
		cpuSamples = append(cpuSamples, float64(threadCPUNanoseconds()-start)/iterations)
		sink += sum
	}
	sort.Float64s(cpuSamples)
	out, _ := json.Marshal(map[string]interface{}{
		"library":     "pion/rtp",
		"operation":   "Packet.Unmarshal + 2x GetExtension + VP8Packet.Unmarshal",
		"packetBytes": len(packet),
		"nsPerOp":     map[string]float64{"median": samples[len(samples)/2], "min": samples[0]},
		"cpuNsPerOp":  map[string]float64{"median": cpuSamples[len(cpuSamples)/2], "min": cpuSamples[0]},
		"allocsPerOp": allocs,
		"sink":        sink,
	})
	fmt.Println(string(out))
}
