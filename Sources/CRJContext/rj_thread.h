/*
 * The leaf halves of the bookkeeping around a switch (rj_thread.c): what a
 * resume does before and after the switch in the common case, inline, so that
 * the shared-stack halves (rj_shared.c) fold them in rather than call them.
 * The common case: this thread is prepared and its exclusivity head is known,
 * neither the thread nor the coroutine has an access open, no task-local value
 * is bound outside a task on this thread, and the coroutine has bound none.
 * Then the Swift runtime state has nothing to carry, and what is left is the
 * current coroutine and what a dump reads. Each half is a test (is_leaf) and
 * what it does when the test passes; otherwise the caller calls
 * rj_coro_will_resume or rj_coro_did_return, which do the whole bookkeeping.
 */
#ifndef RJ_THREAD_H
#define RJ_THREAD_H

#include "rj_internal.h"
#include "rj_swift_state.h"

/* 1 when rj_will_resume_leaf applies. */
static inline __attribute__((always_inline)) int rj_will_resume_is_leaf(rj_coro *c) {
    /* Until rj_prepare_thread has run on this thread (and when the runtime's layout was not
     * found, or RJ_EXCLUSIVITY_SLOW_PATH=1: the runtime is called every time), the head points
     * at a word that is never empty; the slot, where task-locals are not tracked, at one that
     * is always empty (rj_swift_state.c). */
    return !__builtin_expect(*rj_excl_head || c->exclusivity[0] || c->tl_head || *rj_tl_slot || c->finished, 0);
}

/* After rj_will_resume_is_leaf: c becomes the current coroutine. */
static inline __attribute__((always_inline)) void rj_will_resume_leaf(rj_coro *c) {
    c->resumer = rj_current;
    c->last_thread = rj_thread_prepared;
    c->tl_resumer_head = NULL;
    rj_current = c;
}

/* 1 when rj_did_return_leaf applies. */
static inline __attribute__((always_inline)) int rj_did_return_is_leaf(rj_coro *c) {
    return !__builtin_expect(*rj_excl_head || c->exclusivity[0] || c->tl_resumer_head || *rj_tl_slot, 0);
}

/* After rj_did_return_is_leaf: the current coroutine back; 1 if c finished. */
static inline __attribute__((always_inline)) int rj_did_return_leaf(rj_coro *c) {
    c->tl_head = NULL;
    rj_current = c->resumer;
    return c->finished;
}

#endif
