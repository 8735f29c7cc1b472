/* Fabric designer's wider decision space (src/topo/design.c): spines
 * oversubscribed to their super-spines. Counts against hand counts, every
 * design valid and radix-true when ckptnet builds it. */
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
static const struct switch_profile tiny6b = {"tiny6", 6, G400, 6 * G400, 500000, 70000000,
                                             0, 0, "test", "test", "test"};

struct many {
    struct design d[4096];
    uint32_t n, two, three, over;
};

static int many_fn(void *ud, const struct design *d)
{
    struct many *c = ud;
    if (c->n < sizeof c->d / sizeof c->d[0])
        c->d[c->n++] = *d;
    c->two += d->tiers == 2;
    c->three += d->tiers == 3;
    c->over += d->tiers == 3 && d->ratio > 1;
    return 0;
}

/* tests/test_design.c's case (4 nodes of one 400G NIC, one storage node,
 * 6-port switches), with spine ratios 1, 2 and 3 asked. Two tiers are as
 * before (11). Three tiers: p leaves a pod, S = ceil(p/r) super-spines a
 * plane, p + S <= 6, one p a count of compute pods, each S once:
 *   h=1 (cl=4, u=1): p=1: S=1 (r=2,3 give 1 again)                 -> 1
 *                    p=2: S=2, S=1 (r=2; r=3 gives 1 again)         -> 2
 *                    p=3: 2 pods as p=2                             -> 0
 *                    p=4: r=1 needs 8 ports; S=2 (r=2; r=3: 2 again) -> 1
 *   h=2 (cl=2, u=1,2): p=1: S=1; p=2: S=2, S=1                     -> 3 x 2 = 6
 *   h=3 (cl=2, u=1,2,3): the same                                  -> 3 x 3 = 9
 *   h=4 (cl=1, u=1,2): p=1: S=1                                    -> 1 x 2 = 2
 * 4 + 6 + 9 + 2 = 21 three-tier designs (14 at 1:1, 7 oversubscribed),
 * 32 in all. */
static void design2_spine_oversub_count(void)
{
    struct design_input in = {.nodes = 4, .nics = 1, .nic_bps = G400, .storage = 1,
                              .snics = 1, .snic_bps = G400, .prof = {&tiny6b}, .n_prof = 1,
                              .max_tiers = 3, .spine_ratios = (1u << 1) | (1u << 2) | (1u << 3)};
    static struct many c;
    memset(&c, 0, sizeof c);
    uint64_t n = design_each(&in, many_fn, &c);
    CHECKF(n == 32 && c.two == 11 && c.three == 21 && c.over == 7,
           "%llu designs, %u two-tier, %u three-tier, %u oversubscribed",
           (unsigned long long)n, c.two, c.three, c.over);
    /* the pod of 4 leaves exists only oversubscribed: 4 + 2 ports a spine */
    uint32_t p4 = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        if (d->tiers != 3 || d->lpp != 4)
            continue;
        p4++;
        CHECK(d->ratio == 2 && d->supers_per_plane == 2 && d->cpods == 1 && d->spods == 1);
        CHECK(fabs(d->oversub_spine - 2.0) < 1e-12);
        uint32_t need[3];
        design_radix(d, &in, need);
        CHECKF(need[1] == 6 && need[2] == 2, "spine %u, super-spine %u ports", need[1],
               need[2]);
    }
    CHECK(p4 == 1);
    /* 1:1 only (bit 1 alone, or 0): the 14 of before */
    in.spine_ratios = 1u << 1;
    memset(&c, 0, sizeof c);
    CHECK(design_each(&in, many_fn, &c) == 25 && c.over == 0);
    /* 2:1 alone: no 1:1 design (S = ceil(1/2) = 1 for p = 1 is 1:1, left
     * out); h=1: p=2 (S=1), p=4 (S=2); h=2, 3: p=2 (S=1) a u (5 u): the 7
     * oversubscribed ones above */
    in.spine_ratios = 1u << 2;
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    CHECKF(c.three == 7 && c.over == 7, "%u three-tier", c.three);
}

