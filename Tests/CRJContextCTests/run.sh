#!/usr/bin/env bash
# Builds the C core with the tests of Tests/CRJContextCTests and runs them: main.c (the
# order of the tests), ctest.h (the shared harness), and one file per concern: switch_test.c,
# stack_test.c, overflow_test.c, shared_test.c, registry_test.c, inspect_test.c (the dump's
# frame walk) and protection_test.c (whether BTI and PAC are in force); start_arm64.S is the
# program start of the arm64-protected build.
#   run.sh native          with the host compiler (clang from the Swift toolchain, else cc), and
#                          again with the overflow handler's portable path (-DRJ_OVERFLOW_LIBC_CALLS)
#   run.sh arm64           cross-compiled for arm64 and run under qemu-aarch64
#   run.sh arm64-protected the same with branch protection (BTI and PAC) compiled in and
#                          enforced: under qemu-aarch64 -cpu max, the C core linked into the
#                          test program and again as a shared library (see below)
#   run.sh darwin-asm      the switches assembled for Apple targets (Mach-O) and their symbols
#                          checked; nothing runs (no Apple machine here)
# Prints the test program's lines, closing with "N passed, N failed"; exits non-zero on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../../Sources/CRJContext"
out="${TMPDIR:-/tmp}/rj-ctests"
mkdir -p "$out"
files=("$src"/rj_*.c "$here"/*.c)
# Frame pointers kept, as in the package's builds: the dump's frame walk (inspect_test.c)
# follows the frame records.
flags=(-O2 -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-parameter -I "$src/include" -I "$src" -pthread)

case "${1:-native}" in
native)
    cc=$(command -v clang || command -v cc)
    case "$(uname -m)" in
        x86_64) files+=("$src/switch_x86_64_sysv.S") ;;
        aarch64|arm64) files+=("$src/switch_arm64_aapcs.S") ;;
    esac
    "$cc" "${flags[@]}" "${files[@]}" -o "$out/ctests" -lm
    "$out/ctests"
    # Again with the overflow handler's libc calls in place of Linux's raw system calls: the
    # path Darwin compiles (rj_overflow.c), run here since no Apple machine runs the tests.
    "$cc" "${flags[@]}" -DRJ_OVERFLOW_LIBC_CALLS=1 "${files[@]}" -o "$out/ctests_libc_calls" -lm
    "$out/ctests_libc_calls"
    ;;
arm64)
    aarch64-linux-gnu-gcc "${flags[@]}" "${files[@]}" "$src/switch_arm64_aapcs.S" -o "$out/ctests_arm64" -lm
    # qemu-user does not deliver faults on MADV_GUARD_INSTALL guards to the guest's handler;
    # the mprotect guard it does.
    RJ_GUARD_MPROTECT=1 qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/ctests_arm64"
    ;;
arm64-protected)
    # -mbranch-protection=standard: a `bti c` landing pad at every function that can be
    # reached indirectly, and return addresses signed (pac-ret). -mno-outline-atomics: the
    # atomics inline, not as calls into libgcc.a's helpers, which Debian 12 builds without
    # the BTI property (one such object leaves the whole program unmarked).
    # The loader guards a program's pages for BTI only if the program is marked, and the
    # linker marks it only if every object is: the toolchain's start files are not, so
    # the program starts with start_arm64.S (-nostartfiles). glibc itself (libc.so.6) is
    # not marked either: its pages stay unguarded, which is how it runs on a BTI machine.
    prot=(-mbranch-protection=standard -mno-outline-atomics)
    asm=("$here/start_arm64.S" "$src/switch_arm64_aapcs.S")
    core=("$src"/rj_*.c)
    tests=("$here"/*.c)
    run_protected() { # program, label
        local notes log="$out/$2.log"
        notes=$(aarch64-linux-gnu-readelf -n "$1")
        if ! grep -q "AArch64 feature: BTI, PAC" <<<"$notes"; then
            echo "RJIterator: $1 lacks the BTI and PAC property (readelf -n), so BTI would not be enforced:" >&2
            echo "$notes" >&2
            exit 1
        fi
        grep "AArch64 feature" <<<"$notes"
        RJ_EXPECT_BTI=1 RJ_EXPECT_PAC=1 RJ_GUARD_MPROTECT=1 \
            qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH="$out" "$1" | tee "$log"
        # The program's own checks fail it already; these lines say the checks ran.
        for line in "BTI: enforced" "PAC: active"; do
            if ! grep -q "^$line" "$log"; then
                echo "RJIterator: $2 did not print '$line': branch protection was not in force" >&2
                exit 1
            fi
        done
    }
    # 1. The C core linked into the test program, as in a Swift program built statically.
    aarch64-linux-gnu-gcc "${flags[@]}" "${prot[@]}" -nostartfiles "${asm[@]}" "${core[@]}" "${tests[@]}" \
        -o "$out/ctests_arm64_protected" -lm
    run_protected "$out/ctests_arm64_protected" "arm64-protected"
    # 2. The C core as a shared library, which the loader guards on its own (ld.so maps it
    # with PROT_BTI): its calls to rj_switch go through the PLT, an indirect branch, so this
    # is where a missing landing pad at rj_switch shows. Without start files too: a library
    # links crti.o and crtbeginS.o as well. protection_test.c goes into the library, so that
    # its BTI check shows the library's pages guarded (it calls back into the program's
    # harness: -rdynamic exports that).
    lib_tests=("$here/protection_test.c")
    prog_tests=()
    for f in "${tests[@]}"; do [ "$f" = "$here/protection_test.c" ] || prog_tests+=("$f"); done
    # The words the header's inline functions read are hidden in the image that holds the core
    # (RJ_INLINE_WORD); the tests read them from another image here: default visibility.
    aarch64-linux-gnu-gcc "${flags[@]}" "${prot[@]}" -DRJ_INLINE_WORD= -fPIC -shared -nostartfiles "$src/switch_arm64_aapcs.S" \
        "${core[@]}" "${lib_tests[@]}" -o "$out/libcrjcontext.so"
    aarch64-linux-gnu-gcc "${flags[@]}" "${prot[@]}" -DRJ_INLINE_WORD= -rdynamic -nostartfiles "$here/start_arm64.S" \
        "${prog_tests[@]}" -L "$out" -lcrjcontext -o "$out/ctests_arm64_protected_so" -lm
    if ! aarch64-linux-gnu-readelf -n "$out/libcrjcontext.so" | grep "AArch64 feature: BTI, PAC"; then
        echo "RJIterator: libcrjcontext.so lacks the BTI and PAC property (readelf -n)" >&2
        exit 1
    fi
    run_protected "$out/ctests_arm64_protected_so" "arm64-protected, shared library"
    ;;
darwin-asm)
    # No Apple machine runs these tests: this is what can be checked of the Darwin paths
    # here. With the Swift toolchain's clang, for arm64 and x86_64 macOS and arm64 iOS:
    # each switch assembles as Mach-O with the symbols the C code links against (leading
    # underscore, the trampolines private to the image), and the inline switch of
    # CRJContext.h compiles (-ffreestanding: no SDK headers here). Nothing is linked or run.
    clang=$(command -v clang || true)
    if [ -z "$clang" ] || [ ! -x "$(dirname "$clang")/llvm-nm" ]; then
        echo "RJIterator: darwin-asm needs clang with llvm-nm beside it (the Swift toolchain's)" >&2
        exit 1
    fi
    for target in arm64-apple-macos x86_64-apple-macos arm64-apple-ios; do
        case "$target" in
            x86_64-*) asm="$src/switch_x86_64_sysv.S" ;;
            *) asm="$src/switch_arm64_aapcs.S" ;;
        esac
        obj="$out/switch-$target.o"
        "$clang" --target="$target" -c -I "$src" "$asm" -o "$obj"
        symbols=$("$(dirname "$clang")/llvm-nm" -m "$obj" | grep -E " _rj_" | sed -E 's/^[0-9a-f ]+//' | sort)
        expected=$(printf '%s\n' "(__TEXT,__text) external _rj_switch" \
            "(__TEXT,__text) private external _rj_trampoline" \
            "(__TEXT,__text) private external _rj_trampoline_inline" \
            "(undefined) external _rj_coro_main" | sort)
        if [ "$symbols" != "$expected" ]; then
            echo "RJIterator: $asm assembled for $target has the symbols" >&2
            echo "$symbols" >&2
            echo "RJIterator: expected" >&2
            echo "$expected" >&2
            exit 1
        fi
        printf '#include "CRJContext.h"\nvoid probe(void **from, void *to) { rj_switch_inline(from, to); }\n' |
            "$clang" --target="$target" -ffreestanding -O2 -Wall -Werror -c -I "$src/include" -x c - \
                -o "$out/inline-$target.o"
        echo "$target: $(basename "$asm") assembles with the expected symbols; the inline switch compiles"
    done
    ;;
*)
    echo "usage: run.sh [native|arm64|arm64-protected|darwin-asm]" >&2
    exit 2
    ;;
esac
