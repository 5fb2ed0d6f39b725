/*
 * The program start of the branch-protected arm64 test build (run.sh
 * arm64-protected), in place of the toolchain's start files.
 *
 * Why: the loader guards a program's pages for BTI only when the program
 * carries the BTI property, and the linker gives it that property only when
 * every object linked in has it. Debian 12's arm64 start files (Scrt1.o,
 * crti.o, crtn.o, crtbeginS.o, crtendS.o) have none, so a test linked with
 * them is never enforced; forcing the property (-z force-bti) kills it at once
 * in their code, which has no landing pads. This file does what those do that
 * the tests need, with landing pads and the property: _start hands argc, argv
 * and the stack to glibc's __libc_start_main, which runs the constructors and
 * main and exits; __dso_handle names this program to atexit. Nothing here runs
 * a .init section (glibc 2.34 and later call the init_array themselves).
 */
#include "rj_asm.h"

#if defined(__aarch64__) && defined(__ELF__)
    .text
    .globl _start
    .type _start, %function
    .p2align 2
_start:
    .cfi_startproc
    .cfi_undefined x30
    hint    #38                 /* bti jc: the dynamic loader jumps here with `br` */
    mov     x29, #0             /* the end of the frame chain */
    mov     x30, #0
    mov     x5, x0              /* rtld_fini, from the dynamic loader */
    ldr     x1, [sp]            /* argc */
    add     x2, sp, #8          /* argv */
    mov     x6, sp              /* the stack's end */
    adrp    x0, :got:main
    ldr     x0, [x0, #:got_lo12:main]
    mov     x3, #0              /* init and fini: glibc runs the arrays itself */
    mov     x4, #0
    bl      __libc_start_main   /* never returns */
    bl      abort
    .cfi_endproc
    .size _start, .-_start

    .data
    .p2align 3
    .globl __dso_handle
    .hidden __dso_handle
__dso_handle:
    .quad __dso_handle

    .section .note.GNU-stack,"",%progbits
#  if RJ_A64_FEATURES != 0
RJ_ASM_GNU_PROPERTY_NOTE
#  endif
#endif
