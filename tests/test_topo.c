/* Topology: wiring, up-down reachability over every ECMP choice, ECMP spread,
 * and the analytic bound on a hand-computed case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/fluid/fluid.h"
#include "../src/pkt/engine.h"

#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "../src/stats/bound.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

static void small_fabric(struct scenario *sc)
{
    scenario_defaults(sc);
    sc->cluster.nodes = 21;         /* 3 compute leaves, the last one partial */
    sc->fabric.hosts_per_leaf = 8;
    sc->storage.nodes = 5;          /* 2 storage leaves */
    sc->fabric.storage_per_leaf = 4;
    sc->fabric.spines = 4;
}

/* Count the paths from src to dst over every ECMP choice; *bad counts
 * walks that dead-end or take the wrong number of hops. */
static uint64_t walk(const struct topo *t, uint32_t node, uint32_t dst,
                     int hops, int want_hops, uint64_t *bad)
{
    if (node == dst)
        return hops == want_hops ? 1 : (++*bad, 0);
    if (hops > 6 || node < t->first_cleaf) {
        ++*bad;
        return 0;
    }
    uint32_t dleaf = t->nodes[dst].leaf;
    if (node == dleaf)
        return walk(t, dst, dst, hops + 1, want_hops, bad);
    const struct route *r = topo_route(t, node, dleaf);
    if (r->cnt == 0) {
        ++*bad;
        return 0;
    }
    uint64_t paths = 0;
    for (uint32_t i = 0; i < r->cnt; i++) {
        uint32_t p = t->nh_ports[r->off + i];
        paths += walk(t, t->ports[t->ports[p].peer].node, dst, hops + 1, want_hops, bad);
    }
    return paths;
}

static void topo_every_pair_reachable(void)
{
    struct scenario sc;
    small_fabric(&sc);
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct err e;
    CHECK(topo_build(&t, &sc, &a, &e) == 0);
    CHECK(t.n_cleaves == 3 && t.n_sleaves == 2 && t.n_spines == 4);
    /* links are symmetric */
    int sym = 1;
    for (uint32_t p = 0; p < t.n_ports; p++)
        sym &= t.ports[t.ports[p].peer].peer == p && t.ports[p].peer != p;
    CHECK(sym);
    uint64_t bad = 0, wrong_count = 0;
    uint32_t ends = t.first_cleaf;
    for (uint32_t s = 0; s < ends; s++)
        for (uint32_t d = 0; d < ends; d++) {
            if (s == d)
                continue;
            int same = t.nodes[s].leaf == t.nodes[d].leaf;
            uint32_t first = t.ports[t.ports[t.nodes[s].first_port].peer].node;
            uint64_t n = walk(&t, first, d, 1, same ? 2 : 4, &bad);
            /* one path on the same leaf, one per spine otherwise */
            if (n != (same ? 1u : t.n_spines))
                wrong_count++;
        }
    CHECKF(bad == 0, "%llu bad walks", (unsigned long long)bad);
    CHECKF(wrong_count == 0, "%llu pairs with the wrong path count",
           (unsigned long long)wrong_count);
    arena_release(&a);
}

static void topo_ecmp_spread_chi_square(void)
{
    /* 16000 flows with random source ports over 16 uplinks: chi-square
     * with 15 degrees of freedom below the 1% critical value 30.58. */
    struct rng r;
    rng_init(&r, 3, 11);
    uint64_t seed = rng_u64(&r);
    uint64_t bins[16] = {0};
    for (int i = 0; i < 16000; i++) {
        uint16_t sport = (uint16_t)(0xC000u | (rng_u64(&r) & 0x3FFF));
        uint32_t src = (uint32_t)rng_below(&r, 1024), dst = 1024 + (uint32_t)rng_below(&r, 8);
        bins[topo_flow_hash(seed, src, dst, sport, ROCE_UDP_PORT) % 16]++;
    }
    double chi = 0;
    for (int i = 0; i < 16; i++)
        chi += ((double)bins[i] - 1000.0) * ((double)bins[i] - 1000.0) / 1000.0;
    CHECKF(chi < 30.58, "chi-square %.2f", chi);
    /* the hash depends on the source port and on the switch seed */
    CHECK(topo_flow_hash(seed, 1, 2, 50000, 4791) != topo_flow_hash(seed, 1, 2, 50001, 4791));
    CHECK(topo_flow_hash(seed, 1, 2, 50000, 4791) != topo_flow_hash(seed + 1, 1, 2, 50000, 4791));
}

