/*
 * The registry of live generator objects, for dumps (RJRuntime.dump()).
 *
 * The Swift layer adds every generator object when it is made and removes it
 * before it is destroyed. A dump takes every lock, reads the objects, and lets
 * go: an object whose last reference goes meanwhile waits in its removal, so a
 * dump never reads one that has finished dying.
 *
 * Cost: an add and a remove are each a lock of an uncontended spin lock and a
 * few stores. The locks are striped by thread (a thread always adds to its own
 * stripe), so threads that make generators do not share a cache line; a remove
 * goes to the stripe the object was added to. Nothing here is on the switch
 * path. Slots come in chunks of 4,096 pointers; a removed slot joins its
 * stripe's free list (the index of the next free slot, shifted and tagged with
 * 1, since objects are at least 2-aligned).
 */
#include "rj_internal.h"

#include <sched.h>
#include <stdlib.h>

#define RJ_REG_STRIPES 16u
#define RJ_REG_STRIPE_BITS 4u
#define RJ_REG_CHUNK 4096u

typedef struct {
    int lock;
    uint32_t used;       /* slots ever handed out */
    uint32_t free_head;  /* index + 1 of the first free slot, 0: none */
    uint32_t count;      /* objects registered */
    uint32_t chunk_cap;
    uintptr_t **chunks;
    char pad[64 - 4 * sizeof(uint32_t) - sizeof(int) - sizeof(void *)];
} rj_reg_stripe;

static rj_reg_stripe rj_stripes[RJ_REG_STRIPES] __attribute__((aligned(64)));
static _Thread_local unsigned rj_my_stripe; /* 1 + the stripe, 0: not chosen yet */
static unsigned rj_next_stripe;

static void rj_reg_lock(rj_reg_stripe *s) {
    unsigned spins = 0;
    for (;;) {
        if (!__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) return;
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED)) {
            /* A dump holds every lock while it reads; it may take a while. */
            if (++spins > 128) {
                sched_yield();
                spins = 0;
            }
        }
    }
}

static void rj_reg_unlock(rj_reg_stripe *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

static uintptr_t *rj_reg_slot(rj_reg_stripe *s, uint32_t index) {
    return &s->chunks[index / RJ_REG_CHUNK][index % RJ_REG_CHUNK];
}

uint32_t rj_registry_add(void *object) {
    if (!rj_my_stripe) rj_my_stripe = 1 + (__atomic_fetch_add(&rj_next_stripe, 1, __ATOMIC_RELAXED) % RJ_REG_STRIPES);
    unsigned stripe = rj_my_stripe - 1;
    rj_reg_stripe *s = &rj_stripes[stripe];
    rj_reg_lock(s);
    uint32_t index;
    if (s->free_head) {
        index = s->free_head - 1;
        s->free_head = (uint32_t)(*rj_reg_slot(s, index) >> 1);
    } else {
        if (s->used >= (UINT32_MAX >> RJ_REG_STRIPE_BITS)) {
            rj_reg_unlock(s);
            return UINT32_MAX; /* not registered: more than 268 million in one stripe */
        }
        index = s->used;
        if (index / RJ_REG_CHUNK >= s->chunk_cap) {
            uint32_t cap = s->chunk_cap ? s->chunk_cap * 2 : 16;
            uintptr_t **chunks = realloc(s->chunks, cap * sizeof *chunks);
            if (!chunks) {
                rj_reg_unlock(s);
                return UINT32_MAX;
            }
            for (uint32_t i = s->chunk_cap; i < cap; i++) chunks[i] = NULL;
            s->chunks = chunks;
            s->chunk_cap = cap;
        }
        if (!s->chunks[index / RJ_REG_CHUNK]) {
            s->chunks[index / RJ_REG_CHUNK] = malloc(RJ_REG_CHUNK * sizeof(uintptr_t));
            if (!s->chunks[index / RJ_REG_CHUNK]) {
                rj_reg_unlock(s);
                return UINT32_MAX;
            }
        }
        s->used++;
    }
    *rj_reg_slot(s, index) = (uintptr_t)object;
    s->count++;
    rj_reg_unlock(s);
    return index << RJ_REG_STRIPE_BITS | stripe;
}

void rj_registry_remove(uint32_t handle) {
    if (handle == UINT32_MAX) return;
    rj_reg_stripe *s = &rj_stripes[handle & (RJ_REG_STRIPES - 1)];
    uint32_t index = handle >> RJ_REG_STRIPE_BITS;
    rj_reg_lock(s);
    *rj_reg_slot(s, index) = (uintptr_t)s->free_head << 1 | 1;
    s->free_head = index + 1;
    s->count--;
    rj_reg_unlock(s);
}

void rj_registry_lock_all(void) {
    for (unsigned i = 0; i < RJ_REG_STRIPES; i++) rj_reg_lock(&rj_stripes[i]);
}

void rj_registry_unlock_all(void) {
    for (unsigned i = RJ_REG_STRIPES; i-- > 0;) rj_reg_unlock(&rj_stripes[i]);
}

size_t rj_registry_list(void **out, size_t max) {
    size_t n = 0;
    for (unsigned i = 0; i < RJ_REG_STRIPES; i++) {
        rj_reg_stripe *s = &rj_stripes[i];
        for (uint32_t k = 0; k < s->used; k++) {
            uintptr_t v = *rj_reg_slot(s, k);
            if (v & 1) continue;
            if (n < max) out[n] = (void *)v;
            n++;
        }
    }
    return n;
}

size_t rj_registry_count(void) {
    size_t n = 0;
    for (unsigned i = 0; i < RJ_REG_STRIPES; i++) n += __atomic_load_n(&rj_stripes[i].count, __ATOMIC_RELAXED);
    return n;
}

/* ---- The object a dump reads now ------------------------------------------
 * A dump holds a suspended generator by moving its state word to `running` for
 * as long as it reads its stack. A resume that finds `running` asks here
 * before it reports the generator busy: if a dump holds it, it waits a moment
 * and looks again. */

static const void *rj_dump_held;

void rj_dump_hold(const void *object) { __atomic_store_n(&rj_dump_held, object, __ATOMIC_SEQ_CST); }

void rj_dump_let_go(void) { __atomic_store_n(&rj_dump_held, NULL, __ATOMIC_SEQ_CST); }

int rj_dump_holds(const void *object) {
    if (__atomic_load_n(&rj_dump_held, __ATOMIC_SEQ_CST) != object) return 0;
    sched_yield();
    return 1;
}
