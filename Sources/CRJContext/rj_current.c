/*
 * The coroutine running on each thread: one word per thread, written by the
 * bookkeeping around every switch (rj_thread.c) and read by whoever must know
 * where the thread is: the shared-stack switch (rj_shared.c), the stack
 * overflow handler (rj_overflow.c) and the dump (rj_inspect.c). It sits at the
 * bottom of the core, under all of them, so that reading it ties no file to
 * the one that writes it.
 */
#include "rj_internal.h"

RJ_TLS rj_coro *rj_current;

/* Out of line on purpose: see rj_coro_current in CRJContext.h. */
__attribute__((noinline)) rj_coro *rj_coro_current(void) { return rj_current; }
