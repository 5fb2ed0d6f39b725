/*
 * The frame rj_switch leaves on a suspended stack, as offsets from the saved
 * stack pointer. Included by the switch_*.S files (which save and restore the
 * registers at these offsets) and by rj_context.c (which writes the same frame
 * for a coroutine that has never run), so the layout lives in one place.
 * The tables above each switch_*.S routine show the same layout.
 */
#ifndef RJ_FRAME_H
#define RJ_FRAME_H

/* x86_64 System V: pushed rbp, rbx, r12-r15, then 8 bytes of FPU control state. */
#define RJ_X86_FPU     0x00  /* MXCSR (4 bytes), x87 control word (2 bytes) */
#define RJ_X86_R15     0x08
#define RJ_X86_R14     0x10
#define RJ_X86_R13     0x18
#define RJ_X86_R12     0x20  /* new coroutine: the rj_coro pointer */
#define RJ_X86_RBX     0x28
#define RJ_X86_RBP     0x30  /* new coroutine: 0, ends the frame-pointer chain */
#define RJ_X86_RET     0x38  /* return address; new coroutine: rj_trampoline */
#define RJ_X86_FRAME   0x40  /* bytes rj_switch pushes */

/* arm64 AAPCS64: d8-d15, x19-x28, x29 (fp), x30 (lr), stored in pairs. */
#define RJ_A64_D8      0x00
#define RJ_A64_D10     0x10
#define RJ_A64_D12     0x20
#define RJ_A64_D14     0x30
#define RJ_A64_X19     0x40  /* new coroutine: the rj_coro pointer */
#define RJ_A64_X21     0x50
#define RJ_A64_X23     0x60
#define RJ_A64_X25     0x70
#define RJ_A64_X27     0x80
#define RJ_A64_X29     0x90  /* x29 then x30; new coroutine: 0 and rj_trampoline */
#define RJ_A64_X30     0x98
#define RJ_A64_FRAME   0xa0  /* a multiple of 16, as sp requires */

/* The inline switch (CRJContext.h): two words at the saved stack pointer, on
 * both architectures; a new coroutine has its rj_coro pointer above them. */
#define RJ_INLINE_PC     0x00  /* where to continue; new coroutine: rj_trampoline_inline */
#define RJ_INLINE_FP     0x08  /* saved frame pointer; new coroutine: 0 */
#define RJ_INLINE_CORO   0x10  /* new coroutine only: the rj_coro pointer */
#define RJ_INLINE_FRAME  0x20  /* bytes a new coroutine's first frame takes (16-byte multiple) */

#endif
