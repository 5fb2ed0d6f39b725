/* C helpers for the rj-probe program: things Swift cannot write directly. */
#ifndef RJ_PROBE_SUPPORT_H
#define RJ_PROBE_SUPPORT_H

/* Calls a function whose frame holds a 40 KiB local array and writes its lowest
 * byte first: a frame that jumps straight over a guard smaller than it. */
int rj_probe_big_frame(void);

/* Writes one byte at `address`. */
void rj_probe_poke(void *address);

/* Sets the rounding mode upward / back to nearest; whether it is upward now. */
void rj_probe_round_upward(void);
void rj_probe_round_to_nearest(void);
int rj_probe_rounding_is_upward(void);

#endif
