/* Three-tier Clos: wiring, up-down reachability over every ECMP choice
 * (with failed links at both tiers), and the bound in both engines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/topo/topo.h"
#include "harness.h"
#include "support.h"

static int tier(const struct topo *t, uint32_t node)
{
    return node < t->first_cleaf ? -1 : node < t->first_spine ? 0 : node < t->first_super ? 1 : 2;
}

/* Paths from switch `node` to dst over every next hop; *bad counts walks
 * that dead-end, cross a failed link, go up after coming down (a valley)
 * or take other than want hops. */
static uint64_t walk3(const struct topo *t, uint32_t node, uint32_t dst, int hops, int want,
                      int down, uint64_t *bad)
{
    uint32_t dleaf = t->nodes[dst].leaf;
    if (node == dleaf)
        return hops + 1 == want ? 1 : (++*bad, 0);
    const struct route *r = topo_route(t, node, dleaf);
    if (r->cnt == 0 || hops > 8) {
        ++*bad;
        return 0;
    }
    uint64_t n = 0;
    for (uint32_t i = 0; i < r->cnt; i++) {
        uint32_t p = t->nh_ports[r->off + i], next = t->ports[t->ports[p].peer].node;
        int d = tier(t, next) < tier(t, node);
        if (t->ports[p].failed || (down && !d) || tier(t, next) < 0) {
            ++*bad;
            continue;
        }
        n += walk3(t, next, dst, hops + 1, want, d, bad);
    }
    return n;
}

/* Every host reaches every storage node and every other host; returns the
 * pairs with a path count other than expected (no failures: leaf uplinks x
 * the plane's super-spines across pods, one per spine within a pod). */
static void reach_all(const struct topo *t, int exact, uint64_t *bad, uint64_t *wrong)
{
    for (uint32_t s = 0; s < t->first_cleaf; s++)
        for (uint32_t d = 0; d < t->first_cleaf; d++) {
            uint32_t sl = t->nodes[s].leaf, dl = t->nodes[d].leaf;
            if (s == d || sl == dl)
                continue;
            int xpod = t->nodes[sl].pod != t->nodes[dl].pod;
            uint32_t k = t->links_per_spine;
            uint64_t n = walk3(t, sl, d, 1, xpod ? 6 : 4, 0, bad);
            uint64_t want = xpod ? (uint64_t)t->spines_per_pod * k * t->supers_per_plane * k
                                 : (uint64_t)t->spines_per_pod * k * k;
            if (n == 0 || (exact && n != want))
                ++*wrong;
        }
}

static void clos_wiring_and_reach(void)
{
    static const char *const variants[][2] = {
        {"fabric.storage_pods=pod", "fabric.links_per_spine=1"},
        {"fabric.storage_pods=spread", "fabric.links_per_spine=1"},
        {"fabric.storage_pods=pod", "fabric.links_per_spine=2"},
        {"fabric.superspines=3", "fabric.spine_uplink_speed=800Gbps"},
    };
    for (int v = 0; v < 4; v++) {
        struct scenario sc;
        test_small_clos(&sc);
        test_set(&sc, "%s", variants[v][0]);
        test_set(&sc, "%s", variants[v][1]);
        struct arena a;
        arena_init(&a);
        struct topo t;
        struct err e;
        CHECKF(topo_build(&t, &sc, &a, &e) == 0, "%s", e.msg);
        int spread = v == 1;
        uint32_t k = v == 2 ? 2 : 1;
        /* hand-computed: 4 compute leaves in 2 pods; 2 storage leaves in a
         * third pod or spread over the two; 4 spines a pod; super-spines a
         * plane: 1:1 = 2 leaves x k x 400G / 400G, or 3 as set */
        uint32_t pods = spread ? 2 : 3, per_plane = v == 3 ? 3 : 2 * k;
        CHECKF(t.n_pods == pods && t.n_spines == pods * 4 && t.n_supers == 4 * per_plane,
               "variant %d: %u pods, %u spines, %u super-spines", v, t.n_pods, t.n_spines,
               t.n_supers);
        CHECK(t.n_switches == 6 + t.n_spines + t.n_supers);
        int sym = 1;
        for (uint32_t p = 0; p < t.n_ports; p++)
            sym &= t.ports[t.ports[p].peer].peer == p && t.ports[p].peer != p;
        CHECK(sym);
        /* super-spine u of plane i links only to spine i of each pod */
        int planes = 1;
        for (uint32_t u = 0; u < t.n_supers; u++) {
            const struct tnode *n = &t.nodes[t.first_super + u];
            for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
                uint32_t g = t.ports[t.ports[p].peer].node - t.first_spine;
                planes &= g % t.spines_per_pod == n->pod && n->pod == u / t.supers_per_plane;
            }
        }
        CHECK(planes);
        uint64_t bad = 0, wrong = 0;
        reach_all(&t, 1, &bad, &wrong);
        CHECKF(bad == 0 && wrong == 0, "variant %d: %llu bad walks, %llu pairs with the wrong "
               "path count", v, (unsigned long long)bad, (unsigned long long)wrong);
        CHECK(t.n_affected == 0 && topo_failed_routes(&t) == 0);
        arena_release(&a);
    }
}

