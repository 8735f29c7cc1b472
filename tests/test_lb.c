/* Load balancing: ECMP collision statistics, schemes against the bound,
 * go-back-N against out-of-order receivers, flowlet = ECMP without gaps,
 * failed links and WCMP weights. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* n writers on one leaf with m spines (1:1), one storage node per writer. */
static void fan(struct scenario *sc, unsigned n, unsigned m)
{
    scenario_defaults(sc);
    test_set(sc, "fabric.allow_oversize=true"); /* one leaf for every writer */
    test_set(sc, "cluster.nodes=%u", n);
    test_set(sc, "fabric.hosts_per_leaf=%u", n);
    test_set(sc, "storage.nodes=%u", n);
    test_set(sc, "fabric.storage_per_leaf=%u", n);
    test_set(sc, "fabric.spines=%u", m);
    test_set(sc, "fabric.uplink_speed=%uGbps", 400 * n / m);
}

/* Flows on the busiest uplink over flows per uplink, by the real ECMP path. */
static double ecmp_max_load(unsigned n, unsigned m, uint64_t seed)
{
    struct scenario sc;
    fan(&sc, n, m);
    test_set(&sc, "seed=%llu", (unsigned long long)seed);
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    struct err e;
    double ratio = -1;
    if (topo_build(&t, &sc, &a, &e) == 0 && workload_build(&w, &sc, &t, &a, &e) == 0) {
        unsigned count[1024] = {0}, mx = 0;
        for (uint32_t i = 0; i < w.n; i++) {
            uint32_t ports[TOPO_MAX_HOPS];
            uint32_t hops = topo_path(&t, w.xfers[i].src, w.xfers[i].dst, w.xfers[i].sport,
                                      ports, TOPO_MAX_HOPS);
            if (hops < 2)
                continue;
            unsigned u = ports[1] - t.nodes[t.first_cleaf].first_port;
            if (u < 1024 && ++count[u] > mx)
                mx = count[u];
        }
        ratio = mx / ((double)n / m);
    }
    arena_release(&a);
    return ratio;
}

static void ecmp_balls_in_bins(void)
{
    /* simulated E[max]/(n/m), balls (flows) in bins (uplinks) */
    const struct { unsigned n, m; double want; } cases[] = {
        {8, 8, 2.60}, {64, 64, 3.95}, {256, 64, 2.34},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double sum = 0;
        const int seeds = 200;
        for (int s = 1; s <= seeds; s++)
            sum += ecmp_max_load(cases[c].n, cases[c].m, (uint64_t)s);
        double got = sum / seeds;
        CHECKF(fabs(got / cases[c].want - 1) < 0.10, "%u on %u: E[max]/(n/m) %.3f vs %.2f",
               cases[c].n, cases[c].m, got, cases[c].want);
    }
}

/* With uplinks as the only shared links, completion / bound follows the
 * busiest uplink's flow count. */
static void ecmp_penalty_follows_collisions(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct scenario sc;
        fan(&sc, 8, 8);
        test_set(&sc, "seed=%llu", (unsigned long long)seed);
        test_set(&sc, "workload.bytes_per_writer=2MB");
        double k = ecmp_max_load(8, 8, seed); /* flows on the busiest uplink */
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        /* the transfer part of each, without the path latency */
        double ratio = (r.completion_s - r.base_latency_s) / (r.bound_s - r.base_latency_s);
        CHECKF(fabs(ratio / k - 1) < 0.05, "seed %llu: completion/bound %.3f vs %g flows",
               (unsigned long long)seed, ratio, k);
        results_release(&r);
    }
}

/* 2:1 oversubscribed: 2 compute leaves of 32 at 400G, 16 uplinks each. */
static void oversubscribed(struct scenario *sc, const char *lb, const char *rx)
{
    scenario_defaults(sc);
    test_set(sc, "fabric.allow_oversize=true"); /* 48-port leaves */
    test_set(sc, "cluster.nodes=64");
    test_set(sc, "fabric.hosts_per_leaf=32");
    test_set(sc, "storage.nodes=64");
    test_set(sc, "fabric.storage_per_leaf=32");
    test_set(sc, "fabric.spines=16");
    test_set(sc, "workload.bytes_per_writer=4MB");
    test_set(sc, "fabric.load_balancing=%s", lb);
    test_set(sc, "transport.receiver=%s", rx);
}

