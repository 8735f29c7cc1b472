/* The fluid engine: the incremental max-min solver against a brute-force one
 * on random networks, and whole runs against the packet engine and the bound. */
/* mincore is not POSIX */
#define _DEFAULT_SOURCE
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/api/api.h"
#include "../src/core/arena.h"
#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "../src/fluid/fluid.h"
#include "../src/fluid/maxmin.h"
#include "../src/fluid/scrap.h"
#include "../src/stats/bound.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

#define G400 UINT64_C(400000000000)
#define MAXL 8
#define MAXF 14
#define MAXP 4

/* ---- max-min against brute force ---------------------------------------- */

struct net {
    uint32_t nl, nf;
    double cap[MAXL], fcap[MAXF];
    uint32_t off[MAXF + 1], path[MAXF * MAXP];
    double w[MAXF * MAXP]; /* share of the flow's rate on that link */
};

/* len > 0: every flow crosses min(len, links) links. */
static void random_net(struct net *n, struct rng *r, uint32_t len)
{
    n->nl = 1 + (uint32_t)rng_below(r, MAXL);
    n->nf = 1 + (uint32_t)rng_below(r, MAXF);
    for (uint32_t l = 0; l < n->nl; l++) /* small integers: ties are common */
        n->cap[l] = rng_below(r, 2) ? (double)(1 + rng_below(r, 4)) * 1e9
                                    : 1e9 * (0.5 + 3 * rng_double(r));
    uint32_t k = 0;
    for (uint32_t f = 0; f < n->nf; f++) {
        n->off[f] = k;
        uint32_t want = 1 + (uint32_t)rng_below(r, MAXP < n->nl ? MAXP : n->nl);
        if (len)
            want = len < n->nl ? len : n->nl;
        while (k - n->off[f] < want) {
            uint32_t l = (uint32_t)rng_below(r, n->nl), dup = 0;
            for (uint32_t j = n->off[f]; j < k; j++)
                dup |= n->path[j] == l;
            if (!dup) {
                /* mostly whole, sometimes a sprayed share */
                static const double shares[] = {0.5, 0.25, 1.0 / 3};
                uint64_t c = rng_below(r, 8);
                n->w[k] = c < 5 ? 1.0 : c < 7 ? shares[rng_below(r, 3)] : 0.1 + 0.9 * rng_double(r);
                n->path[k++] = l;
            }
        }
        n->fcap[f] = rng_below(r, 4) ? INFINITY : 1e9 * (0.2 + 2 * rng_double(r));
    }
    n->off[n->nf] = k;
}

/* Naive progressive filling: each round scans every link and cap for the
 * lowest fair share and freezes the flows there. Shares no code with maxmin.c. */
static void brute_maxmin(const struct net *n, const int *active, double *rate)
{
    int frozen[MAXF];
    for (uint32_t f = 0; f < n->nf; f++) {
        frozen[f] = !active[f];
        rate[f] = 0;
    }
    for (;;) {
        double best = INFINITY;
        int best_link = -1, best_flow = -1;
        for (uint32_t l = 0; l < n->nl; l++) {
            double used = 0, un = 0;
            for (uint32_t f = 0; f < n->nf; f++)
                for (uint32_t j = n->off[f]; j < n->off[f + 1]; j++)
                    if (n->path[j] == l && active[f]) {
                        if (frozen[f])
                            used += n->w[j] * rate[f];
                        else
                            un += n->w[j];
                    }
            if (un > 0 && (n->cap[l] - used) / un < best) {
                best = (n->cap[l] - used) / un;
                best_link = (int)l;
                best_flow = -1;
            }
        }
        for (uint32_t f = 0; f < n->nf; f++)
            if (!frozen[f] && n->fcap[f] < best) {
                best = n->fcap[f];
                best_flow = (int)f;
                best_link = -1;
            }
        if (best_link < 0 && best_flow < 0)
            return;
        for (uint32_t f = 0; f < n->nf; f++) {
            int on = (int)f == best_flow;
            for (uint32_t j = n->off[f]; j < n->off[f + 1] && best_link >= 0; j++)
                on |= (int)n->path[j] == best_link;
            if (on && !frozen[f]) {
                frozen[f] = 1;
                rate[f] = best;
            }
        }
    }
}

/* 400 random networks, 400 more with every share 1 (the solver then finds a
 * filled link's flows of A on its list, not in alist), and 400 with every
 * share 1 and every path one length (the lists then hold path entries,
 * mm.lmul). */
static void maxmin_matches_brute_force_random(void)
{
    uint64_t mismatches = 0, contract = 0, checks = 0, updates = 0;
    for (uint64_t seed = 1; seed <= 1200; seed++) {
        struct rng r;
        rng_init(&r, seed, 77);
        struct net n;
        int same = seed > 800;
        random_net(&n, &r, same ? 1 + (uint32_t)(seed % MAXP) : 0);
        int unit = seed > 400;
        for (uint32_t j = 0; unit && j < n.off[n.nf]; j++)
            n.w[j] = 1.0;
        struct arena a;
        arena_init(&a);
        struct mm m;
        CHECK(mm_init(&m, &a, n.nl, n.cap, n.nf, n.off, n.path, n.w, n.fcap) == 0);
        CHECK(!m.alist == !m.pw && (!unit || !m.pw));
        CHECK(!same || m.lmul); /* the entry lists are exercised */
        int active[MAXF] = {0};
        for (int step = 0; step < 30; step++) {
            double before[MAXF], load_before[MAXL], want[MAXF];
            for (uint32_t f = 0; f < n.nf; f++)
                before[f] = m.flows[f].rate;
            for (uint32_t l = 0; l < n.nl; l++)
                load_before[l] = m.links[l].load;
            /* sometimes a link's capacity changes (a storage back end fills) */
            if (rng_below(&r, 5) == 0) {
                uint32_t l = (uint32_t)rng_below(&r, n.nl);
                n.cap[l] = 1e9 * (0.2 + 4 * rng_double(&r));
                mm_set_cap(&m, l, n.cap[l]);
            }
            /* one to three flows start or stop at the same instant */
            for (uint64_t k = 1 + rng_below(&r, 3); k > 0; k--) {
                uint32_t f = (uint32_t)rng_below(&r, n.nf);
                if (active[f])
                    mm_stop(&m, f);
                else
                    mm_start(&m, f);
                active[f] = !active[f];
            }
            double pre[MAXF]; /* the rates the update starts from (a stop zeroes one) */
            for (uint32_t f = 0; f < n.nf; f++)
                pre[f] = m.flows[f].rate;
            mm_update(&m);
            updates++;
            brute_maxmin(&n, active, want);
            int in_aff[MAXF] = {0}, in_tl[MAXL] = {0};
            for (uint32_t i = 0; i < m.n_aff; i++) {
                in_aff[m.aff[i]] = 1;
                /* each recomputed flow's rate before the update, per slot */
                if (mm_prev_rate(&m, i) != pre[m.aff[i]])
                    contract++;
            }
            for (uint32_t i = 0; i < m.n_tl; i++)
                in_tl[m.tl[i]] = 1;
            for (uint32_t f = 0; f < n.nf; f++) {
                double got = m.flows[f].rate;
                /* A empties with the update: the next one starts from none */
                if (m.fbits[f] & MM_IN_A)
                    contract++;
                if (fabs(got - want[f]) > 1e-9 * 4e9) {
                    if (!mismatches++)
                        fprintf(stderr, "  seed %llu step %d flow %u: %.17g, brute force %.17g\n",
                                (unsigned long long)seed, step, f, got, want[f]);
                }
                /* a flow left out of aff kept its rate (the engine relies on it) */
                if (active[f] && !in_aff[f] && got != before[f])
                    contract++;
            }
            for (uint32_t l = 0; l < n.nl; l++) {
                double sum = 0;
                for (uint32_t f = 0; f < n.nf; f++)
                    for (uint32_t j = n.off[f]; j < n.off[f + 1]; j++)
                        if (n.path[j] == l)
                            sum += n.w[j] * m.flows[f].rate;
                if (fabs(sum - m.links[l].load) > 1e-3 || /* round-off of 4e9 sums */
                    (!in_tl[l] && m.links[l].load != load_before[l]))
                    contract++;
                if (in_tl[l] && m.links[l].prev_load != load_before[l])
                    contract++;
            }
            char msg[160];
            if (mm_check(&m, 1e-9, msg, sizeof msg)) {
                if (!checks++)
                    fprintf(stderr, "  seed %llu step %d: %s\n", (unsigned long long)seed, step, msg);
            }
        }
        CHECK(m.over_capacity == 0);
        arena_release(&a);
    }
    CHECKF(mismatches == 0, "%llu rates differ from brute force", (unsigned long long)mismatches);
    CHECKF(contract == 0, "%llu changes outside aff/tl, stale loads or prior rates", (unsigned long long)contract);
    CHECKF(checks == 0, "%llu allocations fail the bottleneck condition", (unsigned long long)checks);
    CHECK(updates == 1200 * 30);
}

/* The checks above must be able to fail: a perturbed rate is caught by both. */
static void maxmin_checks_catch_a_wrong_rate(void)
{
    struct net n = {.nl = 2, .nf = 3, .cap = {4e9, 3e9}, .fcap = {INFINITY, INFINITY, INFINITY},
                    .off = {0, 1, 3, 4}, .path = {0, 0, 1, 1}, .w = {1, 1, 1, 1}};
    struct arena a;
    arena_init(&a);
    struct mm m;
    CHECK(mm_init(&m, &a, n.nl, n.cap, n.nf, n.off, n.path, n.w, n.fcap) == 0);
    for (uint32_t f = 0; f < 3; f++)
        mm_start(&m, f);
    mm_update(&m);
    /* flows 1 and 2 share link 1 (1.5e9 each); flow 0 takes the rest of link 0 */
    CHECK(fabs(m.flows[0].rate - 2.5e9) < 1 && fabs(m.flows[1].rate - 1.5e9) < 1 &&
          fabs(m.flows[2].rate - 1.5e9) < 1);
    char msg[160];
    CHECK(mm_check(&m, 1e-9, msg, sizeof msg) == 0);
    m.flows[0].rate *= 1 - 1e-6; /* link 0 no longer full: flow 0 lost its bottleneck */
    CHECK(mm_check(&m, 1e-9, msg, sizeof msg) == 1);
    m.flows[0].rate = 2.5e9;
    m.flows[2].rate += 1e3; /* link 1 over capacity */
    CHECK(mm_check(&m, 1e-9, msg, sizeof msg) == 2);
    double want[MAXF];
    int active[MAXF] = {1, 1, 1};
    brute_maxmin(&n, active, want);
    CHECK(fabs(m.flows[2].rate - want[2]) > 1e-9 * 4e9 / 10);
    arena_release(&a);
}