/* Failed links at both tiers, random and named: routes avoid them, stay
 * up-down and every pair still connects. */
static void clos_failed_links_updown(void)
{
    int built = 0, cut = 0;
    for (uint32_t seed = 1; seed <= 60; seed++) {
        struct scenario sc;
        test_small_clos(&sc);
        test_set(&sc, "seed=%u", seed);
        test_set(&sc, "fabric.failed_links=%u", 1 + seed % 6);
        if (seed % 2)
            test_set(&sc, "fabric.storage_pods=spread");
        if (seed % 3 == 0)
            test_set(&sc, "fabric.links_per_spine=2");
        struct arena a;
        arena_init(&a);
        struct topo t;
        struct err e;
        if (topo_build(&t, &sc, &a, &e) < 0) {
            CHECKF(strstr(e.msg, "cut it off") || strstr(e.msg, "no working uplink"), "%s",
                   e.msg);
            cut++;
            arena_release(&a);
            continue;
        }
        built++;
        CHECK(t.n_failed == 1 + seed % 6 && t.n_affected > 0);
        uint64_t bad = 0, wrong = 0;
        reach_all(&t, 0, &bad, &wrong);
        CHECKF(bad == 0 && wrong == 0, "seed %u (%s): %llu bad walks, %llu unreachable pairs",
               seed, t.failed_names, (unsigned long long)bad, (unsigned long long)wrong);
        CHECK(topo_failed_routes(&t) == 0);
        arena_release(&a);
    }
    CHECKF(built >= 50, "%d built, %d cut off", built, cut);

    /* by name: spine 1 (pod 0, plane 1) loses its link to super-spine 2
     * (plane 1's first), cleaf2 (pod 1) its link to spine 6 (pod 1) */
    struct scenario sc;
    test_small_clos(&sc);
    test_set(&sc, "fabric.failed_link_names=spine1-super2,cleaf2-spine6");
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct err e;
    CHECKF(topo_build(&t, &sc, &a, &e) == 0, "%s", e.msg);
    CHECK(t.n_failed == 2 && !strcmp(t.failed_names, "spine1-super2, cleaf2-spine6"));
    uint64_t bad = 0, wrong = 0;
    reach_all(&t, 0, &bad, &wrong);
    CHECK(bad == 0 && wrong == 0);
    /* toward pod 0 super-spine 2 has no way down; spine 1 of pod 1 goes up
     * only to super-spine 3 */
    uint32_t l0 = t.first_cleaf, s5 = t.first_spine + 5, u2 = t.first_super + 2;
    const struct route *r = topo_route(&t, u2, l0);
    CHECK(r->cnt == 0);
    r = topo_route(&t, s5, l0);
    CHECK(r->cnt == 1 && t.ports[t.ports[t.nh_ports[r->off]].peer].node == t.first_super + 3);
    arena_release(&a);
    /* names that are no link of this fabric */
    static const char *const badnames[] = {"cleaf0-spine4", "spine0-super2", "spine12-super0",
                                           "cleaf0-super0", "spine0-super0#1"};
    for (int i = 0; i < 5; i++) {
        test_small_clos(&sc);
        test_set(&sc, "fabric.failed_link_names=%s", badnames[i]);
        arena_init(&a);
        CHECKF(topo_build(&t, &sc, &a, &e) < 0 && strstr(e.msg, "no such link"), "%s built",
               badnames[i]);
        arena_release(&a);
    }
}

