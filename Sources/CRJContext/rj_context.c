/*
 * Coroutines: creation, resume and suspend with either backend, and the
 * tools' view of every switch (sanitizers, valgrind). The bookkeeping before
 * and after a switch (the current coroutine, the Swift runtime state) and the
 * per-thread set-up are in rj_thread.c; stacks are in rj_stack.c; shared-stack
 * coroutines in rj_shared.c.
 *
 * A switch, seen from both sides (fast backend; ucontext is the same with
 * swapcontext in place of rj_switch):
 *
 *   resumer (rj_coro_resume)               coroutine (rj_coro_main / rj_coro_suspend)
 *   ------------------------               ------------------------------------------
 *   rj_coro_will_resume: rj_current = c,
 *     Swift state in (rj_thread.c)
 *   tools: "leaving for c's stack"
 *   rj_switch(&c->caller_sp, c->sp)  --->  tools: "arrived on c's stack"
 *                                          ... the body runs ...
 *                                          tools: "leaving for the resumer's stack"
 *   tools: "arrived back"           <---   rj_switch(&c->sp, c->caller_sp)
 *   rj_coro_did_return: Swift state out,
 *     rj_current back (rj_thread.c)
 */
#include "rj_internal.h"
#include "rj_tools.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#if RJ_ASAN
#  include <pthread.h>
#endif
#if RJ_ASAN
#  include <dlfcn.h>
#endif

void *rj_swift_close_signal; /* CRJContext.h */

/* ---- Configuration ------------------------------------------------------- */

rj_backend rj_cfg_backend = RJ_HAVE_FAST ? RJ_BACKEND_FAST : RJ_BACKEND_UCONTEXT;

int rj_fast_backend_available(void) { return RJ_HAVE_FAST; }
int rj_switches_inline_by_default(void) {
    /* Shared-stack coroutines too (RJ_SHARED_INLINE: the same conditions, the fast backend
     * being theirs whatever the default). */
    if (rj_default_stack_mode() == RJ_STACK_SHARED) return RJ_SHARED_INLINE;
    return RJ_HAVE_INLINE_SWITCH && !RJ_ASAN && !RJ_TSAN && rj_default_backend() == RJ_BACKEND_FAST;
}
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

/* ---- Adoption ------------------------------------------------------------
 * A body that delegates to a fresh generator may run that generator's body right there, on
 * its own stack, as a nested call (Swift's Yielder.yieldAll; docs/generators.md,
 * "Delegation"). The coroutine then says the adopted body is the one running on it: its owner
 * and id are the adopted generator's and a new id, so that what asks "which body runs here"
 * (a Yielder's check, rj_yield, rj_await, a for-in's error, the overflow message) gets it;
 * the adopter puts its own back when the adopted body ends (rj_coro_set_body). Allowed only
 * while the stack left below the caller is at least what the adopted generator was promised
 * (its stack size, the default one for 0) and a margin for the frames between: a body never
 * has less stack adopted than it would have had on a stack of its own. Every stack reserves
 * address space below its nominal size for this (rj_stack.c, rj_reserve_for). A sanitizer's
 * frames are several times larger (docs/context-switching.md, "Stacks"): so is the margin. */
#if RJ_ASAN || RJ_TSAN
#define RJ_ADOPT_MARGIN ((size_t)16384)
#else
#define RJ_ADOPT_MARGIN ((size_t)4096)
#endif
/* A shared-stack coroutine adopts only while it uses at most this much of its run stack: its
 * frames are copied out and back whenever another coroutine takes its run stack in between,
 * and adopted frames make every such copy larger. Chosen by counting instructions
 * (docs/performance.md, "Adoption on shared stacks"): unbounded, chains read in lock-step copy
 * all their adopted frames at every turn; bounded, levels past the bound start coroutines of
 * their own. */
#define RJ_SHARED_ADOPT_BOUND ((size_t)4096)

uint64_t rj_unique_id(void) { return rj_new_id(); }

size_t rj_coro_stack_used(const rj_coro *c) {
    const char *here = __builtin_frame_address(0);
    return here < c->stack_lo || here > c->stack_hi ? 0 : (size_t)(c->stack_hi - here);
}
size_t rj_shared_adopt_bound(void) { return RJ_SHARED_ADOPT_BOUND; }
size_t rj_adopt_margin(void) { return RJ_ADOPT_MARGIN; }

uint64_t rj_coro_adopt(rj_coro *c, void *owner, size_t promise) {
    const char *here = __builtin_frame_address(0);
    if (promise == 0) promise = rj_default_stack_size();
    if (here < c->stack_lo || (size_t)(here - c->stack_lo) < promise + RJ_ADOPT_MARGIN) return 0;
    if (c->shared && (size_t)(c->stack_hi - here) > RJ_SHARED_ADOPT_BOUND) return 0;
    uint64_t id = rj_new_id();
    c->owner = owner;
    c->id = id;
    return id;
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
    /* c is the running coroutine: read again rather than kept in a callee-saved register across
     * the body, which would make this frame 16 bytes larger in every suspended body's frames
     * (what a shared-stack coroutine keeps while suspended). */
    c = rj_current;
    c->finished = 1;
#if RJ_HAVE_INLINE_SWITCH
    /* The last switch out, inline where the coroutine switches inline with a stack of its own
     * (rj_coro_suspend's first case): a call less on every generator's end. */
    if (c->switches_inline == 1) rj_switch_inline(&c->sp, c->caller_sp);
    else
#endif
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