static void topo_oversubscription_reported(void)
{
    struct scenario sc;
    small_fabric(&sc);
    sc.fabric.spines = 2;
    sc.fabric.uplink_bps = 100000000000ull; /* 8 x 400G down, 2 x 100G up */
    struct arena a;
    arena_init(&a);
    struct topo t;
    CHECK(topo_build(&t, &sc, &a, NULL) == 0);
    CHECK(fabs(t.oversub_compute - 16.0) < 1e-9);
    CHECK(fabs(t.oversub_storage - 8.0) < 1e-9);
    arena_release(&a);
}

static void bound_hand_computed(void)
{
    /* 4 writers x 1 MB, 1 storage node, all 400G, 1000 B MTU:
     * storage NIC carries 4 x (1e6 + 1000 x 82) B = 4.328e6 B = 86.56 us. */
    struct scenario sc;
    scenario_defaults(&sc);
    sc.cluster.nodes = 4;
    sc.fabric.hosts_per_leaf = 4;
    sc.storage.nodes = 1;
    sc.fabric.spines = 2;
    sc.fabric.mtu = 1000;
    sc.workload.bytes_per_writer = 1000000;
    sc.fabric.link_delay_ps = 1000000;
    /* per tier: the packet engine's leaves and spines differ */
    sc.fabric.leaf_latency_ps = 500000;
    sc.fabric.spine_latency_ps = 700000;
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    struct results r = {0};
    CHECK(topo_build(&t, &sc, &a, NULL) == 0);
    CHECK(workload_build(&w, &sc, &t, &a, NULL) == 0);
    bound_compute(&r, &t, &w, &sc, NULL);
    struct wire_fmt roce = {1000, 82};
    CHECK(wire_bytes(1000000, roce) == 1082000);
    CHECK(wire_bytes(1001, roce) == 1001 + 2 * 82);
    CHECK(r.bound_limit == PATH_STORAGE_NIC);
    CHECKF(fabs(r.bound_term_s[PATH_STORAGE_NIC] - 86.56e-6) < 1e-12, "%.9g",
           r.bound_term_s[PATH_STORAGE_NIC]);
    CHECKF(fabs(r.bound_term_s[PATH_WRITER_NIC] - 21.64e-6) < 1e-12, "%.9g",
           r.bound_term_s[PATH_WRITER_NIC]);
    /* base: 4 links x 1 us + 2 leaves x 500 ns + a spine's 700 ns + 3 x 1082 B
     * at 400G; every link runs at 400G, so the storage NIC's way in (the first
     * packet's 3 hops) equals the writer NIC's way on */
    double base = 4e-6 + 1e-6 + 0.7e-6 + 3 * 1082 * 8 / 400e9;
    CHECKF(fabs(r.base_latency_s - base) < 1e-12, "%.9g vs %.9g", r.base_latency_s, base);
    CHECK(fabs(r.bound_s - (86.56e-6 + base)) < 1e-12);
    arena_release(&a);
}

/* 16 writers on 2 compute leaves, 4 storage nodes, 4 spines, cleaf0-spine1
 * and two more links down; resolved. */
