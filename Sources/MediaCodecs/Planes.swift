/// Read-only pointers to the three planes of an I420 picture (internal; never public, since
/// their lifetime is a closure's).
struct ConstPlanes {
    var y: UnsafePointer<UInt8>
    var strideY: Int
    var u: UnsafePointer<UInt8>
    var strideU: Int
    var v: UnsafePointer<UInt8>
    var strideV: Int
    var width: Int
    var height: Int
}

/// Writable pointers to the three planes of an I420 picture: a `VideoFrame`'s storage or a
/// libvpx `vpx_image_t`'s buffers.
struct MutablePlanes {
    var y: UnsafeMutablePointer<UInt8>
    var strideY: Int
    var u: UnsafeMutablePointer<UInt8>
    var strideU: Int
    var v: UnsafeMutablePointer<UInt8>
    var strideV: Int
    var width: Int
    var height: Int

    var readOnly: ConstPlanes {
        ConstPlanes(y: y, strideY: strideY, u: u, strideU: strideU, v: v, strideV: strideV,
                    width: width, height: height)
    }
}
