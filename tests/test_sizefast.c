/* A scenario prepared once and run later (ckpt_prepared_*, what ckptnet
 * size screens with): the same results as ckpt_run, holder reuse from one
 * scenario to the next. */
/* mincore is not POSIX */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "harness.h"

static int make(struct scenario *sc, const char *const *sets)
{
    struct err e;
    scenario_defaults(sc);
    for (int i = 0; sets[i]; i++)
        if (scenario_set(sc, sets[i], &e) < 0) {
            fprintf(stderr, "  %s: %s\n", sets[i], e.msg);
            return -1;
        }
    return 0;
}

/* The figures a run reports, compared exactly (bit for bit). */
static void same_results(const struct results *a, const struct results *b, const char *what)
{
    CHECKF(a->completion_s == b->completion_s, "%s: completion %.17g against %.17g", what,
           a->completion_s, b->completion_s);
    CHECKF(a->bound_s == b->bound_s, "%s: bound %.17g against %.17g", what, a->bound_s,
           b->bound_s);
    CHECKF(a->events == b->events, "%s: events", what);
    CHECKF(a->flows_done == b->flows_done && a->transfers == b->transfers, "%s: flows", what);
    CHECKF(a->ok == b->ok && a->finished == b->finished, "%s: ok/finished", what);
    CHECKF(a->engine == b->engine, "%s: engine", what);
    CHECKF(a->cost.stall_s == b->cost.stall_s && a->cost.end_s == b->cost.end_s &&
               a->cost.goodput == b->cost.goodput &&
               a->cost.durability_lag_s == b->cost.durability_lag_s,
           "%s: cost figures", what);
    CHECKF(a->cost.capital == b->cost.capital, "%s: capital", what);
    CHECKF(a->restore.completion_s == b->restore.completion_s, "%s: restore", what);
    CHECKF(a->bottleneck.seg == b->bottleneck.seg, "%s: bottleneck", what);
    CHECKF(!strcmp(a->engine_reason, b->engine_reason), "%s: engine reason", what);
}

/* One holder, several scenarios in turn (fluid and packet, a restore, a
 * different fabric): each prepared run gives what ckpt_run gives, so no
 * scenario leaves anything behind for the next. */
static void sizefast_prepared_run_equals_run(void)
{
    static const char *const cases[][8] = {
        {"cluster.nodes=32", "storage.nodes=2", "engine=fluid", NULL},
        {"cluster.nodes=16", "storage.nodes=2", "engine=packet", NULL},
        {"cluster.nodes=64", "storage.nodes=4", "engine=fluid", "fabric.spines=3", NULL},
        {"cluster.nodes=32", "storage.nodes=2", "engine=fluid", "checkpoint.phase=both", NULL},
        {"cluster.nodes=32", "storage.nodes=2", "engine=fluid", "checkpoint.policy=async",
         "cluster.d2h_rate=422Gbps", NULL},
        {"cluster.nodes=32", "storage.nodes=2", "engine=fluid", NULL},
    };
    struct scenario *sc = malloc(sizeof *sc);
    struct results *a = malloc(sizeof *a), *b = malloc(sizeof *b), *pre = malloc(sizeof *pre);
    struct ckpt_prepared *p = ckpt_prepared_new();
    CHECK(sc && a && b && pre && p);
    if (!sc || !a || !b || !pre || !p)
        goto out;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[32];
        snprintf(what, sizeof what, "case %zu", i);
        struct err e;
        CHECK(make(sc, cases[i]) == 0);
        CHECKF(ckpt_run(sc, a, &e) == 0, "%s: %s", what, e.msg);
        CHECKF(ckpt_prepared_set(p, sc, pre, &e) == 0, "%s: %s", what, e.msg);
        /* the preparation knows the bound before any engine */
        CHECKF(pre->bound_s == a->bound_s && pre->bound_s > 0, "%s: prepared bound %.17g",
               what, pre->bound_s);
        CHECKF(ckpt_prepared_run(p, b, &e) == 0, "%s: %s", what, e.msg);
        CHECK(a->completion_s > 0);
        same_results(a, b, what);
        results_release(a);
        results_release(b);
    }
out:
    ckpt_prepared_free(p);
    free(sc);
    free(a);
    free(b);
    free(pre);
}

