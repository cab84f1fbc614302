#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H
// Process-wide heap allocation counter for `simulcast-bench wire`; see allocation_counter.c.
#include <stdint.h>

/// Zeroes every counter.
void alloc_counter_reset(void);
/// Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) since the last reset.
int64_t alloc_counter_get(void);
/// Calls to free (with a non-NULL pointer) since the last reset.
int64_t alloc_counter_frees(void);
/// Bytes requested by the counted allocations since the last reset.
int64_t alloc_counter_bytes(void);

#endif