/* A change in one part of the network leaves an unconnected part alone. */
static void maxmin_update_stays_in_component(void)
{
    /* 4 islands of 2 links; 3 flows per island */
    double cap[8];
    uint32_t off[13], path[24];
    for (uint32_t l = 0; l < 8; l++)
        cap[l] = 1e9 * (1 + l % 3);
    for (uint32_t f = 0, k = 0; f < 12; f++) {
        uint32_t isl = f / 3;
        off[f] = k;
        path[k++] = 2 * isl;
        if (f % 3)
            path[k++] = 2 * isl + 1;
        off[f + 1] = k;
    }
    struct arena a;
    arena_init(&a);
    struct mm m;
    CHECK(mm_init(&m, &a, 8, cap, 12, off, path, NULL, NULL) == 0);
    for (uint32_t f = 0; f < 12; f++)
        mm_start(&m, f);
    mm_update(&m);
    CHECK(m.n_aff == 12);
    mm_stop(&m, 4); /* island 1 */
    mm_update(&m);
    CHECK(m.n_aff > 0);
    for (uint32_t i = 0; i < m.n_aff; i++)
        CHECKF(m.aff[i] / 3 == 1, "flow %u of island %u recomputed", m.aff[i], m.aff[i] / 3);
    for (uint32_t i = 0; i < m.n_tl; i++)
        CHECK(m.tl[i] / 2 == 1);
    char msg[160];
    CHECK(mm_check(&m, 1e-9, msg, sizeof msg) == 0);
    arena_release(&a);
}

/* mm_init_path keeps the caller's path (the fluid engine's, in its arena)
 * and solves as mm_init's copy does, through starts and stops. */
static void maxmin_init_path_keeps_the_path(void)
{
    double cap[4] = {1e9, 2e9, 3e9, 1.5e9};
    uint32_t off[6] = {0, 2, 4, 5, 7, 9};
    uint32_t want[9] = {0, 1, 1, 2, 3, 0, 3, 2, 1};
    struct arena a;
    arena_init(&a);
    uint32_t *kept = arena_calloc(&a, 10, sizeof *kept);
    CHECK(kept != NULL);
    memcpy(kept, want, sizeof want);
    struct mm m, c;
    CHECK(mm_init_path(&m, &a, 4, cap, 5, off, kept, NULL, NULL) == 0);
    CHECK(mm_init(&c, &a, 4, cap, 5, off, want, NULL, NULL) == 0);
    CHECK(m.path == kept && c.path != want);
    for (uint32_t step = 0; step < 3; step++) {
        for (uint32_t f = 0; f < 5; f++) {
            if (step == 1 && f % 2) {
                mm_stop(&m, f);
                mm_stop(&c, f);
            } else {
                mm_start(&m, f);
                mm_start(&c, f);
            }
        }
        mm_update(&m);
        mm_update(&c);
        for (uint32_t f = 0; f < 5; f++)
            CHECKF(m.flows[f].rate == c.flows[f].rate, "step %u flow %u: %.17g, copy %.17g", step,
                   f, m.flows[f].rate, c.flows[f].rate);
        char msg[160];
        CHECKF(mm_check(&m, 1e-9, msg, sizeof msg) == 0, "%s", msg);
    }
    CHECK(memcmp(kept, want, sizeof want) == 0); /* read, never written */
    arena_release(&a);
}

/* A large solver's arrays in one block (the arena's head after mm_init):
 * 600,000 flows of two links over 1,000 links (~45 MB); then the rates
 * are right. Fails with the reserve dropped (each large array in a block
 * of its own behind a 1 MB head). */
static void maxmin_large_arrays_one_block(void)
{
    enum { NL = 1000, NF = 600000 };
    double *cap = malloc(NL * sizeof *cap);
    uint32_t *off = malloc((NF + 1) * sizeof *off), *path = malloc(2 * (size_t)NF * sizeof *path);
    CHECK(cap && off && path);
    for (uint32_t l = 0; cap && l < NL; l++)
        cap[l] = 1e9 * (1 + l % 3);
    for (uint32_t f = 0; off && path && f <= NF; f++) {
        off[f] = 2 * f;
        if (f < NF) {
            path[2 * f] = f % NL;
            path[2 * f + 1] = (f / NL + f) % NL == f % NL ? (f + 1) % NL : (f / NL + f) % NL;
        }
    }
    struct arena a;
    arena_init(&a);
    struct mm m;
    CHECK(cap && off && path && mm_init(&m, &a, NL, cap, NF, off, path, NULL, NULL) == 0);
    /* the span of the arrays, and the head that holds it */
    const void *p[] = {m.links, m.flows, m.fbits, m.path, m.lflow, m.active, m.dirty,
                       m.pslot16, m.heap.h.pos, m.heap.h.e};
    size_t sz[] = {NL * sizeof *m.links, NF * sizeof *m.flows, NF, 2 * (size_t)NF * 4,
                   2 * (size_t)NF * 4, (NF + 1) * 4, (NL + 1) * 4, 2 * (size_t)NF * 2, NL * 4,
                   NL * sizeof *m.heap.h.e};
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (unsigned i = 0; i < sizeof p / sizeof *p; i++) {
        CHECK(p[i] != NULL);
        lo = (uintptr_t)p[i] < lo ? (uintptr_t)p[i] : lo;
        hi = (uintptr_t)p[i] + sz[i] > hi ? (uintptr_t)p[i] + sz[i] : hi;
    }
    CHECKF(a.cap >= (size_t)32 << 20 && hi - lo <= a.cap && a.used <= a.cap,
           "head %zu bytes (%zu used), the arrays span %zu", a.cap, a.used, (size_t)(hi - lo));
    for (uint32_t f = 0; f < NF; f += 7)
        mm_start(&m, f);
    mm_update(&m);
    char msg[160];
    CHECKF(mm_check(&m, 1e-9, msg, sizeof msg) == 0, "%s", msg);
    arena_release(&a);
    free(cap);
    free(off);
    free(path);
}

/* Each link's list holds exactly its active flows, each once. */
static int lists_whole(const struct mm *m, uint32_t *seen)
{
    for (uint32_t l = 0; l < m->nl; l++) {
        const struct mm_link *k = &m->links[l];
        uint32_t want = 0;
        for (uint32_t a = 0; a < m->n_active; a++)
            for (uint32_t i = 0, f = m->active[a]; i < mm_np(m, f); i++)
                want += m->path[mm_poff(m, f) + i] == l;
        if (k->n != want)
            return 0;
        for (uint32_t i = 0; i < k->n; i++) {
            uint32_t f = mm_lflow(m, k->off + i);
            if (m->flows[f].apos == UINT32_MAX || seen[f] == l + 1)
                return 0;
            seen[f] = l + 1;
        }
    }
    return 1;
}

/* A path entry's slot in its link's list takes 16 bits while no list can
 * reach 65,536 entries, 32 when one can: 70,000 flows over one link keep
 * every list whole through starts and swap-removes either way (with 16 bits
 * there, slots past 65,535 wrap and a stop empties another flow's slot). */
static void maxmin_slots_narrow_and_wide(void)
{
    for (int wide = 0; wide < 2; wide++) {
        uint32_t nf = wide ? 70000 : 3000;
        double cap[4] = {1e9, 1e12, 1e12, 1e12};
        uint32_t *off = calloc(nf + 1, sizeof *off), *path = calloc(2 * nf, sizeof *path);
        uint32_t *seen = calloc(nf, sizeof *seen);
        CHECK(off && path && seen);
        for (uint32_t f = 0; off && path && f < nf; f++) {
            off[f] = 2 * f;
            path[2 * f] = 0;
            path[2 * f + 1] = 1 + f % 3;
        }
        off[nf] = 2 * nf;
        struct arena a;
        arena_init(&a);
        struct mm m;
        CHECK(mm_init(&m, &a, 4, cap, nf, off, path, NULL, NULL) == 0);
        CHECKF((m.pslot16 != NULL) == !wide, "%u flows: %s slots", nf,
               m.pslot16 ? "16-bit" : "32-bit");
        for (uint32_t f = 0; f < nf; f++)
            mm_start(&m, f);
        mm_update(&m);
        /* stops all over the lists, the farthest slots first: holes filled
         * from their ends */
        for (uint32_t k = nf; k > 0; k--) {
            uint32_t f = k - 1;
            if (f % 5 == 0 || (f > nf / 2 && f % 7 == 0))
                mm_stop(&m, f);
        }
        mm_update(&m);
        for (uint32_t f = 1; f < nf; f += 10)
            mm_stop(&m, f);
        mm_update(&m);
        CHECK(lists_whole(&m, seen));
        uint32_t bad = 0;
        for (uint32_t i = 0; i < m.n_active; i++)
            bad += fabs(m.flows[m.active[i]].rate * m.n_active / 1e9 - 1) > 1e-9;
        CHECKF(bad == 0, "%u of %u rates off the even share", bad, m.n_active);
        arena_release(&a);
        free(off);
        free(path);
        free(seen);
    }
}

/* An update after starts alone, with every active flow among them (the
 * first burst; training's steps once the checkpoint is done), takes A and T
 * from the started list and dirty links in order instead of each flow's
 * links: the same rates, aff, tl and loads, bit for bit, as the general way,
 * here a twin solver forced onto it by an unchanged capacity set on a link
 * already dirty (mm_set_cap counts as a change). Random networks, bursts of
 * starts from empty, then stops in two steps and a new burst. */
