#!/usr/bin/env bash
# Builds the C core with the tests of Tests/CRJContextCTests and runs them: main.c (the
# order of the tests), ctest.h (the shared harness), and one file per concern: switch_test.c,
# stack_test.c, overflow_test.c, shared_test.c, registry_test.c.
#   run.sh native          with the host compiler (clang from the Swift toolchain, else cc)
#   run.sh arm64           cross-compiled for arm64 and run under qemu-aarch64
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
    ;;
arm64)
    aarch64-linux-gnu-gcc "${flags[@]}" "${files[@]}" "$src/switch_arm64_aapcs.S" -o "$out/ctests_arm64" -lm
    # qemu-user does not deliver faults on MADV_GUARD_INSTALL guards to the guest's handler;
    # the mprotect guard it does.
    RJ_GUARD_MPROTECT=1 qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/ctests_arm64"
    ;;
*)
    echo "usage: run.sh [native|arm64]" >&2
    exit 2
    ;;
esac