/* 1:1 at every tier, spray with an out-of-order receiver: a symmetric burst
 * ends within 2% of the bound in both engines; 2:1 at the super-spines
 * moves the bound and the verdict there. */
static void clos_burst_near_bound(void)
{
    for (int over = 0; over < 2; over++)
        for (int fluid = 0; fluid < 2; fluid++) {
            struct scenario sc;
            test_small_clos(&sc);
            test_set(&sc, "storage.nodes=16");
            test_set(&sc, "fabric.load_balancing=spray");
            test_set(&sc, "transport.receiver=ooo");
            test_set(&sc, "workload.bytes_per_writer=4MB");
            test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
            if (over)
                test_set(&sc, "fabric.superspines=1");
            struct results r;
            CHECK(test_run(&sc, &r) == 0);
            CHECKF(r.ok, "%s", r.violation);
            CHECK(r.fabric_tiers == 3 && r.pods == 4 && r.superspines == (over ? 4u : 8u));
            /* spray spreads evenly over each pod's spines and each plane's
             * super-spines (the storage pod's spines are not idle compute
             * pods' spines: the figure compares equal-cost switches) */
            CHECKF(r.lb_spine_imbalance >= 1 && r.lb_spine_imbalance < 1.05 &&
                       r.lb_uplink_imbalance < 1.05,
                   "%s: spines %.3f, uplinks %.3f", names_of(&names_engine, r.engine), r.lb_spine_imbalance,
                   r.lb_uplink_imbalance);
            CHECKF(r.completion_s >= r.bound_s * (1 - 1e-9) &&
                       r.completion_s <= r.bound_s * (over ? 1.05 : 1.02),
                   "%s over %d: %.9g vs bound %.9g", names_of(&names_engine, r.engine), over, r.completion_s, r.bound_s);
            if (over) {
                CHECKF(r.oversub_spine == 2.0, "%g", r.oversub_spine);
                CHECKF(r.bound_limit == PATH_SPINE_UP || r.bound_limit == PATH_SUPER_DOWN,
                       "bound set by %s", path_seg_label(r.bound_limit));
                CHECKF(r.bottleneck.seg == PATH_SPINE_UP || r.bottleneck.seg == PATH_SUPER_DOWN,
                       "verdict %s", path_seg_label(r.bottleneck.seg));
            } else {
                CHECK(r.bound_limit == PATH_WRITER_NIC || r.bound_limit == PATH_STORAGE_NIC);
            }
            results_release(&r);
        }
}

/* Both engines on three tiers under ECMP: the same bytes over the same
 * super-spine links, the bound below both. */
static void clos_fabric_bytes_by_segment(void)
{
    struct scenario sc;
    test_small_clos(&sc);
    test_set(&sc, "engine=fluid");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    /* every byte leaves a compute pod and enters the storage pod */
    double wire = r.segs[PATH_WRITER_NIC].bytes;
    CHECKF(r.segs[PATH_SPINE_UP].applies && r.segs[PATH_SPINE_UP].bytes == wire &&
               r.segs[PATH_SUPER_DOWN].bytes == wire,
           "%g %g %g", wire, r.segs[PATH_SPINE_UP].bytes, r.segs[PATH_SUPER_DOWN].bytes);
    CHECK(r.segs[PATH_SPINE_UP].elements == 8 * 2 && r.segs[PATH_SUPER_DOWN].elements == 4 * 2);
    results_release(&r);
    /* two tiers: the three-tier segments do not apply */
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.fabric_tiers == 2 && !r.segs[PATH_SPINE_UP].applies &&
          !r.segs[PATH_SUPER_DOWN].applies && r.bound_term_s[PATH_SPINE_UP] == 0);
    results_release(&r);
}

/* fabric.tiers auto against hand-computed switch counts (docs/scenario.md,
 * the table under fabric.tiers: auto): 8 GPUs and one NIC a node, one
 * storage node per 64 GPUs. */
