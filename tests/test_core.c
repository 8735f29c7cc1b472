/* Event queue against a naive sorted array (with ties); RNG streams. */
#include <stdlib.h>
#include <string.h>

#include "../src/core/evq.h"
#include "../src/core/rng.h"
#include "harness.h"

struct naive {
    uint64_t t, seq;
    uint32_t arg;
};

/* Insert into a[head..n) keeping (t, seq) order: the reference the heap
 * must match. */
static void naive_push(struct naive *a, size_t head, size_t *n, uint64_t t,
                       uint64_t seq, uint32_t arg)
{
    size_t i = *n;
    while (i > head && (a[i - 1].t > t || (a[i - 1].t == t && a[i - 1].seq > seq))) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = (struct naive){t, seq, arg};
    (*n)++;
}

/* Pops one event; a mismatch with the reference's next is counted. */
static void pop_against(struct evq *q, const struct naive *ref, size_t *head, uint64_t *now,
                        int *mismatches)
{
    struct event ev;
    CHECK(evq_pop(q, &ev) == 1);
    const struct naive *want = &ref[(*head)++];
    if (ev.t != want->t || ev.arg != want->arg)
        (*mismatches)++;
    *now = ev.t;
}

/* Empties q against the rest of the reference and checks the whole run;
 * frees both. */
static void drain_against(struct evq *q, struct naive *ref, size_t head, size_t nref,
                          int mismatches)
{
    uint64_t now = 0;
    while (evq_len(q))
        pop_against(q, ref, &head, &now, &mismatches);
    struct event ev;
    CHECK(evq_pop(q, &ev) == 0);
    CHECKF(mismatches == 0, "%d mismatches", mismatches);
    CHECK(head == nref);
    free(ref);
    evq_release(q);
}

static void evq_matches_sorted_array(void)
{
    enum { OPS = 20000 };
    struct evq q;
    evq_init(&q);
    struct naive *ref = malloc(OPS * sizeof *ref);
    size_t nref = 0, head = 0;
    struct rng r;
    rng_init(&r, 7, 99);
    uint64_t seq = 0, now = 0;
    int mismatches = 0;
    for (int i = 0; i < OPS; i++) {
        /* few distinct times so ties are common; never schedule in the past */
        if (nref - head == 0 || rng_below(&r, 3) != 0) {
            uint64_t t = now + rng_below(&r, 8);
            naive_push(ref, head, &nref, t, seq++, (uint32_t)i);
            evq_push(&q, t, 0, NULL, (uint32_t)i);
        } else {
            pop_against(&q, ref, &head, &now, &mismatches);
        }
    }
    drain_against(&q, ref, head, nref, mismatches);
}

/* Times that straddle the wheel's horizon: near and far events, ties
 * between a wheel event and a heap event, long idle gaps. */
static void evq_wheel_and_heap_agree(void)
{
    enum { OPS = 60000 };
    struct evq q;
    evq_init(&q);
    struct naive *ref = malloc(OPS * sizeof *ref);
    size_t nref = 0, head = 0;
    struct rng r;
    rng_init(&r, 11, 7);
    uint64_t seq = 0, now = 0, horizon = (uint64_t)EVQ_BUCKETS << EVQ_SHIFT;
    int mismatches = 0;
    for (int i = 0; i < OPS; i++) {
        if (nref - head == 0 || rng_below(&r, 5) < 3) {
            uint64_t d;
            switch (rng_below(&r, 4)) {
            case 0: d = rng_below(&r, 4); break;                     /* ties */
            case 1: d = rng_below(&r, 5000); break;                  /* near */
            case 2: d = horizon - 2000 + rng_below(&r, 4000); break; /* the edge */
            default: d = rng_below(&r, 50 * horizon); break;         /* far */
            }
            naive_push(ref, head, &nref, now + d, seq++, (uint32_t)i);
            CHECK(evq_push(&q, now + d, 0, NULL, (uint32_t)i) == 0);
        } else {
            pop_against(&q, ref, &head, &now, &mismatches);
        }
        CHECK(evq_len(&q) == nref - head);
    }
    drain_against(&q, ref, head, nref, mismatches);
}

/* Buckets whose lists are several ascending runs of any length (pushes
 * that go back in time, ties, bursts into the bucket being popped from):
 * the pattern of paced senders. Checks time, argument and type of every
 * event against the sorted reference (the sort's run marks must not leak
 * into the type). */
