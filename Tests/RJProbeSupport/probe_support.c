#include "RJProbeSupport.h"

#include <fenv.h>

/* Not inlined: the frame must be exactly this function's, not merged into a caller's. */
__attribute__((noinline)) static int rj_probe_frame_40(void) {
    volatile char buffer[40 * 1024];
    __asm__ volatile("" : : "r"(buffer) : "memory"); /* escapes: laid out whole, as written */
    buffer[0] = 1; /* the far end first: below the stack, past a 16 KiB guard */
    buffer[sizeof buffer - 1] = 2;
    return buffer[0] + buffer[sizeof buffer - 1];
}

int rj_probe_big_frame(void) { return rj_probe_frame_40(); }

void rj_probe_poke(void *address) { *(volatile char *)address = 1; }

void rj_probe_round_upward(void) { fesetround(FE_UPWARD); }
void rj_probe_round_to_nearest(void) { fesetround(FE_TONEAREST); }
int rj_probe_rounding_is_upward(void) { return fegetround() == FE_UPWARD; }
