#include "RJProbeSupport.h"


static int rj_probe_frame_40(void) {
    volatile char buffer[40 * 1024];
    __asm__ volatile("" : : "r"(buffer) : "memory"); /* escapes: laid out whole, as written */
    buffer[0] = 1; /* the far end first: below the stack, past a 16 KiB guard */
    buffer[sizeof buffer - 1] = 2;
    return buffer[0] + buffer[sizeof buffer - 1];
}

static int rj_probe_frame_200(void) {
    volatile char buffer[200 * 1024];
    __asm__ volatile("" : : "r"(buffer) : "memory"); /* escapes: laid out whole, as written */
    buffer[0] = 1;
    buffer[sizeof buffer - 1] = 2;
    return buffer[0] + buffer[sizeof buffer - 1];
}

int rj_probe_big_frame(int kib) {
    return kib <= 40 ? rj_probe_frame_40() : rj_probe_frame_200();
}

void rj_probe_poke(void *address) { *(volatile char *)address = 1; }
