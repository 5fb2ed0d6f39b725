/*
 * This thread: its set-up, done once before it first resumes a coroutine,
 * and the bookkeeping every switch does on it, before and after (the current
 * coroutine, and the Swift runtime state that follows a coroutine from switch
 * to switch, rj_swift_state.c). rj_context.c's resume and the inline switch
 * in CRJContext.h call the two halves around their switch; rj_shared.c calls
 * them around a shared-stack coroutine's.
 */
#include "rj_internal.h"
#include "rj_swift_state.h"
#include "rj_thread.h"

#include <unistd.h>
#if defined(__linux__)
#  include <sys/syscall.h>
#endif
#if defined(__APPLE__)
#  include <pthread.h>
#endif

/* 0 until this thread first resumes a coroutine; then its thread id (gettid),
 * which every resume records in the coroutine (what a dump says ran it last). */
RJ_TLS int rj_thread_prepared;

int rj_os_thread_id(void) {
#if defined(__linux__)
    return (int)syscall(SYS_gettid);
#elif defined(__APPLE__)
    uint64_t tid = 0;
    pthread_threadid_np(NULL, &tid);
    return (int)tid;
#else
    return 1;
#endif
}

void rj_prepare_thread(void) {
    rj_thread_prepared = rj_os_thread_id();
    rj_overflow_prepare_thread();
    rj_swift_state_prepare_thread();
}

/* What the set-up found out about the Swift runtime (rj_swift_state.c), asked
 * here, where the set-up is. */
int rj_exclusivity_fast_path(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_excl_head != rj_excl_unknown;
}

int rj_task_locals_tracked(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_tl_slot != rj_tl_untracked;
}

/* ---- Around every switch ------------------------------------------------ */

/* Everything a resume does before the switch, on the resumer's thread. */
static inline __attribute__((always_inline)) void rj_before_resume(rj_coro *c) {
    if (c->finished) {
        rj_fatal("RJIterator: internal error: rj_coro_resume on a coroutine whose body has ended; "
                 "a finished coroutine can only be destroyed");
    }
    if (!rj_thread_prepared) rj_prepare_thread();
    c->resumer = rj_current;
    c->last_thread = rj_thread_prepared;
    rj_current = c;
    rj_swift_state_enter(c);
}

/* Everything after, on the same thread (the resumer does not move). */
static inline __attribute__((always_inline)) int rj_after_resume(rj_coro *c) {
    rj_swift_state_exit(c);
    rj_current = c->resumer;
    return c->finished;
}

/* The halves the inline switch calls (CRJContext.h), on every resume of a generator. Their
 * fast paths are leaves (no call, so no frame and no saved register) for the common case
 * (rj_thread.h); anything else takes the whole bookkeeping above, out of line. The two tests
 * are the union of the conditions under which rj_swift_state_enter and rj_swift_state_exit
 * would do anything. */
static __attribute__((noinline)) void rj_will_resume_slow(rj_coro *c) { rj_before_resume(c); }
static __attribute__((noinline)) int rj_did_return_slow(rj_coro *c) { return rj_after_resume(c); }

void rj_coro_will_resume(rj_coro *c) {
    if (!rj_will_resume_is_leaf(c)) rj_will_resume_slow(c);
    else rj_will_resume_leaf(c);
}

int rj_coro_did_return(rj_coro *c) {
    if (!rj_did_return_is_leaf(c)) return rj_did_return_slow(c);
    return rj_did_return_leaf(c);
}