static void clos_auto_switch_counts(void)
{
    static const struct {
        uint32_t nodes, storage;
        const char *sw;
        uint32_t tiers, leaves, spines, supers, k;
    } cases[] = {
        {128, 16, "CX732Q-N", 2, 9, 8, 0, 2},      /* 16 + 16 ports a leaf */
        {128, 16, "CX764QH-N", 2, 5, 4, 0, 8},
        {2000, 250, "CX732Q-N", 3, 141, 9 * 16, 16 * 8, 2}, /* k: spine-super-spine */
        {2000, 250, "CX764QH-N", 3, 71, 3 * 32, 32 * 2, 16},
        {12500, 1563, "CX764QH-N", 3, 440, 15 * 32, 32 * 8, 4},
        {12500, 1563, "CX732Q-N", 0, 0, 0, 0, 0}, /* 56 pods of 16 > 32 ports */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "fabric.tiers=auto");
        test_set(&sc, "cluster.nodes=%u", cases[i].nodes);
        test_set(&sc, "storage.nodes=%u", cases[i].storage);
        test_set(&sc, "fabric.switch=%s", cases[i].sw);
        test_set(&sc, "engine=fluid");
        struct ckpt_description d;
        struct err e = {{0}};
        int rc = ckpt_describe(&sc, &d, &e);
        if (!cases[i].tiers) {
            CHECKF(rc < 0 && strstr(e.msg, "fabric.tiers: auto: 782 compute and 98 storage "
                                           "leaves need 56 pods of 16"), "%s", e.msg);
            continue;
        }
        CHECKF(rc == 0, "case %zu: %s", i, e.msg);
        if (rc < 0)
            continue;
        uint32_t leaves = d.r.switches - (cases[i].tiers == 3 ? d.r.pods * d.r.spines_per_pod +
                                                                      d.r.superspines
                                                                : 0);
        CHECKF(d.r.fabric_tiers == cases[i].tiers && d.r.switches == cases[i].leaves +
                   cases[i].spines + cases[i].supers && d.r.warnings[0] == '\0',
               "case %zu: %u tiers, %u switches (%u leaves), %s", i, d.r.fabric_tiers,
               d.r.switches, leaves, d.r.warnings);
        if (cases[i].tiers == 3)
            CHECKF(d.r.pods * d.r.spines_per_pod == cases[i].spines &&
                       d.r.superspines == cases[i].supers && d.r.oversub_spine == 1.0,
                   "case %zu: %u pods x %u spines, %u super-spines", i, d.r.pods,
                   d.r.spines_per_pod, d.r.superspines);
        CHECK(d.r.oversub_compute == 1.0);
    }
    /* rails: 100 two-NIC nodes on two rails of 32-port leaves. 16 host ports
     * a leaf at 1:1, but rail groups must be whole: 10 nodes a leaf (the
     * largest divisor of 100 up to 16) with 10 uplinks, 20 compute leaves
     * and 1 storage leaf under 10 spines; a spray burst at its bound */
    for (int run = 0; run < 2; run++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "fabric.tiers=auto");
        test_set(&sc, "cluster.nodes=100");
        test_set(&sc, "cluster.nics_per_node=2");
        test_set(&sc, "fabric.rails=2");
        test_set(&sc, "storage.nodes=8");
        test_set(&sc, "fabric.switch=CX732Q-N");
        test_set(&sc, "fabric.load_balancing=spray");
        test_set(&sc, "transport.receiver=ooo");
        test_set(&sc, "engine=%s", run ? "packet" : "fluid");
        struct results r;
        if (test_run(&sc, &r)) {
            CHECKF(0, "rails with fabric.tiers auto refused (%s engine)", run ? "packet" : "fluid");
            continue;
        }
        CHECKF(r.ok && r.fabric_tiers == 2 && r.switches == 31 && r.oversub_compute == 1.0 &&
                   r.warnings[0] == '\0',
               "rails: %u tiers, %u switches, %g:1, %s", r.fabric_tiers, r.switches,
               r.oversub_compute, r.warnings);
        CHECKF(r.completion_s >= r.bound_s && r.completion_s <= 1.02 * r.bound_s,
               "rails %s: %.6g s, bound %.6g s", names_of(&names_engine, r.engine), r.completion_s, r.bound_s);
        results_release(&r);
    }
    /* auto chooses these: setting one is an error */
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "fabric.tiers=auto");
    test_set(&sc, "fabric.spines=4");
    struct ckpt_description d;
    struct err e = {{0}};
    CHECK(ckpt_describe(&sc, &d, &e) < 0 &&
          strstr(e.msg, "fabric.spines: fabric.tiers: auto chooses it"));
    /* 2:1 at the leaves: 21 hosts and 11 uplinks on 32 ports */
    scenario_defaults(&sc);
    test_set(&sc, "fabric.tiers=auto");
    test_set(&sc, "fabric.oversubscription=2");
    test_set(&sc, "engine=fluid");
    CHECK(ckpt_describe(&sc, &d, &e) == 0);
    CHECKF(fabs(d.r.oversub_compute - 21.0 / 11) < 1e-9, "%g", d.r.oversub_compute);
}

