/*
 * The tools' view of a switch (sanitizers, valgrind), for the two files that
 * switch: rj_context.c (coroutines with a stack of their own) and rj_shared.c
 * (shared-stack coroutines and their copier). See rj_internal.h for what each
 * tool needs.
 */
#ifndef RJ_TOOLS_H
#define RJ_TOOLS_H

#include "rj_internal.h"

/* Declared here rather than taken from the sanitizer headers, which only clang's
 * resource directory has. */
#if RJ_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, size_t *size_old);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
void __lsan_register_root_region(const void *p, size_t size);
void __lsan_unregister_root_region(const void *p, size_t size);
#endif
#if RJ_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#endif

/* Always inlined, also in unoptimised builds: the hooks run between a fiber
 * switch and the stack switch, where a function of their own would enter on
 * one fiber's shadow call stack (TSan) and return on the other's. */
#define RJ_TOOLS_INLINE static inline __attribute__((always_inline))

RJ_TOOLS_INLINE size_t rj_stack_bytes(const rj_coro *c) { return (size_t)(c->stack_hi - c->stack_lo); }

/* A coroutine is made: its stack may hold the poison of frames an abandoned
 * coroutine left (ASan); LeakSanitizer must scan it while it lives, since a
 * suspended body's frames may hold the only reference to an object; and it
 * gets its own fiber (TSan). */
RJ_TOOLS_INLINE void rj_tools_created(rj_coro *c) {
#if RJ_ASAN
    /* A shared-stack coroutine's frames are on its run stack or in a heap block, which
     * LeakSanitizer scans as any other (rj_shared.c). */
    if (!c->shared) {
        __asan_unpoison_memory_region(c->stack_lo, rj_stack_bytes(c));
        __lsan_register_root_region(c->stack_lo, rj_stack_bytes(c));
    }
    c->asan_fake = NULL;
    c->asan_resumer_fake = NULL;
    c->asan_resumer_bottom = NULL;
    c->asan_resumer_size = 0;
#endif
#if RJ_TSAN
    c->tsan_fiber = __tsan_create_fiber(0);
    c->tsan_resumer = NULL;
#endif
    /* Valgrind knows every stack for as long as it is mapped (rj_stack.c; run stacks:
     * rj_shared.c), not per coroutine. */
    (void)c;
}

RJ_TOOLS_INLINE void rj_tools_destroyed(rj_coro *c) {
#if RJ_ASAN
    if (!c->shared) __lsan_unregister_root_region(c->stack_lo, rj_stack_bytes(c));
#endif
#if RJ_TSAN
    __tsan_destroy_fiber(c->tsan_fiber);
#endif
    (void)c;
}

/* Resumer side, just before the switch into c. */
RJ_TOOLS_INLINE void rj_tools_leave_for(rj_coro *c) {
#if RJ_ASAN
    __sanitizer_start_switch_fiber(&c->asan_resumer_fake, c->stack_lo, rj_stack_bytes(c));
#endif
#if RJ_TSAN
    c->tsan_resumer = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(c->tsan_fiber, 0);
#endif
    (void)c;
}

/* Resumer side, just after c switched back. */
RJ_TOOLS_INLINE void rj_tools_back_from(rj_coro *c) {
#if RJ_ASAN
    __sanitizer_finish_switch_fiber(c->asan_resumer_fake, NULL, NULL);
#endif
    (void)c;
}

/* Coroutine side, just after arriving on c's stack (first entry or resume). */
RJ_TOOLS_INLINE void rj_tools_arrived(rj_coro *c) {
#if RJ_ASAN
    __sanitizer_finish_switch_fiber(c->asan_fake, &c->asan_resumer_bottom, &c->asan_resumer_size);
#endif
    (void)c;
}

/* Coroutine side, just before switching back to the resumer. A finished
 * coroutine never comes back: ASan may free its fake stack. */
RJ_TOOLS_INLINE void rj_tools_leave_to_resumer(rj_coro *c) {
#if RJ_ASAN
    __sanitizer_start_switch_fiber(c->finished ? NULL : &c->asan_fake, c->asan_resumer_bottom, c->asan_resumer_size);
#endif
#if RJ_TSAN
    __tsan_switch_to_fiber(c->tsan_resumer, 0);
#endif
    (void)c;
}

#endif