static void maxmin_burst_start_as_general(void)
{
    uint64_t differ = 0, bursts = 0, checks = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        struct rng r;
        rng_init(&r, seed, 91);
        struct net n;
        random_net(&n, &r, seed > 150 ? 1 + (uint32_t)(seed % MAXP) : 0);
        for (uint32_t j = 0; seed % 2 && j < n.off[n.nf]; j++)
            n.w[j] = 1.0;
        struct arena a;
        arena_init(&a);
        struct mm m, g;
        CHECK(mm_init(&m, &a, n.nl, n.cap, n.nf, n.off, n.path, n.w, n.fcap) == 0);
        CHECK(mm_init(&g, &a, n.nl, n.cap, n.nf, n.off, n.path, n.w, n.fcap) == 0);
        for (int step = 0; step < 9; step++) {
            /* a burst, some stop (the others' rates move), the rest stop */
            int burst = step % 3 == 0, all = step % 3 == 2;
            for (uint32_t f = 0; f < n.nf; f++) {
                if (burst && rng_below(&r, 4)) {
                    mm_start(&m, f);
                    mm_start(&g, f);
                } else if (!burst && (all || rng_below(&r, 2))) {
                    mm_stop(&m, f);
                    mm_stop(&g, f);
                }
            }
            if (burst && g.n_active) {
                uint32_t l = g.path[mm_poff(&g, g.active[0])];
                mm_set_cap(&g, l, g.links[l].cap);
                bursts++;
            }
            mm_update(&m);
            mm_update(&g);
            int same = m.n_aff == g.n_aff && m.n_tl == g.n_tl;
            for (uint32_t i = 0; same && i < m.n_aff; i++)
                same = m.aff[i] == g.aff[i];
            for (uint32_t i = 0; same && i < m.n_tl; i++)
                same = m.tl[i] == g.tl[i];
            for (uint32_t i = 0; same && i < m.n_aff; i++)
                same = mm_prev_rate(&m, i) == mm_prev_rate(&g, i);
            for (uint32_t f = 0; same && f < n.nf; f++)
                same = !memcmp(&m.flows[f].rate, &g.flows[f].rate, sizeof(double)) &&
                       m.flows[f].bott == g.flows[f].bott;
            for (uint32_t l = 0; same && l < n.nl; l++)
                same = !memcmp(&m.links[l].load, &g.links[l].load, sizeof(double)) &&
                       m.links[l].prev_load == g.links[l].prev_load &&
                       m.links[l].blevel == g.links[l].blevel &&
                       m.links[l].maxr == g.links[l].maxr;
            if (!same && !differ++)
                fprintf(stderr, "  seed %llu step %d: the burst's update differs\n",
                        (unsigned long long)seed, step);
            char msg[160];
            if (mm_check(&m, 1e-9, msg, sizeof msg) && !checks++)
                fprintf(stderr, "  seed %llu step %d: %s\n", (unsigned long long)seed, step, msg);
        }
        arena_release(&a);
    }
    CHECKF(bursts > 700, "%llu bursts", (unsigned long long)bursts);
    CHECKF(differ == 0, "%llu updates differ from the general way", (unsigned long long)differ);
    CHECKF(checks == 0, "%llu allocations fail the bottleneck condition", (unsigned long long)checks);
}

/* ---- whole runs ----------------------------------------------------------- */

static void base(struct scenario *sc)
{
    scenario_defaults(sc);
    sc->fabric.allow_oversize = 1; /* abstract fabrics: fat uplinks, one leaf */
    sc->fabric.link_delay_ps = 1000000;
    sc->fabric.switch_latency_ps = 500000;
    sc->cluster.nic_bps = sc->storage.nic_bps = sc->fabric.uplink_bps = G400;
}

static int run_engine(struct scenario *sc, int engine, struct results *r)
{
    struct err e = {{0}};
    sc->engine = engine;
    int rc = ckpt_run(sc, r, &e);
    if (rc)
        fprintf(stderr, "  ckpt_run: %s\n", e.msg);
    return rc;
}

/* Packet and fluid completion of one scenario; fluid must pass its invariants. */
static void both(struct scenario *sc, struct results *p, struct results *f)
{
    CHECK(run_engine(sc, ENGINE_PACKET, p) == 0);
    CHECK(run_engine(sc, ENGINE_FLUID, f) == 0);
    CHECKF(p->ok, "packet: %s", p->violation);
    CHECKF(f->ok, "fluid: %s", f->violation);
    CHECK(f->engine == ENGINE_FLUID && p->engine == ENGINE_PACKET);
    CHECK(f->bytes_delivered == p->bytes_delivered);
    CHECK(f->flows_done == p->flows_done);
}

static void single(uint64_t bytes, uint32_t mtu, uint64_t nic, uint32_t spines)
{
    struct scenario sc;
    base(&sc);
    sc.cluster.nodes = sc.storage.nodes = 1;
    sc.fabric.spines = spines;
    sc.cluster.nic_bps = nic;
    sc.fabric.mtu = mtu;
    sc.workload.bytes_per_writer = bytes;
    struct results p, f;
    both(&sc, &p, &f);
    /* within one packet's serialisation on the slowest link */
    double pkt = (double)units_ser_ps(mtu + ROCE_OVERHEAD, nic < G400 ? nic : G400) / 1e12;
    CHECKF(fabs(f.completion_s - p.completion_s) <= pkt, "fluid %.12f packet %.12f (packet time %.3g)",
           f.completion_s, p.completion_s, pkt);
    results_release(&p);
    results_release(&f);
}

static void fluid_single_flow_within_a_packet(void)
{
    single(1000000, 4096, G400, 1);            /* partial last packet */
    single(8 * 4096, 4096, G400, 4);           /* whole packets, ECMP */
    single(3000001, 1024, 100000000000ull, 2); /* slower writer NIC */
    single(100, 4096, G400, 2);                /* one packet */
}

static double rel(double a, double b)
{
    return fabs(a - b) / b;
}

static void fluid_incast_within_5pct_of_packet(void)
{
    static const uint32_t cases[][2] = {{16, 8}, {64, 16}};
    for (int i = 0; i < 2; i++) {
        struct scenario sc;
        base(&sc);
        sc.cluster.nodes = cases[i][0];
        sc.fabric.hosts_per_leaf = cases[i][1];
        sc.storage.nodes = 1;
        sc.fabric.spines = 2;
        struct err e;
        CHECK(scenario_set(&sc, "fabric.buffer=4MB", &e) == 0); /* small: PFC must act */
        sc.workload.bytes_per_writer = 2000000;
        struct results p, f;
        both(&sc, &p, &f);
        CHECK(p.pause_frames > 0); /* PFC really acted in the packet run */
        CHECKF(rel(f.completion_s, p.completion_s) <= 0.05, "fluid %.9g packet %.9g",
               f.completion_s, p.completion_s);
        /* a symmetric case: fluid within 1% of the bound, never below it */
        CHECKF(f.completion_s >= f.bound_s * (1 - 1e-9) && f.completion_s <= f.bound_s * 1.01,
               "fluid %.9g bound %.9g", f.completion_s, f.bound_s);
        results_release(&p);
        results_release(&f);
    }
}

/* 2:1 oversubscribed compute leaves: ECMP collisions on the uplinks set the
 * time, so this also checks that both engines hash flows onto the same paths. */
static void fluid_oversubscribed_within_5pct_of_packet(void)
{
    double worst = 0;
    int spread = 0;
    double first = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct scenario sc;
        base(&sc);
        sc.seed = seed;
        sc.cluster.nodes = 32;
        sc.fabric.hosts_per_leaf = 16;
        sc.fabric.spines = 8; /* 16 x 400G down, 8 x 400G up */
        sc.storage.nodes = 16;
        sc.fabric.storage_per_leaf = 8;
        sc.workload.bytes_per_writer = 1000000;
        struct results p, f;
        both(&sc, &p, &f);
        CHECK(fabs(f.oversub_compute - 2.0) < 1e-9);
        double d = rel(f.completion_s, p.completion_s);
        if (d > worst)
            worst = d;
        CHECKF(d <= 0.05, "seed %llu: fluid %.9g packet %.9g", (unsigned long long)seed,
               f.completion_s, p.completion_s);
        if (seed == 1)
            first = f.completion_s;
        else if (rel(f.completion_s, first) > 0.05)
            spread = 1;
        /* the uplinks are the busiest fluid links, at capacity for a while */
        CHECK(f.link_full_max_s[PATH_CLEAF_UP] > 0);
        results_release(&p);
        results_release(&f);
    }
    CHECKF(spread, "seeds gave the same completion: the paths do not depend on the hash");
}

/* Two flows, two uplinks: they collide or not, by the hash. Each engine must
 * see the same outcome on every seed. */
static void fluid_same_ecmp_paths_as_packet(void)
{
    int collide = 0, apart = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        struct scenario sc;
        base(&sc);
        sc.seed = seed;
        sc.cluster.nodes = 2;
        sc.fabric.hosts_per_leaf = 2;
        sc.fabric.spines = 2;
        sc.storage.nodes = 2;
        sc.fabric.storage_per_leaf = 2;
        sc.workload.bytes_per_writer = 400000;
        struct results p, f;
        both(&sc, &p, &f);
        CHECKF(rel(f.completion_s, p.completion_s) <= 0.05, "seed %llu: fluid %.9g packet %.9g",
               (unsigned long long)seed, f.completion_s, p.completion_s);
        if (f.completion_s > 1.5 * f.bound_s)
            collide++;
        else
            apart++;
        results_release(&p);
        results_release(&f);
    }
    CHECKF(collide && apart, "collide %d apart %d", collide, apart);
}

/* WCMP picks the packet engine's weighted path; spray splits a flow evenly
 * over every uplink (out-of-order receivers, so the packet engine does not
 * pay for reordering), which removes the ECMP collisions. */
static void fluid_load_balancing(void)
{
    static const char *const lbs[] = {"ecmp", "wcmp", "spray"};
    double done[3] = {0};
    for (int i = 0; i < 3; i++) {
        struct scenario sc;
        struct err e;
        char a[64];
        base(&sc);
        sc.cluster.nodes = 32;
        sc.fabric.hosts_per_leaf = 16;
        sc.fabric.spines = 8;
        sc.storage.nodes = 16;
        sc.fabric.storage_per_leaf = 8;
        sc.workload.bytes_per_writer = 1000000;
        snprintf(a, sizeof a, "fabric.load_balancing=%s", lbs[i]);
        CHECK(scenario_set(&sc, a, &e) == 0);
        CHECK(scenario_set(&sc, "transport.receiver=ooo", &e) == 0);
        struct results p, f;
        both(&sc, &p, &f);
        CHECKF(rel(f.completion_s, p.completion_s) <= 0.05, "%s: fluid %.9g packet %.9g",
               lbs[i], f.completion_s, p.completion_s);
        done[i] = f.completion_s / f.bound_s;
        if (i == 2)
            CHECK(f.lb_paths_mean == 8 && f.lb_uplink_imbalance < 1.001);
        results_release(&p);
        results_release(&f);
    }
    CHECKF(done[0] > 1.5 && done[2] < 1.01, "ecmp %.3f spray %.3f of the bound", done[0], done[2]);
}

