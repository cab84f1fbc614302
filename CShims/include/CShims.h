#ifndef CSHIMS_H
#define CSHIMS_H
// The one C target: only what Swift cannot call directly. Each function says why it exists.
#include <stddef.h>
#include <stdint.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <opus/opus.h>

/// `vpx_codec_enc_init_multi` is a macro over `vpx_codec_enc_init_multi_ver` (ABI version argument).
vpx_codec_err_t cshim_vpx_codec_enc_init_multi(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg,
                                               int num_enc, vpx_codec_flags_t flags,
                                               vpx_rational_t *dsf);
/// `vpx_codec_enc_init` is a macro over `vpx_codec_enc_init_ver`.
vpx_codec_err_t cshim_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg,
                                         vpx_codec_flags_t flags);
/// `vpx_codec_dec_init` is a macro over `vpx_codec_dec_init_ver`.
vpx_codec_err_t cshim_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_flags_t flags);
/// `vpx_codec_control_` is variadic; these pass one int / one unsigned / one pointer argument.
vpx_codec_err_t cshim_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int control_id, int value);
vpx_codec_err_t cshim_vpx_codec_control_uint(vpx_codec_ctx_t *ctx, int control_id, unsigned int value);
vpx_codec_err_t cshim_vpx_codec_control_ptr(vpx_codec_ctx_t *ctx, int control_id, void *value);

/// `eventfd` (sys/eventfd.h) is not in Swift's Glibc module: a non-blocking, close-on-exec
/// eventfd for waking the engine loop; -1 with errno set on failure.
int cshim_eventfd_nonblocking(void);

/// `recvmmsg(2)` (and its `struct mmsghdr`) is a GNU extension Swift's Glibc does not bring in:
/// receives up to `count` (at most 64) datagrams already waiting on `fd` in one call, without
/// waiting (`MSG_DONTWAIT`), datagram i into `slots + i * slot_size`. For each: `lengths[i]` its
/// real length (`MSG_TRUNC`: longer than `slot_size` when it did not fit), `addresses` (an
/// array of `count` `struct sockaddr_in6`, each holding a `sockaddr_in` or `sockaddr_in6`) its source, and when `stamps` is not NULL
/// `stamps[i]` the kernel's arrival time (`SO_TIMESTAMPNS`, CLOCK_REALTIME ns; 0 if absent).
/// Returns how many were received, 0 when none waits, -1 with errno set on failure. Allocates
/// nothing (the headers live on the stack).
int cshim_recvmmsg(int fd, void *slots, size_t slot_size, int count, size_t *lengths, void *addresses, int64_t *stamps);

/// `setsockopt(SO_TIMESTAMPNS)`: the kernel stamps each datagram's arrival (socket(7)); 0 or -1.
int cshim_enable_receive_timestamps(int fd);

/// `clock_gettime(CLOCK_REALTIME)` in ns: the clock `SO_TIMESTAMPNS` stamps with.
int64_t cshim_realtime_nanoseconds(void);

/// `opus_encoder_ctl` / `opus_decoder_ctl` are variadic; these pass one int, or fetch one int.
int cshim_opus_encoder_ctl_set(OpusEncoder *enc, int request, int32_t value);
int cshim_opus_encoder_ctl_get(OpusEncoder *enc, int request, int32_t *value);
int cshim_opus_decoder_ctl_set(OpusDecoder *dec, int request, int32_t value);
int cshim_opus_decoder_ctl_get(OpusDecoder *dec, int request, int32_t *value);

/// Valgrind's client requests (`CALLGRIND_START_INSTRUMENTATION`, `CALLGRIND_TOGGLE_COLLECT`,
/// `CALLGRIND_DUMP_STATS_AT`, `RUNNING_ON_VALGRIND` from <valgrind/callgrind.h>) are macros
/// expanding to inline assembly. The benchmark brackets each configuration's encode calls with
/// them so one callgrind run counts every configuration's instructions. Outside valgrind (or
/// built without the valgrind headers) they do nothing and `cshim_running_on_valgrind` is 0.
int cshim_running_on_valgrind(void);
void cshim_callgrind_start_instrumentation(void);
void cshim_callgrind_toggle_collect(void);
void cshim_callgrind_dump_stats_at(const char *label);

#endif
