/*
 * Coroutines: creation, and resume/suspend with either backend. The Swift
 * runtime state that must follow a coroutine from switch to switch is in
 * rj_swift_state.c.
 */
#include "rj_internal.h"
#include "rj_swift_state.h"

#include <stdlib.h>
#include <string.h>

_Thread_local rj_coro *rj_current;

/* Out of line on purpose: see rj_coro_current in CRJContext.h. */
__attribute__((noinline)) rj_coro *rj_coro_current(void) { return rj_current; }

/* Coroutine ids: each thread takes a block of ids from the process-wide
 * counter and hands them out without further atomics. 64 bits do not wrap. */
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

static rj_backend rj_cfg_backend = RJ_HAVE_FAST ? RJ_BACKEND_FAST : RJ_BACKEND_UCONTEXT;

int rj_fast_backend_available(void) { return RJ_HAVE_FAST; }
rj_backend rj_default_backend(void) { return __atomic_load_n(&rj_cfg_backend, __ATOMIC_RELAXED); }
void rj_set_default_backend(rj_backend backend) {
    if (backend == RJ_BACKEND_FAST && !RJ_HAVE_FAST) return;
    __atomic_store_n(&rj_cfg_backend, backend, __ATOMIC_RELAXED);
}

const char *rj_backend_name(rj_backend backend) {
    if (backend == RJ_BACKEND_UCONTEXT) return "ucontext";
#if RJ_HAVE_FAST && defined(__x86_64__)
    return "fast (x86_64 sysv)";
#elif RJ_HAVE_FAST && defined(__aarch64__)
    return "fast (arm64 aapcs64)";
#else
    return "ucontext";
#endif
}

/* ---- Entry -------------------------------------------------------------- */

void rj_coro_main(rj_coro *c) {
    RJ_HOOK_AFTER_SWITCH_IN(c);
    c->entry(c->arg);
    c->finished = 1;
    rj_coro_suspend(c);
    /* A finished coroutine is never resumed (rj_coro_resume refuses). */
    abort();
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
    c->uc.uc_stack.ss_size = (size_t)(c->stack_hi - c->stack_lo) & ~(size_t)63;
    c->uc.uc_link = NULL;
    uintptr_t p = (uintptr_t)c;
    makecontext(&c->uc, (void (*)(void))rj_ucontext_entry, 2,
                (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
    return 0;
}

#if RJ_HAVE_FAST
/* Writes the frame rj_switch expects (see the table in switch_*.S), so that
 * the first switch "returns" into rj_trampoline. */
static void rj_prepare_fast(rj_coro *c) {
    uintptr_t top = (uintptr_t)c->stack_hi & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)top;
#if defined(__x86_64__)
    *--sp = 0;                              /* fake return address of the trampoline */
    *--sp = (uint64_t)(uintptr_t)rj_trampoline;
    *--sp = 0;                              /* rbp */
    *--sp = 0;                              /* rbx */
    *--sp = (uint64_t)(uintptr_t)c;         /* r12 */
    *--sp = 0;                              /* r13 */
    *--sp = 0;                              /* r14 */
    *--sp = 0;                              /* r15 */
    /* MXCSR and x87 control word: copy the creating thread's, so a coroutine
     * starts with the rounding mode and exception masks its creator had. */
    uint32_t mxcsr;
    uint16_t fpcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpcw));
    *--sp = ((uint64_t)fpcw << 32) | mxcsr;
#elif defined(__aarch64__)
    sp -= 20;                               /* 0xa0 bytes */
    memset(sp, 0, 20 * sizeof *sp);
    sp[8] = (uint64_t)(uintptr_t)c;         /* x19 */
    sp[18] = 0;                             /* x29 */
    sp[19] = (uint64_t)(uintptr_t)rj_trampoline; /* x30 */
#endif
    c->sp = sp;
}
#endif