static int failed_fabric(struct scenario *sc, const char *lb)
{
    struct err e;
    scenario_defaults(sc);
    const char *set[] = {"cluster.nodes=16", "fabric.hosts_per_leaf=8", "storage.nodes=4",
                         "fabric.spines=4", "fabric.failed_link_names=cleaf0-spine1",
                         "fabric.failed_links=2", "workload.bytes_per_writer=200KB",
                         "telemetry.ports=true", lb};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (scenario_set(sc, set[i], &e) < 0) {
            fprintf(stderr, "  %s\n", e.msg);
            return -1;
        }
    return scenario_resolve(sc, &e) < 0 || scenario_validate(sc, &e) < 0 ? -1 : 0;
}

/* A failed link carries nothing, in either engine and under every load
 * balancer: no byte leaves a failed port (per-port counters). */
static void failed_links_carry_nothing(void)
{
    static const char *const lbs[] = {"fabric.load_balancing=ecmp", "fabric.load_balancing=wcmp",
                                       "fabric.load_balancing=spray",
                                       "fabric.load_balancing=adaptive"};
    for (size_t k = 0; k < sizeof lbs / sizeof lbs[0]; k++)
        for (int fluid = 0; fluid < 2; fluid++) {
            struct scenario sc, fab;
            struct err e = {{0}};
            struct arena a;
            struct topo t;
            struct results r;
            if (failed_fabric(&sc, lbs[k]) < 0) {
                CHECK(0);
                return;
            }
            sc.engine = fluid ? ENGINE_FLUID : ENGINE_PACKET;
            arena_init(&a);
            workload_fabric(&sc, &fab);
            CHECKF(topo_build(&t, &fab, &a, &e) == 0, "%s", e.msg);
            CHECK(t.n_failed == 3 && topo_failed_routes(&t) == 0);
            if (ckpt_run(&sc, &r, &e) < 0) {
                CHECKF(0, "%s", e.msg);
                arena_release(&a);
                return;
            }
            CHECKF(r.ok, "%s %s: %s", lbs[k], names_of(&names_engine, r.engine), r.violation);
            CHECK(r.n_ports == t.n_ports);
            double up = 0;
            for (uint32_t p = 0; p < r.n_ports && r.n_ports == t.n_ports; p++) {
                if (t.ports[p].seg == PATH_CLEAF_UP)
                    up += (double)r.ports[p].tx_bytes;
                if (t.ports[p].failed)
                    CHECKF(r.ports[p].tx_bytes == 0 && r.ports[p].drops == 0,
                           "%s %s: failed port %u carried %llu B, dropped %llu packets",
                           lbs[k], names_of(&names_engine, r.engine), p, (unsigned long long)r.ports[p].tx_bytes,
                           (unsigned long long)r.ports[p].drops);
            }
            CHECKF(up >= 16 * 200e3, "%s %s: uplinks carried %.0f B", lbs[k], names_of(&names_engine, r.engine), up);
            results_release(&r);
            arena_release(&a);
        }
}

/* A route table that leads onto failed links (as a broken build_routes
 * would make) is caught: by topo_failed_routes, and by both engines, which
 * carry nothing over a failed port and report the run as violated. */
