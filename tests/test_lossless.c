/* Lossless fabric: dynamic thresholds, RED marking, PFC incast, pause
 * spreading onto victim flows, DCQCN convergence. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

/* N writers on one leaf, one spine, `storage` storage nodes on one leaf. */
static void star(struct scenario *sc, unsigned writers, unsigned storage)
{
    scenario_defaults(sc);
    test_set(sc, "fabric.allow_oversize=true"); /* one leaf for every writer */
    test_set(sc, "cluster.nodes=%u", writers);
    test_set(sc, "fabric.hosts_per_leaf=%u", writers);
    test_set(sc, "storage.nodes=%u", storage);
    test_set(sc, "fabric.storage_per_leaf=%u", storage);
    test_set(sc, "fabric.spines=1");
    test_set(sc, "telemetry.ports=true");
}

/* S congested lossy egress queues each settle at alpha*B/(1+alpha*S). */
static void dt_lossy(unsigned S, double alpha)
{
    struct scenario sc;
    star(&sc, 2 * S, S);
    test_set(&sc, "fabric.pfc.enabled=false");
    test_set(&sc, "fabric.mmu.reserve=0");
    test_set(&sc, "fabric.mmu.lossy_alpha=%g", alpha);
    test_set(&sc, "fabric.buffer=4MB");
    test_set(&sc, "fabric.uplink_speed=%uGbps", 800 * S); /* only storage ports congest */
    test_set(&sc, "workload.bytes_per_writer=4MB");
    /* while every writer still sends: go-back-N has no timeout, so a writer
     * whose last packets drop stalls, and the queues left then grow past the
     * threshold of S */
    test_set(&sc, "sim.time_limit=100us");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.drops_lossy > 0); /* queues were pushed to their threshold */
    double want = alpha * 4e6 / (1 + alpha * S);
    /* a packet's dip in the other queues lets one take up to alpha more:
     * the peak sits a packet or two over, a few at alpha = 8 */
    double mtu = (4096 + 82) * (2 + alpha * S / 8);
    int seen = 0;
    for (uint32_t i = 0; i < r.n_ports; i++) {
        if (r.ports[i].seg != PATH_STORAGE_NIC)
            continue;
        seen++;
        CHECKF(fabs((double)r.ports[i].max_queue - want) <= mtu,
               "S=%u alpha=%g: queue %llu vs %.0f", S, alpha,
               (unsigned long long)r.ports[i].max_queue, want);
    }
    CHECK(seen == (int)S);
    results_release(&r);
}

static void dt_threshold_lossy(void)
{
    dt_lossy(1, 1);
    dt_lossy(2, 1);
    dt_lossy(4, 1);
    dt_lossy(4, 8);
}

/* Lossless ingress: S congested priority groups are paused (XOFF) when
 * their shared use reaches alpha*pool/(1+alpha*S). */
static void dt_threshold_lossless(void)
{
    for (unsigned S = 2; S <= 8; S *= 2) {
        struct scenario sc;
        star(&sc, S, 1);
        test_set(&sc, "fabric.mmu.reserve=0");
        test_set(&sc, "fabric.buffer=8MB");
        test_set(&sc, "workload.bytes_per_writer=12MB");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        /* pool of the compute leaf: buffer minus the headroom of its S+1 ports */
        uint64_t h = scenario_headroom(&sc, 400000000000ull, 1000000);
        double pool = 8e6 - (double)(S + 1) * (double)h;
        double want = pool / (1.0 + S);
        unsigned seen = 0;
        for (uint32_t i = 0; i < r.n_ports; i++) {
            const struct port_result *p = &r.ports[i];
            /* ingress from writers: the leaf side of host links */
            if (p->node != sc.cluster.nodes + 1 || p->seg != PATH_REVERSE || !p->pause_tx)
                continue;
            seen++;
            /* XOFF/XON cycling keeps the PGs out of lockstep: one MTU holds
             * up to S = 4; at S = 8 the mean sits 2-3% under the formula,
             * as the order of same-time arrivals falls (pnet_tie) */
            double tol = S <= 4 ? 4178 : 0.03 * want;
            CHECKF(fabs(p->xoff_shared - want) <= tol, "S=%u: shared at XOFF %.0f vs %.0f",
                   S, p->xoff_shared, want);
        }
        CHECK(seen == S);
        results_release(&r);
    }
}

