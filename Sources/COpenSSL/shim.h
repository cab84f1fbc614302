// OpenSSL 3 (Debian: libssl-dev) for DTLS-SRTP (RFC 5764). The static inline functions below
// stand in for OpenSSL macros and variadic functions, which Swift cannot call directly.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
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