static void fluid_symmetric_burst_at_bound(void)
{
    struct scenario sc;
    base(&sc);
    sc.cluster.nodes = 16;
    sc.fabric.hosts_per_leaf = 8;
    sc.storage.nodes = 16;
    sc.fabric.storage_per_leaf = 8;
    sc.fabric.spines = 1;
    sc.fabric.uplink_bps = 16 * G400; /* never the limit (test_engine.c) */
    sc.storage.nic_bps = 2 * G400;
    sc.workload.bytes_per_writer = 4000000;
    sc.engine = ENGINE_FLUID;
    struct results r;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bound_limit == PATH_WRITER_NIC);
    CHECKF(r.completion_s >= r.bound_s * (1 - 1e-9) && r.completion_s <= r.bound_s * 1.01,
           "%.9g vs bound %.9g", r.completion_s, r.bound_s);
    /* the writer NICs are full for the whole transfer */
    CHECK(r.link_full_max_s[PATH_WRITER_NIC] > 0.99 * r.bound_term_s[PATH_WRITER_NIC]);
    double util = r.bound_term_s[PATH_WRITER_NIC] / r.completion_s; /* latency is idle */
    CHECKF(fabs(r.link_util_max[PATH_WRITER_NIC] - util) < 1e-3 * util, "%.9g vs %.9g",
           r.link_util_max[PATH_WRITER_NIC], util);
    results_release(&r);
}

/* A queue pair's rate cap holds: one flow capped at 100G on a 400G path. */
static void fluid_rate_cap(void)
{
    struct scenario sc;
    base(&sc);
    sc.cluster.nodes = sc.storage.nodes = 1;
    sc.workload.bytes_per_writer = 4096 * 100;
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    struct results r;
    memset(&r, 0, sizeof r);
    CHECK(scenario_resolve(&sc, NULL) == 0);
    CHECK(topo_build(&t, &sc, &a, NULL) == 0);
    CHECK(workload_build(&w, &sc, &t, &a, NULL) == 0);
    w.xrate = arena_calloc(&a, w.n, sizeof *w.xrate);
    CHECK(w.xrate != NULL);
    w.xrate[0] = 100000000000ull;
    CHECK(fluid_run(&sc, &t, &w, &r, NULL) == 0);
    CHECKF(r.ok, "%s", r.violation);
    double drain = (double)units_ser_ps(wire_bytes(4096 * 100, scenario_wire(&sc)), 100000000000ull) / 1e12;
    CHECKF(r.completion_s > drain && r.completion_s < drain + 10e-6, "%.9g vs drain %.9g",
           r.completion_s, drain);
    results_release(&r);
    arena_release(&a);
}

static void drain_scenario(struct scenario *sc, const char *buffer)
{
    struct err e;
    char a[64];
    base(sc);
    sc->cluster.nodes = 16;
    sc->fabric.hosts_per_leaf = 16;
    sc->storage.nodes = 1;
    sc->fabric.spines = 2;
    sc->workload.bytes_per_writer = 2000000;
    snprintf(a, sizeof a, "storage.ingest_buffer=%s", buffer);
    CHECK(scenario_set(sc, "storage.drain_rate=100Gbps", &e) == 0);
    CHECK(scenario_set(sc, a, &e) == 0);
}

/* A back end slower than its NIC: the write ends when the drain does, in
 * both engines; a finite ingest buffer fills, then admits only the drain. */
static void fluid_storage_back_end(void)
{
    struct scenario sc;
    struct results p, f, u;
    drain_scenario(&sc, "2MB");
    both(&sc, &p, &f);
    CHECK(f.bound_limit == PATH_BACKEND);
    CHECKF(rel(f.completion_s, p.completion_s) <= 0.02, "fluid %.9g packet %.9g",
           f.completion_s, p.completion_s);
    CHECKF(f.completion_s >= f.bound_s * (1 - 1e-9) && f.completion_s <= f.bound_s * 1.01,
           "fluid %.9g bound %.9g", f.completion_s, f.bound_s);
    drain_scenario(&sc, "0"); /* unlimited: the NIC runs at line rate meanwhile */
    CHECK(run_engine(&sc, ENGINE_FLUID, &u) == 0);
    CHECKF(u.ok, "%s", u.violation);
    CHECKF(rel(u.completion_s, f.completion_s) < 1e-3, "%.9g vs %.9g", u.completion_s,
           f.completion_s);
    /* 32 MB at 400G is 0.65 ms at capacity; 2 MB fill at 300G net, ~55 us */
    CHECKF(u.link_full_max_s[PATH_STORAGE_NIC] > 0.6e-3, "unlimited: storage NIC full %.3g s",
           u.link_full_max_s[PATH_STORAGE_NIC]);
    CHECKF(f.link_full_max_s[PATH_STORAGE_NIC] > 40e-6 && f.link_full_max_s[PATH_STORAGE_NIC] < 70e-6,
           "2MB buffer: storage NIC full %.3g s", f.link_full_max_s[PATH_STORAGE_NIC]);
    results_release(&p);
    results_release(&f);
    results_release(&u);
}

/* A stuck storage node: its transfers never finish and the run says so; the
 * healthy node's transfers do (no PFC spreading in a fluid). */
static void fluid_stuck_storage_node(void)
{
    struct scenario sc;
    struct err e;
    base(&sc);
    sc.cluster.nodes = 16;
    sc.fabric.hosts_per_leaf = 8;
    sc.storage.nodes = 2;
    sc.fabric.spines = 2;
    sc.workload.bytes_per_writer = 2000000;
    CHECK(scenario_set(&sc, "storage.stuck_nodes=1", &e) == 0);
    CHECK(scenario_set(&sc, "storage.ingest_buffer=2MB", &e) == 0);
    struct results r;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECK(!r.ok);
    CHECKF(strstr(r.violation, "8 of 16 transfers did not complete") != NULL, "%s", r.violation);
    CHECK(r.flows_done == 8);
    results_release(&r);
}

/* Time series with a back end: the bytes are delivered (all in the ingest
 * buffers) long before they are written, still to write reaches 0 once
 * they are, transfers stay active until written; a stuck node's transfers
 * stay active and their bytes unwritten, and sampling ends with the run. */
static void fluid_series_back_end(void)
{
    struct scenario sc;
    struct results r;
    drain_scenario(&sc, "0");
    sc.telemetry.interval_ps = 10000000; /* 10 us */
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    const struct series *s = &r.series;
    int mono = 1, writing = 0;
    for (uint32_t i = 0; i < s->n && s->ingest; i++) {
        uint64_t held = 0;
        for (uint32_t j = 0; j < s->n_store; j++)
            held += s->ingest[(size_t)i * s->n_store + j];
        mono &= i == 0 || s->remaining[i] <= s->remaining[i - 1];
        writing += s->remaining[i] > 0 && held == s->remaining[i] && s->active[i] > 0;
    }
    CHECK(r.ok && s->n > 100 && mono && writing > 100);
    CHECK(s->remaining[0] == r.ckpt_bytes && s->active[0] == 16);
    CHECK(s->remaining[s->n - 1] == 0 && s->active[s->n - 1] == 0);
    results_release(&r);

    struct err e;
    base(&sc);
    sc.cluster.nodes = 16;
    sc.fabric.hosts_per_leaf = 8;
    sc.storage.nodes = 2;
    sc.fabric.spines = 2;
    sc.workload.bytes_per_writer = 2000000;
    sc.telemetry.interval_ps = 10000000;
    CHECK(scenario_set(&sc, "storage.stuck_nodes=1", &e) == 0);
    CHECK(scenario_set(&sc, "storage.ingest_buffer=2MB", &e) == 0);
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECK(!r.ok && s->n > 1 && s->n < 1000);
    /* 8 x 2 MB to the stuck node, none written; its 2 MB buffer took some */
    CHECKF(s->remaining[s->n - 1] == 16000000, "%llu",
           (unsigned long long)s->remaining[s->n - 1]);
    CHECK(s->n_store == 2 && s->ingest && s->ingest[(size_t)(s->n - 1) * 2] > 1000000 &&
          s->ingest[(size_t)(s->n - 1) * 2] <= 2000000 && s->ingest[(size_t)(s->n - 1) * 2 + 1] == 0);
    CHECK(s->active[s->n - 1] == 8);
    results_release(&r);
}

static char *json_of(struct scenario *sc, int engine)
{
    struct results r;
    if (run_engine(sc, engine, &r))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_json(f, sc, &r, 0, NULL);
    fclose(f);
    results_release(&r);
    return buf;
}

static void jittered(struct scenario *sc)
{
    base(sc);
    sc->cluster.nodes = 64;
    sc->fabric.hosts_per_leaf = 16;
    sc->storage.nodes = 3;
    sc->fabric.spines = 4;
    sc->workload.bytes_per_writer = 3000000;
    sc->workload.start_jitter_ps = 50000000;
}

static void fluid_deterministic_json(void)
{
    struct scenario sc;
    jittered(&sc);
    char *a = json_of(&sc, ENGINE_FLUID), *b = json_of(&sc, ENGINE_FLUID);
    CHECK(a && b && strcmp(a, b) == 0);
    sc.seed = 2;
    char *c = json_of(&sc, ENGINE_FLUID);
    CHECK(a && c && strcmp(a, c) != 0);
    free(a);
    free(b);
    free(c);
}