/* A preparation runs once (the run may change it); a failed one leaves
 * nothing to run, with ckpt_run's error. */
static void sizefast_prepared_run_once(void)
{
    static const char *const ok[] = {"cluster.nodes=16", "storage.nodes=2", "engine=fluid", NULL};
    static const char *const bad[] = {"cluster.nodes=16", "storage.nodes=2", "engine=fluid",
                                      "fabric.spines=200", NULL};
    struct scenario *sc = malloc(sizeof *sc);
    struct results *r = malloc(sizeof *r);
    struct ckpt_prepared *p = ckpt_prepared_new();
    CHECK(sc && r && p);
    if (!sc || !r || !p)
        goto out;
    struct err e, e2;
    CHECK(ckpt_prepared_run(p, r, &e) < 0 && strstr(e.msg, "nothing prepared"));
    CHECK(make(sc, ok) == 0);
    CHECK(ckpt_prepared_set(p, sc, NULL, &e) == 0);
    CHECK(ckpt_prepared_run(p, r, &e) == 0);
    results_release(r);
    CHECK(ckpt_prepared_run(p, r, &e) < 0 && strstr(e.msg, "nothing prepared"));
    CHECK(make(sc, bad) == 0);
    int rc_run = ckpt_run(sc, r, &e2);
    results_release(r);
    CHECK(ckpt_prepared_set(p, sc, NULL, &e) < 0);
    CHECKF(rc_run < 0 && !strcmp(e.msg, e2.msg), "run: %s; prepared: %s", e2.msg, e.msg);
    CHECK(ckpt_prepared_run(p, r, &e) < 0);
out:
    ckpt_prepared_free(p);
    free(sc);
    free(r);
}

/* arena_reset keeps the blocks: the next allocations of the same sizes
 * reuse them (no new memory), zeroed although the last run wrote them;
 * larger ones get new blocks; blocks a whole run left unused are freed. */
static void sizefast_arena_reset_reuses_zeroed(void)
{
    struct arena a;
    arena_init(&a);
    const size_t sizes[] = {100, 5000, 3u << 20, 700000, 64, 9u << 20};
    const size_t n = sizeof sizes / sizeof sizes[0];
    unsigned char *first[6];
    for (size_t i = 0; i < n; i++) {
        first[i] = arena_alloc(&a, sizes[i]);
        CHECK(first[i] != NULL);
        if (first[i])
            memset(first[i], 0xA5, sizes[i]);
    }
    size_t total = a.total;
    for (int round = 0; round < 3; round++) {
        arena_reset(&a);
        CHECK(a.total == 0 && a.spare != NULL);
        for (size_t i = 0; i < n; i++) {
            unsigned char *p = arena_alloc(&a, sizes[i]);
            CHECK(p != NULL);
            if (!p)
                continue;
            size_t nz = 0;
            for (size_t k = 0; k < sizes[i]; k++)
                nz += p[k] != 0;
            CHECKF(nz == 0, "round %d, allocation %zu: %zu bytes not zeroed", round, i, nz);
            CHECKF(((uintptr_t)p & 15) == 0, "allocation %zu not 16-byte aligned", i);
            memset(p, 0x5A, sizes[i]);
        }
        /* every block came back: nothing new was taken */
        CHECKF(a.spare == NULL, "round %d: a spare block left over", round);
        CHECKF(a.total == total, "round %d: %zu bytes against %zu", round, a.total, total);
    }
    /* a run of small allocations only: the large blocks stay spare one
     * run, then go */
    arena_reset(&a);
    CHECK(arena_alloc(&a, 64) != NULL);
    arena_reset(&a);
    CHECKF(arena_kept(&a) == 1u << 20, "%zu bytes kept after a small run (its one block)",
           arena_kept(&a));
    /* larger than any spare: a new block, zeroed */
    unsigned char *big = arena_alloc(&a, 12u << 20);
    CHECK(big && big[0] == 0 && big[(12u << 20) - 1] == 0);
    arena_release(&a);
    CHECK(a.head == NULL && a.spare == NULL && a.total == 0);
}

/* arena_reserve: the allocations after it, large ones too, come from its
 * one block while they fit, in order, zeroed and apart; one block is
 * counted; the first that does not fit goes elsewhere. */