static void evq_runs_match_sorted_array(void)
{
    enum { OPS = 60000 };
    struct evq q;
    evq_init(&q);
    struct naive *ref = malloc(OPS * sizeof *ref);
    size_t nref = 0, head = 0;
    struct rng r;
    rng_init(&r, 5, 3);
    uint64_t seq = 0, now = 0, t = 0;
    int mismatches = 0, pushes = 0;
    for (int i = 0; i < OPS; i++) {
        if (nref - head == 0 || rng_below(&r, 8) < 5) {
            /* an ascending run that sometimes restarts earlier, within a
             * few buckets of now; runs of 1 to ~200 events */
            if (rng_below(&r, 1 + rng_below(&r, 200)) == 0)
                t = now + rng_below(&r, 4u << EVQ_SHIFT);
            else
                t += rng_below(&r, 3) ? rng_below(&r, 40) : 0;
            naive_push(ref, head, &nref, t, seq++, (uint32_t)i);
            CHECK(evq_push(&q, t, (uint32_t)i % 13, NULL, (uint32_t)i) == 0);
            pushes++;
        } else {
            struct event ev;
            CHECK(evq_pop(&q, &ev) == 1);
            struct naive *want = &ref[head++];
            if (ev.t != want->t || ev.arg != want->arg || ev.type != want->arg % 13)
                mismatches++;
            now = ev.t;
            if (t < now)
                t = now;
        }
    }
    struct event ev;
    while (evq_pop(&q, &ev)) {
        struct naive *want = &ref[head++];
        if (ev.t != want->t || ev.arg != want->arg || ev.type != want->arg % 13)
            mismatches++;
    }
    CHECKF(mismatches == 0, "%d mismatches of %d events", mismatches, pushes);
    CHECK(head == nref);
    free(ref);
    evq_release(&q);
}

/* Far events past the wheel's horizon: timers a fixed delay ahead (in
 * order: the ring), others at random (the heap), ties between the ring, the
 * heap and the wheel, and events at the times of earlier ones. */
static void evq_far_ring_and_heap_agree(void)
{
    enum { OPS = 60000 };
    struct evq q;
    evq_init(&q);
    struct naive *ref = malloc(OPS * sizeof *ref);
    size_t nref = 0, head = 0;
    struct rng r;
    rng_init(&r, 13, 1);
    uint64_t seq = 0, now = 0, horizon = (uint64_t)EVQ_BUCKETS << EVQ_SHIFT, last_far = 0;
    int mismatches = 0;
    for (int i = 0; i < OPS; i++) {
        if (nref - head == 0 || rng_below(&r, 2)) {
            uint64_t t;
            switch (rng_below(&r, 5)) {
            case 0: t = now + 3 * horizon; break;                   /* timer: the ring */
            case 1: t = now + horizon + rng_below(&r, 4 * horizon); break; /* the heap */
            case 2: t = last_far > now ? last_far : now; break;     /* a tie with a far one */
            case 3: t = now + horizon - 1 + rng_below(&r, 3); break; /* the edge */
            default: t = now + rng_below(&r, 3000); break;          /* the wheel */
            }
            if (t >= now + horizon)
                last_far = t - rng_below(&r, 2) * rng_below(&r, horizon);
            naive_push(ref, head, &nref, t, seq++, (uint32_t)i);
            CHECK(evq_push(&q, t, 0, NULL, (uint32_t)i) == 0);
        } else {
            pop_against(&q, ref, &head, &now, &mismatches);
        }
        CHECK(evq_len(&q) == nref - head);
    }
    drain_against(&q, ref, head, nref, mismatches);
}

/* pop_before leaves the queue as it was when the earliest event is not
 * before the limit: an event between the last one popped and that one can
 * still be pushed and comes out first, and one past the wheel's horizon
 * keeps its time (window order in the packet engine relies on both). */
static void evq_pop_before_leaves_queue(void)
{
    const uint64_t far = (uint64_t)EVQ_BUCKETS << EVQ_SHIFT; /* one horizon, ps */
    for (int k = 0; k < 2; k++) {
        uint64_t next = k ? 3 * far + 777 : 50000; /* past the horizon, or near */
        struct evq q;
        evq_init(&q);
        struct event ev;
        CHECK(evq_push_seq(&q, 1000, 1, 0, NULL, 1) == 0);
        CHECK(evq_push_seq(&q, next, 2, 0, NULL, 2) == 0);
        CHECK(evq_pop_before(&q, 2000, &ev) == 1 && ev.arg == 1);
        uint64_t base = q.base;
        CHECK(evq_pop_before(&q, 2000, &ev) == 0 && evq_len(&q) == 1);
        CHECK(q.base == base); /* else later pushes before it go the slow way */
        CHECK(evq_peek_t(&q) == next && q.base == base && evq_len(&q) == 1);
        CHECK(evq_push_seq(&q, 1500, 3, 0, NULL, 3) == 0); /* before the one left */
        CHECK(evq_push_seq(&q, next - 1, 4, 0, NULL, 4) == 0);
        uint32_t want[] = {3, 4, 2};
        for (int i = 0; i < 3; i++)
            CHECKF(evq_pop(&q, &ev) == 1 && ev.arg == want[i], "k=%d pop %d: arg %u t %llu", k,
                   i, ev.arg, (unsigned long long)ev.t);
        CHECK(ev.t == next && !evq_pop(&q, &ev));
        evq_release(&q);
    }
}

/* The bulk take gives what pops would, stops before a marked event and at
 * the limit and when out is full, and leaves a far event to the pops. */