/* The real marking code against the RED curve at several depths. */
static void red_marking_fraction(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "fabric.ecn.pmax=0.2");
    struct pnet n;
    pnet_bare(&n, &sc);
    struct sw sw;
    memset(&sw, 0, sizeof sw);
    rng_init(&sw.ecn_rng, 5, RNG_ECN);
    struct port p;
    memset(&p, 0, sizeof p);
    p.kmin = 100000;
    p.kmax = 400000;
    const uint64_t depths[] = {50000, 100000, 175000, 250000, 325000, 400000, 500000};
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        p.q[3].bytes = depths[d];
        p.ecn_marked = 0;
        const int trials = 40000;
        for (int i = 0; i < trials; i++) {
            struct packet pk = {.kind = PK_DATA, .prio = 3, .payload = 4096};
            ecn_mark(&n, &sw, &p, &pk);
        }
        double want = red_probability(depths[d], p.kmin, p.kmax, 0.2);
        double got = (double)p.ecn_marked / trials;
        double sd = sqrt(want * (1 - want) / trials);
        CHECKF(fabs(got - want) <= 4 * sd + 1e-12, "q=%llu: %.4f vs %.4f",
               (unsigned long long)depths[d], got, want);
    }
    CHECK(red_probability(100000, 100000, 400000, 0.2) == 0.0);
    CHECK(fabs(red_probability(250000, 100000, 400000, 0.2) - 0.1) < 1e-12);
    CHECK(red_probability(400001, 100000, 400000, 0.2) == 1.0);
}

/* N:1 incast, PFC only: line rate x wire efficiency, no drops, each sender
 * paused about (1 - 1/N) of the time. */
static void incast_pfc(unsigned N, const char *buffer, const char *bytes)
{
    struct scenario sc;
    star(&sc, N, 1);
    test_set(&sc, "fabric.buffer=%s", buffer);
    test_set(&sc, "workload.bytes_per_writer=%s", bytes);
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.drops == 0);
    double goodput = (double)r.bytes_delivered * 8 / r.completion_s;
    double want = 400e9 * 4096.0 / (4096 + 82);
    CHECKF(fabs(goodput / want - 1) < 0.01, "N=%u goodput %.4g vs %.4g", N, goodput, want);
    double sum = 0, lo = 1, hi = 0;
    for (uint32_t i = 0; i < N; i++) {
        /* host i's NIC port, while it had data to send */
        double f = r.ports[i].active_paused_s / r.ports[i].active_s;
        sum += f;
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
    }
    double expect = 1.0 - 1.0 / N;
    CHECKF(fabs(sum / N - expect) < 0.03, "N=%u mean paused %.3f vs %.3f", N, sum / N, expect);
    CHECKF(hi - lo < 0.1, "N=%u paused fraction spread %.3f..%.3f", N, lo, hi);
    results_release(&r);
}

static void pfc_incast_line_rate(void)
{
    incast_pfc(8, "4MB", "4MB");
    incast_pfc(32, "8MB", "2MB");
    incast_pfc(127, "32MB", "1MB");
}

/* Headroom sized for a shorter cable than the link really is: the lossless
 * check must fail loudly. */
static void pfc_headroom_too_small_fails_loudly(void)
{
    struct scenario sc;
    star(&sc, 16, 1);
    test_set(&sc, "fabric.link_delay=20us");
    test_set(&sc, "fabric.cable_length=1");
    test_set(&sc, "fabric.buffer=8MB");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(!r.ok);
    CHECK(r.drops_lossless > 0);
    CHECK(strstr(r.violation, "lossless") != NULL);
    results_release(&r);
}

/* Victim: host V on the incast's leaf writes to an idle storage node. With
 * PFC in the same class, pauses aimed at the incast stop it too. */