static void sizefast_arena_reserve_one_block(void)
{
    struct arena a;
    arena_init(&a);
    CHECK(arena_alloc(&a, 100) != NULL); /* a head with room of its own */
    const size_t sizes[] = {900000, 1500000, 16, 2u << 20, 70000};
    const size_t n = sizeof sizes / sizeof sizes[0];
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        want += (sizes[i] + 15) & ~(size_t)15;
    size_t before = a.total;
    CHECK(arena_reserve(&a, want) == 0);
    size_t counted = a.total - before;
    CHECKF(counted >= want && counted < want + (4u << 20), "%zu bytes counted for %zu", counted,
           want);
    unsigned char *p[5];
    for (size_t i = 0; i < n; i++) {
        p[i] = arena_alloc(&a, sizes[i]);
        CHECK(p[i] != NULL);
        if (!p[i])
            goto out;
        size_t nz = 0;
        for (size_t k = 0; k < sizes[i]; k++)
            nz += p[i][k] != 0;
        CHECKF(nz == 0, "allocation %zu: %zu bytes not zeroed", i, nz);
        memset(p[i], 0xC3, sizes[i]);
        if (i)
            CHECKF(p[i] == p[i - 1] + ((sizes[i - 1] + 15) & ~(size_t)15),
                   "allocation %zu not right behind the one before", i);
    }
    CHECKF(a.total == before + counted, "%zu bytes counted after, %zu before", a.total,
           before + counted);
    /* past the room (the reserve's and its block's rounding): elsewhere */
    unsigned char *q = arena_alloc(&a, counted);
    CHECK(q && (q + counted <= p[0] || q >= p[0] + counted));
    CHECK(a.total > before + counted);
out:
    arena_release(&a);
}

/* An arena set huge maps even its small blocks on 2 MB pages: one block
 * of 2 MB, 2 MB aligned, for a small allocation (a plain arena: a 1 MB
 * calloc'd block); the setting outlives arena_reset and arena_release.
 * Under AddressSanitizer every block is calloc'd: the sizes only. */
static void sizefast_arena_huge_maps_small_blocks(void)
{
    const int mapped = ARENA_MAP; /* under ASan the blocks are calloc'd */
    const uintptr_t two = (uintptr_t)2 << 20;
    for (int huge = 0; huge <= 1; huge++) {
        struct arena a;
        arena_init(&a);
        a.huge = huge;
        for (int round = 0; round < 3; round++) {
            unsigned char *p = arena_alloc(&a, 5000);
            CHECK(p && p[0] == 0 && p[4999] == 0);
            if (!p)
                break;
            memset(p, 0x11, 5000);
            int big = huge && mapped;
            CHECKF(big ? a.total == two : a.total < two + 4096 && a.total >= (1u << 20),
                   "huge %d, round %d: %zu bytes counted", huge, round, a.total);
            if (big)
                CHECKF(((uintptr_t)p & (two - 1)) < 4096, "huge, round %d: %p not at a 2 MB "
                                                          "block's start", round, (void *)p);
            if (round == 0)
                arena_reset(&a);
            else
                arena_release(&a);
            CHECKF(a.huge == huge, "round %d: huge %d after, %d before", round, a.huge, huge);
        }
        arena_release(&a);
    }
}

/* Pages of [p, p + size) resident (mincore), of *pages wholly inside. */
static size_t resident_pages(const void *p, size_t size, size_t *pages)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + pg - 1) & ~(pg - 1), hi = ((uintptr_t)p + size) & ~(pg - 1);
    *pages = hi > lo ? (hi - lo) / pg : 0;
    unsigned char *v = malloc(*pages ? *pages : 1);
    size_t n = 0;
    if (v && *pages && mincore((void *)lo, hi - lo, v) == 0)
        for (size_t k = 0; k < *pages; k++)
            n += v[k] & 1;
    else
        n = SIZE_MAX;
    free(v);
    return n;
}

/* A large block whose last 2 MB holds less than 1 MB of data maps it on
 * 4 KB pages: filled, none of the rest of that 2 MB is resident (a huge
 * page there is resident whole). Needs transparent huge pages to fail when
 * broken (this machine: madvise); under AddressSanitizer blocks are
 * calloc'd: the data only. */
