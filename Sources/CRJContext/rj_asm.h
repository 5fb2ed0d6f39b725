/*
 * Assembler macros shared by the switch_*.S files: symbol names and function
 * boilerplate for ELF (Linux, BSDs) and Mach-O (Apple, leading underscore).
 */
#ifndef RJ_ASM_H
#define RJ_ASM_H

#if defined(__APPLE__)
#  define SYM(name) _##name
#  define RJ_ASM_HIDDEN(name) .private_extern SYM(name)
#  define RJ_ASM_TYPE(name)
#  define RJ_ASM_END(name)
#else
#  define SYM(name) name
#  define RJ_ASM_HIDDEN(name) .hidden SYM(name)
#  if defined(__aarch64__)
#    define RJ_ASM_TYPE(name) .type SYM(name), %function
#  else
#    define RJ_ASM_TYPE(name) .type SYM(name), @function
#  endif
#  define RJ_ASM_END(name) .size SYM(name), .-SYM(name)
#endif

/* Each function starts with (one directive a line: Apple's arm64 assembler
 * reads `;` as a comment, so no macro can chain them):
 *     .globl SYM(name)
 *     RJ_ASM_HIDDEN(name)
 *     RJ_ASM_TYPE(name)
 *     .p2align 4
 * SYM(name):
 * and ends with RJ_ASM_END(name). */

#endif
