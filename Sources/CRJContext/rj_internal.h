/*
 * Internal layout of a coroutine and the pieces the C files share.
 *
 * Memory of one coroutine, one mapping, low addresses first:
 *
 *   map_base                stack_lo                          header   map_base+map_size
 *   | guard (no access)     | usable stack, grows downwards    | rj_coro |
 *
 * The header sits at the top of its own stack, so a coroutine costs one
 * mapping and no malloc, and the page holding it is the page the first frames
 * use: a suspended generator that has not gone deep touches one or two pages.
 */
#ifndef RJ_INTERNAL_H
#define RJ_INTERNAL_H

#if defined(__APPLE__)
/* makecontext & co. are deprecated, not gone, on Darwin. */
#  define _XOPEN_SOURCE 700
#  pragma clang diagnostic ignored "-Wdeprecated-declarations"
#endif

#include "CRJContext.h"

#if defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT
#  define RJ_HAVE_FAST 0
#elif defined(__x86_64__) && !defined(_WIN32)
#  define RJ_HAVE_FAST 1
#elif defined(__aarch64__) && !defined(_WIN32)
#  define RJ_HAVE_FAST 1
#else
#  define RJ_HAVE_FAST 0
#endif

#include <ucontext.h>

/* ---- Sanitizer and valgrind hooks --------------------------------------
 * Compiled in only when switched on, free when off (minicoro's way):
 *   RJ_USE_VALGRIND  registers each stack with valgrind (VALGRIND_STACK_REGISTER)
 *   RJ_USE_ASAN      tells AddressSanitizer about every switch (start/finish_switch_fiber)
 *   RJ_USE_TSAN      gives ThreadSanitizer a fiber per coroutine
 * The hook points (RJ_HOOK_*) are where rj_context.c calls them; a later
 * change wires the ASan and TSan bodies, valgrind's is complete. */
#if defined(RJ_USE_VALGRIND) && RJ_USE_VALGRIND
#  include <valgrind/valgrind.h>
#  define RJ_HOOK_STACK_REGISTER(c) \
       ((c)->valgrind_id = VALGRIND_STACK_REGISTER((c)->stack_lo, (c)->stack_hi))
#  define RJ_HOOK_STACK_DEREGISTER(c) VALGRIND_STACK_DEREGISTER((c)->valgrind_id)
#else
#  define RJ_HOOK_STACK_REGISTER(c) ((void)0)
#  define RJ_HOOK_STACK_DEREGISTER(c) ((void)0)
#endif
#define RJ_HOOK_BEFORE_SWITCH_IN(c) ((void)0)
#define RJ_HOOK_AFTER_SWITCH_IN(c) ((void)0)
#define RJ_HOOK_BEFORE_SWITCH_OUT(c) ((void)0)
#define RJ_HOOK_AFTER_SWITCH_OUT(c) ((void)0)

#define RJ_HIDDEN __attribute__((visibility("hidden")))

struct rj_coro {
    /* Same order as rj_coro_head in CRJContext.h (checked below). */
    void *sp;                  /* fast backend: saved stack pointer of the suspended coroutine */
    void *caller_sp;           /* fast backend: saved stack pointer of the resumer */
    void *owner;
    uint64_t id;
    unsigned char backend;
    unsigned char finished;
    unsigned char resident;    /* memory kept while pooled */
    /* Swift runtime state saved per coroutine: the exclusivity access set
     * (two words, the layout swift_task_enter/exitThreadLocalContext use). */
    uintptr_t exclusivity[2];
    /* Task-local values the body bound outside any task (rj_swift_state.c):
     * the top and bottom of its own chain while suspended, and the resumer's
     * head during a resume. */
    void *tl_head;
    void *tl_bottom;
    void *tl_resumer_head;
    rj_coro *resumer;          /* coroutine current when this one was resumed */
    rj_coro_entry entry;
    void *arg;
    /* Stack. */
    char *map_base;
    size_t map_size;
    char *stack_lo;            /* lowest usable byte, just above the guard */
    char *stack_hi;            /* one past the highest usable byte (this header) */
    size_t requested_size;     /* the stack size asked for, as messages report it */
    rj_coro *pool_next;
#if defined(RJ_USE_VALGRIND) && RJ_USE_VALGRIND
    unsigned valgrind_id;
#endif
    /* ucontext backend. Kept last: only this backend touches them. */
    ucontext_t uc;
    ucontext_t caller_uc;
};

#include <stddef.h>
_Static_assert(offsetof(struct rj_coro, sp) == offsetof(rj_coro_head, sp), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, caller_sp) == offsetof(rj_coro_head, caller_sp), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, owner) == offsetof(rj_coro_head, owner), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, id) == offsetof(rj_coro_head, id), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, backend) == offsetof(rj_coro_head, backend), "rj_coro_head layout");
_Static_assert(offsetof(struct rj_coro, finished) == offsetof(rj_coro_head, finished), "rj_coro_head layout");

/* rj_stack.c */
RJ_HIDDEN rj_coro *rj_stack_acquire(size_t stack_size);
RJ_HIDDEN void rj_stack_release(rj_coro *c);
RJ_HIDDEN size_t rj_page_size(void);
RJ_HIDDEN void rj_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rj_overflow.c */
RJ_HIDDEN void rj_overflow_prepare_thread(void);

extern _Thread_local int rj_thread_prepared;
extern _Thread_local rj_coro *rj_current;

/* Assembly (switch_*.S). rj_switch saves the callee-saved registers on the
 * current stack, stores the stack pointer in *from_sp, loads to_sp and
 * restores the registers saved there. */
#if RJ_HAVE_FAST
RJ_HIDDEN void rj_switch(void **from_sp, void *to_sp);
RJ_HIDDEN void rj_trampoline(void);
#endif
RJ_HIDDEN __attribute__((noreturn)) void rj_coro_main(rj_coro *c);

#endif
