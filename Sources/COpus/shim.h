// libopus (Debian: libopus-dev).
#include <opus/opus.h>
