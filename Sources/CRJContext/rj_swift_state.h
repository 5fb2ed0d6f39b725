/*
 * Swift runtime state that points into a coroutine's stack or belongs to its
 * dynamic extent, saved and restored around every resume (rj_swift_state.c
 * explains each piece):
 *
 * - the exclusivity access set (per thread, records live in stack frames);
 * - the task-local fallback storage (per thread, used by TaskLocal.withValue
 *   outside any task).
 *
 * rj_swift_state_enter runs on the resumer's side just before the switch into
 * the coroutine, rj_swift_state_exit just after the switch back, on the same
 * thread. Both are inline: in the common case (nothing open, nothing bound)
 * they are a few loads and compares.
 */
#ifndef RJ_SWIFT_STATE_H
#define RJ_SWIFT_STATE_H

#include "rj_internal.h"

/* libswiftCore (Exclusivity.cpp). Weak: the C core also runs without Swift. */
extern void swift_task_enterThreadLocalContext(char *state) __attribute__((weak));
extern void swift_task_exitThreadLocalContext(char *state) __attribute__((weak));

/* Where this thread's exclusivity access-set head lives; rj_excl_unknown (a word that is
 * never empty) before the thread is prepared or where it was not found: call the runtime. */
extern RJ_TLS void **rj_excl_head;
extern void **const rj_excl_unknown;
/* Where this thread's task-local fallback storage pointer lives; rj_tl_untracked (a word that
 * is always empty) where it is not tracked. Never NULL, either of them. */
extern RJ_TLS void **rj_tl_slot;
extern void **const rj_tl_untracked;

RJ_HIDDEN void rj_task_locals_enter_slow(rj_coro *c, void **slot);
RJ_HIDDEN void rj_task_locals_exit_slow(rj_coro *c, void **slot, void *head);

static inline void rj_swift_state_enter(rj_coro *c) {
    if (*rj_excl_head || c->exclusivity[0]) {
        if (swift_task_enterThreadLocalContext) swift_task_enterThreadLocalContext((char *)c->exclusivity);
    }
    void **slot = rj_tl_slot;
    void **storage = (void **)*slot; /* NULL where untracked */
    c->tl_resumer_head = storage ? *storage : NULL;
    if (c->tl_head) rj_task_locals_enter_slow(c, slot);
}

static inline void rj_swift_state_exit(rj_coro *c) {
    if (*rj_excl_head || c->exclusivity[0]) {
        if (swift_task_exitThreadLocalContext) swift_task_exitThreadLocalContext((char *)c->exclusivity);
    }
    void **slot = rj_tl_slot;
    void **storage = (void **)*slot;
    void *now = storage ? *storage : NULL;
    if (now != c->tl_resumer_head) rj_task_locals_exit_slow(c, slot, now);
    else c->tl_head = NULL;
}

#endif