/* Every design of in, built by ckptnet (describe: validation, the radix
 * check without fabric.allow_oversize), has the designed switches and links,
 * and the designer's own port count fits each profile. */
static uint32_t check_built(const struct design_input *in, const struct many *c,
                            const char *extra)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const struct design *d = &c->d[i];
        uint32_t need[3];
        design_radix(d, in, need);
        CHECKF(need[0] <= d->leaf->ports && need[1] <= d->spine->ports &&
                   need[2] <= d->spine->ports,
               "design %u: %u/%u/%u ports", i, need[0], need[1], need[2]);
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=%u", in->nodes);
        test_set(&sc, "storage.nodes=%u", in->storage);
        test_set(&sc, "storage.nics_per_node=%u", in->snics);
        if (extra)
            test_set(&sc, "%s", extra);
        test_set_design(&sc, d);
        struct ckpt_description desc;
        struct err e = {{0}};
        if (ckpt_describe(&sc, &desc, &e) < 0) {
            if (bad++ < 3)
                fprintf(stderr, "  design %u (tiers %u h %u u %u p %u r %u): %s\n", i, d->tiers,
                        d->hpl, d->uplinks, d->lpp, d->ratio, e.msg);
            continue;
        }
        const struct results *r = &desc.r;
        CHECK(r->bom_switches[0] == d->cleaves + d->sleaves);
        CHECK(r->bom_switches[1] == d->n_spines);
        CHECK(r->bom_switches[2] == d->n_supers);
        for (int k = 0; k < DL_N; k++) {
            uint64_t built = 0;
            for (uint32_t j = 0; j < r->bom_class_n[k]; j++) {
                built += r->bom_class_links[k][j];
                CHECKF(r->bom_class_bps[k][j] == d->link_bps[k], "design %u class %d: %llu bps",
                       i, k, (unsigned long long)r->bom_class_bps[k][j]);
            }
            CHECKF(built == d->links[k], "design %u class %d: %llu links built, %llu designed",
                   i, k, (unsigned long long)built, (unsigned long long)d->links[k]);
        }
        if (d->tiers == 3)
            CHECKF(fabs(r->oversub_spine - d->oversub_spine) < 1e-9,
                   "design %u: spine %g:1 built, %g:1 designed", i, r->oversub_spine,
                   d->oversub_spine);
    }
    return bad;
}

/* 24 nodes of one NIC, 3 storage nodes of two, on 32-port CX732Q-N, with
 * spine ratios up to 4:1: every design builds as designed. */
static void design2_oversub_valid(void)
{
    const struct switch_profile *p32 = switch_profile_find("CX732Q-N");
    CHECK(p32 != NULL);
    if (!p32)
        return;
    struct design_input in = {.nodes = 24, .nics = 1, .nic_bps = G400, .storage = 3,
                              .snics = 2, .snic_bps = G400, .prof = {p32}, .n_prof = 1,
                              .max_tiers = 3, .spine_ratios = 0x1e};
    static struct many c;
    memset(&c, 0, sizeof c);
    uint64_t n = design_each(&in, many_fn, &c);
    CHECKF(n == c.n && c.over > 10, "%llu designs, %u oversubscribed", (unsigned long long)n,
           c.over);
    /* a sample: every 7th (building all takes seconds under the sanitizers) */
    static struct many s;
    memset(&s, 0, sizeof s);
    for (uint32_t i = 0; i < c.n; i += 7)
        s.d[s.n++] = c.d[i];
    for (uint32_t i = 0; i < c.n; i++)
        if (c.d[i].ratio > 1 && s.n < sizeof s.d / sizeof s.d[0])
            s.d[s.n++] = c.d[i]; /* and every oversubscribed one */
    uint32_t bad = check_built(&in, &s, NULL);
    CHECKF(bad == 0 && s.n > 500, "%u of %u designs refused", bad, s.n);
}

#define G800 UINT64_C(800000000000)

/* A 4-port 800G switch: breakouts by hand. */
static const struct switch_profile tiny4x = {"tiny4x", 4, G800, 4 * G800, 500000, 70000000,
                                             0, 0, "test", "test", "test"};

