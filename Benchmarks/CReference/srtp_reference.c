#include "SRTPReference.h"

#include <stdlib.h>
#include <string.h>
#include <srtp2/srtp.h>

struct cref_srtp {
    srtp_t session;
    uint16_t next_sequence;
};

static cref_srtp *create(const uint8_t *key_and_salt, srtp_ssrc_type_t direction) {
    // A second srtp_init fails (the debug module is already registered) when the Swift SRTP
    // module initialised libsrtp first; that is fine, so only srtp_create's result matters.
    (void)srtp_init();
    cref_srtp *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    uint8_t key[30];
    memcpy(key, key_and_salt, sizeof key);
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    srtp_crypto_policy_set_rtp_default(&policy.rtp);
    srtp_crypto_policy_set_rtcp_default(&policy.rtcp);
    policy.ssrc.type = direction;
    policy.key = key;
    policy.window_size = 128;
    if (srtp_create(&s->session, &policy) != srtp_err_status_ok) {
        free(s);
        return NULL;
    }
    memset(key, 0, sizeof key);
    return s;
}

cref_srtp *cref_srtp_create(const uint8_t *key_and_salt) { return create(key_and_salt, ssrc_any_outbound); }

cref_srtp *cref_srtp_create_inbound(const uint8_t *key_and_salt) { return create(key_and_salt, ssrc_any_inbound); }

int cref_srtp_protect_loop(cref_srtp *s, const uint8_t *packet, int length, uint8_t *scratch,
                           int capacity, int count) {
    if (length < 12 || capacity < length + SRTP_MAX_TRAILER_LEN) return srtp_err_status_bad_param;
    for (int i = 0; i < count; i++) {
        memcpy(scratch, packet, (size_t)length);
        scratch[2] = (uint8_t)(s->next_sequence >> 8);
        scratch[3] = (uint8_t)s->next_sequence;
        s->next_sequence++;
        int octets = length;
        srtp_err_status_t status = srtp_protect(s->session, scratch, &octets);
        if (status != srtp_err_status_ok) return (int)status;
    }
    return 0;
}

int cref_srtp_round_trip_loop(cref_srtp *outbound, cref_srtp *inbound, const uint8_t *packet, int length,
                              uint8_t *scratch, int capacity, int count) {
    if (length < 12 || capacity < length + SRTP_MAX_TRAILER_LEN) return srtp_err_status_bad_param;
    for (int i = 0; i < count; i++) {
        memcpy(scratch, packet, (size_t)length);
        scratch[2] = (uint8_t)(outbound->next_sequence >> 8);
        scratch[3] = (uint8_t)outbound->next_sequence;
        outbound->next_sequence++;
        int octets = length;
        srtp_err_status_t status = srtp_protect(outbound->session, scratch, &octets);
        if (status != srtp_err_status_ok) return (int)status;
        status = srtp_unprotect(inbound->session, scratch, &octets);
        if (status != srtp_err_status_ok) return (int)status;
        if (octets != length) return srtp_err_status_bad_param;
    }
    return 0;
}

void cref_srtp_destroy(cref_srtp *s) {
    if (!s) return;
    srtp_dealloc(s->session);
    free(s);
}
