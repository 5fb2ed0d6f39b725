/*
 * Context switch for arm64, AAPCS64 (Linux, macOS), ELF or Mach-O.
 *
 * void rj_switch(void **from_sp, void *to_sp)      x0 = from_sp, x1 = to_sp
 *
 * Saves exactly the callee-saved registers: x19-x28, the frame pointer x29,
 * the link register x30 (the resume point) and the low halves d8-d15 of
 * v8-v15. x18 is the platform register and is left alone.
 *
 * Frame left on the suspended stack (sp points at offset 0x00):
 *
 *   offset | contents
 *   -------+---------------------------------------------
 *    0x00  | d8   | d9
 *    0x10  | d10  | d11
 *    0x20  | d12  | d13
 *    0x30  | d14  | d15
 *    0x40  | x19  | x20      (new coroutine: x19 = the rj_coro pointer)
 *    0x50  | x21  | x22
 *    0x60  | x23  | x24
 *    0x70  | x25  | x26
 *    0x80  | x27  | x28
 *    0x90  | x29  | x30      (new coroutine: 0 and rj_trampoline)
 *
 * 0xa0 bytes, a multiple of 16 as sp requires. The offsets are named in
 * rj_frame.h, which rj_context.c uses to write the same frame for a coroutine
 * that has never run.
 *
 * Branch protection (docs/context-switching.md, "arm64 branch protection"):
 * - BTI: rj_switch starts with `bti c`, since it is reached by an indirect
 *   branch whenever it is called through a PLT (the C core in a shared
 *   library) or a pointer; rj_trampoline_inline is reached by `br x16` and
 *   starts with `bti jc`; rj_trampoline is reached by `ret`, which needs no
 *   landing pad. With -mbranch-protection=bti or standard the file carries
 *   the GNU property note (rj_asm.h), without which the linker leaves the
 *   whole program unmarked and nothing is enforced.
 * - PAC: rj_switch signs and authenticates nothing. x30 is saved and loaded
 *   as it is: what it holds is rj_switch's own return address, put there
 *   unsigned by the caller's `bl`, and the caller's signed return address
 *   stays in the caller's frame, where the caller authenticates it against
 *   its own stack pointer when it returns, on the stack where it was signed.
 *   Authenticating in the switch would check a value signed on one stack
 *   against the other stack's pointer, and fail.
 */
#include "rj_asm.h"
#include "rj_frame.h"

#if defined(__aarch64__) && !(defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT)

    .text
    .globl SYM(rj_switch)
    RJ_ASM_TYPE(rj_switch)
    .p2align 4
SYM(rj_switch):
    .cfi_startproc
    hint    #34                 /* bti c: a landing pad where BTI is on (a nop elsewhere) */
    sub     sp, sp, #RJ_A64_FRAME
    .cfi_adjust_cfa_offset 0xa0
    stp     d8,  d9,  [sp, #RJ_A64_D8]
    stp     d10, d11, [sp, #RJ_A64_D10]
    stp     d12, d13, [sp, #RJ_A64_D12]
    stp     d14, d15, [sp, #RJ_A64_D14]
    stp     x19, x20, [sp, #RJ_A64_X19]
    stp     x21, x22, [sp, #RJ_A64_X21]
    stp     x23, x24, [sp, #RJ_A64_X23]
    stp     x25, x26, [sp, #RJ_A64_X25]
    stp     x27, x28, [sp, #RJ_A64_X27]
    stp     x29, x30, [sp, #RJ_A64_X29]

    mov     x9, sp
    str     x9, [x0]            /* *from_sp = sp */
    mov     sp, x1              /* now on the other stack */

    ldp     d8,  d9,  [sp, #RJ_A64_D8]
    ldp     d10, d11, [sp, #RJ_A64_D10]
    ldp     d12, d13, [sp, #RJ_A64_D12]
    ldp     d14, d15, [sp, #RJ_A64_D14]
    ldp     x19, x20, [sp, #RJ_A64_X19]
    ldp     x21, x22, [sp, #RJ_A64_X21]
    ldp     x23, x24, [sp, #RJ_A64_X23]
    ldp     x25, x26, [sp, #RJ_A64_X25]
    ldp     x27, x28, [sp, #RJ_A64_X27]
    ldp     x29, x30, [sp, #RJ_A64_X29]
    add     sp, sp, #RJ_A64_FRAME
    ret
    .cfi_endproc
    RJ_ASM_END(rj_switch)

/*
 * First code a new coroutine runs: rj_switch's `ret` lands here with x19 = the
 * rj_coro pointer and x29 = 0. The link register is marked undefined so that
 * unwinders and debuggers stop at the base of the coroutine's stack.
 */
    .globl SYM(rj_trampoline)
    RJ_ASM_HIDDEN(rj_trampoline)
    RJ_ASM_TYPE(rj_trampoline)
    .p2align 4
SYM(rj_trampoline):
    .cfi_startproc
    .cfi_undefined x30
    mov     x0, x19
    mov     x29, #0
    mov     x30, #0
    bl      SYM(rj_coro_main)   /* never returns */
    brk     #0
    .cfi_endproc
    RJ_ASM_END(rj_trampoline)

/*
 * First code a new coroutine runs when it switches with the inline switch
 * (CRJContext.h): the switch's `br x16` lands here with x29 = 0 and sp on the
 * rj_coro pointer (rj_frame.h, RJ_INLINE_CORO).
 */
    .globl SYM(rj_trampoline_inline)
    RJ_ASM_HIDDEN(rj_trampoline_inline)
    RJ_ASM_TYPE(rj_trampoline_inline)
    .p2align 4
SYM(rj_trampoline_inline):
    .cfi_startproc
    .cfi_undefined x30
    hint    #38                 /* bti jc: a landing pad where BTI is on */
    ldr     x0, [sp]
    mov     x29, #0
    mov     x30, #0
    bl      SYM(rj_coro_main)   /* never returns */
    brk     #0
    .cfi_endproc
    RJ_ASM_END(rj_trampoline_inline)

#endif

#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
/* Also in a ucontext build, where the file has no code: an object without the
 * note would leave the program unmarked. */
#if defined(__aarch64__) && defined(__ELF__) && RJ_A64_FEATURES != 0
RJ_ASM_GNU_PROPERTY_NOTE
#endif