static double victim_slowdown(int victim_prio, const char *lossless)
{
    struct scenario sc;
    star(&sc, 9, 2);
    test_set(&sc, "fabric.uplink_speed=3200Gbps"); /* only the incast's storage NIC congests */
    test_set(&sc, "fabric.pfc.priorities=%s", lossless);
    test_set(&sc, "fabric.buffer=8MB");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    struct err e;
    CHECK(scenario_resolve(&sc, &e) == 0);
    struct arena a;
    arena_init(&a);
    struct topo t;
    CHECK(topo_build(&t, &sc, &a, &e) == 0);
    struct transfer x[9];
    memset(x, 0, sizeof x);
    for (int i = 0; i < 9; i++) {
        x[i].src = (uint32_t)i;
        x[i].writer = (uint32_t)i;
        x[i].dst = t.first_storage + (i == 8);  /* host 8 is the victim */
        x[i].bytes = i == 8 ? 8000000 : 2000000;
        x[i].sport = (uint16_t)(50000 + i);
    }
    x[8].prio = (uint8_t)(victim_prio + 1);
    struct workload w;
    memset(&w, 0, sizeof w);
    w.xfers = x;
    w.n = w.n_writers = 9;
    w.total_bytes = 24000000;
    struct results r;
    memset(&r, 0, sizeof r);
    CHECK(pkt_run(&sc, &t, &w, &r, &e) == 0);
    /* alone: its wire bytes at 400G plus the path (4 links, 3 switches) */
    double ideal = 8000000.0 * 4178 / 4096 * 8 / 400e9 + 5.75e-6;
    double v = r.n_writer_s == 9 ? r.writer_s[8] / ideal : -1;
    CHECK(r.drops_lossless == 0);
    results_release(&r);
    arena_release(&a);
    return v;
}

static void pfc_victim_flow(void)
{
    double same = victim_slowdown(3, "3");       /* same lossless class */
    double lossy = victim_slowdown(0, "3");      /* separate lossy class */
    double other = victim_slowdown(4, "3,4");    /* separate lossless class */
    CHECKF(same > 1.5, "victim in the incast's class: %.2fx ideal", same);
    CHECKF(lossy > 0 && lossy < 1.1, "victim in a lossy class: %.2fx ideal", lossy);
    CHECKF(other > 0 && other < 1.1, "victim in its own lossless class: %.2fx ideal", other);
}

/* DCQCN N:1: per-flow throughput over the second half within 10% of fair
 * share, the bottleneck queue around Kmin..Kmax (not at the PFC threshold),
 * far less pause than PFC alone. */
