// Why this exists: `simulcast-bench wire` reports heap allocations per operation, so the wire hot
// paths (parse, serialize, packetize) can be shown to be allocation-free in steady state. Linked
// into the simulcast-bench executable only, these definitions interpose the allocator for the
// whole process (the executable's symbols win over libc's), count each call with relaxed C11
// atomics and forward to glibc's own entry points (__libc_malloc & co.), so nothing recurses.
#include "AllocationCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic int64_t allocations;
static _Atomic int64_t frees;
static _Atomic int64_t bytes;

static inline void count_allocation(size_t size) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, (int64_t)size, memory_order_relaxed);
}

void alloc_counter_reset(void) {
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&frees, 0, memory_order_relaxed);
    atomic_store_explicit(&bytes, 0, memory_order_relaxed);
}

int64_t alloc_counter_get(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
int64_t alloc_counter_frees(void) { return atomic_load_explicit(&frees, memory_order_relaxed); }
int64_t alloc_counter_bytes(void) { return atomic_load_explicit(&bytes, memory_order_relaxed); }

void *malloc(size_t size) {
    count_allocation(size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_allocation(count * size);
    return __libc_calloc(count, size);
}

// realloc(NULL, n) is a malloc and realloc(p, 0) a free in glibc; any other call may move the
// block, so it counts as one allocation (and one free), like a malloc + copy + free would.
void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) {
        count_allocation(size);
    } else if (size == 0) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    } else {
        count_allocation(size);
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    }
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __libc_free(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: a power of two that is a multiple of sizeof(void *); *result untouched on error.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_allocation(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    // glibc accepts any power of two here (C17 DR 460); reject the rest like glibc does.
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    count_allocation(size);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation(size);
    return __libc_memalign(alignment, size);
}
