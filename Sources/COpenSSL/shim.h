// OpenSSL 3 (Debian: libssl-dev) for DTLS-SRTP (RFC 5764) and SFrame (RFC 9605). The static inline functions below
// stand in for OpenSSL macros and variadic functions, which Swift cannot call directly.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

// DTLSv1_get_timeout: the time left before the handshake's retransmission timer fires.
static inline int media_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval tv;
    int result = (int)DTLSv1_get_timeout(ssl, &tv);
    *seconds = tv.tv_sec;
    *microseconds = tv.tv_usec;
    return result;
}

// DTLSv1_handle_timeout: retransmits the last flight when the timer expired.
static inline int media_dtls_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

// EVP_EC_gen (a macro over the variadic EVP_PKEY_Q_keygen): an EC key on the named curve.
static inline EVP_PKEY *media_ec_key(const char *curve) { return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve); }

// BIO_get_mem_data / BIO_ctrl_pending: bytes waiting in a memory BIO.
static inline long media_bio_pending(BIO *bio) { return (long)BIO_ctrl_pending(bio); }

// BIO_set_mem_eof_return(bio, -1): an empty read BIO means "retry", not end of stream.
static inline void media_bio_set_retry_on_empty(BIO *bio) { BIO_set_mem_eof_return(bio, -1); }

// SSL_set_mtu is a macro over SSL_ctrl; DTLS_set_link_mtu likewise.
static inline long media_ssl_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }

// SSL_CTX_set_options is a function in 3.0, SSL_set_options too; SSL_OP_NO_QUERY_MTU is a macro value.
static inline uint64_t media_ssl_op_no_query_mtu(void) { return SSL_OP_NO_QUERY_MTU; }

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl: DTLS 1.2 at least.
static inline int media_ssl_ctx_require_dtls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION);
}

// HKDF (RFC 5869) through EVP_PKEY_HKDF: `extract` runs HKDF-Extract(salt, key) into `out`
// (the digest's size), otherwise HKDF-Expand(key as PRK, info, out_length). The mode constants
// are macros of an expression Swift does not import. Returns 1 on success.
#include <openssl/kdf.h>
static inline int media_hkdf(const EVP_MD *digest, int extract, const unsigned char *salt, size_t salt_length,
                             const unsigned char *key, size_t key_length, const unsigned char *info, size_t info_length,
                             unsigned char *out, size_t out_length) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    if (context == NULL) return 0;
    size_t length = out_length;
    int ok = EVP_PKEY_derive_init(context) == 1
        && EVP_PKEY_CTX_set_hkdf_md(context, digest) == 1
        && EVP_PKEY_CTX_set_hkdf_mode(context, extract ? EVP_PKEY_HKDEF_MODE_EXTRACT_ONLY : EVP_PKEY_HKDEF_MODE_EXPAND_ONLY) == 1
        && (!extract || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, (int)salt_length) == 1)
        && EVP_PKEY_CTX_set1_hkdf_key(context, key, (int)key_length) == 1
        && (extract || info_length == 0 || EVP_PKEY_CTX_add1_hkdf_info(context, info, (int)info_length) == 1)
        && EVP_PKEY_derive(context, out, &length) == 1
        && length == out_length;
    EVP_PKEY_CTX_free(context);
    return ok;
}

// EVP_CIPHER_CTX_ctrl for the GCM tag (EVP_CTRL_GCM_GET_TAG / SET_TAG are plain macros, kept
// here beside their one use for symmetry).
static inline int media_gcm_get_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int media_gcm_set_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, tag);
}
