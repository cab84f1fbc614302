/// Where `ssrc` sits in a track's `layerSSRCs` (its spatial layer); nil if it is none of them.
///
/// A plain index loop rather than `firstIndex(of:)` or `contains(_:)`: the same machine code in
/// release builds, but in debug builds those standard-library algorithms run unspecialized and
/// allocate (a coroutine frame) on every call, and the forward path is checked for zero heap
/// allocations per packet in a debug build (`make test`, scripts/forward-smoke.sh).
func layerIndex(of ssrc: UInt32, in layerSSRCs: [UInt32]) -> Int? {
    var index = 0
    while index < layerSSRCs.count {
        if layerSSRCs[index] == ssrc { return index }
        index += 1
    }
    return nil
}
