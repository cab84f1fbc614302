#ifndef CSHIMS_H
#define CSHIMS_H
// The one C target: only what Swift cannot call directly. Each function says why it exists.
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