/* 2 nodes of one 400G NIC, one storage node of one, two tiers, 4 x 800G
 * switches, breakouts 1 and 2: bd 1 or 2 (both lanes carry a 400G NIC);
 * (bu, bs) (1,1) at 800G or (2,2) at 400G ((1,2) and (2,1): lanes of two
 * speeds). One storage leaf of one node (spl = 1) in each:
 *   bd=1 (1,1): h=1: u <= ceil(400/800) = 1, 3 leaves, k=1      -> 1
 *               h=2: u=1, 2 leaves, k=1                        -> 1
 *   bd=1 (2,2): h=1: u=1 (3 leaves on 2 spine ports), k=1      -> 1
 *               h=2: u=1 (k=1), u=2 (k=1, k=2: 4 lanes, 2 ports) -> 3
 *   bd=2: the same (a node a lane of its own port's half)      -> 2 + 4
 * 12 in all; without breakout (0) the 2 of bd=1 (1,1). */
static void design2_breakout_count(void)
{
    struct design_input in = {.nodes = 2, .nics = 1, .nic_bps = G400, .storage = 1,
                              .snics = 1, .snic_bps = G400, .prof = {&tiny4x}, .n_prof = 1,
                              .max_tiers = 2, .breakouts = (1u << 1) | (1u << 2)};
    static struct many c;
    memset(&c, 0, sizeof c);
    uint64_t n = design_each(&in, many_fn, &c);
    uint32_t bo = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        bo += d->bo_down > 1 || d->bo_up > 1;
        CHECK(d->bo_up == d->bo_spine);
        CHECK(d->link_bps[DL_LEAF_SPINE] == G800 / d->bo_up);
        uint32_t need[3];
        design_radix(d, &in, need);
        CHECK(need[0] <= 4 && need[1] <= 4);
    }
    CHECKF(n == 12 && bo == 10, "%llu designs, %u broken out", (unsigned long long)n, bo);
    in.breakouts = 0;
    CHECK(design_each(&in, many_fn, &c) == 2);
    /* a 400G NIC on 4 lanes of 200G: no bd = 4 */
    in.breakouts = (1u << 1) | (1u << 4);
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    for (uint32_t i = 0; i < c.n; i++)
        CHECK(c.d[i].bo_down == 1);
}

/* Every design of 6 nodes and 2 storage nodes on generic-51.2T (64 x 800G)
 * with breakouts 1, 2, 4: built by describe as designed, and run's capital
 * (cost.prices reference) equals the designer's price to the cent. */
static void design2_breakout_valid_and_priced(void)
{
    const struct switch_profile *p = switch_profile_find("generic-51.2T");
    CHECK(p != NULL);
    if (!p)
        return;
    struct design_input in = {.nodes = 6, .nics = 1, .nic_bps = G400, .storage = 2,
                              .snics = 1, .snic_bps = G400, .prof = {p}, .n_prof = 1,
                              .max_tiers = 3, .breakouts = 0x16};
    static struct many c, s;
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    memset(&s, 0, sizeof s);
    for (uint32_t i = 0; i < c.n && s.n < sizeof s.d / sizeof s.d[0]; i++)
        if ((c.d[i].bo_down > 1 || c.d[i].bo_up > 1) && i % 5 == 0)
            s.d[s.n++] = c.d[i];
    uint32_t bad = check_built(&in, &s, "cost.prices=reference");
    CHECKF(bad == 0 && s.n > 100, "%u of %u designs refused", bad, s.n);
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse("reference", pr, &np, &e) == 0);
    uint32_t off = 0;
    for (uint32_t i = 0; i < s.n; i++) {
        const struct design *d = &s.d[i];
        struct design_price dp;
        cost_design(&dp, d, &in, pr, np, 5);
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=6");
        test_set(&sc, "storage.nodes=2");
        test_set(&sc, "cost.prices=reference");
        test_set_design(&sc, d);
        struct ckpt_description desc;
        if (ckpt_describe(&sc, &desc, &e) < 0)
            continue;
        if (fabs(desc.r.cost.capital - dp.capital) > 0.005 || dp.n_unpriced) {
            if (off++ < 3)
                fprintf(stderr, "  design %u: run %.2f, size %.2f (%u unpriced)\n", i,
                        desc.r.cost.capital, dp.capital, dp.n_unpriced);
        }
    }
    CHECKF(off == 0, "%u of %u designs priced apart", off, s.n);
}

