/*
 * The registry of live generator objects, for dumps (RJRuntime.dump()).
 *
 * The Swift layer adds every generator object when it is made and removes it
 * first thing in its deinit. A dump reads the registered objects; an object
 * whose last reference goes meanwhile waits in its removal until the dump is
 * over, so a dump never reads an object that has finished dying.
 *
 * Slots come in chunks of 4,096, each chunk owned by one thread, which alone
 * hands out its slots: an add is a store into a slot of the thread's own chunk,
 * no locked instruction. A remove marks the slot dead (or, on the owner's
 * thread, puts it on the owner's free list) with one sequentially consistent
 * store, then looks whether a dump is in progress;
 * a dump announces itself with one sequentially consistent store before it
 * reads any slot. Of the two, the later sees the earlier (Dekker's pattern): a
 * dump either sees the slot dead and skips it, or the remover sees the dump and
 * waits for its end. The owner takes dead slots back when its chunk is full, by
 * a scan; a chunk whose thread has ended goes to the next thread that needs one.
 * Nothing here is on the switch path.
 *
 * Slot values: 0, never used; an object (8-aligned); RJ_DEAD, removed; or, in
 * the owner's free list, the next free index shifted left by 2, tagged 1.
 */
#include "rj_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#define RJ_REG_CHUNK_BITS 12u
#define RJ_REG_CHUNK (1u << RJ_REG_CHUNK_BITS)
#define RJ_REG_MAX_CHUNKS (1u << 20) /* 4 billion slots: a handle is 32 bits */
#define RJ_DEAD ((uintptr_t)3)
#define RJ_FREE_END 0xfffffu

typedef struct rj_reg_chunk {
    uintptr_t slots[RJ_REG_CHUNK];
    uint32_t index;              /* in rj_chunks */
    struct rj_reg_chunk *next_orphan;
} rj_reg_chunk;

/* Every chunk ever made, by index: read by dumps and removals, appended under rj_chunks_lock. */
static rj_reg_chunk **rj_chunks;
static uint32_t rj_chunk_count;
static uint32_t rj_chunk_cap;
static pthread_mutex_t rj_chunks_lock = PTHREAD_MUTEX_INITIALIZER;
static rj_reg_chunk *rj_orphans; /* chunks whose thread has ended, under rj_chunks_lock */
static pthread_key_t rj_reg_key;
static pthread_once_t rj_reg_key_once = PTHREAD_ONCE_INIT;

/* This thread's chunk: the next never-used slot and the head of its free list. */
static RJ_TLS rj_reg_chunk *rj_mine;
static RJ_TLS uint32_t rj_bump;
static RJ_TLS uint32_t rj_free = RJ_FREE_END;

static int rj_dump_active;
static pthread_mutex_t rj_dump_lock = PTHREAD_MUTEX_INITIALIZER;

static void rj_reg_thread_ended(void *chunk) {
    rj_reg_chunk *c = chunk;
    pthread_mutex_lock(&rj_chunks_lock);
    c->next_orphan = rj_orphans;
    rj_orphans = c;
    pthread_mutex_unlock(&rj_chunks_lock);
}

static void rj_reg_make_key(void) { pthread_key_create(&rj_reg_key, rj_reg_thread_ended); }

/* Takes the dead slots of the chunk back into this thread's free list; how many. */
static uint32_t rj_reclaim(rj_reg_chunk *c, uint32_t upto) {
    uint32_t found = 0, head = rj_free; /* the free list's head in a local: one thread-local write */
    for (uint32_t i = upto; i-- > 0;) {
        if (__atomic_load_n(&c->slots[i], __ATOMIC_RELAXED) != RJ_DEAD) continue;
        __atomic_store_n(&c->slots[i], (uintptr_t)head << 2 | 1, __ATOMIC_RELAXED);
        head = i;
        found++;
    }
    rj_free = head;
    return found;
}

