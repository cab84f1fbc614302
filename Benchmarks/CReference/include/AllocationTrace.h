#ifndef ALLOCATION_TRACE_H
#define ALLOCATION_TRACE_H
// glibc mtrace/muntrace for `simulcast-bench allocations`. Called from C because glibc >= 2.34
// exports the working versions only as mtrace@GLIBC_2.2.5 from libc_malloc_debug.so (which
// plain dlsym cannot see); a normal link binds that version, resolved to the preloaded library.

/// Starts writing every malloc/realloc/free to the file named by $MALLOC_TRACE.
void cref_mtrace_start(void);
/// Stops tracing and closes the file.
void cref_mtrace_stop(void);

#endif