/* One breakout design priced by hand: 2 nodes of one 400G NIC, one storage
 * node, generic-51.2T (64 x 800G) at every port split in two (400G lanes),
 * two tiers, 2 nodes a leaf, 2 uplinks, 2 links to the one spine.
 * Switches: 1 compute + 1 storage leaf + 1 spine = 3 x 60000 = 180000.
 * Host side: the 2 NICs on one leaf port: 1 x dac_800g_2x; storage: 1
 * NIC, 1 port: 1 x dac_800g_2x; 2 x 350 = 700. Leaf-spine: 4 links at
 * 400G, each leaf's 2 uplinks on one port (2 ports, optic_800g_sr) and
 * the spine's 4 on 2 ports (2 x optic_800g_sr): 4 x 1000 = 4000; 4 x
 * fiber_mmf 60 = 240. Storage node 60000. Capital 244940; watts: 3 x 1800
 * + 4 x 14 + 1200 = 6656. */
static void design2_breakout_bom_by_hand(void)
{
    const struct switch_profile *p = switch_profile_find("generic-51.2T");
    CHECK(p != NULL);
    if (!p)
        return;
    struct design_input in = {.nodes = 2, .nics = 1, .nic_bps = G400, .storage = 1,
                              .snics = 1, .snic_bps = G400, .prof = {p}, .n_prof = 1,
                              .max_tiers = 2, .breakouts = 0x6};
    static struct many c;
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    const struct design *d = NULL;
    for (uint32_t i = 0; i < c.n; i++)
        if (c.d[i].bo_down == 2 && c.d[i].bo_up == 2 && c.d[i].hpl == 2 &&
            c.d[i].uplinks == 2 && c.d[i].k == 2)
            d = &c.d[i];
    CHECK(d != NULL);
    if (!d)
        return;
    static const char prices[] = "generic-51.2T=60000,dac_800g_2x=350,optic_800g_sr=1000,"
                                 "fiber_mmf=60,storage_node=60000,kwh=0.1";
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse(prices, pr, &np, &e) == 0);
    struct design_price dp;
    cost_design(&dp, d, &in, pr, np, 5);
    CHECK(design_switches(d) == 3 && d->spines == 1);
    CHECKF(dp.capital == 244940 && dp.switches == 180000 && dp.cables == 940 &&
               dp.optics == 4000 && dp.n_unpriced == 0,
           "capital %g (switches %g, cables %g, optics %g, %u unpriced)", dp.capital,
           dp.switches, dp.cables, dp.optics, dp.n_unpriced);
    CHECK(!strcmp(dp.part[DL_HOST].cable, "dac_800g_2x") && dp.part[DL_HOST].cables == 1);
    CHECK(dp.part[DL_LEAF_SPINE].optics == 2 && dp.part[DL_LEAF_SPINE].optics2 == 2 &&
          !strcmp(dp.part[DL_LEAF_SPINE].optic2, "optic_800g_sr"));
    CHECKF(fabs(dp.watts - 6656) < 1e-9, "%g W", dp.watts);
    /* the fabric these keys build prices the same */
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=2");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nics_per_node=1");
    test_set(&sc, "cost.prices=%s", prices);
    char keys[1024], *save = NULL;
    design_keys(d, keys, sizeof keys, ";");
    CHECK(strstr(keys, "fabric.leaf_down_breakout=2;fabric.leaf_up_breakout=2;"
                       "fabric.spine_breakout=2") != NULL);
    for (char *tok = strtok_r(keys, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
        test_set(&sc, "%s", tok);
    struct ckpt_description desc;
    CHECKF(ckpt_describe(&sc, &desc, &e) == 0, "%s", e.msg);
    CHECKF(desc.r.cost.capital == 244940, "run's capital %g", desc.r.cost.capital);
}

/* describe's results of d built on the cluster of in (storage NICs
 * included), with prices and one more key (NULL: none). */
static int describe_design(const struct design *d, const struct design_input *in,
                           const char *prices, const char *extra, struct ckpt_description *desc,
                           struct err *e)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=%u", in->nodes);
    test_set(&sc, "storage.nodes=%u", in->storage);
    test_set(&sc, "storage.nics_per_node=%u", in->snics);
    test_set(&sc, "cost.prices=%s", prices);
    if (extra)
        test_set(&sc, "%s", extra);
    test_set_design(&sc, d);
    return ckpt_describe(&sc, desc, e);
}

