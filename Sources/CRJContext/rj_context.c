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
#include "rj_swift_state.h"
#include "rj_tools.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#  include <sys/syscall.h>
#endif
#if RJ_ASAN || defined(__APPLE__)
#  include <pthread.h>
#endif
#if RJ_ASAN
#  include <dlfcn.h>
#endif

RJ_TLS rj_coro *rj_current;

void *rj_swift_close_signal; /* CRJContext.h */

/* Out of line on purpose: see rj_coro_current in CRJContext.h. */
__attribute__((noinline)) rj_coro *rj_coro_current(void) { return rj_current; }

/* ---- Per-thread set-up --------------------------------------------------- */

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
 * here so that the calls run one way: this file calls rj_swift_state.c, never
 * the reverse. */
int rj_exclusivity_fast_path(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_excl_head != rj_excl_unknown;
}

int rj_task_locals_tracked(void) {
    if (!rj_thread_prepared) rj_prepare_thread();
    return rj_tl_slot != rj_tl_untracked;
}

/* ---- Configuration ------------------------------------------------------- */

static rj_backend rj_cfg_backend = RJ_HAVE_FAST ? RJ_BACKEND_FAST : RJ_BACKEND_UCONTEXT;

int rj_fast_backend_available(void) { return RJ_HAVE_FAST; }
int rj_switches_inline_by_default(void) {
    /* Shared-stack coroutines too (RJ_SHARED_INLINE: the same conditions, the fast backend
     * being theirs whatever the default). */
    if (rj_default_stack_mode() == RJ_STACK_SHARED) return RJ_SHARED_INLINE;
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
static RJ_TLS uint64_t rj_id_next, rj_id_end;

static uint64_t rj_new_id(void) {
    if (rj_id_next == rj_id_end) {
        rj_id_next = __atomic_fetch_add(&rj_id_next_block, RJ_ID_BLOCK, __ATOMIC_RELAXED);
        rj_id_end = rj_id_next + RJ_ID_BLOCK;
    }
    return rj_id_next++;
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
    ucontext_t *uc = &rj_uc(c)->uc;
    if (getcontext(uc) != 0) {
        rj_set_error("RJIterator: getcontext failed");
        return -1;
    }
    uc->uc_stack.ss_sp = c->stack_lo;
    uc->uc_stack.ss_size = rj_stack_bytes(c) & ~(size_t)63;
    uc->uc_link = NULL;
    uintptr_t p = (uintptr_t)c;
    makecontext(uc, (void (*)(void))rj_ucontext_entry, 2,
                (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
    return 0;
}

/* Everything a new coroutine needs beyond its stack; gives the stack back on failure. */
static rj_coro *rj_coro_setup(rj_coro *c, size_t stack_size, rj_backend backend, rj_coro_entry entry, void *arg) {
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

rj_coro *rj_coro_create(size_t stack_size, rj_backend backend, rj_coro_entry entry, void *arg) {
    int size_given = stack_size != 0;
    if (!size_given) stack_size = rj_default_stack_size();
    else if (rj_check_stack_size(stack_size > (size_t)LLONG_MAX ? LLONG_MAX : (long long)stack_size, "stackSize") != 0)
        return NULL;
    rj_coro *c = rj_stack_acquire(stack_size);
    if (!c) return NULL;
    c->size_given = (unsigned char)size_given;
    return rj_coro_setup(c, stack_size, backend, entry, arg);
}

rj_coro *rj_coro_create_shared(rj_coro_entry entry, void *arg) {
    rj_coro *c = rj_shared_create(entry, arg);
    if (!c) return NULL;
    c->id = rj_new_id();
    rj_tools_created(c);
    return c;
}

void rj_coro_destroy(rj_coro *c) {
    if (c == rj_current) rj_fatal("RJIterator: internal error: a coroutine was destroyed while it runs");
    rj_tools_destroyed(c);
    if (c->shared) rj_shared_destroy(c);
    else rj_stack_release(c);
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
 * fast paths are leaves (no call, so no frame and no saved register) for the common case:
 * this thread is prepared and its exclusivity head is known, neither the thread nor the
 * coroutine has an access open, no task-local value is bound outside a task on this thread,
 * and the coroutine has bound none. Then the Swift runtime state has nothing to carry, and
 * what is left is the current coroutine and what a dump reads. Anything else takes the whole
 * bookkeeping above, out of line. The two tests are the union of the conditions under which
 * rj_swift_state_enter and rj_swift_state_exit would do anything. */
static __attribute__((noinline)) void rj_will_resume_slow(rj_coro *c) { rj_before_resume(c); }
static __attribute__((noinline)) int rj_did_return_slow(rj_coro *c) { return rj_after_resume(c); }

void rj_coro_will_resume(rj_coro *c) {
    /* Until rj_prepare_thread has run on this thread (and when the runtime's layout was not
     * found, or RJ_EXCLUSIVITY_SLOW_PATH=1: the runtime is called every time), the head points
     * at a word that is never empty; the slot, where task-locals are not tracked, at one that
     * is always empty (rj_swift_state.c). */
    if (__builtin_expect(*rj_excl_head || c->exclusivity[0] || c->tl_head || *rj_tl_slot || c->finished, 0)) {
        rj_will_resume_slow(c);
        return;
    }
    c->resumer = rj_current;
    c->last_thread = rj_thread_prepared;
    c->tl_resumer_head = NULL;
    rj_current = c;
}

int rj_coro_did_return(rj_coro *c) {
    if (__builtin_expect(*rj_excl_head || c->exclusivity[0] || c->tl_resumer_head || *rj_tl_slot, 0))
        return rj_did_return_slow(c);
    c->tl_head = NULL;
    rj_current = c->resumer;
    return c->finished;
}

int rj_coro_resume(rj_coro *c) {
    /* The same bookkeeping as the inline switch's halves, their leaf fast paths included. */
    rj_coro_will_resume(c);
    if (c->shared) {
        rj_shared_switch_in(c);
        return rj_coro_did_return(c);
    }
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
            rj_swapcontext(&rj_uc(c)->caller_uc, &rj_uc(c)->uc);
        }
        rj_tools_back_from(c);
    }
    return rj_coro_did_return(c);
}

void rj_coro_suspend(rj_coro *c) {
    if (c->shared) {
        rj_shared_switch_out(c);
        return;
    }
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
        rj_swapcontext(&rj_uc(c)->uc, &rj_uc(c)->caller_uc);
        /* Not a tail call, so that this frame's record stays on the stack: glibc's arm64
         * swapcontext saves a resume point inside itself as the context's pc and keeps the
         * caller's return address where no walk looks, so the dump (rj_coro_backtrace)
         * finds the body's innermost frame only through this frame's record. */
        __asm__ volatile("");
    }
    rj_tools_arrived(c);
}

rj_backend rj_coro_backend(const rj_coro *c) { return (rj_backend)c->backend; }
void *rj_coro_stack_bottom(const rj_coro *c) { return c->stack_lo; }
