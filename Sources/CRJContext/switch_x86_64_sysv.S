/*
 * Context switch for x86_64, System V ABI (Linux, BSDs, macOS), ELF or Mach-O.
 *
 * void rj_switch(void **from_sp, void *to_sp)      rdi = from_sp, rsi = to_sp
 *
 * Saves exactly what the ABI says a callee must preserve: rbx, rbp, r12-r15,
 * the MXCSR control bits and the x87 control word. Everything else is
 * caller-saved, so the C or Swift code that called rj_switch has already
 * saved what it needs. The return address pushed by `call` is the resume point.
 *
 * Frame left on the suspended stack (rsp points at offset 0x00):
 *
 *   offset | contents
 *   -------+------------------------------------------
 *    0x00  | MXCSR (4 bytes)          | x87 CW (2 bytes) + 2 unused
 *    0x08  | r15
 *    0x10  | r14
 *    0x18  | r13
 *    0x20  | r12        (new coroutine: the rj_coro pointer)
 *    0x28  | rbx
 *    0x30  | rbp        (new coroutine: 0, ends the frame-pointer chain)
 *    0x38  | return address (new coroutine: rj_trampoline)
 *    0x40  | (new coroutine only) 0: the trampoline's fake return address
 *
 * 0x40 bytes are pushed. The offsets are named in rj_frame.h, which
 * rj_context.c uses to write the same frame for a coroutine that has never
 * run; the push order below must match it.
 */
#if defined(__x86_64__) && !(defined(RJ_CONTEXT_UCONTEXT) && RJ_CONTEXT_UCONTEXT)

#include "rj_asm.h"

    .text
    .globl SYM(rj_switch)
    RJ_ASM_TYPE(rj_switch)
    .p2align 4
SYM(rj_switch):
    .cfi_startproc
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)

    movq    %rsp, (%rdi)        /* *from_sp = rsp */
    movq    %rsi, %rsp          /* now on the other stack */

    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
    .cfi_endproc
    RJ_ASM_END(rj_switch)

/*
 * First code a new coroutine runs: rj_switch's `ret` lands here with r12 = the
 * rj_coro pointer and rbp = 0. The return address is marked undefined so that
 * unwinders and debuggers stop at the base of the coroutine's stack.
 */
    .globl SYM(rj_trampoline)
    RJ_ASM_HIDDEN(rj_trampoline)
    RJ_ASM_TYPE(rj_trampoline)
    .p2align 4
SYM(rj_trampoline):
    .cfi_startproc
    .cfi_undefined rip
    movq    %r12, %rdi
    xorl    %ebp, %ebp
    andq    $-16, %rsp          /* call needs rsp 16-byte aligned */
    call    SYM(rj_coro_main)   /* never returns */
    ud2
    .cfi_endproc
    RJ_ASM_END(rj_trampoline)

/*
 * First code a new coroutine runs when it switches with the inline switch
 * (CRJContext.h): the switch's `jmp` lands here with rbp = 0 and the stack
 * pointer on the rj_coro pointer (rj_frame.h, RJ_INLINE_CORO).
 */
    .globl SYM(rj_trampoline_inline)
    RJ_ASM_HIDDEN(rj_trampoline_inline)
    RJ_ASM_TYPE(rj_trampoline_inline)
    .p2align 4
SYM(rj_trampoline_inline):
    .cfi_startproc
    .cfi_undefined rip
    movq    (%rsp), %rdi
    xorl    %ebp, %ebp
    andq    $-16, %rsp          /* call needs rsp 16-byte aligned */
    call    SYM(rj_coro_main)   /* never returns */
    ud2
    .cfi_endproc
    RJ_ASM_END(rj_trampoline_inline)

#endif

#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
