/* Fabric designer (src/topo/design.c): the count of designs against a hand
 * count, every design valid and radix-true when ckptnet builds it, and the
 * bill of materials against the built fabric. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/cost/design_cost.h"
#include "../src/topo/design.h"
#include "harness.h"
#include "support.h"

#define G400 UINT64_C(400000000000)

/* A 6-port switch: small enough to count its designs by hand. */
static const struct switch_profile tiny6 = {"tiny6", 6, G400, 6 * G400, 500000, 70000000,
                                            0, 0, "test", "test", "test"};

struct collect {
    struct design d[512];
    uint32_t n, two, three;
};

static int collect_fn(void *ud, const struct design *d)
{
    struct collect *c = ud;
    if (c->n < sizeof c->d / sizeof c->d[0])
        c->d[c->n++] = *d;
    c->two += d->tiers == 2;
    c->three += d->tiers == 3;
    return 0;
}

/* 4 nodes of one 400G NIC, one storage node of one NIC, 6-port switches
 * at 400G (so a leaf has u <= h uplinks, h + u <= 6, and one storage node
 * fills its storage leaf: spl = 1, one storage leaf).
 * Two tiers (leaves L = ceil(4/h) + 1, k | u, L x k <= 6):
 *   h=1: u=1 (L=5): k=1                                  -> 1
 *   h=2: u=1,2 (L=3): k=1; k=1,2 (6 <= 6)                -> 3
 *   h=3: u=1,2,3 (L=3): k=1; k=1,2; k=1 (k=3: 9 > 6)     -> 4
 *   h=4: u=1,2 (h+u <= 6; L=2): k=1; k=1,2               -> 3   = 11
 * Three tiers (p <= 6/2 and p <= compute leaves cl, p the fewest leaves
 * a pod for its ceil(cl/p) pods, 1 storage pod, pods <= 6):
 *   h=1 (cl=4): u=1: p=1 (5 pods), p=2 (3 pods); p=3 gives 2 pods, as p=2 -> 2
 *   h=2 (cl=2): u=1,2: p=1 (3 pods), p=2 (2 pods)        -> 4
 *   h=3 (cl=2): u=1,2,3: p=1, p=2                        -> 6
 *   h=4 (cl=1): u=1,2: p=1 (2 pods)                      -> 2   = 14
 * 25 in all. */
