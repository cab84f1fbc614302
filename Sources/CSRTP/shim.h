// libsrtp2 (Debian: libsrtp2-dev).
#include <srtp2/srtp.h>