/* Breakout AOCs, by hand: 2 nodes of one 400G NIC and one storage node,
 * leaves generic-51.2T (64 x 800G) with their uplinks split in two (400G
 * lanes), one CX764QD-N spine (400G ports, not split), two tiers, 2 nodes a
 * leaf, 2 uplinks, both to the spine (k = 2). Switches 2 x 60000 + 38000 =
 * 158000. Host and storage: 3 x dac_400g = 450. Leaf-spine: 4 links at
 * 400G; each leaf's 2 on one port, the spine's 4 on 4 ports. With optics: 2
 * x optic_800g_sr + 4 x optic_400g_sr + 4 x fiber_mmf = 2000 + 2400 + 240 =
 * 4640; with a breakout AOC a leaf port: 2 x aoc_800g_2x = 3000, cheaper,
 * so chosen. Storage node 60000. Capital 158000 + 450 + 3000 + 60000 =
 * 221450; watts 2 x 1800 + 950 + 2 x 18 + 1200 = 5786. At an AOC of 2400
 * (4800 > 4640) the optics win: 223090. Run prices the built fabric alike. */
static void design2_aoc_by_hand(void)
{
    const struct switch_profile *l = switch_profile_find("generic-51.2T");
    const struct switch_profile *sp = switch_profile_find("CX764QD-N");
    CHECK(l && sp);
    if (!l || !sp)
        return;
    struct design_input in = {.nodes = 2, .nics = 1, .nic_bps = G400, .storage = 1,
                              .snics = 1, .snic_bps = G400, .prof = {l, sp}, .n_prof = 2,
                              .max_tiers = 2, .breakouts = 0x6};
    static struct many c;
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    const struct design *d = NULL;
    for (uint32_t i = 0; i < c.n; i++)
        if (c.d[i].leaf == l && c.d[i].spine == sp && c.d[i].bo_down == 1 &&
            c.d[i].bo_up == 2 && c.d[i].bo_spine == 1 && c.d[i].hpl == 2 &&
            c.d[i].uplinks == 2 && c.d[i].k == 2)
            d = &c.d[i];
    CHECK(d != NULL);
    if (!d)
        return;
    char prices[256];
    for (int round = 0; round < 2; round++) {
        snprintf(prices, sizeof prices,
                 "generic-51.2T=60000,CX764QD-N=38000,dac_400g=150,optic_800g_sr=1000,"
                 "optic_400g_sr=600,fiber_mmf=60,aoc_800g_2x=%d,storage_node=60000,kwh=0.1",
                 round ? 2400 : 1500);
        struct cost_price pr[COST_MAX_PRICES];
        uint32_t np;
        struct err e = {""};
        CHECK(cost_prices_parse(prices, pr, &np, &e) == 0);
        struct design_price dp;
        cost_design(&dp, d, &in, pr, np, 5);
        const struct design_part *ls = &dp.part[DL_LEAF_SPINE];
        if (!round) {
            CHECKF(dp.capital == 221450 && dp.switches == 158000 && dp.cables == 3450 &&
                       dp.optics == 0 && dp.n_unpriced == 0,
                   "capital %g (cables %g, optics %g)", dp.capital, dp.cables, dp.optics);
            CHECK(!strcmp(ls->cable, "aoc_800g_2x") && ls->cables == 2 && ls->optics == 0);
            CHECKF(fabs(dp.watts - 5786) < 1e-9, "%g W", dp.watts);
        } else {
            CHECKF(dp.capital == 223090 && dp.optics == 4400 && !strcmp(ls->cable, "fiber_mmf"),
                   "capital %g (optics %g, %s)", dp.capital, dp.optics, ls->cable);
        }
        struct ckpt_description desc;
        CHECKF(describe_design(d, &in, prices, NULL, &desc, &e) == 0, "%s", e.msg);
        CHECKF(desc.r.cost.capital == dp.capital, "round %d: run's capital %g, size's %g",
               round, desc.r.cost.capital, dp.capital);
    }
}

