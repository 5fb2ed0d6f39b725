/*
 * The benchmark floor (CRJBenchFloor.h). The fast variants run on a coroutine
 * of the C core, entered once through rj_coro_resume and then switched to and
 * from with the bare switch the variant names; the ucontext variant is glibc's
 * swapcontext alone, on a stack of its own.
 */
#define _GNU_SOURCE
#include "CRJBenchFloor.h"
#include "CRJContext.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#if defined(__GLIBC__)
#  include <malloc.h>
#endif

#if defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#    define RJ_FLOOR_SANITIZED 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define RJ_FLOOR_SANITIZED 1
#endif
#ifndef RJ_FLOOR_SANITIZED
#  define RJ_FLOOR_SANITIZED 0
#endif

#if RJ_HAVE_INLINE_SWITCH
#  define RJ_FLOOR_FAST 1
#else
#  define RJ_FLOOR_FAST 0
#endif

void rj_bench_trim_heap(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

static double rj_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double rj_bench_fresh_page_touch(uint64_t pages) {
    size_t stride = 320 * 1024;
    char *p = mmap(NULL, pages * stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    double t0 = rj_now_ns();
    for (uint64_t i = 0; i < pages; i++) ((volatile char *)p)[i * stride + stride - 64] = 1;
    double t1 = rj_now_ns();
    munmap(p, pages * stride);
    return (t1 - t0) / (double)pages;
}

double rj_bench_page_give_back(uint64_t pages) {
    size_t stride = 320 * 1024;
    char *p = mmap(NULL, pages * stride, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    for (uint64_t i = 0; i < pages; i++) ((volatile char *)p)[i * stride + stride - 64] = 1;
    double t0 = rj_now_ns();
    for (uint64_t i = 0; i < pages; i += 64) {
        uint64_t n = pages - i < 64 ? pages - i : 64;
        madvise(p + i * stride, n * stride, MADV_DONTNEED);
    }
    double t1 = rj_now_ns();
    munmap(p, pages * stride);
    return (t1 - t0) / (double)pages;
}

/* ---- Fast variants: a coroutine of the core, switched bare ------------------ */

#if RJ_FLOOR_FAST
typedef struct {
    rj_coro_head *head;
    rj_floor_variant variant;
    volatile int stop;
} rj_floor_ctx;

/* Puts the FPU control state saved before a switch back if the other side
 * changed it: what carrying it across a switch would cost at the least. */
static inline __attribute__((always_inline)) void rj_fpu_restore_if_changed(uint64_t saved) {
    uint64_t now = rj_fpu_control_state();
    if (now == saved) return;
#  if defined(__x86_64__)
    uint32_t mxcsr = (uint32_t)saved;
    uint16_t fpcw = (uint16_t)(saved >> 32);
    __asm__ volatile("ldmxcsr %0\n\tfldcw %1" : : "m"(mxcsr), "m"(fpcw));
#  elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(saved));
#  endif
}

/* The coroutine's side. It was entered by rj_coro_resume; the first switch back
 * is the one that pairs with it (the core's own suspend), every later one the
 * variant's, paired with the driver's. The last resume goes through
 * rj_coro_resume again and the entry returns. */
static void rj_floor_entry(void *arg) {
    rj_floor_ctx *ctx = arg;
    rj_coro *self = rj_coro_current();
    rj_coro_suspend_inline(self);
    while (!ctx->stop) {
        switch (ctx->variant) {
        case RJ_FLOOR_CALL_RET:
            rj_switch(&ctx->head->sp, ctx->head->caller_sp);
            break;
        case RJ_FLOOR_INLINE_FPU: {
            uint64_t saved = rj_fpu_control_state();
            rj_switch_inline(&ctx->head->sp, ctx->head->caller_sp);
            rj_fpu_restore_if_changed(saved);
            break;
        }
        default:
            rj_switch_inline(&ctx->head->sp, ctx->head->caller_sp);
        }
    }
}

static double rj_floor_fast(rj_floor_variant variant, uint64_t iterations) {
    rj_floor_ctx ctx = {NULL, variant, 0};
    rj_backend backend = variant == RJ_FLOOR_CALL_RET ? RJ_BACKEND_FAST_OUT_OF_LINE : RJ_BACKEND_FAST;
    rj_coro *c = rj_coro_create(0, backend, rj_floor_entry, &ctx);
    if (!c) return -1;
    ctx.head = (rj_coro_head *)(void *)c;
    rj_coro_resume(c);  /* to the entry's first suspend */
    double start = rj_now_ns();
    for (uint64_t i = 0; i < iterations; i++) {
        switch (variant) {
        case RJ_FLOOR_CALL_RET:
            rj_switch(&ctx.head->caller_sp, ctx.head->sp);
            break;
        case RJ_FLOOR_INLINE_FPU: {
            uint64_t saved = rj_fpu_control_state();
            rj_switch_inline(&ctx.head->caller_sp, ctx.head->sp);
            rj_fpu_restore_if_changed(saved);
            break;
        }
        default:
            rj_switch_inline(&ctx.head->caller_sp, ctx.head->sp);
        }
    }
    double elapsed = rj_now_ns() - start;
    ctx.stop = 1;
    rj_coro_resume(c);  /* the entry returns */
    rj_coro_destroy(c);
    return elapsed / (double)iterations;
}
#endif

/* ---- swapcontext ------------------------------------------------------------ */

typedef struct {
    ucontext_t driver, side;
    volatile int stop;
} rj_floor_uc;

static rj_floor_uc *rj_floor_uc_ctx;

static void rj_floor_uc_entry(void) {
    rj_floor_uc *ctx = rj_floor_uc_ctx;
    while (!ctx->stop) swapcontext(&ctx->side, &ctx->driver);
}

static double rj_floor_ucontext(uint64_t iterations) {
    enum { stack_bytes = 64 * 1024 };
    rj_floor_uc *ctx = calloc(1, sizeof *ctx);
    char *stack = malloc(stack_bytes);
    if (!ctx || !stack || getcontext(&ctx->side) != 0) {
        free(ctx);
        free(stack);
        return -1;
    }
    ctx->side.uc_stack.ss_sp = stack;
    ctx->side.uc_stack.ss_size = stack_bytes;
    ctx->side.uc_link = &ctx->driver;
    rj_floor_uc_ctx = ctx;
    makecontext(&ctx->side, rj_floor_uc_entry, 0);
    swapcontext(&ctx->driver, &ctx->side);
    double start = rj_now_ns();
    for (uint64_t i = 0; i < iterations; i++) swapcontext(&ctx->driver, &ctx->side);
    double elapsed = rj_now_ns() - start;
    ctx->stop = 1;
    swapcontext(&ctx->driver, &ctx->side);  /* the entry returns to uc_link */
    free(stack);
    free(ctx);
    return elapsed / (double)iterations;
}

double rj_bench_floor(rj_floor_variant variant, uint64_t iterations) {
    if (RJ_FLOOR_SANITIZED) return -1;
    if (variant == RJ_FLOOR_UCONTEXT) return rj_floor_ucontext(iterations);
#if RJ_FLOOR_FAST
    return rj_floor_fast(variant, iterations);
#else
    return -1;
#endif
}

void rj_bench_on_stack(size_t bytes, void (*fn)(void *), void *ctx) {
    volatile char *frame = __builtin_alloca(bytes ? bytes : 1);
    frame[0] = 1;
    if (bytes) frame[bytes - 1] = 1;
    fn(ctx);
    frame[0] = 2; /* the frame stays live across the call: no tail call */
}