static void evq_take_before_as_pops(void)
{
    struct evq q, r;
    evq_init(&q);
    evq_init(&r);
    struct rng g;
    rng_init(&g, 12345, 1);
    for (uint32_t i = 0; i < 3000; i++) { /* unsorted buckets, ties */
        uint64_t t = 1000 + rng_below(&g, 400000), seq = rng_below(&g, 4096);
        evq_push_seq(&q, t, seq, 0, NULL, i);
        evq_push_seq(&r, t, seq, 0, NULL, i);
    }
    evq_push_seq(&q, 300000, 0, 7, NULL, 9999); /* the stop mark: type 7 */
    struct event out[4000], ev;
    size_t n = 0;
    CHECK(evq_take_before(&q, 350000, out, &n, 100, 0xff, 7) == 0 && n == 100);
    CHECK(evq_take_before(&q, 350000, out, &n, 4000, 0xff, 7) == 1);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same &= evq_pop(&r, &ev) && ev.t == out[i].t && ev.seq == out[i].seq && ev.arg == out[i].arg;
    CHECKF(same && out[n - 1].t <= 300000, "n %zu", n);
    CHECK(evq_pop(&q, &ev) && ev.arg == 9999); /* the mark stayed, first */
    while (evq_pop(&r, &ev) && ev.t < 300000)
        ;
    n = 0; /* no mark now: up to the limit */
    CHECK(evq_take_before(&q, 350000, out, &n, 4000, 0xff, 7) == 0);
    CHECK(n > 0 && out[n - 1].t < 350000 && evq_pop(&q, &ev) && ev.t >= 350000);
    evq_release(&q);
    evq_release(&r);
    /* a far event before the limit: none taken */
    evq_init(&q);
    const uint64_t far = (uint64_t)EVQ_BUCKETS << EVQ_SHIFT;
    evq_push_seq(&q, 10, 1, 0, NULL, 1);
    CHECK(evq_pop(&q, &ev));
    evq_push_seq(&q, 2 * far, 1, 0, NULL, 2);
    evq_push_seq(&q, 2 * far + 5, 2, 0, NULL, 3);
    n = 0;
    CHECK(evq_take_before(&q, 3 * far, out, &n, 10, 0, 1) == 0 && n == 0 && evq_len(&q) == 2);
    evq_release(&q);
}

static void evq_ties_fire_in_insertion_order(void)
{
    struct evq q;
    evq_init(&q);
    for (uint32_t i = 0; i < 100; i++)
        evq_push(&q, 5, 0, NULL, i);
    evq_push(&q, 1, 0, NULL, 1000);
    struct event ev;
    CHECK(evq_pop(&q, &ev) && ev.arg == 1000);
    int in_order = 1;
    for (uint32_t i = 0; i < 100; i++)
        if (!evq_pop(&q, &ev) || ev.arg != i || ev.t != 5)
            in_order = 0;
    CHECK(in_order);
    CHECK(!evq_pop(&q, &ev));
    evq_release(&q);
}

static void rng_streams_deterministic_and_distinct(void)
{
    struct rng a, b, c;
    rng_init(&a, 42, RNG_JITTER);
    rng_init(&b, 42, RNG_JITTER);
    rng_init(&c, 42, RNG_ECMP);
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = rng_u64(&a), y = rng_u64(&b), z = rng_u64(&c);
        same &= x == y;
        differ += x != z;
    }
    CHECK(same);
    CHECK(differ > 95);
}

static void rng_below_uniform(void)
{
    /* chi-square over 10 bins, 100k draws: 1% critical value for 9 dof is 21.67 */
    struct rng r;
    rng_init(&r, 1, 5);
    uint64_t bins[10] = {0};
    int in_range = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rng_below(&r, 10);
        in_range &= v < 10;
        bins[v < 10 ? v : 0]++;
    }
    double chi = 0;
    for (int i = 0; i < 10; i++)
        chi += ((double)bins[i] - 10000.0) * ((double)bins[i] - 10000.0) / 10000.0;
    CHECK(in_range);
    CHECKF(chi < 21.67, "chi-square %.2f", chi);
    double d = rng_double(&r);
    CHECK(d >= 0.0 && d < 1.0);
}

SUITE(suite_evq) = {
    {"evq_matches_sorted_array", evq_matches_sorted_array},
    {"evq_ties_fire_in_insertion_order", evq_ties_fire_in_insertion_order},
    {"evq_wheel_and_heap_agree", evq_wheel_and_heap_agree},
    {"evq_runs_match_sorted_array", evq_runs_match_sorted_array},
    {"evq_far_ring_and_heap_agree", evq_far_ring_and_heap_agree},
    {"evq_pop_before_leaves_queue", evq_pop_before_leaves_queue},
    {"evq_take_before_as_pops", evq_take_before_as_pops},
    {0, 0},
};
SUITE(suite_rng) = {
    {"rng_streams_deterministic_and_distinct", rng_streams_deterministic_and_distinct},
    {"rng_below_uniform", rng_below_uniform},
    {0, 0},
};