/* fabric.isolation physical: training's own fabric, the design's compute
 * side again, by hand. 6 nodes (one NIC), 3 storage nodes (two NICs) on
 * CX732Q-N at design_bom_priced_by_hand's prices (tests/test_design.c):
 * two tiers, h=6, u=6, k=1 (340,920 USD, 7,792 W alone): training adds 1
 * compute leaf + 6 spines = 7 x 18000 = 126000, 6 host DACs 900, 6
 * leaf-spine links: 12 x optic_400g_sr 7200 + 6 x fiber_mmf 360: 134,460,
 * capital 475,380; watts + 7 x 500 + 12 x 8 = 11,388. Three tiers, h=3,
 * u=3, p=1 (2 compute pods and a storage pod): training adds 2 leaves + 2
 * x 3 spines + 3 super-spines = 11 x 18000 = 198000, DACs 900, 6
 * leaf-spine links 7200 + 360, 6 spine-super links: 12 x optic_400g 8400
 * (fiber_smf unpriced, listed): 214,860. Run prices the fabric it builds
 * alike: every design of the cluster, two and three tiers, pods and spread,
 * at the reference prices, to the cent. */
static void design2_physical_by_hand(void)
{
    const struct switch_profile *p32 = switch_profile_find("CX732Q-N");
    CHECK(p32 != NULL);
    if (!p32)
        return;
    struct design_input in = {.nodes = 6, .nics = 1, .nic_bps = G400, .storage = 3,
                              .snics = 2, .snic_bps = G400, .prof = {p32}, .n_prof = 1,
                              .max_tiers = 3, .storage_pods = 3, .train_fabric = 1};
    static struct many c;
    memset(&c, 0, sizeof c);
    design_each(&in, many_fn, &c);
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse("CX732Q-N=18000,optic_400g_sr=600,optic_400g=700,dac_400g=150,"
                            "fiber_mmf=60,storage_node=60000,kwh=0.1",
                            pr, &np, &e) == 0);
    const struct design *two = NULL, *three = NULL;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        if (d->tiers == 2 && d->hpl == 6 && d->uplinks == 6 && d->k == 1)
            two = d;
        if (d->tiers == 3 && d->hpl == 3 && d->uplinks == 3 && d->lpp == 1 && !d->spread &&
            d->ratio == 1)
            three = d;
    }
    CHECK(two && three);
    if (!two || !three)
        return;
    struct design_price dp;
    cost_design(&dp, two, &in, pr, np, 5);
    CHECKF(dp.training == 134460 && dp.capital == 475380 && dp.train_sw[0] == 1 &&
               dp.train_sw[1] == 6 && dp.train_sw[2] == 0 && dp.n_unpriced == 0,
           "training %g, capital %g", dp.training, dp.capital);
    CHECKF(fabs(dp.watts - 11388) < 1e-9, "%g W", dp.watts);
    cost_design(&dp, three, &in, pr, np, 5);
    CHECKF(dp.training == 214860 && dp.train_sw[1] == 6 && dp.train_sw[2] == 3 &&
               dp.n_unpriced == 2 &&
               !strcmp(dp.unpriced[1], "training fabric: 6 spine-super-spine links (fiber_smf)"),
           "training %g, %u unpriced: %s", dp.training, dp.n_unpriced, dp.unpriced[1]);
    in.train_fabric = 0;
    cost_design(&dp, two, &in, pr, np, 5);
    CHECK(dp.training == 0 && dp.capital == 340920);
    in.train_fabric = 1;
    /* run's capital of every design, physical, at the reference prices */
    CHECK(cost_prices_parse("reference", pr, &np, &e) == 0);
    uint32_t off = 0, n3 = 0, spread = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        const struct design *d = &c.d[i];
        cost_design(&dp, d, &in, pr, np, 5);
        struct ckpt_description desc;
        if (describe_design(d, &in, "reference", "fabric.isolation=physical", &desc, &e) < 0) {
            off++;
            continue;
        }
        n3 += d->tiers == 3;
        spread += d->spread;
        if ((fabs(desc.r.cost.capital - dp.capital) > 0.005 ||
             fabs(desc.r.cost.capital_training - dp.training) > 0.005 || !(dp.training > 0)) &&
            off++ < 3)
            fprintf(stderr, "  design %u: run %.2f (training %.2f), size %.2f (%.2f)\n", i,
                    desc.r.cost.capital, desc.r.cost.capital_training, dp.capital,
                    dp.training);
    }
    CHECKF(off == 0 && n3 > 20 && spread > 5, "%u of %u designs priced apart", off, c.n);
}