static void dcqcn_incast(unsigned N, const char *bytes)
{
    struct scenario sc;
    star(&sc, N, 1);
    test_set(&sc, "workload.bytes_per_writer=%s", bytes);
    test_set(&sc, "telemetry.interval=20us");
    test_set(&sc, "telemetry.flows=true");
    struct results pfc, dc;
    CHECK(test_run(&sc, &pfc) == 0);
    test_set(&sc, "transport.cc=dcqcn");
    CHECK(test_run(&sc, &dc) == 0);
    CHECKF(dc.ok, "%s", dc.violation);
    CHECK(dc.cnps_received > 0 && dc.rate_decreases > 0 && dc.ecn_marked > 0);
    uint32_t k = dc.n_samples, nf = dc.n_sample_flows;
    CHECK(k > 20 && nf == N);
    /* window: from half the run to the last sample before any flow ends */
    uint32_t a = k / 2, b = a;
    for (uint32_t i = a; i < k; i++) {
        int all = 1;
        for (uint32_t f = 0; f < nf; f++)
            all &= dc.sample_rate[(size_t)i * nf + f] > 0;
        if (!all)
            break;
        b = i;
    }
    CHECKF(b > a + 10, "window %u..%u of %u", a, b, k);
    double span = dc.sample_t[b] - dc.sample_t[a], total = 0;
    for (uint32_t f = 0; f < nf; f++)
        total += (double)(dc.sample_delivered[(size_t)b * nf + f] -
                          dc.sample_delivered[(size_t)a * nf + f]);
    double fair = total / N;
    for (uint32_t f = 0; f < nf && span > 0; f++) {
        double got = (double)(dc.sample_delivered[(size_t)b * nf + f] -
                              dc.sample_delivered[(size_t)a * nf + f]);
        CHECKF(fabs(got / fair - 1) < 0.10, "N=%u flow %u: %.3f of fair share", N, f, got / fair);
    }
    /* the link stays busy in the window */
    CHECKF(total * 8 / span > 0.8 * 400e9 * 4096 / 4178, "N=%u window throughput %.3g",
           N, total * 8 / span);
    double qsum = 0;
    uint64_t qmax = 0;
    for (uint32_t i = a; i <= b; i++) {
        qsum += (double)dc.sample_max_queue[i];
        qmax = dc.sample_max_queue[i] > qmax ? dc.sample_max_queue[i] : qmax;
    }
    double kmax = 400000.0 * 16; /* 400G: 6.4 MB */
    CHECKF(qsum / (b - a + 1) < kmax, "N=%u mean queue %.0f", N, qsum / (b - a + 1));
    CHECKF((double)qmax < 2 * kmax, "N=%u max queue in window %llu", N, (unsigned long long)qmax);
    CHECKF(dc.paused_s < 0.2 * pfc.paused_s, "N=%u paused %.3g vs PFC only %.3g", N,
           dc.paused_s, pfc.paused_s);
    /* completion: never under the bound; the first cut halves every flow and
     * recovery takes a few timer periods, so allow a quarter over it
     * (measured: 2:1 121%, 16:1 115%) */
    CHECKF(dc.completion_s >= dc.bound_s * (1 - 1e-9) && dc.completion_s < 1.25 * dc.bound_s,
           "N=%u completion %.6g s vs bound %.6g s", N, dc.completion_s, dc.bound_s);
    CHECKF(pfc.completion_s < 1.01 * pfc.bound_s, "N=%u PFC only %.6g s vs bound %.6g s", N,
           pfc.completion_s, pfc.bound_s);
    results_release(&pfc);
    results_release(&dc);
}

static void dcqcn_incast_converges(void)
{
    dcqcn_incast(2, "60MB");
    dcqcn_incast(16, "40MB");
}

/* transport.dcqcn.cnp_path direct: one writer at 400G into a 300G storage
 * NIC, one CNP (interval 1 s), whose cut takes the writer below the
 * bottleneck, so the completion moves with the CNP's arrival (by whole
 * packets: the writer's next packet counts from its last). On this idle
 * reverse path direct and fabric CNPs must give the same completion: two
 * tiers (4 links, 3 switches) and three (6 links, 5 switches). The latency
 * itself, to the picosecond: dcqcn_cnp_direct_sum. */
static void dcqcn_cnp_direct_latency(void)
{
    for (int tiers = 2; tiers <= 3; tiers++) {
        struct scenario sc;
        if (tiers == 3) {
            test_small_clos(&sc);
        } else {
            scenario_defaults(&sc);
        }
        test_set(&sc, "cluster.nodes=1");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "storage.nic_speed=300Gbps");
        test_set(&sc, "workload.bytes_per_writer=4MB");
        test_set(&sc, "transport.cc=dcqcn");
        test_set(&sc, "fabric.ecn.kmin=8KB");
        test_set(&sc, "fabric.ecn.kmax=16KB");
        test_set(&sc, "transport.dcqcn.cnp_interval=1s");
        test_set(&sc, "transport.dcqcn.cnp_path=fabric");
        struct results hop, direct;
        CHECK(test_run(&sc, &hop) == 0);
        test_set(&sc, "transport.dcqcn.cnp_path=direct");
        CHECK(test_run(&sc, &direct) == 0);
        CHECKF(hop.ok && direct.ok, "%s / %s", hop.violation, direct.violation);
        CHECK(hop.cnps_received == 1 && direct.cnps_received == 1 && direct.rate_decreases == 1);
        CHECKF(hop.completion_s > 1.2 * hop.bound_s, "%u tiers: the cut did not matter (%.9g s)",
               tiers, hop.completion_s);
        /* (a direct CNP 100 ns late moves it by 83 ns, a packet's time) */
        CHECKF(direct.completion_s == hop.completion_s, "%u tiers: direct %.15g s, fabric %.15g s",
               tiers, direct.completion_s, hop.completion_s);
        results_release(&hop);
        results_release(&direct);
    }
}