static void design_count_by_hand(void)
{
    struct design_input in = {.nodes = 4, .nics = 1, .nic_bps = G400, .storage = 1,
                              .snics = 1, .snic_bps = G400, .prof = {&tiny6}, .n_prof = 1,
                              .max_tiers = 3};
    static struct collect c;
    memset(&c, 0, sizeof c);
    uint64_t n = design_each(&in, collect_fn, &c);
    CHECKF(n == 25 && c.two == 11 && c.three == 14, "%llu designs, %u two-tier, %u three-tier",
           (unsigned long long)n, c.two, c.three);
    /* two tiers only */
    memset(&c, 0, sizeof c);
    in.max_tiers = 2;
    CHECK(design_each(&in, collect_fn, &c) == 11 && c.three == 0);
    /* one design by hand: h=3, u=2, k=2: 2 compute + 1 storage leaf, 1 spine */
    int found = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        if (d->hpl != 3 || d->uplinks != 2 || d->k != 2)
            continue;
        found++;
        CHECK(d->spines == 1 && d->cleaves == 2 && d->sleaves == 1 && design_switches(d) == 4);
        CHECK(d->links[DL_HOST] == 4 && d->links[DL_STORAGE] == 1);
        CHECK(d->links[DL_LEAF_SPINE] == 6 && d->links[DL_SPINE_SUPER] == 0);
        CHECK(d->oversub > 1.49 && d->oversub < 1.51); /* 3 NICs on 2 uplinks */
    }
    CHECK(found == 1);
    /* 4 storage nodes: a storage leaf of h=2, u=2 (two tiers, k=1) takes all
     * 4 on its ports, or the 2 its uplinks carry at 1:1 (a second design) */
    in.storage = 4;
    memset(&c, 0, sizeof c);
    design_each(&in, collect_fn, &c);
    uint32_t fills = 0, spl_sum = 0;
    for (uint32_t i = 0; i < c.n; i++)
        if (c.d[i].hpl == 2 && c.d[i].uplinks == 2 && c.d[i].k == 1) {
            fills++;
            spl_sum += c.d[i].spl;
            CHECK(c.d[i].sleaves == 4 / c.d[i].spl);
        }
    CHECKF(fills == 2 && spl_sum == 6, "%u designs, storage a leaf summing to %u", fills, spl_sum);
    in.storage = 1;
    /* storage spread over the compute pods (storage_pods bit 1): no storage
     * pod, so at least two compute pods; the one storage leaf sits in pod 0,
     * whose spines then have p + 1 links down and p up: 2p + 1 <= 6, p <= 2.
     *   h=1 (cl=4, u=1): p=1 (4 pods), p=2 (2 pods); p=3 gives 2 pods -> 2
     *   h=2 (cl=2, u=1,2): p=1 (2 pods); p=2 is one pod            -> 2
     *   h=3 (cl=2, u=1,2,3): p=1                                   -> 3
     *   h=4 (cl=1): one pod                                        -> 0
     * 7 spread designs: 25 + 7 = 32 with both, 11 + 7 = 18 spread alone. */
    in.storage_pods = 3;
    in.max_tiers = 3;
    memset(&c, 0, sizeof c);
    n = design_each(&in, collect_fn, &c);
    uint32_t spread = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        if (!d->spread)
            continue;
        spread++;
        uint32_t need[3];
        design_radix(d, &in, need);
        CHECKF(d->tiers == 3 && d->spods == 0 && d->cpods >= 2 && need[1] == 2 * d->lpp + 1 &&
                   need[2] == d->cpods && d->n_spines == d->cpods * d->uplinks,
               "design %u: p %u, %u pods, spine %u ports", i, d->lpp, d->cpods, need[1]);
        char keys[1024];
        design_keys(d, keys, sizeof keys, ";");
        CHECK(strstr(keys, "fabric.storage_pods=spread") != NULL);
    }
    CHECKF(n == 32 && spread == 7 && c.three == 21, "%llu designs, %u spread",
           (unsigned long long)n, spread);
    in.storage_pods = 2;
    memset(&c, 0, sizeof c);
    CHECK(design_each(&in, collect_fn, &c) == 18 && c.three == 7);
    in.storage_pods = 0;
    /* a NIC faster than the leaf's ports: nothing fits */
    in.nic_bps = 2 * G400;
    CHECK(design_each(&in, collect_fn, &c) == 0);
}

/* Build every design of a small cluster on a 32-port profile with ckptnet
 * itself: each must pass validation and the radix check (fabric.allow_oversize
 * off), and the built fabric must match the design's bill of materials. */
