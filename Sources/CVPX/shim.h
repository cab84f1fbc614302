// libvpx (Debian: libvpx-dev): the VP8 encoder (incl. multi-resolution) and decoder.
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <vpx/vpx_image.h>
