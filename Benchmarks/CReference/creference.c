#include "CReference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libyuv.h>
#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

#define CREF_MAX_LAYERS 3

struct cref_encoder {
    int num_layers;
    int64_t frame_index;
    int pattern_position;
    int cycles_since_key;
    vpx_codec_ctx_t codecs[CREF_MAX_LAYERS];
    vpx_codec_enc_cfg_t configs[CREF_MAX_LAYERS];
    vpx_image_t images[CREF_MAX_LAYERS];
    int fps;
};

static int64_t thread_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

cref_encoder *cref_create(int num_layers, const int *widths, const int *heights,
                          const int *target_kbps, const int *denoise, int fps, char *error, size_t error_len) {
    if (num_layers < 1 || num_layers > CREF_MAX_LAYERS || fps <= 0) return NULL;
    cref_encoder *enc = calloc(1, sizeof(*enc));
    if (!enc) return NULL;
    enc->num_layers = num_layers;
    enc->fps = fps;
    vpx_rational_t dsf[CREF_MAX_LAYERS];
    for (int i = 0; i < num_layers; i++) {
        vpx_codec_enc_cfg_t *cfg = &enc->configs[i];
        if (vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0) != VPX_CODEC_OK) goto fail;
        cfg->g_w = widths[i];
        cfg->g_h = heights[i];
        cfg->g_timebase.num = 1;
        cfg->g_timebase.den = 90000;
        cfg->g_threads = 1;
        cfg->g_lag_in_frames = 0;
        cfg->g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
        cfg->rc_end_usage = VPX_CBR;
        cfg->rc_dropframe_thresh = 0;
        cfg->rc_resize_allowed = 0;
        cfg->rc_min_quantizer = 2;
        cfg->rc_max_quantizer = 56;
        cfg->rc_undershoot_pct = 100;
        cfg->rc_overshoot_pct = 15;
        cfg->rc_buf_initial_sz = 500;
        cfg->rc_buf_optimal_sz = 600;
        cfg->rc_buf_sz = 1000;
        cfg->kf_mode = VPX_KF_AUTO;
        cfg->kf_max_dist = 3000;
        cfg->rc_target_bitrate = target_kbps[i];
        cfg->ts_number_layers = 3;
        cfg->ts_periodicity = 4;
        cfg->ts_layer_id[0] = 0; cfg->ts_layer_id[1] = 2; cfg->ts_layer_id[2] = 1; cfg->ts_layer_id[3] = 2;
        cfg->ts_rate_decimator[0] = 4; cfg->ts_rate_decimator[1] = 2; cfg->ts_rate_decimator[2] = 1;
        cfg->ts_target_bitrate[0] = target_kbps[i] * 40 / 100;
        cfg->ts_target_bitrate[1] = target_kbps[i] * 60 / 100;
        cfg->ts_target_bitrate[2] = target_kbps[i];
        // dsf[i]: from layer i down to the next lower layer i+1; the lowest layer's is unused.
        if (i + 1 < num_layers) {
            int g = gcd(widths[i], widths[i + 1]);
            dsf[i].num = widths[i] / g; dsf[i].den = widths[i + 1] / g;
        } else {
            dsf[i].num = 1; dsf[i].den = 1;
        }
        if (i == 0) {
            // Planes are set to the caller's frame on every encode; the header alone is needed.
            if (!vpx_img_wrap(&enc->images[0], VPX_IMG_FMT_I420, widths[0], heights[0], 1,
                              (unsigned char *)enc)) goto fail;
        } else if (!vpx_img_alloc(&enc->images[i], VPX_IMG_FMT_I420, widths[i], heights[i], 32)) {
            goto fail;
        }
    }
    vpx_codec_err_t err = num_layers == 1
        ? vpx_codec_enc_init(&enc->codecs[0], vpx_codec_vp8_cx(), &enc->configs[0], 0)
        : vpx_codec_enc_init_multi(enc->codecs, vpx_codec_vp8_cx(), enc->configs, num_layers, 0, dsf);
    if (err != VPX_CODEC_OK) {
        if (error) snprintf(error, error_len, "init: %s", vpx_codec_err_to_string(err));
        goto fail_images;
    }
    for (int i = 0; i < num_layers; i++) {
        vpx_codec_ctx_t *c = &enc->codecs[i];
        int small = widths[i] * heights[i] < 352 * 288;
        int ok = vpx_codec_control(c, VP8E_SET_CPUUSED, small ? -4 : -6) == VPX_CODEC_OK
              && vpx_codec_control(c, VP8E_SET_STATIC_THRESHOLD, 1) == VPX_CODEC_OK
              && vpx_codec_control(c, VP8E_SET_TOKEN_PARTITIONS, VP8_ONE_TOKENPARTITION) == VPX_CODEC_OK
              && vpx_codec_control(c, VP8E_SET_NOISE_SENSITIVITY, denoise[i] ? 1 : 0) == VPX_CODEC_OK
              && vpx_codec_control(c, VP8E_SET_MAX_INTRA_BITRATE_PCT, 300) == VPX_CODEC_OK;
        if (!ok) {
            if (error) snprintf(error, error_len, "control: %s", vpx_codec_error(c));
            cref_destroy(enc);
            return NULL;
        }
    }
    return enc;
