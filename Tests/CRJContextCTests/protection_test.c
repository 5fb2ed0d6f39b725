/*
 * arm64 branch protection, seen from inside the test program: whether BTI and pointer
 * authentication (PAC) are in force here, shown by checks that fail where they are not.
 *
 * - BTI: a function without a landing pad, called through a pointer, must die with SIGILL
 *   (in a child), while the same function with `bti c` returns. This is the bug the switch
 *   would have with a missing landing pad, and the proof that the loader guarded our pages.
 * - PAC: signing a known address changes it and authenticating it gives it back; and a
 *   return address signed on one stack and authenticated on another (what a switch that
 *   authenticated x30 would do) kills the child.
 *
 * Every run prints what it saw ("BTI: enforced", "PAC: active" or their negatives). The
 * checks are made where run.sh says enforcement is expected (RJ_EXPECT_BTI=1,
 * RJ_EXPECT_PAC=1: the arm64-protected run): there a line that says otherwise fails the run.
 * Elsewhere (x86_64, the unprotected arm64 run) nothing is expected of them.
 */
#include "ctest.h"

#if defined(__aarch64__)
/* Written in assembly so that no compiler adds a landing pad or signs anything. In an
 * object that, built with -mbranch-protection, claims BTI like every other: the linker
 * cannot see that one of its functions lacks the landing pad, only the processor can.
 * The hint encodings (bti c = hint #34, paciasp = #25, autiasp = #29) assemble without
 * -march=armv8.3-a and are nops on a processor without the feature. */
__asm__(".pushsection .text\n"
        ".p2align 2\n"
        ".globl rj_test_no_landing_pad\n"
        ".hidden rj_test_no_landing_pad\n"
        ".type rj_test_no_landing_pad, %function\n"
        "rj_test_no_landing_pad:\n"
        "    mov x0, #42\n"
        "    ret\n"
        ".size rj_test_no_landing_pad, .-rj_test_no_landing_pad\n"
        "\n"
        ".p2align 2\n"
        ".globl rj_test_landing_pad\n"
        ".hidden rj_test_landing_pad\n"
        ".type rj_test_landing_pad, %function\n"
        "rj_test_landing_pad:\n"
        "    hint #34\n"
        "    mov x0, #42\n"
        "    ret\n"
        ".size rj_test_landing_pad, .-rj_test_landing_pad\n"
        "\n"
        /* int rj_test_return_via(void *other_sp): signs its return address against this
         * stack's pointer, authenticates it against other_sp (this stack's again when
         * other_sp is NULL), and returns through it. */
        ".p2align 2\n"
        ".globl rj_test_return_via\n"
        ".hidden rj_test_return_via\n"
        ".type rj_test_return_via, %function\n"
        "rj_test_return_via:\n"
        "    hint #34\n"
        "    hint #25\n"
        "    mov x9, sp\n"
        "    cbz x0, 1f\n"
        "    mov sp, x0\n"
        "1:  hint #29\n"
        "    mov sp, x9\n"
        "    mov x0, #7\n"
        "    ret\n"
        ".size rj_test_return_via, .-rj_test_return_via\n"
        ".popsection\n");

int rj_test_no_landing_pad(void);
int rj_test_landing_pad(void);
int rj_test_return_via(void *other_sp);

/* Called through volatile pointers: a `blr`, which BTI checks, never a direct `bl`. */
static int (*volatile unmarked_target)(void) = rj_test_no_landing_pad;
static int (*volatile marked_target)(void) = rj_test_landing_pad;
static int (*volatile return_via)(void *) = rj_test_return_via;

static void call_unmarked_child(rj_backend backend) {
    (void)backend;
    fprintf(stderr, "returned %d\n", unmarked_target());
}

/* A code is a few bits (7 here: bits 48-54 of a user address, the top byte being ignored),
 * so one signature in 128 is the bare address, and one authentication with a wrong modifier
 * in 128 passes. Each probe tries PAC_TRIES modifiers: all of them coming out so by chance is
 * a 2^-56 event. */
#define PAC_TRIES 8
static uint64_t other_stack[64 + 2 * PAC_TRIES] __attribute__((aligned(16)));

