// libyuv (Debian: libyuv-dev, which ships no .pc file): colour conversion and scaling.
#include <libyuv.h>
