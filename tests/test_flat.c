/* The flat packet engine's layouts (BENCHMARKS.md, "Flat packet engine"):
 * the event queue's free nodes as a stack of indices. */
#include <stdint.h>

#include "../src/core/evq.h"
#include "../src/core/rng.h"
#include "harness.h"

/* A steady state of 64 to 256 pending events, pushed up to 3 us ahead in
 * random order, drained by pops and by window takes, 200,000 in all: they
 * come out in (time, seq) order, each once, and the wheel's nodes are
 * reused, not leaked (the pool stays at its first 1024) nor given out twice
 * (every node is on the wheel or free, once). */
static void evq_free_stack_reuses_nodes(void)
{
    struct evq q;
    struct rng r;
    struct event out[512];
    evq_init(&q);
    rng_init(&r, 7, 0);
    uint64_t now = 0, pushed = 0, popped = 0, last_t = 0, last_seq = 0;
    int order_ok = 1;
    while (popped < 200000) {
        while (evq_len(&q) < 64 + rng_below(&r, 192)) {
            uint64_t t = now + rng_below(&r, 3000000);
            CHECK(evq_push(&q, t, 0, NULL, (uint32_t)pushed) == 0);
            pushed++;
        }
        size_t n = 0;
        if (rng_below(&r, 2)) {
            if (evq_pop(&q, &out[0]))
                n = 1;
        } else {
            evq_take_before(&q, now + 200000, out, &n, 512, 0, 1);
        }
        for (size_t i = 0; i < n; i++) {
            if (out[i].t < last_t || (out[i].t == last_t && out[i].seq <= last_seq && popped))
                order_ok = 0;
            last_t = out[i].t;
            last_seq = out[i].seq;
            popped++;
        }
        now = last_t > now ? last_t : now + 1000;
    }
    CHECK(order_ok);
    CHECKF(q.pool_cap == 1024, "pool grew to %u nodes", q.pool_cap);
    CHECKF((size_t)q.n_free + q.wn == q.pool_cap, "%u free + %zu queued != %u", q.n_free, q.wn,
           q.pool_cap);
    /* every free index names a distinct node */
    static uint8_t seen[1024];
    int distinct = 1;
    for (uint32_t i = 0; i < q.n_free; i++) {
        uint32_t x = q.free_stk[i];
        if (x >= 1024 || seen[x]++)
            distinct = 0;
    }
    CHECK(distinct);
    struct event e;
    while (evq_pop(&q, &e))
        popped++;
    CHECK(popped == pushed);
    CHECK(q.n_free == q.pool_cap);
    evq_release(&q);
}

SUITE(suite_flat) = {
    {"evq_free_stack_reuses_nodes", evq_free_stack_reuses_nodes},
    {0, 0},
};