rj_coro *rj_coro_create(size_t stack_size, rj_backend backend, rj_coro_entry entry, void *arg) {
    if (stack_size == 0) stack_size = rj_default_stack_size();
    if (stack_size < rj_min_stack_size()) {
        rj_set_error("RJIterator: stackSize %zu is below the minimum of %zu bytes; pass at least %zu KiB",
                     stack_size, rj_min_stack_size(), rj_min_stack_size() / 1024);
        return NULL;
    }
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
    c->backend = (unsigned char)(RJ_HAVE_FAST ? backend : RJ_BACKEND_UCONTEXT);
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        rj_prepare_fast(c);
    } else
#endif
    if (rj_prepare_ucontext(c) != 0) {
        rj_stack_release(c);
        return NULL;
    }
    RJ_HOOK_STACK_REGISTER(c);
    return c;
}

void rj_coro_destroy(rj_coro *c) {
    RJ_HOOK_STACK_DEREGISTER(c);
    rj_stack_release(c);
}

/* ---- Switching ---------------------------------------------------------- */

int rj_coro_resume(rj_coro *c) {
    if (!rj_thread_prepared) rj_swift_state_prepare_thread();
    rj_coro *previous = rj_current;
    c->resumer = previous;
    rj_current = c;
    rj_swift_state_enter(c);
    RJ_HOOK_BEFORE_SWITCH_IN(c);
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        rj_switch(&c->caller_sp, c->sp);
    } else
#endif
    {
        swapcontext(&c->caller_uc, &c->uc);
    }
    RJ_HOOK_AFTER_SWITCH_OUT(c);
    rj_swift_state_exit(c);
    rj_current = previous;
    return c->finished;
}

void rj_coro_suspend(rj_coro *c) {
    RJ_HOOK_BEFORE_SWITCH_OUT(c);
#if RJ_HAVE_FAST
    if (c->backend == RJ_BACKEND_FAST) {
        rj_switch(&c->sp, c->caller_sp);
    } else
#endif
    {
        swapcontext(&c->uc, &c->caller_uc);
    }
    RJ_HOOK_AFTER_SWITCH_IN(c);
}

void rj_coro_set_owner(rj_coro *c, void *owner) { c->owner = owner; }
rj_backend rj_coro_backend(const rj_coro *c) { return (rj_backend)c->backend; }
size_t rj_coro_stack_size(const rj_coro *c) { return (size_t)(c->stack_hi - c->stack_lo); }

/* ---- Benchmark floor ---------------------------------------------------- */

typedef struct {
    rj_coro *self;
    volatile int stop;
} rj_bench_ctx;

#if RJ_HAVE_FAST
static void rj_bench_fast_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) rj_switch(&ctx->self->sp, ctx->self->caller_sp);
}
#endif

static void rj_bench_uc_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) swapcontext(&ctx->self->uc, &ctx->self->caller_uc);
}

#include <time.h>
static double rj_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double rj_bench_raw_round_trip(rj_backend backend, uint64_t iterations) {
    if (backend == RJ_BACKEND_FAST && !RJ_HAVE_FAST) return -1;
    rj_bench_ctx ctx = {NULL, 0};
#if RJ_HAVE_FAST
    rj_coro_entry entry = backend == RJ_BACKEND_FAST ? rj_bench_fast_entry : rj_bench_uc_entry;
#else
    rj_coro_entry entry = rj_bench_uc_entry;
#endif
    rj_coro *c = rj_coro_create(0, backend, entry, &ctx);
    if (!c) return -1;
    ctx.self = c;
    double start = rj_now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
#if RJ_HAVE_FAST
        if (backend == RJ_BACKEND_FAST) rj_switch(&c->caller_sp, c->sp);
        else
#endif
            swapcontext(&c->caller_uc, &c->uc);
    }
    double elapsed = rj_now_ns() - start;
    ctx.stop = 1;
    rj_coro_resume(c); /* let the entry return */
    rj_coro_destroy(c);
    return elapsed / (double)iterations;
}
