/*
 * The benchmark floor: round trips of the bare switch, in each variant the
 * core has or has weighed, with none of rj_coro_resume's bookkeeping (Swift
 * state, tools, current coroutine), to show what a generator's round trip
 * costs on top and what each part of a switch costs.
 */
#include "rj_internal.h"

#include <time.h>
#if defined(__GLIBC__)
#  include <malloc.h>
#endif

void rj_bench_trim_heap(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

typedef struct {
    rj_coro *self;
    volatile int stop;
} rj_bench_ctx;

/* The FPU control state, saved before a switch and put back after it only if
 * the other side changed it: what "switching" it would cost at the least. */
#if defined(__x86_64__)
typedef struct { uint32_t mxcsr; uint16_t fpcw; } rj_fpu_state;
static inline __attribute__((always_inline)) rj_fpu_state rj_fpu_save(void) {
    rj_fpu_state s;
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(s.mxcsr), "=m"(s.fpcw));
    return s;
}
static inline __attribute__((always_inline)) void rj_fpu_restore_if_changed(rj_fpu_state s) {
    rj_fpu_state now = rj_fpu_save();
    if (now.mxcsr != s.mxcsr) __asm__ volatile("ldmxcsr %0" : : "m"(s.mxcsr));
    if (now.fpcw != s.fpcw) __asm__ volatile("fldcw %0" : : "m"(s.fpcw));
}
#elif defined(__aarch64__)
typedef struct { uint64_t fpcr; } rj_fpu_state;
static inline __attribute__((always_inline)) rj_fpu_state rj_fpu_save(void) {
    rj_fpu_state s;
    __asm__ volatile("mrs %0, fpcr" : "=r"(s.fpcr));
    return s;
}
static inline __attribute__((always_inline)) void rj_fpu_restore_if_changed(rj_fpu_state s) {
    rj_fpu_state now = rj_fpu_save();
    if (now.fpcr != s.fpcr) __asm__ volatile("msr fpcr, %0" : : "r"(s.fpcr));
}
#endif

#if RJ_HAVE_FAST
static void rj_bench_call_ret_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) rj_switch(&ctx->self->sp, ctx->self->caller_sp);
}
#endif
#if RJ_HAVE_INLINE_SWITCH
static void rj_bench_inline_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) rj_switch_inline(&ctx->self->sp, ctx->self->caller_sp);
}
static void rj_bench_inline_fpu_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) {
        rj_fpu_state saved = rj_fpu_save();
        rj_switch_inline(&ctx->self->sp, ctx->self->caller_sp);
        rj_fpu_restore_if_changed(saved);
    }
}
#endif
static void rj_bench_uc_entry(void *arg) {
    rj_bench_ctx *ctx = arg;
    while (!ctx->stop) swapcontext(&ctx->self->uc, &ctx->self->caller_uc);
}

static double rj_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double rj_bench_floor(rj_floor_variant variant, uint64_t iterations) {
    /* Unannotated switches would confuse a sanitizer: no floor in such a build. */
    if (RJ_ASAN || RJ_TSAN) return -1;
    rj_bench_ctx ctx = {NULL, 0};
    rj_coro_entry entry = rj_bench_uc_entry;
    rj_backend backend = RJ_BACKEND_UCONTEXT;
    switch (variant) {
    case RJ_FLOOR_CALL_RET:
#if RJ_HAVE_FAST
        entry = rj_bench_call_ret_entry;
        backend = RJ_BACKEND_FAST;
        break;
#else
        return -1;
#endif
    case RJ_FLOOR_INLINE:
    case RJ_FLOOR_INLINE_FPU:
#if RJ_HAVE_INLINE_SWITCH
        entry = variant == RJ_FLOOR_INLINE ? rj_bench_inline_entry : rj_bench_inline_fpu_entry;
        backend = RJ_BACKEND_FAST;
        break;
#else
        return -1;
#endif
    case RJ_FLOOR_UCONTEXT:
        break;
    }
    rj_coro *c = rj_coro_create(0, backend, entry, &ctx);
    if (!c) return -1;
    ctx.self = c;
#if RJ_HAVE_FAST
    if (variant == RJ_FLOOR_CALL_RET) {
        /* rj_switch's own frame, and rj_coro_resume's out-of-line path for the last resume. */
        c->switches_inline = 0;
        rj_prepare_fast(c);
    }
#endif
    double start = rj_now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        switch (variant) {
#if RJ_HAVE_FAST
        case RJ_FLOOR_CALL_RET:
            rj_switch(&c->caller_sp, c->sp);
            break;
#endif
#if RJ_HAVE_INLINE_SWITCH
        case RJ_FLOOR_INLINE:
            rj_switch_inline(&c->caller_sp, c->sp);
            break;
        case RJ_FLOOR_INLINE_FPU: {
            rj_fpu_state saved = rj_fpu_save();
            rj_switch_inline(&c->caller_sp, c->sp);
            rj_fpu_restore_if_changed(saved);
            break;
        }
#endif
        default:
            swapcontext(&c->caller_uc, &c->uc);
        }
    }
    double elapsed = rj_now_ns() - start;
    ctx.stop = 1;
    rj_coro_resume(c); /* let the entry return */
    rj_coro_destroy(c);
    return elapsed / (double)iterations;
}
