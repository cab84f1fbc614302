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

extension MutablePlanes {
    /// The same planes viewed from a rectangle of the picture (even origin, so chroma stays
    /// aligned): pointers offset, strides kept.
    func window(_ r: CropRect) -> MutablePlanes {
        MutablePlanes(y: y + r.y * strideY + r.x, strideY: strideY,
                      u: u + (r.y / 2) * strideU + r.x / 2, strideU: strideU,
                      v: v + (r.y / 2) * strideV + r.x / 2, strideV: strideV,
                      width: r.width, height: r.height)
    }
}

extension ConstPlanes {
    /// `MutablePlanes.window` of read-only planes.
    func window(_ r: CropRect) -> ConstPlanes {
        MutablePlanes(y: UnsafeMutablePointer(mutating: y), strideY: strideY, u: UnsafeMutablePointer(mutating: u),
                      strideU: strideU, v: UnsafeMutablePointer(mutating: v), strideV: strideV,
                      width: width, height: height).window(r).readOnly
    }
}
