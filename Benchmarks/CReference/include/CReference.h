#ifndef CREFERENCE_H
#define CREFERENCE_H
// The C reference harness for the encode benchmark: the same libyuv scaling and the same
// libvpx multi-resolution VP8 encode (same settings, same L1T3 flags) as the Swift pipeline,
// written directly against the C APIs. Benchmarks compare swift_pipeline / c_reference.
#include <stddef.h>
#include <stdint.h>

typedef struct cref_encoder cref_encoder;

/// Creates an encoder over `num_layers` layers given HIGHEST resolution first;
/// `denoise[i]` turns on VP8E_SET_NOISE_SENSITIVITY for layer i.
/// Returns NULL on any libvpx error (the message goes to `error`, if not NULL).
cref_encoder *cref_create(int num_layers, const int *widths, const int *heights,
                          const int *target_kbps, const int *denoise, int fps, char *error, size_t error_len);

/// Scales the top-size I420 frame down layer to layer (box filter) and encodes every layer.
/// Layer i's compressed frame (highest first) is copied into `out_data[i]` (room for
/// `out_capacity[i]` bytes; a larger frame is an error) and its size stored in `out_bytes[i]`;
/// `out_key[i]` is set to 1 for a key frame.
/// `scale_ns` / `encode_ns` receive the thread CPU time spent in each phase.
/// Returns 0 on success, a negative libvpx/libyuv error otherwise.
int cref_encode(cref_encoder *enc, const uint8_t *y, int y_stride, const uint8_t *u, int u_stride,
                const uint8_t *v, int v_stride, uint8_t *const *out_data,
                const size_t *out_capacity, size_t *out_bytes, int *out_key, int64_t *scale_ns,
                int64_t *encode_ns);

void cref_destroy(cref_encoder *enc);

// The libsrtp2 protect loop of `simulcast-bench srtp`.
#include "SRTPReference.h"

#endif
