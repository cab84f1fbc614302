#include "AllocationTrace.h"

#include <mcheck.h>

void cref_mtrace_start(void) { mtrace(); }
void cref_mtrace_stop(void) { muntrace(); }
