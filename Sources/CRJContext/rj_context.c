/*
 * Coroutines: creation, resume and suspend with either backend, the tools'
 * view of every switch (sanitizers, valgrind), and per-thread set-up. The
 * Swift runtime state that must follow a coroutine from switch to switch is in
 * rj_swift_state.c; stacks are in rj_stack.c.
 *
 * A switch, seen from both sides (fast backend; ucontext is the same with
 * swapcontext in place of rj_switch):
 *
 *   resumer (rj_coro_resume)               coroutine (rj_coro_main / rj_coro_suspend)
 *   ------------------------               ------------------------------------------
 *   rj_current = c, Swift state in
 *   tools: "leaving for c's stack"
 *   rj_switch(&c->caller_sp, c->sp)  --->  tools: "arrived on c's stack"
 *                                          ... the body runs ...
 *                                          tools: "leaving for the resumer's stack"
 *   tools: "arrived back"           <---   rj_switch(&c->sp, c->caller_sp)
 *   Swift state out, rj_current back
 */
#include "rj_internal.h"
#include "rj_frame.h"
#include "rj_swift_state.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#if RJ_ASAN
#  include <dlfcn.h>
#  include <pthread.h>
#endif

_Thread_local rj_coro *rj_current;

/* Out of line on purpose: see rj_coro_current in CRJContext.h. */
__attribute__((noinline)) rj_coro *rj_coro_current(void) { return rj_current; }

/* ---- Per-thread set-up --------------------------------------------------- */

_Thread_local int rj_thread_prepared;

void rj_prepare_thread(void) {
    rj_thread_prepared = 1;
    rj_overflow_prepare_thread();
    rj_swift_state_prepare_thread();
}

/* What the set-up found out about the Swift runtime (rj_swift_state.c), asked
 * here so that the calls run one way: this file calls rj_swift_state.c, never
 * the reverse. */
int rj_exclusivity_fast_path(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_excl_head != NULL;
}

int rj_task_locals_tracked(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_tl_slot != NULL;
}

/* ---- Configuration ------------------------------------------------------- */

static rj_backend rj_cfg_backend = RJ_HAVE_FAST ? RJ_BACKEND_FAST : RJ_BACKEND_UCONTEXT;

int rj_fast_backend_available(void) { return RJ_HAVE_FAST; }
int rj_switches_inline_by_default(void) {
    return RJ_HAVE_INLINE_SWITCH && !RJ_ASAN && !RJ_TSAN && rj_default_backend() == RJ_BACKEND_FAST;
}
rj_backend rj_default_backend(void) { return __atomic_load_n(&rj_cfg_backend, __ATOMIC_RELAXED); }
void rj_set_default_backend(rj_backend backend) {
    if (backend != RJ_BACKEND_FAST && backend != RJ_BACKEND_UCONTEXT) return;
    if (backend == RJ_BACKEND_FAST && !RJ_HAVE_FAST) return;
    __atomic_store_n(&rj_cfg_backend, backend, __ATOMIC_RELAXED);
}

const char *rj_backend_name(rj_backend backend) {
    if (backend == RJ_BACKEND_UCONTEXT) return "ucontext";
#if RJ_HAVE_FAST && defined(__x86_64__)
    return backend == RJ_BACKEND_FAST_OUT_OF_LINE ? "fast, out of line (x86_64 sysv)" : "fast (x86_64 sysv)";
#elif RJ_HAVE_FAST && defined(__aarch64__)
    return backend == RJ_BACKEND_FAST_OUT_OF_LINE ? "fast, out of line (arm64 aapcs64)" : "fast (arm64 aapcs64)";
#else
    return "ucontext";
#endif
}

const char *rj_sanitizer(void) {
#if RJ_ASAN
    return "address";
#elif RJ_TSAN
    return "thread";
#else
    return "";
#endif
}

/* ---- Ids ------------------------------------------------------------------
 * Each thread takes a block of ids from the process-wide counter and hands
 * them out without further atomics. 64 bits do not wrap. */
#define RJ_ID_BLOCK 1024
static uint64_t rj_id_next_block = 1;
static _Thread_local uint64_t rj_id_next, rj_id_end;

static uint64_t rj_new_id(void) {
    if (rj_id_next == rj_id_end) {
        rj_id_next = __atomic_fetch_add(&rj_id_next_block, RJ_ID_BLOCK, __ATOMIC_RELAXED);
        rj_id_end = rj_id_next + RJ_ID_BLOCK;
    }
    return rj_id_next++;
}