static json_t *get(json_t *root, const char *dotted)
{
    char path[128];
    snprintf(path, sizeof path, "%s", dotted);
    json_t *v = root;
    char *save = NULL;
    for (char *tok = strtok_r(path, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
        v = json_object_get(v, tok);
    return v;
}

/* Packet-only figures are absent from fluid JSON, present in packet JSON. */
static void fluid_json_omits_packet_figures(void)
{
    static const char *const packet_only[] = {
        "network.drops", "network.pfc", "network.max_queue_bytes",
        "network.max_buffer_bytes", "network.packets_delivered",
    };
    struct scenario sc;
    jittered(&sc);
    char *fs = json_of(&sc, ENGINE_FLUID), *ps = json_of(&sc, ENGINE_PACKET);
    json_error_t je;
    json_t *fj = fs ? json_loads(fs, 0, &je) : NULL, *pj = ps ? json_loads(ps, 0, &je) : NULL;
    CHECK(fj && pj);
    for (size_t i = 0; fj && pj && i < sizeof packet_only / sizeof packet_only[0]; i++) {
        CHECKF(get(fj, packet_only[i]) == NULL, "fluid has %s", packet_only[i]);
        CHECKF(get(pj, packet_only[i]) != NULL, "packet lacks %s", packet_only[i]);
    }
    if (fj) {
        CHECK(!strcmp(json_string_value(get(fj, "engine")), "fluid"));
        CHECK(json_is_true(get(fj, "invariants.ok")));
        CHECK(json_real_value(get(fj, "network.links.storage_nic.max_utilisation")) > 0.5);
        CHECK(json_real_value(get(fj, "checkpoint.completion_s")) > 0);
    }
    json_decref(fj);
    json_decref(pj);
    free(fs);
    free(ps);
    /* and the summary says where they went */
    struct results r;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_summary(f, &sc, &r);
    fclose(f);
    CHECK(buf && strstr(buf, "need the packet engine") && !strstr(buf, "pause frames"));
    free(buf);
    results_release(&r);
}

static void auto_picks_by_packet_events(void)
{
    struct scenario sc;
    base(&sc);
    sc.cluster.nodes = 4;
    sc.storage.nodes = 1;
    sc.workload.bytes_per_writer = 1000000; /* ~1000 packets: packet engine */
    struct results r;
    CHECK(run_engine(&sc, ENGINE_AUTO, &r) == 0);
    CHECK(r.engine == ENGINE_PACKET && r.has_packet_stats);
    char under[32], over[32];
    snprintf(under, sizeof under, "<= %.2g (", CKPT_AUTO_EVENT_LIMIT);
    snprintf(over, sizeof over, "> %.2g (", CKPT_AUTO_EVENT_LIMIT);
    CHECKF(strstr(r.engine_reason, "auto") && strstr(r.engine_reason, under), "%s",
           r.engine_reason);
    results_release(&r);
    /* 800 GB: ~2e8 packets, past hybrid's share too (tests/test_hybval.c) */
    sc.workload.bytes_per_writer = 200000000000ull;
    CHECK(run_engine(&sc, ENGINE_AUTO, &r) == 0);
    CHECK(r.engine == ENGINE_FLUID && !r.has_packet_stats && r.ok);
    CHECKF(strstr(r.engine_reason, over), "%s", r.engine_reason);
    results_release(&r);
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECK(strstr(r.engine_reason, "requested") != NULL);
    results_release(&r);
}

/* Defect: the fluid engine ignored sim.time_limit. Now a limit before the
 * end stops it with the packet engine's message, a transfer whose last byte
 * lands after the limit is unfinished, and a limit past the end changes
 * nothing. */
static void fluid_honours_time_limit(void)
{
    struct scenario sc;
    base(&sc);
    sc.cluster.nodes = 16;
    sc.storage.nodes = 2;
    sc.workload.bytes_per_writer = 1000000;
    struct results full, r, p;
    if (run_engine(&sc, ENGINE_FLUID, &full) < 0) {
        CHECK(0);
        return;
    }
    CHECKF(full.ok, "%s", full.violation);
    uint64_t end = full.plan.first_start_ps + (uint64_t)(full.completion_s * 1e12 + 0.5);
    /* halfway: the packet engine stops there too, with the same words */
    sc.sim.time_limit_ps = end / 2;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECK(run_engine(&sc, ENGINE_PACKET, &p) == 0);
    const char *msg = "stopped at the time limit (";
    CHECKF(!r.ok && strstr(r.violation, msg), "fluid: %s", r.violation);
    CHECKF(!p.ok && strstr(p.violation, msg), "packet: %s", p.violation);
    CHECKF(r.flows_done < full.flows_done, "%u of %u done", r.flows_done, full.flows_done);
    /* the same words up to the figures, which are each engine's */
    char want[200];
    snprintf(want, sizeof want,
             "stopped at the time limit (%.6g s simulated; sim.time_limit) with transfers "
             "still delivering: ",
             (double)sc.sim.time_limit_ps / 1e12);
    CHECKF(strstr(r.violation, want) && strstr(p.violation, want), "%s vs %s", r.violation,
           p.violation);
    results_release(&r);
    results_release(&p);
    /* every byte has left, the last has not landed: unfinished */
    sc.sim.time_limit_ps = end - 1;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECKF(!r.ok && strstr(r.violation, msg), "%s", r.violation);
    CHECKF(r.flows_done < full.flows_done, "%u of %u done", r.flows_done, full.flows_done);
    results_release(&r);
    sc.sim.time_limit_ps = end;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.completion_s == full.completion_s);
    results_release(&r);
    results_release(&full);
}

/* ---- what the fluid figure ignores (fluid_unmodelled) --------------------- */

/* A small incast: 16 writers of 1 MB over 2 compute leaves and 4 spines to 4
 * storage nodes on 2 storage leaves (4:1 at every storage NIC). */
static void small_incast(struct scenario *sc)
{
    struct err e;
    base(sc);
    sc->cluster.nodes = 16;
    sc->fabric.hosts_per_leaf = 8;
    sc->storage.nodes = 4;
    sc->fabric.storage_per_leaf = 2;
    sc->fabric.spines = 4;
    sc->workload.bytes_per_writer = 1000000;
    CHECK(scenario_set(sc, "fabric.buffer=4MB", &e) == 0);
}

/* One writer alone on its path: nothing can queue. */
static void one_flow(struct scenario *sc)
{
    base(sc);
    sc->cluster.nodes = sc->storage.nodes = 1;
    sc->fabric.spines = 4;
    sc->workload.bytes_per_writer = 4000000;
}

/* The fluid run's entry for key ("" when not listed), with value and effect;
 * the JSON says the same, and optimistic follows the list. */
static void unmodelled_of(struct scenario *sc, const char *key, char *value, char *effect)
{
    struct results r;
    value[0] = effect[0] = '\0';
    if (run_engine(sc, ENGINE_FLUID, &r) < 0) {
        CHECK(0);
        return;
    }
    for (uint32_t i = 0; i < r.n_unmodelled; i++)
        if (!strcmp(r.unmodelled[i].key, key)) {
            snprintf(value, 24, "%s", r.unmodelled[i].value);
            snprintf(effect, 64, "%s", r.unmodelled[i].effect);
        }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct err e;
    CHECK(report_json(f, sc, &r, 0, &e) == 0);
    fclose(f);
    json_t *root = json_loads(buf, 0, NULL);
    json_t *a = json_object_get(json_object_get(root, "fluid"), "unmodelled");
    CHECK(json_is_array(a) && json_array_size(a) == r.n_unmodelled);
    /* optimistic only when every entry is (each carries its direction) */
    CHECK(json_is_true(json_object_get(json_object_get(root, "fluid"), "optimistic")) ==
          (fluid_direction(&r) == UNMOD_OPTIMISTIC));
    int found = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *o = json_array_get(a, i);
        if (!strcmp(json_string_value(json_object_get(o, "key")), key))
            found = !strcmp(json_string_value(json_object_get(o, "value")), value) &&
                    !strcmp(json_string_value(json_object_get(o, "effect")), effect);
    }
    CHECKF(found == (value[0] != '\0'), "%s in the JSON: %d", key, found);
    json_decref(root);
    free(buf);
    results_release(&r);
}

/* Expect key listed as value with an effect naming `what`, or (value NULL)
 * not listed. */
static void expect_unmodelled(struct scenario *sc, const char *key, const char *value,
                              const char *what)
{
    char v[24], eff[64];
    unmodelled_of(sc, key, v, eff);
    if (!value)
        CHECKF(!v[0], "%s listed as %s (%s)", key, v, eff);
    else
        CHECKF(!strcmp(v, value) && strstr(eff, what), "%s: '%s' (%s), want %s (%s)", key, v,
               eff, value, what);
}

/* Defect: the fluid engine gave its figure for scenarios whose outcome it
 * does not model (PFC, DCQCN, flowlets moving, go-back-N resends, request
 * windows) without a word. Each key set is listed with its effect; unset,
 * it is not. */
static void fluid_lists_what_it_ignores(void)
{
    struct scenario sc;
    struct err e;
    /* PFC: an incast on a lossless fabric; tail drops on a lossy one */
    small_incast(&sc);
    expect_unmodelled(&sc, "fabric.pfc.enabled", "true", "head-of-line blocking");
    CHECK(scenario_set(&sc, "fabric.pfc.enabled=false", &e) == 0);
    expect_unmodelled(&sc, "fabric.pfc.enabled", "false", "tail drops");
    one_flow(&sc);
    expect_unmodelled(&sc, "fabric.pfc.enabled", NULL, NULL);
    sc.transport.qps_per_writer = 4; /* one NIC's queue pairs share it: no queue */
    expect_unmodelled(&sc, "fabric.pfc.enabled", NULL, NULL);
    one_flow(&sc); /* a back end behind a finite buffer pushes back */
    CHECK(scenario_set(&sc, "storage.drain_rate=100Gbps", &e) == 0);
    expect_unmodelled(&sc, "fabric.pfc.enabled", NULL, NULL);
    CHECK(scenario_set(&sc, "storage.ingest_buffer=1MB", &e) == 0);
    expect_unmodelled(&sc, "fabric.pfc.enabled", "true", "PFC pauses");
    /* DCQCN */
    one_flow(&sc);
    expect_unmodelled(&sc, "transport.cc", NULL, NULL);
    CHECK(scenario_set(&sc, "transport.cc=dcqcn", &e) == 0);
    expect_unmodelled(&sc, "transport.cc", "dcqcn", "rate control");
    /* the request window */
    one_flow(&sc);
    expect_unmodelled(&sc, "storage.max_outstanding", NULL, NULL);
    CHECK(scenario_set(&sc, "storage.max_outstanding=4", &e) == 0);
    expect_unmodelled(&sc, "storage.max_outstanding", "4", "request window");
    /* per-packet schemes reorder: go-back-N resends, out of order does not */
    one_flow(&sc);
    CHECK(scenario_set(&sc, "fabric.load_balancing=spray", &e) == 0);
    expect_unmodelled(&sc, "transport.receiver", "gbn", "go-back-N resends");
    expect_unmodelled(&sc, "fabric.lb.spray_random", NULL, NULL);
    CHECK(scenario_set(&sc, "fabric.lb.spray_random=true", &e) == 0);
    expect_unmodelled(&sc, "fabric.lb.spray_random", "true", "uneven");
    CHECK(scenario_set(&sc, "transport.receiver=ooo", &e) == 0);
    expect_unmodelled(&sc, "transport.receiver", NULL, NULL);
    one_flow(&sc);
    CHECK(scenario_set(&sc, "fabric.load_balancing=adaptive", &e) == 0);
    CHECK(scenario_set(&sc, "fabric.lb.adaptive_per_packet=true", &e) == 0);
    expect_unmodelled(&sc, "transport.receiver", "gbn", "go-back-N resends");
    one_flow(&sc); /* ECMP keeps a flow's packets in order */
    expect_unmodelled(&sc, "transport.receiver", NULL, NULL);
    /* flowlets move after pauses: with an incast, not with one flow alone */
    one_flow(&sc);
    CHECK(scenario_set(&sc, "fabric.load_balancing=flowlet", &e) == 0);
    expect_unmodelled(&sc, "fabric.load_balancing", NULL, NULL);
    expect_unmodelled(&sc, "transport.receiver", NULL, NULL);
    small_incast(&sc);
    CHECK(scenario_set(&sc, "fabric.load_balancing=flowlet", &e) == 0);
    expect_unmodelled(&sc, "fabric.load_balancing", "flowlet", "flowlets move");
    expect_unmodelled(&sc, "transport.receiver", "gbn", "go-back-N resends");
    CHECK(scenario_set(&sc, "fabric.load_balancing=adaptive", &e) == 0);
    expect_unmodelled(&sc, "fabric.load_balancing", "adaptive", "least-loaded");
    CHECK(scenario_set(&sc, "transport.receiver=ooo", &e) == 0);
    expect_unmodelled(&sc, "transport.receiver", NULL, NULL);
    small_incast(&sc);
    expect_unmodelled(&sc, "fabric.load_balancing", NULL, NULL);
    /* nothing of it: not optimistic, an empty list */
    one_flow(&sc);
    struct results r;
    CHECK(run_engine(&sc, ENGINE_FLUID, &r) == 0);
    CHECKF(r.n_unmodelled == 0, "%u listed, first %s", r.n_unmodelled,
           r.n_unmodelled ? r.unmodelled[0].key : "");
    results_release(&r);
}

