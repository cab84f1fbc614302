#ifndef SRTP_REFERENCE_H
#define SRTP_REFERENCE_H
// The C side of `simulcast-bench srtp`: libsrtp2's srtp_protect called directly in a loop, the
// baseline the Swift SRTPSession is compared with (same suite, same packet, same copy per packet),
// and the protect/unprotect loops whose allocations are libsrtp's own baseline for `simulcast-bench
// allocations` and `simulcast-bench forward`.
#include <stddef.h>
#include <stdint.h>

typedef struct cref_srtp cref_srtp;

/// An outbound AES_CM_128_HMAC_SHA1_80 session (wildcard SSRC) keyed with 30 bytes of
/// master key || master salt. Returns NULL on any libsrtp error.
cref_srtp *cref_srtp_create(const uint8_t *key_and_salt);

/// The same, inbound (wildcard SSRC): unprotects what a `cref_srtp_create` session with the same
/// key protects.
cref_srtp *cref_srtp_create_inbound(const uint8_t *key_and_salt);

/// Protects `count` packets: each iteration copies the `length`-byte RTP packet into `scratch`
/// (room for `capacity` bytes), stamps the next sequence number and calls srtp_protect.
/// Returns 0, or the first non-zero srtp_err_status_t.
int cref_srtp_protect_loop(cref_srtp *session, const uint8_t *packet, int length, uint8_t *scratch,
                           int capacity, int count);

/// Like `cref_srtp_protect_loop` with `outbound`, then `srtp_unprotect` of each packet with
/// `inbound` (keyed alike): a round trip, so the cost of unprotect alone is this loop's minus the
/// protect loop's (`simulcast-bench forward` counts libsrtp's allocations per unprotect so).
/// Returns 0, or the first non-zero srtp_err_status_t (bad_param if a length comes back wrong).
int cref_srtp_round_trip_loop(cref_srtp *outbound, cref_srtp *inbound, const uint8_t *packet, int length,
                              uint8_t *scratch, int capacity, int count);

void cref_srtp_destroy(cref_srtp *session);

#endif
