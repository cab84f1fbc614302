#include "CShims.h"

vpx_codec_err_t cshim_vpx_codec_enc_init_multi(vpx_codec_ctx_t *ctx, vpx_codec_enc_cfg_t *cfg,
                                               int num_enc, vpx_codec_flags_t flags,
                                               vpx_rational_t *dsf) {
    return vpx_codec_enc_init_multi(ctx, vpx_codec_vp8_cx(), cfg, num_enc, flags, dsf);
}

vpx_codec_err_t cshim_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg,
                                         vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, flags);
}

vpx_codec_err_t cshim_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), NULL, flags);
}

vpx_codec_err_t cshim_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int control_id, int value) {
    return vpx_codec_control_(ctx, control_id, value);
}

vpx_codec_err_t cshim_vpx_codec_control_uint(vpx_codec_ctx_t *ctx, int control_id, unsigned int value) {
    return vpx_codec_control_(ctx, control_id, value);
}

vpx_codec_err_t cshim_vpx_codec_control_ptr(vpx_codec_ctx_t *ctx, int control_id, void *value) {
    return vpx_codec_control_(ctx, control_id, value);
}

int cshim_opus_encoder_ctl_set(OpusEncoder *enc, int request, int32_t value) {
    return opus_encoder_ctl(enc, request, value);
}

int cshim_opus_encoder_ctl_get(OpusEncoder *enc, int request, int32_t *value) {
    return opus_encoder_ctl(enc, request, value);
}

int cshim_opus_decoder_ctl_set(OpusDecoder *dec, int request, int32_t value) {
    return opus_decoder_ctl(dec, request, value);
}

int cshim_opus_decoder_ctl_get(OpusDecoder *dec, int request, int32_t *value) {
    return opus_decoder_ctl(dec, request, value);
}

#include <sys/eventfd.h>

int cshim_eventfd_nonblocking(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CSHIM_HAVE_CALLGRIND 1
#endif
#endif

#ifdef CSHIM_HAVE_CALLGRIND
int cshim_running_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
void cshim_callgrind_start_instrumentation(void) { CALLGRIND_START_INSTRUMENTATION; }
void cshim_callgrind_toggle_collect(void) { CALLGRIND_TOGGLE_COLLECT; }
void cshim_callgrind_dump_stats_at(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
#else
int cshim_running_on_valgrind(void) { return 0; }
void cshim_callgrind_start_instrumentation(void) {}
void cshim_callgrind_toggle_collect(void) {}
void cshim_callgrind_dump_stats_at(const char *label) { (void)label; }
#endif