/* Storage spread over the compute pods (fabric.storage_pods spread): every
 * spread design of 32 nodes and 5 storage nodes of two NICs on CX732Q-N,
 * with spine ratios 1 and 2, and on generic-51.2T with breakouts, builds as
 * designed (switches, links by class, spine oversubscription) and run's
 * capital equals size's to the cent. */
static void design2_spread_valid_and_priced(void)
{
    const struct switch_profile *p32 = switch_profile_find("CX732Q-N");
    const struct switch_profile *p64 = switch_profile_find("generic-51.2T");
    CHECK(p32 && p64);
    if (!p32 || !p64)
        return;
    struct design_input in = {.nodes = 32, .nics = 1, .nic_bps = G400, .storage = 5,
                              .snics = 2, .snic_bps = G400, .prof = {p32}, .n_prof = 1,
                              .max_tiers = 3, .spine_ratios = 0x6, .storage_pods = 2};
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse("reference", pr, &np, &e) == 0);
    static struct many c, s;
    for (int round = 0; round < 2; round++) {
        if (round) { /* 64 x 800G: breakouts split the spines' ports too */
            in.prof[0] = p64;
            in.nodes = 12;
            in.breakouts = 0x6;
        }
        memset(&c, 0, sizeof c);
        design_each(&in, many_fn, &c);
        memset(&s, 0, sizeof s);
        uint32_t bo = 0;
        for (uint32_t i = 0; i < c.n && s.n < sizeof s.d / sizeof s.d[0]; i++) {
            CHECK(c.d[i].tiers == 2 || (c.d[i].spread && c.d[i].spods == 0));
            if (c.d[i].tiers == 3 && (!round || i % 3 == 0)) {
                s.d[s.n++] = c.d[i];
                bo += c.d[i].bo_spine > 1;
            }
        }
        uint32_t bad = check_built(&in, &s, "cost.prices=reference");
        CHECKF(bad == 0 && s.n > 20 && (!round || bo > 10), "round %d: %u of %u refused (%u "
               "broken out)", round, bad, s.n, bo);
        uint32_t off = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            struct design_price dp;
            cost_design(&dp, &s.d[i], &in, pr, np, 5);
            struct ckpt_description desc;
            if (describe_design(&s.d[i], &in, "reference", NULL, &desc, &e) == 0 &&
                (fabs(desc.r.cost.capital - dp.capital) > 0.005 || dp.n_unpriced) && off++ < 3)
                fprintf(stderr, "  design %u: run %.2f, size %.2f\n", i, desc.r.cost.capital,
                        dp.capital);
        }
        CHECKF(off == 0, "round %d: %u of %u priced apart", round, off, s.n);
    }
}

SUITE(suite_design2) = {
    {"design2_spine_oversub_count", design2_spine_oversub_count},
    {"design2_oversub_valid", design2_oversub_valid},
    {"design2_breakout_count", design2_breakout_count},
    {"design2_breakout_valid_and_priced", design2_breakout_valid_and_priced},
    {"design2_breakout_bom_by_hand", design2_breakout_bom_by_hand},
    {"design2_spread_valid_and_priced", design2_spread_valid_and_priced},
    {"design2_aoc_by_hand", design2_aoc_by_hand},
    {"design2_physical_by_hand", design2_physical_by_hand},
    {0, 0},
};