/* ---- The tools' view of a switch -----------------------------------------
 * Declared here rather than taken from the sanitizer headers, which only clang's
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
    __asan_unpoison_memory_region(c->stack_lo, rj_stack_bytes(c));
    __lsan_register_root_region(c->stack_lo, rj_stack_bytes(c));
    c->asan_fake = NULL;
    c->asan_resumer_fake = NULL;
    c->asan_resumer_bottom = NULL;
    c->asan_resumer_size = 0;
#endif
#if RJ_TSAN
    c->tsan_fiber = __tsan_create_fiber(0);
    c->tsan_resumer = NULL;
#endif
#if RJ_VALGRIND
    c->valgrind_id = VALGRIND_STACK_REGISTER(c->stack_lo, c->stack_hi);
#endif
    (void)c;
}

RJ_TOOLS_INLINE void rj_tools_destroyed(rj_coro *c) {
#if RJ_ASAN
    __lsan_unregister_root_region(c->stack_lo, rj_stack_bytes(c));
#endif
#if RJ_TSAN
    __tsan_destroy_fiber(c->tsan_fiber);
#endif
#if RJ_VALGRIND
    VALGRIND_STACK_DEREGISTER(c->valgrind_id);
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

/* ---- swapcontext ----------------------------------------------------------
 * ASan's interceptor of swapcontext warns that it "doesn't fully support"
 * it; the fiber annotations above are the full support, so under ASan the
 * switch calls glibc's own swapcontext. */
#if RJ_ASAN
typedef int (*rj_swapcontext_fn)(ucontext_t *, const ucontext_t *);
static rj_swapcontext_fn rj_real_swapcontext_fn;
static pthread_once_t rj_swapcontext_once = PTHREAD_ONCE_INIT;
static void rj_find_swapcontext(void) {
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (libc) rj_real_swapcontext_fn = (rj_swapcontext_fn)dlsym(libc, "swapcontext");
    if (!rj_real_swapcontext_fn) rj_real_swapcontext_fn = swapcontext;
}
static int rj_swapcontext(ucontext_t *from, const ucontext_t *to) {
    if (pthread_once(&rj_swapcontext_once, rj_find_swapcontext) != 0 || !rj_real_swapcontext_fn)
        return swapcontext(from, to); /* the intercepted one: a warning, but a switch */
    return rj_real_swapcontext_fn(from, to);
}
#else
#  define rj_swapcontext swapcontext
#endif

/* ---- Entry --------------------------------------------------------------- */

void rj_coro_main(rj_coro *c) {
    rj_tools_arrived(c);
    c->entry(c->arg);
    c->finished = 1;
    rj_coro_suspend(c);
    rj_fatal("RJIterator: internal error: a finished coroutine was resumed");
}

/* makecontext passes int arguments: the pointer travels in two halves. */
static void rj_ucontext_entry(unsigned hi, unsigned lo) {
    rj_coro_main((rj_coro *)(((uintptr_t)hi << 32) | (uintptr_t)lo));
}