/* The direct CNP latency by hand: storage NIC at 300G, the rest at 400G,
 * 98-byte CNPs (1960 ps at 400G, 2613.3 at 300G), 1 us links; switch
 * latencies set apart so a leaf counted as a spine shows. */
static void dcqcn_cnp_direct_sum(void)
{
    for (int tiers = 2; tiers <= 3; tiers++) {
        struct scenario sc;
        if (tiers == 3)
            test_small_clos(&sc);
        else
            scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=1");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "storage.nic_speed=300Gbps");
        test_set(&sc, "fabric.link_delay=1us");
        struct err e = {{0}};
        CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
        sc.fabric.leaf_latency_ps = 700000;
        sc.fabric.spine_latency_ps = 900000;
        struct arena a;
        arena_init(&a);
        struct topo t;
        CHECKF(topo_build(&t, &sc, &a, &e) == 0, "%s", e.msg);
        /* storage NIC -> leaf -> spine (-> super-spine -> spine) -> leaf -> host */
        uint64_t links = tiers == 3 ? 6 : 4, spines = tiers == 3 ? 3 : 1;
        uint64_t want = links * 1000000 + 2613 + (links - 1) * 1960 + 2 * 700000 + spines * 900000;
        uint64_t got = pkt_cnp_direct_ps(&t, &sc, t.first_storage, 0, 49152);
        CHECKF(got == want, "%d tiers: %llu ps, by hand %llu", tiers, (unsigned long long)got,
               (unsigned long long)want);
        arena_release(&a);
    }
}

/* Direct CNPs on a burst: every CNP arrives, none crosses a port (events
 * per packet drop), the run keeps its invariants. */
static void dcqcn_cnp_direct_burst(void)
{
    struct scenario sc;
    star(&sc, 16, 1);
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "transport.cc=dcqcn");
    test_set(&sc, "transport.dcqcn.cnp_path=fabric");
    struct results hop, direct;
    CHECK(test_run(&sc, &hop) == 0);
    test_set(&sc, "transport.dcqcn.cnp_path=direct");
    CHECK(test_run(&sc, &direct) == 0);
    CHECKF(direct.ok, "%s", direct.violation);
    CHECK(direct.cnps_sent > 100 && direct.cnps_received == direct.cnps_sent);
    CHECKF(direct.events < hop.events, "%llu events direct, %llu through the fabric",
           (unsigned long long)direct.events, (unsigned long long)hop.events);
    CHECKF(fabs(direct.completion_s / hop.completion_s - 1) < 0.05, "direct %.6g s, fabric %.6g s",
           direct.completion_s, hop.completion_s);
    results_release(&hop);
    results_release(&direct);
}

/* transport.dcqcn.cnp_path auto (the default): direct where the reverse
 * paths carry only ACKs and CNPs, the fabric where training traffic shares
 * them or a capture must see the CNPs; the summary names the choice and why. */