/* Makes c this thread's chunk; the full one it had goes to the orphans, where others'
 * removals free its slots over time and a thread that needs a chunk may take it. */
static void rj_adopt(rj_reg_chunk *c, uint32_t bump) {
    if (rj_mine) rj_reg_thread_ended(rj_mine);
    rj_mine = c;
    rj_bump = bump;
    rj_free = RJ_FREE_END;
    pthread_setspecific(rj_reg_key, c);
}

/* Another chunk for this thread: the first orphan if a quarter of it is free, else a new
 * one. 0 if none can be had. */
static int rj_new_chunk(void) {
    pthread_once(&rj_reg_key_once, rj_reg_make_key);
    pthread_mutex_lock(&rj_chunks_lock);
    rj_reg_chunk *c = rj_orphans;
    if (c) {
        uint32_t free_slots = 0;
        for (uint32_t i = 0; i < RJ_REG_CHUNK; i++) {
            uintptr_t v = __atomic_load_n(&c->slots[i], __ATOMIC_RELAXED);
            free_slots += v == 0 || v == RJ_DEAD || (v & 3) == 1;
        }
        if (free_slots >= RJ_REG_CHUNK / 4) {
            rj_orphans = c->next_orphan;
            pthread_mutex_unlock(&rj_chunks_lock);
            rj_adopt(c, RJ_REG_CHUNK);
            /* Its never-used and free-listed slots (the free list of the thread that had it is
             * gone with it) and its dead ones become this thread's free list. */
            for (uint32_t i = RJ_REG_CHUNK; i-- > 0;) {
                uintptr_t v = __atomic_load_n(&c->slots[i], __ATOMIC_RELAXED);
                if (v == 0 || (v & 3) == 1) __atomic_store_n(&c->slots[i], RJ_DEAD, __ATOMIC_RELAXED);
            }
            rj_reclaim(c, RJ_REG_CHUNK);
            return 1;
        }
    }
    if (rj_chunk_count == RJ_REG_MAX_CHUNKS) {
        pthread_mutex_unlock(&rj_chunks_lock);
        return 0;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        pthread_mutex_unlock(&rj_chunks_lock);
        return 0;
    }
    if (rj_chunk_count == rj_chunk_cap) {
        /* The table only grows; the old one stays readable (a dump or a removal may be
         * reading it) and is never freed: a few KiB over a process's life. */
        uint32_t cap = rj_chunk_cap ? rj_chunk_cap * 2 : 64;
        rj_reg_chunk **table = calloc(cap, sizeof *table);
        if (!table) {
            pthread_mutex_unlock(&rj_chunks_lock);
            free(c);
            return 0;
        }
        for (uint32_t i = 0; i < rj_chunk_count; i++) table[i] = rj_chunks[i];
        __atomic_store_n(&rj_chunks, table, __ATOMIC_RELEASE);
        rj_chunk_cap = cap;
    }
    c->index = rj_chunk_count;
    __atomic_store_n(&rj_chunks[rj_chunk_count], c, __ATOMIC_RELEASE);
    __atomic_store_n(&rj_chunk_count, rj_chunk_count + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rj_chunks_lock);
    rj_adopt(c, 0);
    return 1;
}

/* Full: take back what others removed if that is a quarter of the chunk, else another
 * chunk. 0 if no slot can be had. */
static int rj_refill(void) {
    return (rj_mine && rj_reclaim(rj_mine, RJ_REG_CHUNK) >= RJ_REG_CHUNK / 4) || rj_new_chunk();
}

/* A slot of this thread's chunk, which has one: from the free list, else never used. */
static inline __attribute__((always_inline)) uint32_t rj_registry_put(void *object) {
    uint32_t i;
    if (rj_free != RJ_FREE_END) {
        i = rj_free;
        rj_free = (uint32_t)(rj_mine->slots[i] >> 2);
    } else {
        i = rj_bump++;
    }
    /* Release: a dump that reads the object reads it whole. */
    __atomic_store_n(&rj_mine->slots[i], (uintptr_t)object, __ATOMIC_RELEASE);
    return rj_mine->index << RJ_REG_CHUNK_BITS | i;
}