/* Bill of materials from the built fabric, hand-counted: 4 compute and 2
 * storage leaves, 3 pods of 4 spines, 4 planes of 2 super-spines. */
static void clos_bill_of_materials(void)
{
    struct scenario sc;
    test_small_clos(&sc);
    test_set(&sc, "fabric.spine_uplink_speed=800Gbps"); /* 1:1 with one super-spine a plane */
    test_set(&sc, "storage.nic_speed=200Gbps");
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct err e;
    CHECKF(topo_build(&t, &sc, &a, &e) == 0, "%s", e.msg);
    uint32_t sw[3], links[TOPO_BOM_SPEEDS], n;
    uint64_t speeds[TOPO_BOM_SPEEDS];
    topo_bom(&t, sw, speeds, links, &n);
    CHECKF(sw[0] == 6 && sw[1] == 12 && sw[2] == 4, "%u %u %u", sw[0], sw[1], sw[2]);
    /* 12 spines x 1 super-spine link at 800G; 16 host links and 6 x 4
     * leaf-spine links at 400G; 8 storage links at 200G */
    CHECKF(n == 3 && speeds[0] == 800000000000ull && links[0] == 12 &&
               speeds[1] == 400000000000ull && links[1] == 16 + 24 &&
               speeds[2] == 200000000000ull && links[2] == 8,
           "%u speeds: %u %u %u", n, links[0], links[1], links[2]);
    arena_release(&a);
}

/* The verdict says what held a bottleneck that was not at capacity all
 * along: the writers' NICs (skewed shards under per-flow fair shares, as at
 * 100,000 nodes), or a fabric link set hashed unevenly. */
static void clos_verdict_names_what_held(void)
{
    for (int k = 0; k < 3; k++) {
        struct scenario sc;
        scenario_defaults(&sc);
        struct results r;
        memset(&r, 0, sizeof r);
        r.finished = 1;
        r.completion_s = 1.0;
        r.fabric_tiers = 3;
        r.plan.skew = 4.58;
        r.bottleneck.seg = PATH_STORAGE_NIC;
        r.bottleneck.next_seg = -1;
        r.bottleneck.util = 0.8;
        r.bottleneck.excess = k == 2 ? 0.01 : 0.25; /* 2: on time, nothing to say */
        for (int s = PATH_WRITER_NIC; s <= PATH_STORAGE_NIC; s++) {
            r.segs[s].applies = 1;
            r.segs[s].cap_bps = r.segs[s].elem_bps = 4e11;
            r.segs[s].imbalance = 1.0;
        }
        r.segs[PATH_STORAGE_NIC].max_util = 0.8;
        if (k == 1) {
            r.segs[PATH_SUPER_DOWN].saturated_s = 0.3;
            r.segs[PATH_SUPER_DOWN].imbalance = 1.9;
        } else {
            r.segs[PATH_WRITER_NIC].saturated_s = 0.38;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        report_segments(f, &sc, &r);
        fclose(f);
        const char *want = k == 0 ? "held by the writers the rest of the time: the busiest "
                                    "writer NIC ran at capacity 38.0% of the write"
                                  : "held by the fabric the rest of the time: the busiest super "
                                    "-> storage pod link ran at capacity 30.0%";
        if (k < 2)
            CHECKF(buf && strstr(buf, want), "case %d: %s", k, buf);
        else
            CHECKF(buf && !strstr(buf, "held by"), "case %d: %s", k, buf);
        free(buf);
    }
}

SUITE(suite_clos) = {
    {"clos_verdict_names_what_held", clos_verdict_names_what_held},
    {"clos_bill_of_materials", clos_bill_of_materials},
    {"clos_auto_switch_counts", clos_auto_switch_counts},
    {"clos_wiring_and_reach", clos_wiring_and_reach},
    {"clos_failed_links_updown", clos_failed_links_updown},
    {"clos_burst_near_bound", clos_burst_near_bound},
    {"clos_fabric_bytes_by_segment", clos_fabric_bytes_by_segment},
    {0, 0},
};