static void dcqcn_cnp_path_auto(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    CHECK(sc.transport.dcqcn.cnp_path == CNP_AUTO);
    CHECK(!scenario_cnp_direct(&sc)); /* no DCQCN, no CNPs */
    test_set(&sc, "transport.cc=dcqcn");
    CHECK(scenario_cnp_direct(&sc) && !scenario_cnp_fabric_why(&sc));
    test_set(&sc, "training.traffic=collectives");
    CHECK(!scenario_cnp_direct(&sc) && strstr(scenario_cnp_fabric_why(&sc), "training"));
    test_set(&sc, "fabric.isolation=physical"); /* its own fabric: not on these paths */
    CHECK(scenario_cnp_direct(&sc));
    test_set(&sc, "training.traffic=none");
    test_set(&sc, "telemetry.pcap.ports=sleaf0-stor0");
    CHECK(!scenario_cnp_direct(&sc) && strstr(scenario_cnp_fabric_why(&sc), "pcap"));
    test_set(&sc, "telemetry.pcap.ports=none");
    test_set(&sc, "transport.dcqcn.cnp_path=fabric"); /* a choice stays a choice */
    CHECK(!scenario_cnp_direct(&sc));

    /* auto on an idle reverse path is direct, event for event */
    star(&sc, 16, 1);
    test_set(&sc, "workload.bytes_per_writer=1MB");
    test_set(&sc, "transport.cc=dcqcn");
    struct results au, direct, hop;
    CHECK(test_run(&sc, &au) == 0);
    test_set(&sc, "transport.dcqcn.cnp_path=direct");
    CHECK(test_run(&sc, &direct) == 0);
    test_set(&sc, "transport.dcqcn.cnp_path=fabric");
    CHECK(test_run(&sc, &hop) == 0);
    CHECKF(au.ok && au.cnps_received > 0, "%s", au.violation);
    CHECKF(au.events == direct.events && au.completion_s == direct.completion_s &&
               au.events < hop.events,
           "auto %llu events %.9g s, direct %llu, fabric %llu", (unsigned long long)au.events,
           au.completion_s, (unsigned long long)direct.events, (unsigned long long)hop.events);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    test_set(&sc, "transport.dcqcn.cnp_path=auto");
    report_summary(f, &sc, &au);
    fclose(f);
    CHECKF(buf && strstr(buf, "cnp_path auto: sent direct, the reverse paths carry only ACKs"),
           "%s", buf);
    free(buf);
    /* without DCQCN there are no CNPs: nothing said of their path */
    test_set(&sc, "transport.cc=none");
    f = open_memstream(&buf, &len);
    report_summary(f, &sc, &hop);
    fclose(f);
    CHECKF(buf && !strstr(buf, "cnp_path") && !strstr(buf, "(null)"), "%s", buf);
    free(buf);
    results_release(&au);
    results_release(&direct);
    results_release(&hop);
}

SUITE(suite_lossless) = {
    {"dt_threshold_lossy", dt_threshold_lossy},
    {"dt_threshold_lossless", dt_threshold_lossless},
    {"red_marking_fraction", red_marking_fraction},
    {"pfc_incast_line_rate", pfc_incast_line_rate},
    {"pfc_headroom_too_small_fails_loudly", pfc_headroom_too_small_fails_loudly},
    {"pfc_victim_flow", pfc_victim_flow},
    {"dcqcn_incast_converges", dcqcn_incast_converges},
    {"dcqcn_cnp_direct_latency", dcqcn_cnp_direct_latency},
    {"dcqcn_cnp_direct_sum", dcqcn_cnp_direct_sum},
    {"dcqcn_cnp_direct_burst", dcqcn_cnp_direct_burst},
    {"dcqcn_cnp_path_auto", dcqcn_cnp_path_auto},
    {0, 0},
};

/* A slow storage back end: the storage NIC pauses the fabric and the write
 * ends when the drain does. */
static void storage_drain_backpressure(void)
{
    struct scenario sc;
    star(&sc, 8, 1);
    test_set(&sc, "storage.drain_rate=100Gbps");
    test_set(&sc, "storage.ingest_buffer=2MB");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bound_limit == PATH_BACKEND);
    double drain = 32e6 * 8 / 100e9;
    CHECKF(r.completion_s >= drain && r.completion_s < drain * 1.02, "%.6g vs drain %.6g",
           r.completion_s, drain);
    CHECKF(r.completion_s <= r.bound_s * 1.02, "%.6g vs bound %.6g", r.completion_s, r.bound_s);
    /* the storage node's own port sent the pauses */
    uint32_t sp = sc.cluster.nodes; /* port of storage node 0 */
    CHECK(r.n_ports > sp && r.ports[sp].pause_tx > 0);
    results_release(&r);
}

/* A stuck storage node pauses its leaf port for good. Without the PFC
 * watchdog the storm spreads and stalls writes to its healthy neighbour;
 * with it, the stormed queue drops and the neighbour's writes finish. */
