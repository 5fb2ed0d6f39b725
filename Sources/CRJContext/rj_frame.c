/*
 * A new coroutine's first frame, written on its stack before it first runs:
 * the frame its first switch "returns" into (layouts in rj_frame.h). Used by
 * rj_context.c for a coroutine with a stack of its own, and by rj_shared.c for
 * a shared-stack coroutine (on its run stack, at its first copy-in) and for a
 * thread's copier.
 */
#include "rj_internal.h"
#include "rj_frame.h"

#include <string.h>

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

