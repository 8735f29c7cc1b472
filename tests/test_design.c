/* Fabric designer (src/topo/design.c): the count of designs against a hand
 * count, every design valid and radix-true when ckptnet builds it, and the
 * bill of materials against the built fabric. */
#include <stdio.h>
#include <string.h>

#include "../src/api/ckpt.h"
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
        char keys[1024], *save = NULL;
        design_keys(d, keys, sizeof keys, ";");
        for (char *tok = strtok_r(keys, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
            test_set(&sc, "%s", tok);
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
    char keys[1024], *save = NULL;
    design_keys(d, keys, sizeof keys, ";");
    for (char *tok = strtok_r(keys, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
        test_set(&sc, "%s", tok);
    test_set(&sc, "fabric.hosts_per_leaf=%u", 32 - d->uplinks + 1);
    test_set(&sc, "cluster.nodes=%u", 32 - d->uplinks + 1);
    struct ckpt_description desc;
    struct err e = {{0}};
    CHECK(ckpt_describe(&sc, &desc, &e) < 0 && strstr(e.msg, "needs") != NULL);
}

SUITE(suite_design) = {
    {"design_count_by_hand", design_count_by_hand},
    {"design_valid_and_radix_true", design_valid_and_radix_true},
    {0, 0},
};
