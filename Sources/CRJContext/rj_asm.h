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

/* arm64 ELF: the GNU property note that says which branch-protection features
 * this object's code keeps (AAELF64, GNU_PROPERTY_AARCH64_FEATURE_1_AND). The
 * linker ANDs the notes of every input: one object without the BTI bit leaves
 * the whole program unmarked, and the loader then guards none of its pages.
 * The compiler writes the note for C files built with -mbranch-protection; an
 * assembly file must write its own, and claims a feature only when the build
 * asked for it (the __ARM_FEATURE_*_DEFAULT macros, as glibc, OpenSSL and Arm's
 * optimized-routines do), so that an ordinary build keeps an ordinary object.
 * BTI: every indirect-branch target in the file has a landing pad (bti c/jc).
 * PAC: the file is compatible with signed return addresses (rj_switch signs
 * nothing and keeps x30 as it found it; docs/context-switching.md). */
#if defined(__aarch64__) && defined(__ELF__)
#  if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT == 1
#    define RJ_A64_FEATURE_BTI 1
#  else
#    define RJ_A64_FEATURE_BTI 0
#  endif
#  if defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT != 0
#    define RJ_A64_FEATURE_PAC 2
#  else
#    define RJ_A64_FEATURE_PAC 0
#  endif
#  define RJ_A64_FEATURES (RJ_A64_FEATURE_BTI | RJ_A64_FEATURE_PAC)
/* namesz 4 ("GNU"), descsz 16 (one property, padded to 8 bytes), type 5
 * (NT_GNU_PROPERTY_TYPE_0); the property: type 0xc0000000, 4 bytes of data.
 * One line with `;` between directives: ELF assemblers read `;` as a line
 * separator (this is never assembled for Mach-O, where it starts a comment). */
#  define RJ_ASM_GNU_PROPERTY_NOTE                                               \
    .pushsection .note.gnu.property, "a";                                       \
    .p2align 3;                                                                 \
    .long 4;                                                                    \
    .long 16;                                                                   \
    .long 5;                                                                    \
    .asciz "GNU";                                                               \
    .long 0xc0000000;                                                           \
    .long 4;                                                                    \
    .long RJ_A64_FEATURES;                                                      \
    .long 0;                                                                    \
    .popsection
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