/* The list is not decoration: where it names a key, the packet engine
 * takes measurably longer than the fluid figure. */
static void fluid_unmodelled_keys_cost_time(void)
{
    static const char *const sets[][3] = {
        {"storage.max_outstanding=2", "storage.request_size=64KB", NULL},
        {"fabric.load_balancing=flowlet", "fabric.lb.flowlet_timeout=2us", NULL},
        {"fabric.load_balancing=spray", "fabric.lb.spray_random=true", NULL},
    };
    static const char *const keys[] = {"storage.max_outstanding", "transport.receiver",
                                       "transport.receiver"};
    for (int i = 0; i < 3; i++) {
        struct scenario sc;
        struct err e;
        char v[24], eff[64];
        if (i == 0)
            one_flow(&sc);
        else
            small_incast(&sc);
        for (int j = 0; sets[i][j]; j++)
            CHECK(scenario_set(&sc, sets[i][j], &e) == 0);
        unmodelled_of(&sc, keys[i], v, eff);
        CHECKF(v[0], "%s not listed", keys[i]);
        struct results p, f;
        both(&sc, &p, &f);
        CHECKF(p.completion_s > 1.5 * f.completion_s, "%s: packet %.6g fluid %.6g", sets[i][0],
               p.completion_s, f.completion_s);
        results_release(&p);
        results_release(&f);
    }
}

/* engine: auto never picks fluid silently: its reason names what the fluid
 * figure ignores, and so does a requested fluid run's. */
static void auto_fluid_reason_names_unmodelled(void)
{
    struct scenario sc;
    struct err e;
    base(&sc);
    sc.cluster.nodes = 4;
    sc.storage.nodes = 1;
    sc.workload.bytes_per_writer = 20000000000ull; /* ~2e7 packets: fluid */
    CHECK(scenario_set(&sc, "transport.cc=dcqcn", &e) == 0);
    CHECK(scenario_set(&sc, "storage.max_outstanding=4", &e) == 0);
    struct ckpt_description d;
    sc.engine = ENGINE_AUTO;
    CHECK(ckpt_describe(&sc, &d, &e) == 0);
    CHECK(d.engine == ENGINE_FLUID);
    char over[32];
    snprintf(over, sizeof over, "> %.2g (", CKPT_AUTO_EVENT_LIMIT);
    CHECKF(strstr(d.r.engine_reason, over) &&
           strstr(d.r.engine_reason, "transport.cc=dcqcn (rate control: optimistic)") &&
           strstr(d.r.engine_reason, "storage.max_outstanding=4 (request window: optimistic)") &&
           strstr(d.r.engine_reason, "fabric.pfc.enabled=true") &&
           strstr(d.r.engine_reason, "): optimistic"), "%s", d.r.engine_reason);
    sc.engine = ENGINE_FLUID;
    CHECK(ckpt_describe(&sc, &d, &e) == 0);
    CHECKF(strstr(d.r.engine_reason, "requested") &&
           strstr(d.r.engine_reason, "transport.cc=dcqcn"), "%s", d.r.engine_reason);
    /* the packet engine models them: nothing to say */
    sc.workload.bytes_per_writer = 1000000;
    sc.engine = ENGINE_AUTO;
    CHECK(ckpt_describe(&sc, &d, &e) == 0);
    CHECKF(d.engine == ENGINE_PACKET && !strstr(d.r.engine_reason, "ignores"), "%s",
           d.r.engine_reason);
}

/* ckpt_prepare routes every transfer once for the bound and the fluid
 * engine: the cache must hold exactly topo_path's route of each (three
 * tiers, many ECMP choices), else the bound and the engine load other links
 * than the packet engine's switches pick. */
static void fluid_path_cache_is_topo_path(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "fabric.tiers=3");
    test_set(&sc, "fabric.pods=2");
    test_set(&sc, "storage.nodes=8");
    struct test_prep p;
    CHECKF(test_prepare(&p, &sc) == 0, "%s", p.e.msg);
    const struct workload *w = &p.w;
    CHECK(w->path && w->path_n && w->n > 0 && p.t.tiers == 3);
    uint32_t long_paths = 0;
    for (uint32_t i = 0; w->path && i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        uint32_t want[TOPO_MAX_HOPS], got[TOPO_MAX_HOPS];
        uint32_t n = topo_path(&p.t, x->src, x->dst, x->sport, want, TOPO_MAX_HOPS);
        CHECK(workload_path(w, &p.t, i, got) == n && n >= 2);
        CHECK(memcmp(want, got, n * sizeof *got) == 0);
        long_paths += n >= 6;
    }
    CHECK(long_paths > 0); /* some cross pods: super-spine hops */
    /* each route's inner ports in an up-down path's room, not TOPO_MAX_HOPS' */
    CHECKF(w->path_stride == 4, "stride %u", w->path_stride);
    test_prep_release(&p);
}

/* A finishing transfer's latency reads its route from the solver's path
 * (one path a flow, not weighted): the same ports, so the same times to the
 * picosecond as routing it again (no cache: topo_path), on three tiers
 * with jittered starts (latencies are not hidden behind one end). */
static void fluid_latency_from_solver_path(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "fabric.tiers=3");
    test_set(&sc, "fabric.pods=2");
    test_set(&sc, "storage.nodes=8");
    test_set(&sc, "workload.start_jitter=20us");
    struct test_prep p;
    CHECKF(test_prepare(&p, &sc) == 0, "%s", p.e.msg);
    struct workload routed = p.w;
    routed.path = NULL;
    routed.path_n = NULL;
    struct results *r = calloc(2, sizeof *r);
    struct err e = {{0}};
    CHECK(r && p.w.path);
    for (int k = 0; r && k < 2; k++) {
        r[k].bound_s = p.r.bound_s;
        CHECKF(fluid_run(&p.eff, &p.t, k ? &routed : &p.w, &r[k], &e) == 0, "%s", e.msg);
        CHECKF(r[k].ok, "%s", r[k].violation);
    }
    if (r) {
        CHECK(r[0].n_writer_s == r[1].n_writer_s && r[0].n_writer_s == p.w.n_writers);
        CHECKF(r[0].completion_s == r[1].completion_s, "%.15g s against %.15g s",
               r[0].completion_s, r[1].completion_s);
        uint32_t differ = 0;
        for (uint32_t i = 0; i < r[0].n_writer_s && i < r[1].n_writer_s; i++)
            differ += r[0].writer_s[i] != r[1].writer_s[i];
        CHECKF(differ == 0, "%u of %u writers' times differ", differ, r[0].n_writer_s);
        results_release(&r[0]);
        results_release(&r[1]);
    }
    free(r);
    test_prep_release(&p);
}

/* A link record and a link's scratch each start a cache line and fill
 * one (maxmin.h), whatever came before them in the arena: one line a path
 * entry, for a start or stop (the record) and for freeze (the scratch). */
static void maxmin_link_hot_line(void)
{
    CHECK(sizeof(struct mm_link) == 64 && sizeof(struct mm_scr) == 64);
    static double cap[3 + 39 * 1000];
    for (size_t l = 0; l < sizeof cap / sizeof *cap; l++)
        cap[l] = 1e9;
    uint32_t misaligned = 0;
    for (uint32_t k = 0; k < 40; k++) {
        struct arena a;
        arena_init(&a);
        CHECK(arena_calloc(&a, 1 + k, 4) != NULL); /* the arena's next address moves on */
        uint32_t off[3] = {0, 2, 3}, path[3] = {0, 1, 2};
        struct mm m;
        CHECK(mm_init(&m, &a, 3 + k * 1000, cap, 2, off, path, NULL, NULL) == 0);
        misaligned += (uintptr_t)m.links % 64 != 0;
        misaligned += (uintptr_t)m.scr % 64 != 0;
        arena_release(&a);
    }
    CHECKF(misaligned == 0, "%u of 80 link and scratch arrays off a line boundary", misaligned);
}

/* 4 KB pages of [p, p + size) resident (mincore); -1: not known. */
static long scr_resident(const void *p, size_t size)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(pg - 1), hi = ((uintptr_t)p + size + pg - 1) & ~(pg - 1);
    unsigned char *v = malloc((hi - lo) / pg);
    long n = -1;
    if (v && mincore((void *)lo, hi - lo, v) == 0) {
        n = 0;
        for (size_t i = 0; i < (hi - lo) / pg; i++)
            n += v[i] & 1;
    }
    free(v);
    return n;
}