static void routes_onto_failed_links_caught(void)
{
    struct scenario sc, fab;
    struct err e = {{0}};
    struct arena a;
    struct topo t;
    struct workload w;
    if (failed_fabric(&sc, "fabric.load_balancing=ecmp") < 0) {
        CHECK(0);
        return;
    }
    arena_init(&a);
    workload_fabric(&sc, &fab);
    if (topo_build(&t, &fab, &a, &e) < 0 || workload_build(&w, &sc, &t, &a, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        arena_release(&a);
        return;
    }
    /* the mutation: every route of compute leaf 0 takes its failed uplink */
    uint32_t leaf = t.first_cleaf, bad = UINT32_MAX;
    const struct tnode *ln = &t.nodes[leaf];
    for (uint32_t p = ln->first_port; p < ln->first_port + ln->nports; p++)
        if (t.ports[p].failed)
            bad = p;
    CHECK(bad != UINT32_MAX);
    for (uint32_t l = 0; bad != UINT32_MAX && l < t.n_leaves; l++) {
        const struct route *rt = topo_route(&t, leaf, t.first_cleaf + l);
        for (uint32_t k = 0; k < rt->cnt; k++)
            t.nh_ports[rt->off + k] = bad;
    }
    CHECK(topo_failed_routes(&t) > 0);
    for (int fluid = 0; fluid < 2; fluid++) {
        struct results r = {0};
        bound_compute(&r, &t, &w, &sc, NULL);
        int rc = fluid ? fluid_run(&sc, &t, &w, &r, &e) : pkt_run(&sc, &t, &w, &r, &e);
        CHECKF(rc == 0, "%s", e.msg);
        CHECKF(!r.ok && strstr(r.violation, "routed onto failed links"), "%s: %s",
               fluid ? "fluid" : "packet", r.ok ? "ok" : r.violation);
        CHECK(bad >= r.n_ports || r.ports[bad].tx_bytes == 0);
        results_release(&r);
    }
    arena_release(&a);
}

/* Naive routes: BFS from every leaf over the switch graph, every switch's
 * next hops toward it (ports one step closer, in port order) and their
 * WCMP weights; compared with topo_route, which builds only what failed
 * links change. Returns the mismatches. */
static uint32_t routes_vs_bfs(const struct topo *t)
{
    uint32_t nsw = t->n_switches, bad = 0;
    uint32_t *dist = malloc(nsw * sizeof *dist), *queue = malloc(nsw * sizeof *queue);
    uint64_t *down = calloc(nsw, sizeof *down);
    for (uint32_t l = 0; dist && queue && down && l < t->n_leaves; l++) {
        for (uint32_t s = 0; s < nsw; s++)
            dist[s] = UINT32_MAX;
        uint32_t qh = 0, qt = 0;
        dist[l] = 0;
        queue[qt++] = l;
        while (qh < qt) {
            uint32_t s = queue[qh++];
            const struct tnode *n = &t->nodes[t->first_cleaf + s];
            for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
                uint32_t peer = t->ports[t->ports[p].peer].node;
                if (peer < t->first_cleaf || t->ports[p].failed ||
                    dist[peer - t->first_cleaf] != UINT32_MAX)
                    continue;
                dist[peer - t->first_cleaf] = dist[s] + 1;
                queue[qt++] = peer - t->first_cleaf;
            }
        }
        for (uint32_t s = 0; s < nsw; s++) {
            const struct tnode *n = &t->nodes[t->first_cleaf + s];
            down[s] = 0;
            for (uint32_t p = n->first_port; dist[s] == 1 && p < n->first_port + n->nports; p++)
                if (!t->ports[p].failed && t->ports[t->ports[p].peer].node == t->first_cleaf + l)
                    down[s] += t->ports[p].bps;
        }
        for (uint32_t s = 0; s < nsw; s++) {
            const struct route *r = topo_route(t, t->first_cleaf + s, t->first_cleaf + l);
            const struct tnode *n = &t->nodes[t->first_cleaf + s];
            uint32_t cnt = 0;
            for (uint32_t p = n->first_port; s != l && p < n->first_port + n->nports; p++) {
                uint32_t peer = t->ports[t->ports[p].peer].node;
                if (peer < t->first_cleaf || t->ports[p].failed ||
                    dist[peer - t->first_cleaf] + 1 != dist[s])
                    continue;
                uint32_t nx = peer - t->first_cleaf, into = 0;
                for (uint32_t q = n->first_port; q < n->first_port + n->nports; q++)
                    into += !t->ports[q].failed && t->ports[t->ports[q].peer].node == peer;
                uint64_t w = t->ports[p].bps;
                if (nx != l && down[nx] / into < w)
                    w = down[nx] / into;
                w = w / 1000000 ? w / 1000000 : 1;
                bad += cnt >= r->cnt || t->nh_ports[r->off + cnt] != p ||
                       t->nh_weight[r->off + cnt] != w;
                cnt++;
            }
            bad += cnt != r->cnt;
        }
    }
    free(dist);
    free(queue);
    free(down);
    return bad;
}

