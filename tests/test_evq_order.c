/* The wheel's bucket lists: an event pushed before its bucket's head becomes
 * the head (no sort needed), and every mix of pushes comes out as a stable
 * sort by (time, seq) would give it, in pops and in window takes. */
#include <stdlib.h>
#include <string.h>

#include "../src/core/evq.h"
#include "../src/core/rng.h"
#include "harness.h"

static int bucket_unsorted(const struct evq *q, uint64_t t)
{
    uint32_t b = (uint32_t)((t >> EVQ_SHIFT) & (q->nb - 1));
    return (int)(q->unsorted[b / 64] >> (b % 64) & 1);
}

/* A window's partitions pushing arrivals for one time in reverse order of
 * their tie keys: each goes in front, the list stays in order. One pushed
 * between head and tail still marks it for the sort. */
static void evq_early_push_heads_its_bucket(void)
{
    struct evq q;
    struct event ev;
    evq_init(&q);
    const uint64_t t = 5000;
    for (uint32_t i = 0; i < 16; i++)
        CHECK(evq_push_seq(&q, t, (uint64_t)(15 - i) << 40, 0, NULL, 15 - i) == 0);
    CHECK(!bucket_unsorted(&q, t));
    int in_order = 1;
    for (uint32_t i = 0; i < 16; i++)
        in_order &= evq_pop(&q, &ev) && ev.arg == i && ev.t == t;
    CHECK(in_order && !evq_pop(&q, &ev));
    /* 5, 9, then 7: not before the head, the bucket is sorted when taken */
    uint32_t keys[] = {5, 9, 7}, want[] = {5, 7, 9};
    for (int i = 0; i < 3; i++)
        CHECK(evq_push_seq(&q, 2 * t, keys[i], 0, NULL, keys[i]) == 0);
    CHECK(bucket_unsorted(&q, 2 * t));
    struct event out[3];
    size_t n = 0;
    CHECK(evq_take_before(&q, 3 * t, out, &n, 3, 0, 1) == 0 && n == 3);
    for (int i = 0; i < 3; i++)
        CHECKF(out[i].arg == want[i], "take %d: %u", i, out[i].arg);
    evq_release(&q);
}

/* Random pushes into a few buckets with many equal (time, seq) pairs:
 * equal keys keep their push order (arg), in pops and takes alike. */
static void evq_early_pushes_match_stable_sort(void)
{
    enum { N = 60 }; /* a round's pushes: ~20 a bucket */
    struct ref {
        uint64_t t, seq;
        uint32_t arg;
    } *ref = malloc(N * sizeof *ref);
    struct event *out = malloc(N * sizeof *out);
    struct rng r;
    rng_init(&r, 35, 2);
    int mismatches = 0, early = 0;
    for (int round = 0; round < 300; round++) {
        struct evq q;
        evq_init(&q);
        uint64_t t0 = 100000 * (uint64_t)round;
        size_t nref = 0;
        if (round) { /* the wheel's start moved on: the buckets wrap */
            CHECK(evq_push_seq(&q, t0, 0, 0, NULL, 0) == 0);
            struct event e;
            CHECK(evq_pop(&q, &e));
        }
        for (uint32_t i = 0; i < N; i++) {
            /* 6 picosecond values in 3 buckets, 8 tie keys */
            uint64_t t = t0 + 1024 * rng_below(&r, 3) + 100 * rng_below(&r, 2);
            uint64_t seq = rng_below(&r, 8);
            size_t k = nref;
            while (k && (ref[k - 1].t > t || (ref[k - 1].t == t && ref[k - 1].seq > seq))) {
                ref[k] = ref[k - 1];
                k--;
            }
            /* first of a bucket that had some: before its head */
            early += k < nref && ref[k + 1].t >> EVQ_SHIFT == t >> EVQ_SHIFT &&
                     (k == 0 || ref[k - 1].t >> EVQ_SHIFT != t >> EVQ_SHIFT);
            ref[k] = (struct ref){t, seq, i};
            nref++;
            CHECK(evq_push_seq(&q, t, seq, 0, NULL, i) == 0);
        }
        size_t n = 0;
        if (round & 1) {
            evq_take_before(&q, t0 + 4096, out, &n, N, 0, 1);
        } else {
            while (n < N && evq_pop(&q, &out[n]))
                n++;
        }
        CHECKF(n == nref, "round %d: %zu of %zu", round, n, nref);
        for (size_t i = 0; i < n && i < nref; i++)
            mismatches += out[i].t != ref[i].t || out[i].seq != ref[i].seq ||
                          out[i].arg != ref[i].arg;
        evq_release(&q);
    }
    CHECKF(mismatches == 0, "%d mismatches", mismatches);
    CHECKF(early > 1000, "%d pushes before their bucket's head", early);
    free(ref);
    free(out);
}

SUITE(suite_evq_order) = {
    {"evq_early_push_heads_its_bucket", evq_early_push_heads_its_bucket},
    {"evq_early_pushes_match_stable_sort", evq_early_pushes_match_stable_sort},
    {0, 0},
};