/* The update's link scratch (maxmin.h, mm_scr): a burst's by link id and
 * given back to the system when it ends; a later update's packed, one
 * record a link with flows of A, the links of T without any sharing one
 * that reads as empty. A burst's slots (pslot16) written after its fill. 120,000 flows on their own link and one of 1,000
 * shared ones: the burst writes 121,000 records (7.7 MB, in a mapped
 * block), a stop of 10 flows packs 20. */
static void maxmin_scratch_packed_and_given_back(void)
{
    enum { NF = 120000, NS = 1000, NL = NF + NS };
    uint32_t *off = malloc((NF + 1) * sizeof *off), *path = malloc(2 * NF * sizeof *path);
    double *cap = malloc(NL * sizeof *cap);
    CHECK(off && path && cap);
    if (!off || !path || !cap)
        goto out;
    for (uint32_t f = 0; f <= NF; f++)
        off[f] = 2 * f;
    for (uint32_t f = 0; f < NF; f++) {
        path[2 * f] = f;
        path[2 * f + 1] = NF + f % NS;
    }
    for (uint32_t l = 0; l < NL; l++)
        cap[l] = l < NF ? 1e9 + l : 4e10;
    struct arena a;
    arena_init(&a);
    struct mm m;
    CHECK(mm_init(&m, &a, NL, cap, NF, off, path, NULL, NULL) == 0);
    for (uint32_t f = 0; f < NF; f++)
        mm_start(&m, f);
    /* the slots unwritten through the burst's fill (they share huge pages
     * with other arrays here: their pages are not a test), written after */
    uint32_t early = 0;
    for (uint32_t pe = 0; m.pslot16 && pe < 2 * NF; pe++)
        early += m.pslot16[pe] != 0;
    CHECKF(m.pslot16 && m.slots_lazy && early == 0, "starts: lazy %d, %u slots written",
           m.slots_lazy, early);
    mm_update(&m);
    CHECKF(m.sdirect && m.n_tl == NL, "burst: by id %d, %u links in T", m.sdirect, m.n_tl);
    uint32_t wrong = 0;
    for (uint32_t pe = 0; m.pslot16 && pe < 2 * NF; pe++)
        wrong += m.lflow[m.links[m.path[pe]].off + m.pslot16[pe]] != pe;
    CHECKF(!m.slots_lazy && wrong == 0, "after the burst: lazy %d, %u of %u slots wrong",
           m.slots_lazy, wrong, 2 * NF);
    long res = scr_resident(m.scr, (size_t)NL * sizeof *m.scr);
    if (ARENA_MAP) /* under ASan the arena's blocks are calloc'd: nothing given back */
        CHECKF(res >= 0 && res <= 2, "%ld of %zu scratch pages resident after the burst", res,
               (size_t)NL * sizeof *m.scr / 4096);
    for (uint32_t f = 0; f < 10; f++)
        mm_stop(&m, 5 * f);
    mm_update(&m);
    /* the flows sharing the 10 stopped flows' shared links are A: their own
     * link and the shared one each a record; the stopped flows' own links
     * are in T with none of A */
    uint8_t *crossed = calloc(NL, 1);
    uint32_t want = 0, shared = 0, bad = 0;
    for (uint32_t i = 0; crossed && i < m.n_aff; i++)
        for (uint32_t pe = mm_poff(&m, m.aff[i]); pe < mm_poff(&m, m.aff[i]) + mm_np(&m, m.aff[i]); pe++)
            want += !crossed[m.path[pe]]++;
    for (uint32_t k = 0; crossed && k < m.n_tl; k++) {
        uint32_t l = m.tl[k], tix = m.links[l].tix;
        shared += tix == NL;
        bad += crossed[l] ? tix >= m.n_scr : tix != NL;
    }
    CHECKF(!m.sdirect && m.n_aff > 100 && m.n_scr == want && shared == 10 && bad == 0,
           "packed: by id %d, %u in A, %u records for %u links, %u shared, %u misplaced",
           m.sdirect, m.n_aff, m.n_scr, want, shared, bad);
    res = scr_resident(m.scr, (size_t)NL * sizeof *m.scr);
    if (ARENA_MAP)
        CHECKF(res >= 0 && (size_t)res <= (size_t)m.n_scr * sizeof *m.scr / 4096 + 4,
               "%ld scratch pages resident for %u records", res, m.n_scr);
    char msg[160];
    CHECKF(mm_check(&m, 1e-9, msg, sizeof msg) == 0, "%s", msg);
    free(crossed);
    arena_release(&a);
out:
    free(off);
    free(path);
    free(cap);
}

/* Set-up and the engine choice's load take a route's ports without looking
 * for one twice (flow_links, fluid_load_add): routes have distinct ports,
 * on two and three tiers, with links down (routes around them), for every
 * transfer and for random endpoint pairs and source ports. */
static void fluid_routes_have_distinct_ports(void)
{
    static const char *const cases[][3] = {
        {"fabric.tiers=3", "fabric.pods=2", "fabric.failed_links=4"},
        {"fabric.tiers=2", "fabric.failed_links=3", "storage.nodes=6"},
        {"fabric.tiers=3", "fabric.pods=3", "fabric.load_balancing=wcmp"},
    };
    uint32_t routes = 0, twice = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct scenario sc;
        scenario_defaults(&sc);
        for (int k = 0; k < 3; k++)
            test_set(&sc, "%s", cases[c][k]);
        struct test_prep p;
        CHECKF(test_prepare(&p, &sc) == 0, "%s", p.e.msg);
        struct rng r;
        rng_init(&r, 7 + c, 3);
        uint32_t ends = p.t.first_cleaf;
        for (uint32_t i = 0; i < p.w.n + 20000; i++) {
            uint32_t src, dst, path[TOPO_MAX_HOPS];
            uint16_t sport;
            if (i < p.w.n) {
                src = p.w.xfers[i].src, dst = p.w.xfers[i].dst, sport = p.w.xfers[i].sport;
            } else {
                src = (uint32_t)rng_below(&r, ends), dst = (uint32_t)rng_below(&r, ends);
                sport = (uint16_t)rng_below(&r, 65536);
            }
            uint32_t n = topo_path(&p.t, src, dst, sport, path, TOPO_MAX_HOPS);
            routes += n > 0;
            for (uint32_t j = 1; j < n; j++)
                for (uint32_t k = 0; k < j; k++)
                    twice += path[k] == path[j];
        }
        test_prep_release(&p);
    }
    CHECKF(routes > 60000, "%u routes", routes);
    CHECKF(twice == 0, "%u ports twice on a route", twice);
}

/* mm.plen, the one path length (maxmin.h): set only when every path has
 * it, and then flow f's path is at f x plen and no offset array is kept;
 * 0 with lengths that differ or with weights, and then the offsets are
 * the caller's. Either way mm_poff / mm_np find each flow's own links. */
static void maxmin_plen_places_paths(void)
{
    uint32_t wrong = 0, uniform = 0, mixed = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct rng r;
        rng_init(&r, seed, 93);
        struct net n;
        random_net(&n, &r, seed % 2 ? 1 + (uint32_t)(seed % MAXP) : 0);
        for (uint32_t j = 0; seed % 4 < 2 && j < n.off[n.nf]; j++)
            n.w[j] = 1.0;
        struct arena a;
        arena_init(&a);
        struct mm m;
        CHECK(mm_init(&m, &a, n.nl, n.cap, n.nf, n.off, n.path, n.w, n.fcap) == 0);
        int same = 1, unit = 1;
        for (uint32_t f = 1; f < n.nf; f++)
            same &= n.off[f + 1] - n.off[f] == n.off[1] - n.off[0];
        for (uint32_t j = 0; j < n.off[n.nf]; j++)
            unit &= n.w[j] == 1.0;
        if (same && unit) {
            uniform++;
            wrong += m.plen != n.off[1] - n.off[0] || m.poff != NULL;
        } else {
            mixed++;
            wrong += m.plen != 0 || m.poff == NULL;
            for (uint32_t f = 0; m.poff && f <= n.nf; f++)
                wrong += m.poff[f] != n.off[f];
        }
        for (uint32_t f = 0; f < n.nf; f++) {
            wrong += mm_np(&m, f) != n.off[f + 1] - n.off[f];
            for (uint32_t j = 0; j < mm_np(&m, f); j++)
                wrong += m.path[mm_poff(&m, f) + j] != n.path[n.off[f] + j];
        }
        arena_release(&a);
    }
    CHECKF(uniform >= 40 && mixed >= 40, "%u uniform, %u mixed", uniform, mixed);
    CHECKF(wrong == 0, "%u wrong", wrong);
}

/* collect's scratch cut from the dead queues (scrap.h): each ask from the
 * smallest piece that holds it, zeroed, on 16 bytes, no two overlapping,
 * inside the queues' arrays; what none holds calloc'd; the queues' arrays
 * handed over. */
static void fluid_scrap_cuts_dead_queues(void)
{
    struct arena a;
    arena_init(&a);
    struct cq q1, q2;
    CHECK(cq_init(&q1, &a, 1000) == 0 && cq_init(&q2, &a, 300) == 0);
    /* pieces: q1's entries 12,192 bytes, positions 4,000; q2's 3,792, 1,200 */
    unsigned char *lo[4] = {(unsigned char *)q1.h.e, (unsigned char *)q1.h.pos,
                            (unsigned char *)q2.h.e, (unsigned char *)q2.h.pos};
    size_t len[4] = {1016 * sizeof *q1.h.e, 1000 * 4, 316 * sizeof *q2.h.e, 300 * 4};
    for (int i = 0; i < 4; i++)
        memset(lo[i], 0xab, len[i]); /* the loop's leftovers */
    struct scrap s = {0};
    scrap_add(&s, &q1);
    scrap_add(&s, &q2);
    CHECK(q1.h.e == NULL && q1.h.pos == NULL && q2.h.e == NULL && q2.h.pos == NULL);
    /* asks, and the piece each must come from (-1: calloc'd) */
    static const size_t ask[] = {1000, 3000, 4000, 12100, 100, 5000, 150};
    static const int from[] = {3, 2, 1, 0, 3, -1, 2};
    unsigned char *got[7];
    int heap[7];
    for (int k = 0; k < 7; k++) {
        got[k] = scrap_get(&s, ask[k], &heap[k]);
        CHECK(got[k] != NULL);
        CHECKF((uintptr_t)got[k] % 16 == 0, "ask %d off 16 bytes", k);
        int in = -1;
        for (int i = 0; i < 4; i++)
            if (got[k] >= lo[i] && got[k] + ask[k] <= lo[i] + len[i])
                in = i;
        CHECKF(in == from[k] && heap[k] == (from[k] < 0), "ask %d of %zu bytes from piece %d, "
               "want %d", k, ask[k], in, from[k]);
        size_t nz = 0;
        for (size_t b = 0; b < ask[k]; b++)
            nz += got[k][b] != 0;
        CHECKF(nz == 0, "ask %d: %zu bytes not zero", k, nz);
        memset(got[k], 0x5c + k, ask[k]);
    }
    /* each still holds what it was given: none overlaps another */
    for (int k = 0; k < 7; k++) {
        size_t other = 0;
        for (size_t b = 0; b < ask[k]; b++)
            other += got[k][b] != (unsigned char)(0x5c + k);
        CHECKF(other == 0, "ask %d: %zu bytes overwritten", k, other);
    }
    for (int k = 0; k < 7; k++)
        scrap_put(got[k], heap[k]);
    arena_release(&a);
}