/* Routes toward leaves without failed links are built without a BFS each
 * (the table grew with leaves squared: 1e5 storage nodes took minutes and
 * 5 GB); on random fabrics with random failed links they equal the naive
 * all-pairs BFS, and 1e5 storage nodes build in well under a second. */
static void topo_routes_match_bfs(void)
{
    struct rng g;
    rng_init(&g, 11, 99);
    int built = 0;
    for (int i = 0; i < 200; i++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.cluster.nodes = 1 + (uint32_t)rng_below(&g, 40);
        sc.fabric.hosts_per_leaf = 1 + (uint32_t)rng_below(&g, 8);
        sc.storage.nodes = 1 + (uint32_t)rng_below(&g, 12);
        sc.fabric.storage_per_leaf = 1 + (uint32_t)rng_below(&g, 4);
        sc.fabric.spines = 1 + (uint32_t)rng_below(&g, 5);
        sc.fabric.links_per_spine = 1 + (uint32_t)rng_below(&g, 2);
        uint32_t leaves = (sc.cluster.nodes + sc.fabric.hosts_per_leaf - 1) / sc.fabric.hosts_per_leaf +
                          (sc.storage.nodes + sc.fabric.storage_per_leaf - 1) / sc.fabric.storage_per_leaf;
        sc.fabric.failed_links = (uint32_t)rng_below(&g, leaves * sc.fabric.spines *
                                                             sc.fabric.links_per_spine / 2 + 1);
        sc.seed = 1 + rng_below(&g, 1000);
        sc.fabric.uplink_bps = (1 + rng_below(&g, 8)) * 100000000000ull;
        struct arena a;
        struct topo t;
        struct err e;
        arena_init(&a);
        if (topo_build(&t, &sc, &a, &e) == 0) { /* or a leaf cut off */
            built++;
            uint32_t bad = routes_vs_bfs(&t);
            CHECKF(bad == 0, "case %d: %u next hops differ (%u failed links)", i, bad, t.n_failed);
            CHECK(topo_failed_routes(&t) == 0);
        }
        arena_release(&a);
    }
    CHECKF(built > 100, "%d of 200 built", built);
    /* 1e5 storage nodes, 25000 storage leaves, 2 links down */
    struct scenario sc;
    struct arena a;
    struct topo t;
    struct err e;
    scenario_defaults(&sc);
    sc.storage.nodes = 100000;
    sc.fabric.failed_links = 2;
    arena_init(&a);
    CHECKF(topo_build(&t, &sc, &a, &e) == 0, "%s", e.msg);
    CHECK(t.n_leaves == 25008 && t.n_affected == 2 && topo_failed_routes(&t) == 0);
    CHECKF(a.total < (64u << 20), "%llu B", (unsigned long long)a.total);
    arena_release(&a);
}

/* The largest off + cnt of n routes (0: none). */
static size_t routes_end(const struct route *r, size_t n)
{
    size_t end = 0;
    for (size_t i = 0; r && i < n; i++)
        if (r[i].cnt && r[i].off + (size_t)r[i].cnt > end)
            end = r[i].off + (size_t)r[i].cnt;
    return end;
}

/* Widen [*lo, *hi) to hold n bytes at p; the bytes summed into *sum. */
static void span(const void *p, size_t n, uintptr_t *lo, uintptr_t *hi, size_t *sum)
{
    uintptr_t a = (uintptr_t)p;
    *lo = a < *lo ? a : *lo;
    *hi = a + n > *hi ? a + n : *hi;
    *sum += n;
}

/* Without failed links the builders count the next hops first and build
 * them in place: nh_ports, nh_weight and nh_next one array of the arena
 * with the route tables beside them, exactly the entries the routes use
 * (the count right: no slack, no growth, no copy), nh_next each entry's
 * peer. With a failed link the arrays grow as before and are copied in
 * behind the tables. */