static int rj_prepare_ucontext(rj_coro *c) {
    if (getcontext(&c->uc) != 0) {
        rj_set_error("RJIterator: getcontext failed");
        return -1;
    }
    c->uc.uc_stack.ss_sp = c->stack_lo;
    c->uc.uc_stack.ss_size = rj_stack_bytes(c) & ~(size_t)63;
    c->uc.uc_link = NULL;
    uintptr_t p = (uintptr_t)c;
    makecontext(&c->uc, (void (*)(void))rj_ucontext_entry, 2,
                (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
    return 0;
}

#if RJ_HAVE_FAST
static inline void rj_frame_put(char *frame, unsigned offset, uint64_t value) {
    memcpy(frame + offset, &value, sizeof value);
}

/* Writes the first frame of a new coroutine (rj_frame.h). For the inline switch:
 * the address of rj_trampoline_inline, a null frame pointer and the coroutine.
 * For rj_switch: the frame rj_switch expects, so that the first switch
 * "returns" into rj_trampoline with the coroutine in a callee-saved register. */
void rj_prepare_fast(rj_coro *c) {
    uintptr_t top = (uintptr_t)c->stack_hi & ~(uintptr_t)15;
#if RJ_HAVE_INLINE_SWITCH
    if (c->switches_inline) {
        char *first = (char *)(top - RJ_INLINE_FRAME);
        memset(first, 0, RJ_INLINE_FRAME);
        rj_frame_put(first, RJ_INLINE_PC, (uint64_t)(uintptr_t)rj_trampoline_inline);
        rj_frame_put(first, RJ_INLINE_CORO, (uint64_t)(uintptr_t)c);
        c->sp = first;
        return;
    }
#endif
#if defined(__x86_64__)
    /* Below the top: the trampoline's fake return address (0), then the frame. */
    char *frame = (char *)(top - 8 - RJ_X86_FRAME);
    memset(frame, 0, RJ_X86_FRAME + 8);
    rj_frame_put(frame, RJ_X86_R12, (uint64_t)(uintptr_t)c);
    rj_frame_put(frame, RJ_X86_RET, (uint64_t)(uintptr_t)rj_trampoline);
    /* MXCSR and x87 control word: copy the creating thread's, so a coroutine
     * starts with the rounding mode and exception masks its creator had. */
    rj_frame_put(frame, RJ_X86_FPU, rj_fpu_control_state());
#elif defined(__aarch64__)
    char *frame = (char *)(top - RJ_A64_FRAME);
    memset(frame, 0, RJ_A64_FRAME);
    rj_frame_put(frame, RJ_A64_X19, (uint64_t)(uintptr_t)c);
    rj_frame_put(frame, RJ_A64_X30, (uint64_t)(uintptr_t)rj_trampoline);
#endif
    c->sp = frame;
}
#endif

rj_coro *rj_coro_create(size_t stack_size, rj_backend backend, rj_coro_entry entry, void *arg) {
    if (stack_size == 0) stack_size = rj_default_stack_size();
    else if (rj_check_stack_size(stack_size > (size_t)LLONG_MAX ? LLONG_MAX : (long long)stack_size, "stackSize") != 0)
        return NULL;
    rj_coro *c = rj_stack_acquire(stack_size);
    if (!c) return NULL;
    c->requested_size = stack_size;
    c->entry = entry;
    c->arg = arg;
    c->owner = NULL;
    c->id = rj_new_id();
    c->finished = 0;
    c->resumer = NULL;
    c->exclusivity[0] = c->exclusivity[1] = 0;
    c->tl_head = c->tl_bottom = c->tl_resumer_head = NULL;
    int out_of_line = backend == RJ_BACKEND_FAST_OUT_OF_LINE;
    if (out_of_line) backend = RJ_BACKEND_FAST;
    c->backend = (unsigned char)(RJ_HAVE_FAST && backend == RJ_BACKEND_FAST ? RJ_BACKEND_FAST : RJ_BACKEND_UCONTEXT);
    /* Sanitized builds switch in C, where the fiber annotations sit right at the switch. */
    c->switches_inline = (unsigned char)(RJ_HAVE_INLINE_SWITCH && !RJ_ASAN && !RJ_TSAN && !out_of_line &&
                                         c->backend == RJ_BACKEND_FAST);
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        rj_prepare_fast(c);
    } else
#endif
    if (rj_prepare_ucontext(c) != 0) {
        rj_stack_release(c);
        return NULL;
    }
    rj_tools_created(c);
    return c;
}

void rj_coro_destroy(rj_coro *c) {
    if (c == rj_current) rj_fatal("RJIterator: internal error: a coroutine was destroyed while it runs");
    rj_tools_destroyed(c);
    rj_stack_release(c);
}

/* ---- Switching ----------------------------------------------------------- */

/* Everything a resume does before the switch, on the resumer's thread. */
static inline __attribute__((always_inline)) void rj_before_resume(rj_coro *c) {
    if (c->finished) {
        rj_fatal("RJIterator: internal error: rj_coro_resume on a coroutine whose body has ended; "
                 "a finished coroutine can only be destroyed");
    }
    if (!rj_thread_prepared) rj_prepare_thread();
    c->resumer = rj_current;
    rj_current = c;
    rj_swift_state_enter(c);
}

/* Everything after, on the same thread (the resumer does not move). */
static inline __attribute__((always_inline)) int rj_after_resume(rj_coro *c) {
    rj_swift_state_exit(c);
    rj_current = c->resumer;
    return c->finished;
}

void rj_coro_will_resume(rj_coro *c) { rj_before_resume(c); }
int rj_coro_did_return(rj_coro *c) { return rj_after_resume(c); }

int rj_coro_resume(rj_coro *c) {
    rj_before_resume(c);
#if RJ_HAVE_INLINE_SWITCH
    if (c->switches_inline) {
        rj_switch_inline(&c->caller_sp, c->sp);
    } else
#endif
    {
        rj_tools_leave_for(c);
#if RJ_HAVE_FAST
        if (c->backend == RJ_BACKEND_FAST) {
            rj_switch(&c->caller_sp, c->sp);
        } else
#endif
        {
            rj_swapcontext(&c->caller_uc, &c->uc);
        }
        rj_tools_back_from(c);
    }
    return rj_after_resume(c);
}

void rj_coro_suspend(rj_coro *c) {
#if RJ_HAVE_INLINE_SWITCH
    if (c->switches_inline) {
        rj_switch_inline(&c->sp, c->caller_sp);
        return;
    }
#endif
    rj_tools_leave_to_resumer(c);
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        rj_switch(&c->sp, c->caller_sp);
    } else
#endif
    {
        rj_swapcontext(&c->uc, &c->caller_uc);
    }
    rj_tools_arrived(c);
}

rj_backend rj_coro_backend(const rj_coro *c) { return (rj_backend)c->backend; }
void *rj_coro_stack_bottom(const rj_coro *c) { return c->stack_lo; }
