/*
 * Tests of the C core on its own, without Swift: built natively and, in CI,
 * cross-compiled for arm64 and run under qemu-user, which is how the arm64
 * switch is exercised on x86_64 machines. Run by Tests/CRJContextCTests/run.sh.
 *
 * This file holds the harness's definitions (ctest.h) and calls the tests of
 * protection_test.c, switch_test.c, overflow_test.c, stack_test.c,
 * shared_test.c, registry_test.c and inspect_test.c in turn.
 *
 * Prints one line per check and closes with "N passed, N failed".
 */
#include "ctest.h"

int passed, failed;

int in_child(void (*child)(rj_backend), rj_backend backend, char *buf, size_t size) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        child(backend);
        _exit(0);
    }
    close(fds[1]);
    memset(buf, 0, size);
    size_t n = 0;
    ssize_t r;
    while (n < size - 1 && (r = read(fds[0], buf + n, size - 1 - n)) > 0) n += (size_t)r;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

int main(void) {
    printf("CRJContext C tests, fast backend: %s, page %ld\n",
           rj_fast_backend_available() ? rj_backend_name(RJ_BACKEND_FAST) : "not built",
           sysconf(_SC_PAGESIZE));
    /* First: whether branch protection is in force says what the rest ran under. */
    protection_tests();
    /* The fast backend twice: through the inline switch, and through the out-of-line
     * rj_switch that sanitized builds use. */
    rj_backend backends[3] = {RJ_BACKEND_FAST, RJ_BACKEND_FAST_OUT_OF_LINE, RJ_BACKEND_UCONTEXT};
    for (int b = 0; b < 3; b++) {
        if (backends[b] != RJ_BACKEND_UCONTEXT && !rj_fast_backend_available()) continue;
        switch_tests(backends[b]);
        /* Under qemu-user the arm64 run forces the mprotect guard (run.sh arm64): qemu
         * does not hand a fault on a MADV_GUARD_INSTALL guard to the guest's handler. */
        overflow_tests(backends[b]);
    }
    nesting_tests();
    stack_tests();
    shared_tests();
    id_tests();
    registry_tests();
    inspect_tests();
    printf("guard: %s\n", rj_guard_uses_madvise() ? "MADV_GUARD_INSTALL" : "mprotect");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