static double ratio_of(const char *lb, const char *rx, const char *extra, struct results *keep)
{
    struct scenario sc;
    oversubscribed(&sc, lb, rx);
    if (extra)
        test_set(&sc, "%s", extra);
    struct results r;
    double v = -1;
    if (test_run(&sc, &r) == 0) {
        CHECKF(r.ok, "%s/%s: %s", lb, rx, r.violation);
        v = r.completion_s / r.bound_s;
        if (keep)
            *keep = r; /* the caller releases it */
        else
            results_release(&r);
    }
    return v;
}

static void lb_schemes_against_bound(void)
{
    double spray = ratio_of("spray", "ooo", NULL, NULL);
    double ecmp = ratio_of("ecmp", "ooo", NULL, NULL);
    double adaptive = ratio_of("adaptive", "ooo", "fabric.lb.adaptive_per_packet=true", NULL);
    double flowlet = ratio_of("flowlet", "ooo", NULL, NULL);
    CHECKF(spray > 0 && spray < 1.03, "spray + ooo at %.3f of the bound", spray);
    /* ECMP pays the collision penalty: 32 flows on 16 uplinks */
    CHECKF(ecmp > 1.5, "ecmp at %.3f of the bound", ecmp);
    CHECKF(adaptive > 0 && adaptive <= ecmp && adaptive < 1.1, "adaptive %.3f vs ecmp %.3f",
           adaptive, ecmp);
    CHECKF(flowlet > 0 && flowlet <= ecmp * 1.001, "flowlet %.3f vs ecmp %.3f", flowlet, ecmp);
}

static void spray_gbn_retransmits(void)
{
    struct results gbn, ooo;
    memset(&gbn, 0, sizeof gbn);
    memset(&ooo, 0, sizeof ooo);
    double g = ratio_of("spray", "gbn", "fabric.lb.spray_random=true", &gbn);
    double o = ratio_of("spray", "ooo", "fabric.lb.spray_random=true", &ooo);
    CHECK(gbn.retx_bytes > 0 && gbn.naks > 0 && gbn.reordered > 0);
    CHECK(ooo.retx_bytes == 0 && ooo.naks == 0 && ooo.reordered > 0);
    CHECKF(g > o, "spray+gbn %.3f should be slower than spray+ooo %.3f", g, o);
    /* goodput is every byte once; resends are extra */
    CHECK(gbn.bytes_delivered == ooo.bytes_delivered);
    results_release(&gbn);
    results_release(&ooo);
}

/* A flowlet timeout longer than any gap keeps every flow on its ECMP path:
 * every port carries the same bytes. */
static void flowlet_without_gaps_is_ecmp(void)
{
    struct scenario a, b;
    oversubscribed(&a, "ecmp", "gbn");
    oversubscribed(&b, "flowlet", "gbn");
    test_set(&a, "telemetry.ports=true");
    test_set(&b, "telemetry.ports=true");
    test_set(&b, "fabric.lb.flowlet_timeout=1000s");
    test_set(&b, "fabric.lb.flowlet_table=1048576");
    struct results ra, rb;
    CHECK(test_run(&a, &ra) == 0 && test_run(&b, &rb) == 0);
    int same = ra.n_ports == rb.n_ports && ra.n_ports > 0;
    for (uint32_t i = 0; same && i < ra.n_ports; i++)
        same = ra.ports[i].tx_bytes == rb.ports[i].tx_bytes;
    CHECK(same);
    CHECK(ra.completion_s == rb.completion_s);
    results_release(&ra);
    results_release(&rb);
    /* and a short timeout does move flows (the check can fail) */
    struct scenario c;
    oversubscribed(&c, "flowlet", "gbn");
    test_set(&c, "telemetry.ports=true");
    test_set(&c, "fabric.lb.flowlet_timeout=1ns");
    test_set(&c, "fabric.load_balancing=flowlet");
    struct results rc;
    oversubscribed(&a, "ecmp", "gbn");
    test_set(&a, "telemetry.ports=true");
    CHECK(test_run(&a, &ra) == 0 && test_run(&c, &rc) == 0);
    int differ = 0;
    for (uint32_t i = 0; i < ra.n_ports && i < rc.n_ports; i++)
        differ += ra.ports[i].tx_bytes != rc.ports[i].tx_bytes;
    CHECK(differ > 0);
    results_release(&ra);
    results_release(&rc);
}