static void topo_routes_built_in_place(void)
{
    for (int v = 0; v < 6; v++) {
        struct scenario sc;
        if (v < 3) {
            test_small_clos(&sc);
            test_set(&sc, v == 1 ? "fabric.links_per_spine=2" : "fabric.superspines=3");
            if (v == 2)
                test_set(&sc, "fabric.storage_pods=spread");
        } else {
            small_fabric(&sc);
            sc.fabric.links_per_spine = 1 + (uint32_t)(v == 4);
            /* 25,000 leaves: tables and arrays apart would be 3 blocks */
            sc.storage.nodes = v == 5 ? 100000 : sc.storage.nodes;
        }
        int failed = v == 0 || v == 3;
        for (int f = 0; f <= failed; f++) {
            sc.fabric.failed_links = (uint32_t)f;
            struct arena a;
            struct topo t;
            struct err e;
            arena_init(&a);
            CHECKF(topo_build(&t, &sc, &a, &e) == 0, "case %d: %s", v, e.msg);
            size_t nl = t.n_leaves, nrow = (t.tiers == 3 ? t.n_switches : nl) * t.n_affected;
            size_t np = (size_t)t.n_spines * (t.pod_width + 1), ns = (size_t)t.n_supers * t.n_pods;
            const struct route *tab[4] = {t.leaf_default, t.leaf_route, NULL, NULL};
            size_t len[4] = {nl, nrow, 0, 0};
            if (t.tiers == 3) {
                tab[2] = t.spine_route_pod, len[2] = np;
                tab[3] = t.super_route, len[3] = ns;
            } else {
                tab[2] = t.spine_route, len[2] = (size_t)t.n_spines * nl;
            }
            size_t end = 0, sum = 0;
            uintptr_t lo = UINTPTR_MAX, hi = 0;
            for (int k = 0; k < 4; k++) {
                size_t x = routes_end(tab[k], len[k]);
                end = x > end ? x : end;
                if (len[k])
                    span(tab[k], len[k] * sizeof *tab[k], &lo, &hi, &sum);
            }
            int together = t.nh_weight == t.nh_ports + end && t.nh_next == t.nh_ports + 2 * end;
            CHECKF(together == !f, "case %d, %d failed: nh_weight at %td, nh_next at %td, %zu "
                                   "entries used", v, f, t.nh_weight - t.nh_ports,
                   t.nh_next - t.nh_ports, end);
            size_t bad = 0;
            for (size_t i = 0; i < end; i++)
                bad += t.nh_next[i] != t.ports[t.ports[t.nh_ports[i]].peer].node ||
                       (!f && t.nh_weight[i] != t.ports[t.nh_ports[i]].bps / 1000000);
            CHECKF(bad == 0, "case %d, %d failed: %zu of %zu entries' next node or weight wrong",
                   v, f, bad, end);
            /* the tables and the arrays in one stretch of one block: its
             * length the sum of theirs and the arena's rounding */
            span(t.nh_ports, 3 * end * sizeof *t.nh_ports, &lo, &hi, &sum);
            CHECKF(hi - lo <= sum + 5 * 16, "case %d, %d failed: tables and arrays over %zu "
                                            "bytes, %zu of them", v, f, (size_t)(hi - lo), sum);
            CHECK(topo_failed_routes(&t) == 0);
            arena_release(&a);
        }
    }
}

SUITE(suite_topo) = {
    {"topo_routes_match_bfs", topo_routes_match_bfs},
    {"topo_routes_built_in_place", topo_routes_built_in_place},
    {"failed_links_carry_nothing", failed_links_carry_nothing},
    {"routes_onto_failed_links_caught", routes_onto_failed_links_caught},
    {"topo_every_pair_reachable", topo_every_pair_reachable},
    {"topo_ecmp_spread_chi_square", topo_ecmp_spread_chi_square},
    {"topo_oversubscription_reported", topo_oversubscription_reported},
    {"bound_hand_computed", bound_hand_computed},
    {0, 0},
};