static void design_valid_and_radix_true(void)
{
    const struct switch_profile *p32 = switch_profile_find("CX732Q-N");
    CHECK(p32 != NULL);
    if (!p32)
        return;
    struct design_input in = {.nodes = 6, .nics = 1, .nic_bps = G400, .storage = 3,
                              .snics = 2, .snic_bps = G400, .prof = {p32}, .n_prof = 1,
                              .max_tiers = 3};
    static struct collect c;
    memset(&c, 0, sizeof c);
    uint64_t n = design_each(&in, collect_fn, &c);
    CHECKF(n == c.n && c.two > 10 && c.three > 10, "%llu designs (%u, %u)",
           (unsigned long long)n, c.two, c.three);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        uint32_t need[3];
        design_radix(d, &in, need);
        CHECK(need[0] <= 32 && need[1] <= 32 && need[2] <= 32);
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=6");
        test_set(&sc, "storage.nodes=3");
        test_set(&sc, "storage.nics_per_node=2");
        test_set_design(&sc, d);
        struct ckpt_description desc;
        struct err e = {{0}};
        if (ckpt_describe(&sc, &desc, &e) < 0) {
            if (bad++ < 3)
                fprintf(stderr, "  design %u (tiers %u h %u u %u): %s\n", i, d->tiers, d->hpl,
                        d->uplinks, e.msg);
            continue;
        }
        const struct results *r = &desc.r;
        CHECK(r->bom_switches[0] == d->cleaves + d->sleaves);
        CHECK(r->bom_switches[1] == d->n_spines);
        CHECK(r->bom_switches[2] == d->n_supers);
        uint64_t links = 0, want = 0;
        for (uint32_t j = 0; j < r->bom_n_speeds; j++)
            links += r->bom_links[j];
        for (int j = 0; j < DL_N; j++)
            want += d->links[j];
        CHECKF(links == want, "design %u: %llu links built, %llu designed", i,
               (unsigned long long)links, (unsigned long long)want);
    }
    CHECKF(bad == 0, "%u designs refused", bad);
    /* the check can fail: one more node a leaf than the design holds */
    const struct design *d = &c.d[0];
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=6");
    test_set(&sc, "storage.nodes=3");
    test_set(&sc, "storage.nics_per_node=2");
    test_set_design(&sc, d);
    test_set(&sc, "fabric.hosts_per_leaf=%u", 32 - d->uplinks + 1);
    test_set(&sc, "cluster.nodes=%u", 32 - d->uplinks + 1);
    struct ckpt_description desc;
    struct err e = {{0}};
    CHECK(ckpt_describe(&sc, &desc, &e) < 0 && strstr(e.msg, "needs") != NULL);
}

/* The design of c with these fields, or NULL. */
static const struct design *find(const struct collect *c, uint32_t tiers, uint32_t h, uint32_t u,
                                 uint32_t k_or_p)
{
    for (uint32_t i = 0; i < c->n; i++) {
        const struct design *d = &c->d[i];
        if (d->tiers == tiers && d->hpl == h && d->uplinks == u &&
            (tiers == 2 ? d->k : d->lpp) == k_or_p)
            return d;
    }
    return NULL;
}

/* Two designs of 6 nodes (one NIC) and 3 storage nodes (two NICs) on
 * CX732Q-N, priced by hand at
 * CX732Q-N 18000, optic_400g_sr 600, optic_400g 700, dac_400g 150,
 * fiber_mmf 60, storage_node 60000, kwh 0.1; watts from the reference list
 * (switch 500, SR 8, any-reach 9, storage node 1200, cables 0).
 * Two tiers, h=6, u=6, k=1: 1 compute + 1 storage leaf (3 nodes fit), 6
 * spines = 8 switches = 144000; 6 host + 6 storage DAC = 1800; 2 x 6 = 12
 * leaf-spine links: 24 SR = 14400, 12 MMF = 720; storage 180000.
 * Capital 340920; 8 x 500 + 24 x 8 + 3 x 1200 = 7792 W = 18.7008 a day.
 * Three tiers, h=3, u=3, p=1: 2 compute pods + 1 storage pod of one leaf,
 * 3 x 3 = 9 spines and 3 x 1 = 3 super-spines: 15 switches = 270000;
 * 9 leaf-spine links: 18 SR = 10800, 9 MMF = 540; 9 spine-super links: no
 * optic_400g_dr price, so 18 optic_400g = 12600, fiber_smf unpriced;
 * DAC 1800; storage 180000. Capital 475740; 15 x 500 + 18 x 8 + 18 x 9 +
 * 3600 = 11406 W. */
