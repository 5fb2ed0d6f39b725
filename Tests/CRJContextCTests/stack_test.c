/*
 * Stacks: the pool and the live and mapped counts, many alive at once, sizes
 * refused, and slabs of default-size stacks.
 */
#include "ctest.h"

/* ---- Stacks: pool, many alive, errors --------------------------------- */

static void test_pool_and_counts(void) {
    rj_stack_pool_drain();
    size_t mapped = rj_stats_mapped_stacks();
    for (int i = 0; i < 100; i++) {
        counter c = {NULL, 0, 1};
        c.self = rj_coro_create(0, rj_default_backend(), count_entry, &c);
        while (!rj_coro_resume(c.self)) {}
        rj_coro_destroy(c.self);
    }
    CHECK(rj_stats_mapped_stacks() <= mapped + 1, "one pooled stack serves 100 coroutines");
    CHECK(rj_stats_live_stacks() == 0, "no live stacks left (%zu)", rj_stats_live_stacks());

    enum { N = 2000 };
    static counter many[N];
    for (int i = 0; i < N; i++) {
        many[i].limit = 2;
        many[i].self = rj_coro_create(16 * 1024, rj_default_backend(), count_entry, &many[i]);
        CHECK(many[i].self != NULL, "coroutine %d: %s", i, rj_last_error());
        rj_coro_resume(many[i].self);
    }
    CHECK(rj_stats_live_stacks() == N, "%d live stacks", N);
    for (int i = 0; i < N; i++) {
        while (!rj_coro_resume(many[i].self)) {}
        rj_coro_destroy(many[i].self);
    }
    CHECK(rj_stats_live_stacks() == 0, "all stacks given back");

    rj_coro *none = rj_coro_create(1024, rj_default_backend(), count_entry, NULL);
    CHECK(none == NULL && strstr(rj_last_error(), "below the minimum"), "tiny stack refused: %s",
          rj_last_error());
    none = rj_coro_create((size_t)1 << 50, rj_default_backend(), count_entry, NULL);
    CHECK(none == NULL && strstr(rj_last_error(), "RJIterator: stackSize 1125899906842624 is larger than any address space"),
          "huge stack refused: %s", rj_last_error());
    size_t before = rj_default_stack_size();
    CHECK(rj_set_default_stack_size(1024) == -1 && rj_default_stack_size() == before &&
              strstr(rj_last_error(), "RJRuntime.defaultStackSize 1024 is below the minimum"),
          "a tiny default is refused by the same rule and the old one kept: %s", rj_last_error());
}

/* ---- Slabs: default-size stacks, 64 to a mapping ----------------------- */

static void test_slabs(void) {
    size_t limit = rj_stack_pool_limit();
    rj_set_stack_pool_limit(0); /* every release goes straight back to its slab */
    rj_stack_pool_drain();
    CHECK(rj_stats_mapped_slabs() == 0, "no slab left after a drain (%zu)", rj_stats_mapped_slabs());
    enum { M = 300 };
    static marker m[M];
    for (int i = 0; i < M; i++) {
        m[i] = (marker){NULL, i, 0};
        m[i].self = rj_coro_create(0, rj_default_backend(), marker_entry, &m[i]);
        CHECK(m[i].self != NULL, "coroutine %d: %s", i, rj_last_error());
        rj_coro_resume(m[i].self);
    }
    CHECK(rj_stats_mapped_slabs() == (M + 63) / 64, "%d stacks in %zu slabs", M, rj_stats_mapped_slabs());
    /* Every other one ends: 150 slots given back, in batches that give their pages back
     * while their neighbours hold suspended frames. */
    for (int i = 1; i < M; i += 2) {
        rj_coro_resume(m[i].self);
        rj_coro_destroy(m[i].self);
        CHECK(m[i].sum == marker_expected(i), "coroutine %d summed %ld", i, m[i].sum);
    }
    for (int i = 0; i < M; i += 2) {
        rj_coro_resume(m[i].self);
        CHECK(m[i].sum == marker_expected(i), "coroutine %d kept its stack beside freed slots: %ld", i,
              m[i].sum);
    }
    /* The slots given back are carved again (those still in the last batch once it is full):
     * no new slab. */
    size_t slabs = rj_stats_mapped_slabs();
    for (int i = 1; i < M; i += 2) {
        m[i] = (marker){NULL, i, 0};
        m[i].self = rj_coro_create(0, rj_default_backend(), marker_entry, &m[i]);
        rj_coro_resume(m[i].self);
    }
    CHECK(rj_stats_mapped_slabs() <= slabs + 1, "slots reused: %zu slabs, then %zu", slabs, rj_stats_mapped_slabs());
    for (int i = 0; i < M; i++) {
        if (i % 2) rj_coro_resume(m[i].self);
        rj_coro_destroy(m[i].self);
    }
    CHECK(rj_stats_live_stacks() == 0, "no live stacks (%zu)", rj_stats_live_stacks());
    rj_stack_pool_drain();
    CHECK(rj_stats_mapped_slabs() == 0, "every slab unmapped after the drain (%zu)", rj_stats_mapped_slabs());
    rj_set_stack_pool_limit(limit);
}

void stack_tests(void) {
    test_pool_and_counts();
    test_slabs();
}
