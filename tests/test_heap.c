/* The fluid engines' indexed heap (src/fluid/heap.h) against a naive scan,
 * and the order of its double keys. */
#include <math.h>
#include <stdint.h>

#include "../src/core/arena.h"
#include "../src/core/rng.h"
#include "../src/fluid/heap.h"
#include "harness.h"

#define NIDS 200

/* The least (key, id) of the ids marked in, by a scan: the reference. */
static uint32_t naive_min(const int *in, const uint64_t *key)
{
    uint32_t best = HEAP_OUT;
    for (uint32_t i = 0; i < NIDS; i++)
        if (in[i] && (best == HEAP_OUT || key[i] < key[best] ||
                      (key[i] == key[best] && i < best)))
            best = i;
    return best;
}

/* Random puts (inserts and rekeys, with many equal keys), removes and pops:
 * the top is always the scan's least, positions stay consistent. */
static void heap_matches_scan(void)
{
    struct arena a;
    arena_init(&a);
    struct heap h;
    CHECK(heap_init(&h, &a, NIDS) == 0);
    int in[NIDS] = {0};
    uint64_t key[NIDS] = {0};
    struct rng r;
    rng_init(&r, 26, 7);
    uint32_t n = 0, most = 0, bad_top = 0, bad_pos = 0;
    for (int step = 0; step < 20000; step++) {
        uint32_t id = (uint32_t)(rng_below(&r, NIDS));
        uint64_t op = rng_below(&r, 10);
        if (op < 6) {
            key[id] = rng_below(&r, 50); /* ties on purpose */
            n += !in[id];
            in[id] = 1;
            heap_put(&h, id, key[id]);
        } else if (op < 8) {
            n -= in[id];
            in[id] = 0;
            heap_remove(&h, id);
        } else if (n) {
            uint32_t top = heap_top(&h)->id;
            bad_top += top != naive_min(in, key);
            in[top] = 0;
            n--;
            heap_remove(&h, top);
        }
        if (n > most)
            most = n;
        CHECK(h.n == n);
        if (n)
            bad_top += heap_top(&h)->id != naive_min(in, key) ||
                       heap_top(&h)->key != key[heap_top(&h)->id];
        for (uint32_t i = 0; i < NIDS; i++)
            bad_pos += in[i] != heap_has(&h, i) || (in[i] && h.e[h.pos[i]].id != i);
    }
    CHECKF(bad_top == 0, "%u wrong tops", bad_top);
    CHECKF(bad_pos == 0, "%u wrong positions", bad_pos);
    CHECKF(h.max_n == most && most > 0, "max_n %u, most %u", h.max_n, most);
    arena_release(&a);
}

/* heap_key_of orders as the doubles do (-0 == +0), and heap_double_of
 * gives the double back. */
static void heap_double_keys_ordered(void)
{
    const double v[] = {-INFINITY, -1e300, -2.5, -1.0, -4.9e-324, -0.0, 0.0, 4.9e-324,
                        1e-12, 1.0, 1.0000000000000002, 2.5, 1e300, INFINITY};
    size_t n = sizeof v / sizeof v[0];
    for (size_t i = 0; i < n; i++) {
        CHECKF(heap_double_of(heap_key_of(v[i])) == v[i], "%g comes back as %g", v[i],
               heap_double_of(heap_key_of(v[i])));
        for (size_t j = 0; j < n; j++) {
            uint64_t a = heap_key_of(v[i]), b = heap_key_of(v[j]);
            CHECKF((a < b) == (v[i] < v[j]) && (a == b) == (v[i] == v[j]), "%g against %g",
                   v[i], v[j]);
        }
    }
    CHECK(!signbit(heap_double_of(heap_key_of(-0.0))));
}

SUITE(suite_heap) = {
    {"heap_matches_scan", heap_matches_scan},
    {"heap_double_keys_ordered", heap_double_keys_ordered},
    {NULL, NULL},
};