fail_images:
fail:
    for (int i = 0; i < num_layers; i++) vpx_img_free(&enc->images[i]);
    free(enc);
    return NULL;
}

/// L1T3 flags for the current pattern position (0: TL0, 1: TL2, 2: TL1, 3: TL2).
static vpx_enc_frame_flags_t l1t3_flags(const cref_encoder *enc, int *temporal_id) {
    const vpx_enc_frame_flags_t no_arf = VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_ARF;
    switch (enc->pattern_position) {
    case 0:
        *temporal_id = 0;
        return no_arf | VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_UPD_GF;
    case 2:
        *temporal_id = 1;
        return no_arf | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_ENTROPY
             | (enc->cycles_since_key % 8 == 0 ? VP8_EFLAG_NO_REF_GF : 0);
    default:
        *temporal_id = 2;
        return no_arf | VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_UPD_LAST | VP8_EFLAG_NO_UPD_GF
             | VP8_EFLAG_NO_UPD_ENTROPY;
    }
}

int cref_encode(cref_encoder *enc, const uint8_t *y, int y_stride, const uint8_t *u, int u_stride,
                const uint8_t *v, int v_stride, uint8_t *const *out_data,
                const size_t *out_capacity, size_t *out_bytes, int *out_key, int64_t *scale_ns,
                int64_t *encode_ns) {
    int64_t t0 = thread_ns();
    // The top layer is the caller's frame itself (no copy), as in the Swift pipeline.
    vpx_image_t *top = &enc->images[0];
    top->planes[0] = (unsigned char *)y; top->stride[0] = y_stride;
    top->planes[1] = (unsigned char *)u; top->stride[1] = u_stride;
    top->planes[2] = (unsigned char *)v; top->stride[2] = v_stride;
    for (int i = 1; i < enc->num_layers; i++) {
        vpx_image_t *src = &enc->images[i - 1], *dst = &enc->images[i];
        if (I420Scale(src->planes[0], src->stride[0], src->planes[1], src->stride[1],
                      src->planes[2], src->stride[2], (int)src->d_w, (int)src->d_h,
                      dst->planes[0], dst->stride[0], dst->planes[1], dst->stride[1],
                      dst->planes[2], dst->stride[2], (int)dst->d_w, (int)dst->d_h,
                      kFilterBox) != 0) return -1;
    }
    int64_t t1 = thread_ns();
    if (enc->frame_index == 0) { enc->pattern_position = 0; enc->cycles_since_key = 0; }
    int temporal_id = 0;
    vpx_enc_frame_flags_t flags = l1t3_flags(enc, &temporal_id);
    for (int i = 0; i < enc->num_layers; i++) {
        if (vpx_codec_control(&enc->codecs[i], VP8E_SET_FRAME_FLAGS, (int)flags) != VPX_CODEC_OK) return -2;
        if (vpx_codec_control(&enc->codecs[i], VP8E_SET_TEMPORAL_LAYER_ID, temporal_id) != VPX_CODEC_OK) return -2;
    }
    vpx_codec_pts_t pts = (vpx_codec_pts_t)(enc->frame_index * 90000 / enc->fps);
    vpx_codec_err_t err = vpx_codec_encode(&enc->codecs[0], enc->images, pts, 90000 / enc->fps, 0,
                                           VPX_DL_REALTIME);
    if (err != VPX_CODEC_OK) return -(int)err;
    for (int i = 0; i < enc->num_layers; i++) {
        vpx_codec_iter_t iter = NULL;
        const vpx_codec_cx_pkt_t *pkt;
        out_bytes[i] = 0;
        out_key[i] = 0;
        while ((pkt = vpx_codec_get_cx_data(&enc->codecs[i], &iter)) != NULL) {
            if (pkt->kind != VPX_CODEC_CX_FRAME_PKT) continue;
            if (out_bytes[i] + pkt->data.frame.sz > out_capacity[i]) return -3;
            memcpy(out_data[i] + out_bytes[i], pkt->data.frame.buf, pkt->data.frame.sz);
            out_bytes[i] += pkt->data.frame.sz;
            if (pkt->data.frame.flags & VPX_FRAME_IS_KEY) out_key[i] = 1;
        }
    }
    int64_t t2 = thread_ns();
    enc->frame_index++;
    enc->pattern_position = (enc->pattern_position + 1) % 4;
    if (enc->pattern_position == 0) enc->cycles_since_key++;
    *scale_ns = t1 - t0;
    *encode_ns = t2 - t1;
    return 0;
}

void cref_destroy(cref_encoder *enc) {
    if (!enc) return;
    for (int i = 0; i < enc->num_layers; i++) {
        vpx_codec_destroy(&enc->codecs[i]);
        vpx_img_free(&enc->images[i]);
    }
    free(enc);
}