/* A queue that made a run gives collect only what its heap and run wrote
 * (cq.h: the run keeps out of the heap's array, whose rest is untouched
 * memory): its heap's array as far as the most it held, its positions,
 * its run as far as the longest; asks larger than those go elsewhere. */
static void fluid_scrap_takes_what_a_run_wrote(void)
{
    enum { N = 20000, RUN = 12000, HEAPED = 300 };
    struct arena a;
    arena_init(&a);
    struct cq q;
    CHECK(cq_init(&q, &a, N) == 0 && q.rid != NULL);
    CHECK(cq_collect_begin(&q, RUN) == 1);
    for (uint32_t id = 0; id < RUN; id++)
        cq_collect(&q, id, 1000 + id % 5);
    cq_collect_close(&q);
    for (uint32_t id = 0; id < RUN; id++)
        cq_settle(&q, id);
    cq_collect_end(&q);
    for (uint32_t id = RUN; id < RUN + HEAPED; id++)
        cq_put(&q, id, 7 + id);
    CHECKF(q.live == RUN && q.h.max_n == HEAPED, "run %u, heap %u", q.live, q.h.max_n);
    unsigned char *e = (unsigned char *)q.h.e, *pos = (unsigned char *)q.h.pos,
                  *rid = (unsigned char *)q.rid;
    struct scrap s = {0};
    scrap_add(&s, &q);
    CHECK(s.n == 3 && q.rid == NULL);
    /* the heap's part: (300 + 16) x 12 bytes; the run's: 12,000 x 4 */
    size_t e_len = (HEAPED + HEAP_SLACK_) * sizeof *q.h.e, rid_len = RUN * sizeof(uint32_t);
    int hp[4];
    unsigned char *small = scrap_get(&s, e_len - 16, &hp[0]);  /* the heap's part */
    unsigned char *mid = scrap_get(&s, rid_len - 16, &hp[1]);  /* the run's: 48,000 bytes */
    unsigned char *big = scrap_get(&s, (size_t)N * 4 - 16, &hp[2]); /* the positions */
    CHECKF(small >= e && small + e_len - 16 <= e + e_len, "the heap's part not from its array");
    CHECKF(mid >= rid && mid + rid_len - 16 <= rid + rid_len, "the run's part not from its ids");
    CHECKF(big >= pos && big + (size_t)N * 4 - 16 <= pos + (size_t)N * 4,
           "the positions not from theirs");
    /* nothing past what was written: a fourth ask the size of the run's
     * part fits no piece left */
    unsigned char *more = scrap_get(&s, rid_len / 2, &hp[3]);
    CHECKF(hp[3] == 1, "%zu bytes cut from memory no queue wrote", rid_len / 2);
    scrap_put(more, hp[3]);
    scrap_put(small, 0);
    scrap_put(mid, 0);
    scrap_put(big, 0);
    arena_release(&a);
}

/* writer_acc_finish turns the start array into writer_s in place (the
 * results own it through writer_mem): each writer's first start to last
 * end, -1 for one with nothing completed, the percentiles over the rest. */
static void fluid_writer_figures_in_place(void)
{
    enum { NW = 300000 }; /* the start array on huge pages */
    struct writer_acc acc;
    CHECK(writer_acc_init(&acc, NW) == 0);
    const uint64_t *start = acc.start;
    for (uint32_t i = 0; i < NW; i++) {
        if (i % 7 == 3)
            continue; /* nothing completed */
        uint64_t s = (uint64_t)(i % 1000) * 1000000, d = (uint64_t)(i % 977 + 1) * 1000000000;
        writer_acc_add(&acc, i, s + 5000000, s + 6000000, s + d);
        writer_acc_add(&acc, i, s, s + 1000000, s + d / 2); /* earlier start, earlier end */
    }
    struct results r;
    memset(&r, 0, sizeof r);
    writer_acc_finish(&acc, &r);
    CHECK(r.writers == NW && r.n_writer_s == NW);
    CHECKF((const void *)r.writer_s == (const void *)start, "writer_s at %p, start was at %p",
           (const void *)r.writer_s, (const void *)start);
    CHECK(acc.start == NULL && acc.end == NULL && acc.out.head == NULL && r.writer_mem.head);
    uint32_t bad = 0;
    double mx = 0;
    for (uint32_t i = 0; r.writer_s && i < NW; i++) {
        double d = (double)((uint64_t)(i % 977 + 1) * 1000000000) / 1e12;
        double want = i % 7 == 3 ? -1 : d;
        bad += r.writer_s[i] != want;
        mx = i % 7 != 3 && d > mx ? d : mx;
    }
    CHECKF(bad == 0, "%u writers' figures wrong", bad);
    CHECKF(r.writer_max_s == mx, "max %.9g s, want %.9g s", r.writer_max_s, mx);
    CHECK(r.writer_p50_s > 0 && r.writer_p50_s < r.writer_p99_s && r.writer_p99_s <= mx);
    results_release(&r);
    CHECK(r.writer_s == NULL && r.writer_mem.head == NULL);
}

/* The transfers' ends written over the flow records (16 bytes each: the
 * remaining bytes, then the end): end i from record i's second word when
 * its state (fst's low bits, a kind above them) is done, else UINT64_MAX. */
static void fluid_ends_over_flow_records(void)
{
    enum { N = 5003 };
    uint64_t *rec = malloc(2 * (size_t)N * sizeof *rec);
    uint8_t *fst = malloc(N);
    CHECK(rec && fst);
    for (uint32_t i = 0; rec && fst && i < N; i++) {
        double rem = i % 5 ? 1e6 * i : 0;
        memcpy(&rec[2 * (size_t)i], &rem, sizeof rem);
        rec[2 * (size_t)i + 1] = 1000003ull * i + 7;
        fst[i] = (uint8_t)(i % 4 | (i % 13) << 2); /* states 0-3, a kind above */
    }
    uint64_t *done = rec && fst ? fluid_ends_over_flows(rec, fst, N) : NULL;
    CHECK(done == rec);
    uint32_t bad = 0;
    for (uint32_t i = 0; done && i < N; i++)
        bad += done[i] != (i % 4 == 2 ? 1000003ull * i + 7 : UINT64_MAX);
    CHECKF(bad == 0, "%u ends wrong", bad);
    CHECK(fluid_ends_over_flows(NULL, fst, N) == NULL);
    free(rec);
    free(fst);
}

SUITE(suite_fluid) = {
    {"fluid_ends_over_flow_records", fluid_ends_over_flow_records},
    {"fluid_writer_figures_in_place", fluid_writer_figures_in_place},
    {"fluid_scrap_cuts_dead_queues", fluid_scrap_cuts_dead_queues},
    {"fluid_scrap_takes_what_a_run_wrote", fluid_scrap_takes_what_a_run_wrote},
    {"maxmin_plen_places_paths", maxmin_plen_places_paths},
    {"fluid_routes_have_distinct_ports", fluid_routes_have_distinct_ports},
    {"maxmin_link_hot_line", maxmin_link_hot_line},
    {"maxmin_scratch_packed_and_given_back", maxmin_scratch_packed_and_given_back},
    {"fluid_path_cache_is_topo_path", fluid_path_cache_is_topo_path},
    {"fluid_latency_from_solver_path", fluid_latency_from_solver_path},
    {"fluid_honours_time_limit", fluid_honours_time_limit},
    {"maxmin_matches_brute_force_random", maxmin_matches_brute_force_random},
    {"maxmin_checks_catch_a_wrong_rate", maxmin_checks_catch_a_wrong_rate},
    {"maxmin_update_stays_in_component", maxmin_update_stays_in_component},
    {"maxmin_init_path_keeps_the_path", maxmin_init_path_keeps_the_path},
    {"maxmin_large_arrays_one_block", maxmin_large_arrays_one_block},
    {"maxmin_slots_narrow_and_wide", maxmin_slots_narrow_and_wide},
    {"maxmin_burst_start_as_general", maxmin_burst_start_as_general},
    {"fluid_single_flow_within_a_packet", fluid_single_flow_within_a_packet},
    {"fluid_incast_within_5pct_of_packet", fluid_incast_within_5pct_of_packet},
    {"fluid_oversubscribed_within_5pct_of_packet", fluid_oversubscribed_within_5pct_of_packet},
    {"fluid_same_ecmp_paths_as_packet", fluid_same_ecmp_paths_as_packet},
    {"fluid_load_balancing", fluid_load_balancing},
    {"fluid_symmetric_burst_at_bound", fluid_symmetric_burst_at_bound},
    {"fluid_rate_cap", fluid_rate_cap},
    {"fluid_storage_back_end", fluid_storage_back_end},
    {"fluid_stuck_storage_node", fluid_stuck_storage_node},
    {"fluid_series_back_end", fluid_series_back_end},
    {"fluid_deterministic_json", fluid_deterministic_json},
    {"fluid_json_omits_packet_figures", fluid_json_omits_packet_figures},
    {"auto_picks_by_packet_events", auto_picks_by_packet_events},
    {"fluid_lists_what_it_ignores", fluid_lists_what_it_ignores},
    {"fluid_unmodelled_keys_cost_time", fluid_unmodelled_keys_cost_time},
    {"auto_fluid_reason_names_unmodelled", auto_fluid_reason_names_unmodelled},
    {0, 0},
};