static void sizefast_arena_thin_tail_on_small_pages(void)
{
    const int mapped = ARENA_MAP;
    const uintptr_t two = (uintptr_t)2 << 20;
    const size_t n = (4u << 20) + (256u << 10);
    struct arena a;
    arena_init(&a);
    unsigned char *p = arena_alloc(&a, n);
    CHECK(p != NULL);
    if (!p) {
        arena_release(&a);
        return;
    }
    memset(p, 0x5A, n);
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t end = (uintptr_t)(p + n);
    uintptr_t lo = (end + pg - 1) & ~(pg - 1), hi = (end + two - 1) & ~(two - 1);
    size_t pages, res = resident_pages((void *)lo, hi - lo, &pages);
    char thp[64] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f && !fgets(thp, sizeof thp, f))
        thp[0] = 0;
    if (f)
        fclose(f);
    if (mapped && (!thp[0] || strstr(thp, "[never]")))
        fprintf(stderr, "  note: transparent huge pages off here: the thin tail is not checked\n");
    if (mapped)
        CHECKF(pages > 400 && res == 0, "%zu of the last 2 MB page's %zu free pages resident", res,
               pages);
    CHECK(p[0] == 0x5A && p[n - 1] == 0x5A);
    arena_release(&a);
}

/* arena_discard returns the pages wholly inside an allocation (none of
 * them resident after) and no byte of its neighbours, which share its
 * first and last pages; reset, the arena hands the room out zeroed again.
 * Under AddressSanitizer blocks are calloc'd and kept: the neighbours only. */
static void sizefast_arena_discard_returns_pages(void)
{
    const int mapped = ARENA_MAP; /* under ASan the blocks are calloc'd */
    const size_t n1 = (3u << 20) + 100, n2 = 3u << 20, n3 = 5000;
    struct arena a;
    arena_init(&a);
    CHECK(arena_reserve(&a, arena_size(n1) + arena_size(n2) + arena_size(n3)) == 0);
    unsigned char *p1 = arena_alloc(&a, n1), *p2 = arena_alloc(&a, n2), *p3 = arena_alloc(&a, n3);
    CHECK(p1 && p2 == p1 + arena_size(n1) && p3 == p2 + arena_size(n2));
    if (!p1 || !p2 || !p3) {
        arena_release(&a);
        return;
    }
    memset(p1, 0x5A, n1);
    memset(p2, 0x5A, n2);
    memset(p3, 0x5A, n3);
    size_t pages, before = resident_pages(p2, n2, &pages);
    CHECKF(pages > 700 && before == pages, "%zu of %zu pages resident before", before, pages);
    arena_discard(&a, p2, n2);
    size_t after = resident_pages(p2, n2, &pages);
    if (mapped)
        CHECKF(after == 0, "%zu of %zu pages resident after", after, pages);
    size_t bad = 0;
    for (size_t k = 0; k < n1; k++)
        bad += p1[k] != 0x5A;
    for (size_t k = 0; k < n3; k++)
        bad += p3[k] != 0x5A;
    CHECKF(bad == 0, "%zu bytes of the neighbours lost", bad);
    arena_reset(&a);
    unsigned char *q = arena_alloc(&a, n1 + n2);
    size_t nz = 0;
    for (size_t k = 0; q && k < n1 + n2; k++)
        nz += q[k] != 0;
    CHECKF(q && nz == 0, "%zu bytes not zeroed after the reset", nz);
    arena_release(&a);
}

SUITE(suite_sizefast) = {
    {"sizefast_prepared_run_equals_run", sizefast_prepared_run_equals_run},
    {"sizefast_prepared_run_once", sizefast_prepared_run_once},
    {"sizefast_arena_reset_reuses_zeroed", sizefast_arena_reset_reuses_zeroed},
    {"sizefast_arena_reserve_one_block", sizefast_arena_reserve_one_block},
    {"sizefast_arena_huge_maps_small_blocks", sizefast_arena_huge_maps_small_blocks},
    {"sizefast_arena_thin_tail_on_small_pages", sizefast_arena_thin_tail_on_small_pages},
    {"sizefast_arena_discard_returns_pages", sizefast_arena_discard_returns_pages},
    {NULL, NULL},
};