static void design_bom_priced_by_hand(void)
{
    const struct switch_profile *p32 = switch_profile_find("CX732Q-N");
    struct design_input in = {.nodes = 6, .nics = 1, .nic_bps = G400, .storage = 3,
                              .snics = 2, .snic_bps = G400, .prof = {p32}, .n_prof = 1,
                              .max_tiers = 3};
    static struct collect c;
    memset(&c, 0, sizeof c);
    design_each(&in, collect_fn, &c);
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse("CX732Q-N=18000,optic_400g_sr=600,optic_400g=700,dac_400g=150,"
                            "fiber_mmf=60,storage_node=60000,kwh=0.1",
                            pr, &np, &e) == 0);
    const struct design *two = find(&c, 2, 6, 6, 1), *three = find(&c, 3, 3, 3, 1);
    CHECK(two && three);
    if (!two || !three)
        return;
    struct design_price dp;
    cost_design(&dp, two, &in, pr, np, 5);
    CHECK(design_switches(two) == 8 && two->n_spines == 6);
    CHECKF(dp.capital == 340920 && dp.switches == 144000 && dp.optics == 14400 &&
               dp.cables == 2520 && dp.storage == 180000 && dp.n_unpriced == 0,
           "capital %g", dp.capital);
    CHECK(fabs(dp.capital_per_day - 340920 / (5 * 365.25)) < 1e-9);
    CHECKF(fabs(dp.watts - 7792) < 1e-9 && fabs(dp.power_per_day - 18.7008) < 1e-9, "%g W",
           dp.watts);
    CHECK(!strcmp(dp.part[DL_LEAF_SPINE].optic, "optic_400g_sr") &&
          dp.part[DL_LEAF_SPINE].optics == 24 && dp.part[DL_HOST].optics == 0);
    cost_design(&dp, three, &in, pr, np, 5);
    CHECK(three->n_spines == 9 && three->n_supers == 3 && design_switches(three) == 15);
    CHECKF(dp.capital == 475740 && dp.optics == 23400 && dp.n_unpriced == 1 &&
               strstr(dp.unpriced[0], "9 spine-super-spine links (fiber_smf)"),
           "capital %g, %u unpriced: %s", dp.capital, dp.n_unpriced, dp.unpriced[0]);
    CHECK(!strcmp(dp.part[DL_SPINE_SUPER].optic, "optic_400g"));
    CHECKF(fabs(dp.watts - 11406) < 1e-9, "%g W", dp.watts);
}

/* cost.prices: reference loads the catalog's list, with a date and a source
 * for each price and a price for every switch profile; later items
 * override it, once each. */
static void design_reference_prices(void)
{
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np = 0, nref = 0;
    struct err e = {""};
    CHECKF(cost_prices_parse("reference", pr, &np, &e) == 0, "%s", e.msg);
    for (const struct price_ref *r = price_reference; r->name; r++) {
        nref++;
        CHECKF(r->date && r->date[0] && r->source && strlen(r->source) > 10, "%s", r->name);
        const struct cost_price *q = cost_price_find(pr, np, r->name);
        CHECK(q && q->price == r->price && q->from_ref);
    }
    CHECK(np == nref && nref > 10);
    for (const struct switch_profile *q = switch_catalog; q->name; q++)
        CHECKF(cost_price_find(pr, np, q->name) != NULL, "%s has no reference price", q->name);
    CHECK(cost_prices_parse("reference,CX764QD-N=30000,kwh=0.2", pr, &np, &e) == 0 && np == nref);
    const struct cost_price *q = cost_price_find(pr, np, "CX764QD-N");
    CHECK(q && q->price == 30000 && !q->from_ref);
    CHECK(cost_price_find(pr, np, "kwh")->price == 0.2);
    CHECK(cost_prices_parse("reference,CX764QD-N=1,CX764QD-N=2", pr, &np, &e) < 0 &&
          strstr(e.msg, "item 3: CX764QD-N is priced twice"));
    CHECK(cost_prices_parse("CX764QD-N=1,reference", pr, &np, &e) < 0 &&
          strstr(e.msg, "item 2: reference must be the first item"));
    CHECK(cost_prices_parse("dac_400g_sr=1", pr, &np, &e) < 0 && strstr(e.msg, "unknown name"));
    /* the run's bill prices links by speed with optic_<N>g only */
    CHECK(cost_prices_parse("optic_400g_sr=1,optic_400g=2", pr, &np, &e) == 0 &&
          pr[0].optic_bps == 0 && pr[1].optic_bps == G400 && pr[0].bps == G400);
}

SUITE(suite_design) = {
    {"design_count_by_hand", design_count_by_hand},
    {"design_valid_and_radix_true", design_valid_and_radix_true},
    {"design_bom_priced_by_hand", design_bom_priced_by_hand},
    {"design_reference_prices", design_reference_prices},
    {0, 0},
};