/* rj_registry_add when this thread's chunk is full or it has none. Out of line: the common
 * add is a leaf, a few instructions. */
static __attribute__((noinline)) uint32_t rj_registry_add_refilling(void *object) {
    if (!rj_refill()) return UINT32_MAX;
    return rj_registry_put(object);
}

uint32_t rj_registry_add(void *object) {
    if (__builtin_expect(rj_free == RJ_FREE_END && !(rj_mine && rj_bump < RJ_REG_CHUNK), 0))
        return rj_registry_add_refilling(object);
    return rj_registry_put(object);
}

void rj_registry_remove(uint32_t handle) {
    if (handle == UINT32_MAX) return;
    rj_reg_chunk **table = __atomic_load_n(&rj_chunks, __ATOMIC_ACQUIRE);
    rj_reg_chunk *c = __atomic_load_n(&table[handle >> RJ_REG_CHUNK_BITS], __ATOMIC_ACQUIRE);
    uint32_t i = handle & (RJ_REG_CHUNK - 1);
    if (c == rj_mine) {
        /* A slot of this thread's own chunk goes straight back onto its free list (a dump skips
         * a free-listed slot as it skips a dead one): no scan needed to take it back. */
        __atomic_store_n(&c->slots[i], (uintptr_t)rj_free << 2 | 1, __ATOMIC_SEQ_CST);
        rj_free = i;
    } else {
        __atomic_store_n(&c->slots[i], RJ_DEAD, __ATOMIC_SEQ_CST);
    }
    if (__builtin_expect(__atomic_load_n(&rj_dump_active, __ATOMIC_SEQ_CST), 0)) {
        /* A dump may be reading the object: its deinit goes on once the dump is over. */
        while (__atomic_load_n(&rj_dump_active, __ATOMIC_ACQUIRE)) sched_yield();
    }
}

void rj_registry_begin_dump(void) {
    pthread_mutex_lock(&rj_dump_lock);
    __atomic_store_n(&rj_dump_active, 1, __ATOMIC_SEQ_CST);
}

void rj_registry_end_dump(void) {
    __atomic_store_n(&rj_dump_active, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rj_dump_lock);
}

size_t rj_registry_list(void **out, size_t max) {
    size_t n = 0;
    uint32_t chunks = __atomic_load_n(&rj_chunk_count, __ATOMIC_ACQUIRE);
    rj_reg_chunk **table = __atomic_load_n(&rj_chunks, __ATOMIC_ACQUIRE);
    for (uint32_t k = 0; k < chunks; k++) {
        rj_reg_chunk *c = __atomic_load_n(&table[k], __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; i < RJ_REG_CHUNK; i++) {
            uintptr_t v = __atomic_load_n(&c->slots[i], __ATOMIC_SEQ_CST);
            if (v == 0 || (v & 1)) continue;
            if (n < max) out[n] = (void *)v;
            n++;
        }
    }
    return n;
}

size_t rj_registry_count(void) { return rj_registry_list(NULL, 0); }

/* ---- The object a dump reads now ------------------------------------------
 * A dump holds a suspended generator by moving its state word to `running` for
 * as long as it reads its stack. A resume that finds `running` asks here
 * before it reports the generator busy: if a dump holds it, it waits a moment
 * and looks again. */

const void *rj_dump_held;

void rj_dump_hold(const void *object) { __atomic_store_n(&rj_dump_held, object, __ATOMIC_SEQ_CST); }

void rj_dump_let_go(void) { __atomic_store_n(&rj_dump_held, NULL, __ATOMIC_SEQ_CST); }

int rj_dump_holds(const void *object) {
    if (__atomic_load_n(&rj_dump_held, __ATOMIC_SEQ_CST) != object) return 0;
    sched_yield();
    return 1;
}