static void failed_links_deliver(void)
{
    const char *schemes[] = {"ecmp", "wcmp"};
    for (int i = 0; i < 2; i++) {
        struct scenario sc;
        oversubscribed(&sc, schemes[i], "gbn");
        test_set(&sc, "fabric.failed_links=5");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s: %s", schemes[i], r.violation);
        CHECK(r.bytes_delivered == 64ull * 4000000);
        results_release(&r);
    }
}

/* Two parallel links per leaf-spine pair; one of spine 0's links into the
 * storage leaf is down: compute leaves weight spine 0 by half. */
static void wcmp_weights_follow_capacity(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "fabric.hosts_per_leaf=4");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "fabric.spines=4");
    test_set(&sc, "fabric.links_per_spine=2");
    test_set(&sc, "fabric.failed_link_names=sleaf0-spine0#1");
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct err e;
    CHECK(topo_build(&t, &sc, &a, &e) == 0);
    CHECK(t.n_failed == 1 && strcmp(t.failed_names, "sleaf0-spine0#1") == 0);
    const struct route *r = topo_route(&t, t.first_cleaf, t.first_sleaf);
    CHECK(r->cnt == 8); /* 2 links to each of 4 spines */
    unsigned half = 0, full = 0;
    for (uint32_t i = 0; i < r->cnt; i++) {
        uint32_t p = t.nh_ports[r->off + i];
        uint32_t spine = t.ports[t.ports[p].peer].node - t.first_spine;
        uint32_t w = t.nh_weight[r->off + i];
        if (spine == 0) {
            half += w == 200000;
        } else {
            full += w == 400000;
        }
    }
    CHECKF(half == 2 && full == 6, "half %u full %u", half, full);
    /* the spine itself has one link left toward the storage leaf */
    const struct route *rs = topo_route(&t, t.first_spine, t.first_sleaf);
    CHECK(rs->cnt == 1);
    arena_release(&a);
    /* unknown link names are refused with the key */
    test_set(&sc, "fabric.failed_link_names=sleaf3-spine0");
    arena_init(&a);
    CHECK(topo_build(&t, &sc, &a, &e) == -1);
    CHECK(strncmp(e.msg, "fabric.failed_link_names:", 25) == 0);
    arena_release(&a);
}

static void qps_per_writer_spreads(void)
{
    double one = ratio_of("ecmp", "gbn", NULL, NULL);
    double sixteen = ratio_of("ecmp", "gbn", "transport.qps_per_writer=16", NULL);
    CHECKF(sixteen < one, "16 QPs %.3f vs 1 QP %.3f", sixteen, one);
}

SUITE(suite_lb) = {
    {"ecmp_balls_in_bins", ecmp_balls_in_bins},
    {"ecmp_penalty_follows_collisions", ecmp_penalty_follows_collisions},
    {"lb_schemes_against_bound", lb_schemes_against_bound},
    {"spray_gbn_retransmits", spray_gbn_retransmits},
    {"flowlet_without_gaps_is_ecmp", flowlet_without_gaps_is_ecmp},
    {"failed_links_deliver", failed_links_deliver},
    {"wcmp_weights_follow_capacity", wcmp_weights_follow_capacity},
    {"qps_per_writer_spreads", qps_per_writer_spreads},
    {0, 0},
};