static void stuck_receiver(int watchdog, struct results *r, struct scenario *sc)
{
    star(sc, 8, 2);
    test_set(sc, "fabric.buffer=8MB");
    test_set(sc, "storage.stuck_nodes=1");
    test_set(sc, "storage.ingest_buffer=1MB");
    test_set(sc, "workload.bytes_per_writer=4MB");
    test_set(sc, "sim.time_limit=5ms");
    test_set(sc, "fabric.pfc.watchdog=%s", watchdog ? "true" : "false");
    test_set(sc, "fabric.pfc.watchdog_detect=200us");
    test_set(sc, "fabric.pfc.watchdog_restore=200us");
    CHECK(test_run(sc, r) == 0);
}

static void pfc_watchdog_breaks_storm(void)
{
    struct scenario sc;
    struct results r;
    stuck_receiver(0, &r, &sc);
    CHECK(!r.ok && strstr(r.violation, "time limit"));
    int healthy_done = 0;
    for (uint32_t i = 1; i < r.n_writer_s; i += 2) /* odd writers -> node 1 */
        healthy_done += r.writer_s[i] >= 0;
    CHECKF(healthy_done < 4, "without watchdog %d of 4 healthy writers finished", healthy_done);
    CHECK(r.pfc_storms == 0 && r.drops == 0);
    results_release(&r);

    stuck_receiver(1, &r, &sc);
    CHECK(!r.ok); /* the stuck node's writes are lost */
    CHECK(r.pfc_storms >= 1 && r.drops_watchdog > 0);
    healthy_done = 0;
    for (uint32_t i = 1; i < r.n_writer_s; i += 2)
        healthy_done += r.writer_s[i] >= 0;
    CHECKF(healthy_done == 4, "with watchdog %d of 4 healthy writers finished", healthy_done);
    results_release(&r);
}

/* storage.max_outstanding: one writer with a window of one 64 KiB request
 * sends a request per round trip (Lablup's NFS slot limit, in small). */
static void storage_outstanding_window(void)
{
    struct scenario sc;
    star(&sc, 1, 1);
    test_set(&sc, "workload.bytes_per_writer=8MiB");
    struct results free_run, win;
    CHECK(test_run(&sc, &free_run) == 0);
    test_set(&sc, "storage.max_outstanding=1");
    test_set(&sc, "storage.request_size=64KiB");
    CHECK(test_run(&sc, &win) == 0);
    CHECKF(win.ok, "%s", win.violation);
    /* per request: 16 packets out, the data path (4 links, 3 switches), the
     * ACK's way back */
    double ser = 4178 * 8 / 400e9, path = 4e-6 + 1.5e-6;
    double per_req = 16 * ser + path + 3 * ser + path + 3 * 98 * 8 / 400e9;
    double want = 128 * per_req;
    CHECKF(fabs(win.completion_s / want - 1) < 0.05, "windowed %.6g vs %.6g",
           win.completion_s, want);
    CHECK(win.completion_s > 5 * free_run.completion_s);
    CHECK(win.acks == 128 && win.window_stalls > 0 && free_run.acks == 0);
    results_release(&free_run);
    results_release(&win);
}

/* A request size that is not a whole number of packets (64KB = 15.6 packets
 * of 4096 B) once deadlocked: the packet that crossed into the next request
 * was held for the window, so the request never completed and was never
 * acknowledged. Every request size must finish, one request per round trip. */
static void storage_window_unaligned(void)
{
    static const char *const sizes[] = {"storage.request_size=64KB",
                                        "storage.request_size=10000B",
                                        "storage.request_size=4097B"};
    for (int i = 0; i < 3; i++) {
        struct scenario sc;
        star(&sc, 1, 1);
        test_set(&sc, "workload.bytes_per_writer=2MB");
        test_set(&sc, "storage.max_outstanding=1");
        test_set(&sc, "%s", sizes[i]);
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok && r.flows_done == 1, "%s: %s", sizes[i], r.violation);
        CHECK(r.acks > 0 && r.window_stalls > 0);
        results_release(&r);
    }
}

SUITE(suite_storage) = {
    {"storage_outstanding_window", storage_outstanding_window},
    {"storage_window_unaligned", storage_window_unaligned},
    {"storage_drain_backpressure", storage_drain_backpressure},
    {"pfc_watchdog_breaks_storm", pfc_watchdog_breaks_storm},
    {0, 0},
};