static void return_via_other_stack_child(rj_backend backend) {
    (void)backend;
    for (int i = 0; i < PAC_TRIES; i++) fprintf(stderr, "returned %d\n", return_via(other_stack + 64 + 2 * i));
}

/* pacia1716 and autia1716: x17 signed or authenticated with x16 as the modifier. */
static uint64_t pac_sign(uint64_t value, uint64_t modifier) {
    register uint64_t x17 __asm__("x17") = value;
    register uint64_t x16 __asm__("x16") = modifier;
    __asm__ volatile("hint #8" : "+r"(x17) : "r"(x16));
    return x17;
}

static uint64_t pac_auth(uint64_t value, uint64_t modifier) {
    register uint64_t x17 __asm__("x17") = value;
    register uint64_t x16 __asm__("x16") = modifier;
    __asm__ volatile("hint #12" : "+r"(x17) : "r"(x16));
    return x17;
}
#endif

static int expected(const char *name) {
    const char *value = getenv(name);
    return value && strcmp(value, "1") == 0;
}

static void test_bti(void) {
    int expect = expected("RJ_EXPECT_BTI");
#if defined(__aarch64__)
    CHECK(marked_target() == 42, "a function with a landing pad is called through a pointer");
    char buf[256];
    int status = in_child(call_unmarked_child, RJ_BACKEND_FAST, buf, sizeof buf);
    int enforced = WIFSIGNALED(status) && WTERMSIG(status) == SIGILL;
    buf[strcspn(buf, "\n")] = 0;
    if (enforced)
        printf("BTI: enforced (a call through a pointer to a function without a landing pad died with SIGILL)\n");
    else
        printf("BTI: not enforced (the call to a function without a landing pad: status %#x, %s)\n", status,
               buf[0] ? buf : "no output");
    if (expect) CHECK(enforced, "BTI enforced: the unmarked target must die with SIGILL (status %#x)", status);
#else
    printf("BTI: not arm64\n");
    if (expect) CHECK(0, "BTI expected on a build that is not arm64");
#endif
}

static void test_pac(void) {
    int expect = expected("RJ_EXPECT_PAC");
#if defined(__aarch64__)
    uint64_t address = (uint64_t)(uintptr_t)rj_test_landing_pad;
    uint64_t signed_address = address;
    int active = 0, back_ok = 1;
    for (uint64_t i = 0; i < PAC_TRIES; i++) {
        uint64_t modifier = (uint64_t)(uintptr_t)other_stack + 16 * i;
        uint64_t s = pac_sign(address, modifier);
        back_ok &= pac_auth(s, modifier) == address;
        if (s != address && !active) {
            active = 1;
            signed_address = s;
        }
    }
    printf("PAC: %s (pacia1716 of %#llx gives %#llx)\n", active ? "active" : "not active",
           (unsigned long long)address, (unsigned long long)signed_address);
    CHECK(back_ok, "authenticating with the signing modifier gives the address back");
    CHECK(return_via(NULL) == 7, "a return address signed and authenticated on the same stack returns");
    if (expect) CHECK(active, "PAC active: signing %#llx must change it", (unsigned long long)address);
    if (active || expect) {
        char buf[256];
        int status = in_child(return_via_other_stack_child, RJ_BACKEND_FAST, buf, sizeof buf);
        buf[strcspn(buf, "\n")] = 0;
        /* A failed authentication leaves a pointer that faults when `ret` uses it (SIGSEGV),
         * or traps at once where the processor has FEAT_FPAC (SIGILL). */
        int killed = WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGILL);
        if (killed)
            printf("PAC: a return address signed on one stack and authenticated on another killed the child "
                   "(%s)\n", WTERMSIG(status) == SIGSEGV ? "SIGSEGV" : "SIGILL");
        if (expect)
            CHECK(killed, "a return address authenticated on another stack must kill the child (status %#x, %s)",
                  status, buf[0] ? buf : "no output");
    }
#else
    printf("PAC: not arm64\n");
    if (expect) CHECK(0, "PAC expected on a build that is not arm64");
#endif
}

void protection_tests(void) {
    test_bti();
    test_pac();
}
