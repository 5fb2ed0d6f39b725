/*
 * The benchmark's floor: round trips of the bare switches, with none of
 * rj_coro_resume's bookkeeping (current coroutine, Swift runtime state, the
 * tools), to show what a generator's round trip costs on top of its switch and
 * what each part of a switch costs. Benchmark code only: no library target
 * depends on it.
 */
#ifndef CRJBENCHFLOOR_H
#define CRJBENCHFLOOR_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    RJ_FLOOR_CALL_RET = 0,   /* rj_switch: out of line, saves MXCSR/x87 CW, `ret` onto the other stack */
    RJ_FLOOR_INLINE = 1,     /* rj_switch_inline: inline, indirect jump to a label */
    RJ_FLOOR_INLINE_FPU = 2, /* the inline switch plus saving the FPU control state, restored when it changed */
    RJ_FLOOR_UCONTEXT = 3,   /* two swapcontext calls, on a stack of the floor's own */
} rj_floor_variant;

/* Measures `iterations` round trips (resume + suspend) of the bare switch
 * `variant`. Returns nanoseconds per round trip, or -1 if the variant is not
 * available here or the build is sanitized (an unannotated switch would
 * confuse the sanitizer). */
double rj_bench_floor(rj_floor_variant variant, uint64_t iterations);

/* Merges the allocator's free chunks and gives unused memory back to the
 * system (glibc's malloc_trim; nothing elsewhere), so that a set of rows does
 * not measure what the sets before it left in the heap. */
void rj_bench_trim_heap(void);

/* The first write to each of `pages` fresh pages, one every 320 KiB (as the
 * top pages of default-size stacks lie), in a mapping made for it: the page
 * fault and zeroing that a new stack's top page costs, whatever the library
 * does. Returns nanoseconds per page, or -1 if the mapping failed. */
double rj_bench_fresh_page_touch(uint64_t pages);

/* Giving such pages back: `pages` pages written, one every 320 KiB, then given
 * back with one MADV_DONTNEED per 64 of them (as the library gives back the
 * stacks of neighbouring slots of a slab). Returns nanoseconds per page given
 * back, or -1 if the mapping failed. */
double rj_bench_page_give_back(uint64_t pages);

/* Calls fn(ctx) with `bytes` more of the stack in use below the caller: a body
 * that yields from fn suspends with that many bytes of frames (the shared-stack
 * rows' way to choose how much a resume copies). */
void rj_bench_on_stack(size_t bytes, void (*_Nonnull fn)(void *_Nullable), void *_Nullable ctx);

#endif
