/* engine: hybrid (src/pkt/hybrid.c): steady states fast-forwarded, against
 * the packet engine on the same scenario; the event queue's shift. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/evq.h"
#include "../src/pkt/pnet.h"
#include "../src/scenario/scenario.h"
#include "harness.h"
#include "support.h"

/* 8 writers of `mb` MB into one storage node: a long incast, steady once
 * the queues have filled (8 MB switch buffers keep the fill short). */
static void incast(struct scenario *sc, unsigned mb, int cc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=8");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.buffer=8MB");
    test_set(sc, "workload.bytes_per_writer=%uMB", mb);
    sc->transport.cc = cc;
}

static int run(struct scenario *sc, int engine, struct results *r)
{
    sc->engine = engine;
    int rc = test_run(sc, r);
    CHECKF(rc == 0 && r->ok && r->finished, "engine %d: %s", engine, r->violation);
    return rc;
}

static double rel(double a, double b)
{
    return fabs(a - b) / b;
}

/* The default scenario with keys set, under the packet engine (r[0]) and
 * hybrid (r[1]): 0 when both ran (then release both), else what ran is
 * released. */
static int both_engines(const char *const *keys, size_t nk, struct results r[2])
{
    struct scenario sc;
    scenario_defaults(&sc);
    for (size_t k = 0; k < nk; k++)
        test_set(&sc, "%s", keys[k]);
    int rc[2] = {run(&sc, ENGINE_PACKET, &r[0]), run(&sc, ENGINE_HYBRID, &r[1])};
    if (rc[0] == 0 && rc[1] == 0)
        return 0;
    for (int k = 0; k < 2; k++)
        if (rc[k] == 0)
            results_release(&r[k]);
    return -1;
}

/* Hybrid's bars against the packet engine (at: the case, for the
 * message): the completion within 1%, the pauses and the largest queue
 * within 5%. */
static void check_within(const struct results *h, const struct results *p, const char *at,
                         double queue)
{
    CHECKF(rel(h->completion_s, p->completion_s) < 0.01, "%shybrid %.9g s, packet %.9g s", at,
           h->completion_s, p->completion_s);
    CHECKF(rel(h->paused_s, p->paused_s) < 0.05, "%spaused %.6g s against %.6g s", at,
           h->paused_s, p->paused_s);
    CHECKF(rel((double)h->max_queue_bytes, (double)p->max_queue_bytes) < queue,
           "%smax queue %llu against %llu", at, (unsigned long long)h->max_queue_bytes,
           (unsigned long long)p->max_queue_bytes);
}

/* The bars with a large share of the time skipped (over 40%: the
 * 64-writer incast's paused rate drifts between its writers' ends, and the
 * drift bound keeps 43% of 58%). */
static void check_bars(const struct results *h, const struct results *p)
{
    CHECKF(h->hybrid.jumps >= 1 && h->hybrid.fraction > 0.4, "%u jumps, %.3f skipped",
           h->hybrid.jumps, h->hybrid.fraction);
    check_within(h, p, "", 0.05);
}

/* Both engines on keys: hybrid's completion within tol of packet's and
 * within its own error estimate, with at least jumps jumps; both released. */
static void against_packet(const char *const *keys, size_t nk, double tol, unsigned jumps)
{
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, nk, r))
        return;
    double err = fabs(r[1].completion_s - r[0].completion_s);
    CHECKF(r[1].hybrid.jumps >= jumps && rel(r[1].completion_s, r[0].completion_s) < tol &&
               err <= r[1].hybrid.error_s + 1e-12,
           "hybrid %.9g s (%u jumps, estimate %.3g s), packet %.9g s", r[1].completion_s,
           r[1].hybrid.jumps, r[1].hybrid.error_s, r[0].completion_s);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* Every byte of writers' transfers sent and delivered once, in whole
 * packets, none in flight or dropped, time monotone, each writer timed. */
static void check_conserved(const struct results *h, const struct scenario *sc, uint32_t writers)
{
    uint64_t all = writers * sc->workload.bytes_per_writer, mtu = scenario_wire(sc).payload;
    CHECKF(h->bytes_sent == all && h->bytes_delivered == all, "sent %llu, delivered %llu",
           (unsigned long long)h->bytes_sent, (unsigned long long)h->bytes_delivered);
    CHECKF(h->packets_delivered == writers * ((sc->workload.bytes_per_writer + mtu - 1) / mtu),
           "%llu packets delivered", (unsigned long long)h->packets_delivered);
    CHECK(h->bytes_in_flight == 0 && h->drops == 0 && h->time_monotone);
    CHECK(h->n_writer_s == writers);
}

/* 64 writers of 32 MB into one storage node through 16 MB buffers, run by
 * the packet engine into p and by hybrid into h; nonzero when either fails
 * (nothing left to release). */
static int incast64(struct scenario *sc, struct results *p, struct results *h)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=64");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.buffer=16MB");
    test_set(sc, "workload.bytes_per_writer=32MB");
    if (run(sc, ENGINE_PACKET, p))
        return 1;
    if (run(sc, ENGINE_HYBRID, h)) {
        results_release(p);
        return 1;
    }
    return 0;
}

/* The steady incast: most of the time skipped, completion within 1%, pause
 * time and the largest queue within 5% of the packet engine's. */
static void hybrid_steady_incast_within_1pct(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 64, CC_NONE);
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECK(h.engine == ENGINE_HYBRID && h.hybrid.on && !h.hybrid.why[0]);
        check_bars(&h, &p);
        /* the error estimate is an estimate, not zero, and bounds this case */
        CHECKF(h.hybrid.error_s > 0 && fabs(h.completion_s - p.completion_s) <= h.hybrid.error_s,
               "error estimate %.6g s, error %.6g s", h.hybrid.error_s,
               fabs(h.completion_s - p.completion_s));
        CHECK(h.hybrid.skipped_s > 0.5 * h.completion_s);
        results_release(&h);
    }
    results_release(&p);
}

/* A jump credits each port's counters that take reads only where they
 * can be nonzero: on the steady incast, 59% skipped, the mean shared use
 * at an XOFF (read once the port has sent one) within 10% of the packet
 * engine's (4.6%; with the sums not taken, -71%), and the ports' ECN
 * marks (read at switch ports only: +2.9%; not taken, -62%). */
static void hybrid_port_counters_credited(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 64, CC_NONE);
    test_set(&sc, "telemetry.ports=true");
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.fraction > 0.4, "%.3f skipped", h.hybrid.fraction);
        CHECK(h.ports && p.ports && h.n_ports == p.n_ports);
        double hs = 0, ps = 0;
        uint64_t hx = 0, px = 0, he = 0, pe = 0;
        for (uint32_t i = 0; h.ports && p.ports && i < p.n_ports; i++) {
            hs += h.ports[i].xoff_shared * (double)h.ports[i].pause_tx;
            hx += h.ports[i].pause_tx;
            ps += p.ports[i].xoff_shared * (double)p.ports[i].pause_tx;
            px += p.ports[i].pause_tx;
            he += h.ports[i].ecn_marked;
            pe += p.ports[i].ecn_marked;
        }
        CHECKF(pe >= 1000 && rel((double)he, (double)pe) < 0.1, "%llu ECN marks against %llu",
               (unsigned long long)he, (unsigned long long)pe);
        CHECKF(px >= 1000 && hx > 0 && rel(hs / (double)hx, ps / (double)px) < 0.1,
               "%llu XOFFs, shared %.0f B at one against %.0f B (%llu)", (unsigned long long)hx,
               hx ? hs / (double)hx : 0, px ? ps / (double)px : 0, (unsigned long long)px);
        /* the XOFF count keeps the packets' identities: every pause closes
         * by the end (XONs as many), the run's count is its ports', and
         * with refreshes as trains each frame sent is received (a jump
         * crediting them apart broke all three) */
        const struct results *e[] = {&p, &h};
        for (int k = 0; k < 2; k++) {
            uint64_t tx = 0;
            for (uint32_t i = 0; e[k]->ports && i < e[k]->n_ports; i++)
                tx += e[k]->ports[i].pause_tx;
            CHECKF(e[k]->pause_frames == tx && e[k]->resume_frames == tx &&
                       e[k]->pause_frames_rx == tx + e[k]->refresh_frames,
                   "%s: %llu XOFFs (ports %llu), %llu XONs, %llu refreshes, %llu received",
                   k ? "hybrid" : "packet", (unsigned long long)e[k]->pause_frames,
                   (unsigned long long)tx, (unsigned long long)e[k]->resume_frames,
                   (unsigned long long)e[k]->refresh_frames,
                   (unsigned long long)e[k]->pause_frames_rx);
        }
        /* the count itself is no steady state's: the packets' pauses
         * lengthen over the run (XOFFs 43 -> 17 a period, refreshes 0.3 ->
         * 6, the paused time flat), a jump carries the early pattern, so
         * hybrid's runs +52% while its paused time holds: the run says so */
        CHECKF(strstr(h.hybrid.estimated, "pfc frames (xoff, xon, refresh, received; the steady "
                                          "state does not set them") != NULL,
               "estimated: \"%s\"", h.hybrid.estimated);
        results_release(&h);
    }
    results_release(&p);
}

/* Every byte credited is a byte sent and delivered once, in whole packets:
 * the totals are exact, not estimates. */
static void hybrid_bytes_conserved(void)
{
    struct scenario sc;
    struct results h;
    incast(&sc, 64, CC_NONE);
    if (run(&sc, ENGINE_HYBRID, &h))
        return;
    uint64_t each = sc.workload.bytes_per_writer, mtu = scenario_wire(&sc).payload;
    CHECK(h.hybrid.jumps >= 1);
    CHECKF(h.bytes_sent == 8 * each && h.bytes_delivered == 8 * each,
           "sent %llu, delivered %llu, of %llu", (unsigned long long)h.bytes_sent,
           (unsigned long long)h.bytes_delivered, (unsigned long long)(8 * each));
    CHECK(h.bytes_in_flight == 0 && h.bytes_dropped == 0 && h.drops == 0);
    CHECKF(h.packets_delivered == 8 * ((each + mtu - 1) / mtu), "%llu packets delivered",
           (unsigned long long)h.packets_delivered);
    CHECK(h.time_monotone);
    results_release(&h);
}

/* The scenario under both engines: hybrid jumps, keeps its invariants and
 * its (save or restore) completion at or above its bound, within 0.1% of
 * the packet engine's. */
static void bound_kept(struct scenario *sc, int restore)
{
    struct results p, h;
    if (run(sc, ENGINE_PACKET, &p))
        return;
    if (run(sc, ENGINE_HYBRID, &h) == 0) {
        double c = restore ? h.restore.completion_s : h.completion_s;
        double b = restore ? h.restore.bound_s : h.bound_s;
        double pc = restore ? p.restore.completion_s : p.completion_s;
        CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.5 && (!restore || h.restore.ok),
               "%u jumps, %.3f skipped, restore ok %d", h.hybrid.jumps, h.hybrid.fraction,
               h.restore.ok);
        CHECKF(c >= b, "hybrid %.9g s under the bound %.9g s", c, b);
        CHECKF(rel(c, pc) < 0.001, "hybrid %.9g s, packet %.9g s", c, pc);
        results_release(&h);
    }
    results_release(&p);
}

/* Writers on 1 Gbps NICs, each alone on its link: a window counts 122 or
 * 123 of its 122.4 packets, and a jump at 123 beat the writer-NIC bound
 * (0.34% under it, four nodes; the run's invariants failed); a restore
 * from a storage node's 10 Gbps NIC was 0.043% under its own. The sender's
 * link caps the credit as the receiver's does. */
static void hybrid_slow_senders_keep_bound(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "cluster.nic_speed=1Gbps");
    bound_kept(&sc, 0);
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nic_speed=10Gbps");
    test_set(&sc, "checkpoint.phase=restore");
    bound_kept(&sc, 1);
}

/* A link full over both windows stays full over the jump, its whole-packet
 * rounding carried jump by jump: a writer alone on a 10 Gbps NIC counts 30
 * or 31 packets in its windows for 30.5, and crediting the count ran 1.5%
 * slow over five jumps; four writers into one 100 Gbps storage NIC, 0.22%
 * slow. Both within 0.1% of the packets. */
static void hybrid_full_links_stay_full(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "cluster.nic_speed=10Gbps");
    test_set(&sc, "storage.nic_speed=400Gbps");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "seed=3");
    bound_kept(&sc, 0);
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "cluster.nic_speed=100Gbps");
    test_set(&sc, "storage.nic_speed=100Gbps");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "seed=2");
    bound_kept(&sc, 0);
}

/* 32 writers at 100 Gbps into one 10 Gbps storage NIC: its senders' packets
 * queue in the fabric, and the first jump drains it while five of them still
 * send, none of their packets delivered in the windows. Their credit came
 * twice (a water-filled room, then the drain's), the second overwriting
 * the first: 365 packets short, +0.29%. Within 0.1% of the packets. */
static void hybrid_drain_with_senders_credits_all(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=32");
    test_set(&sc, "cluster.nic_speed=100Gbps");
    test_set(&sc, "storage.nic_speed=10Gbps");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "seed=1");
    bound_kept(&sc, 0);
}

/* A back end slower than its NIC behind a 1 MB ingest buffer: a jump
 * whose windows caught the buffer filling credited past its XOFF, the
 * level was clipped there and the clipped bytes never written (0.75% under
 * the back end's bound). The credits stop at the buffer's room plus what
 * the back end writes over the jump. */
static void hybrid_backend_buffer_keeps_bound(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "cluster.nic_speed=100Gbps");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nic_speed=10Gbps");
    test_set(&sc, "storage.drain_rate=2Gbps");
    test_set(&sc, "storage.ingest_buffer=1MB");
    test_set(&sc, "workload.bytes_per_writer=8MB");
    bound_kept(&sc, 0);
}

/* n 100 Gbps writers, two to a leaf's four ports, over two spines on
 * uplinks of speed up, into one 400 Gbps storage node, cc none: where the
 * switch links between the leaves, not the NICs, set the rate. */
static void two_spines(struct scenario *sc, int n, const char *up)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=%d", n);
    test_set(sc, "cluster.nic_speed=100Gbps");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "storage.nic_speed=400Gbps");
    test_set(sc, "transport.cc=none");
    test_set(sc, "fabric.allow_oversize=true");
    test_set(sc, "fabric.hosts_per_leaf=4");
    test_set(sc, "fabric.spines=2");
    test_set(sc, "fabric.uplink_speed=%s", up);
}

/* Sixteen writers on two nodes, hashed over two 25 Gbps uplinks, into one
 * storage node: the busier path sets the save (packets 112.5% of the
 * bound with WCMP, 137.6% with ECMP). Capped by its receivers' and
 * senders' links only, a jump after the other path drained gave its share
 * to the busier path's tails past its uplinks' rate (WCMP -8.3%, ECMP
 * -17.3%), and the restore finished under the compute-leaf uplinks' bound
 * (WCMP) or 1.9% early (ECMP). Each within 0.1% of the packets. */
static void hybrid_switch_links_cap_credit(void)
{
    static const char *const lb[] = {"fabric.load_balancing=wcmp", "fabric.load_balancing=ecmp"};
    for (int restore = 0; restore < 2; restore++)
        for (size_t i = 0; i < sizeof lb / sizeof lb[0]; i++) {
            struct scenario sc;
            two_spines(&sc, 2, "25Gbps");
            test_set(&sc, "workload.bytes_per_writer=4MB");
            test_set(&sc, "seed=2");
            test_set(&sc, "model.name=custom");
            test_set(&sc, "model.params=20000000");
            test_set(&sc, "checkpoint.writer_rule=dcp");
            test_set(&sc, "%s", lb[i]);
            if (restore)
                test_set(&sc, "checkpoint.phase=restore");
            bound_kept(&sc, restore);
        }
}

/* Three tiers, 32 writers' NICs over four 25 Gbps paths to one storage
 * node, the writers' tails draining from the leaves' queues. A jump that
 * credited each tail by its receiver's share gave one path's packets to
 * another (ECMP -13.0% save, -2.0% restore); capped at each path's rate
 * but filled by the windows' shares only, tails starved in the windows
 * (and paths whose queued packets ran out) left paths short (WCMP with
 * starts over 2 ms, +6.4%). Each within 0.1% of the packets. */
static void hybrid_drained_paths_stay_full(void)
{
    for (int v = 0; v < 4; v++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=8");
        test_set(&sc, "cluster.nics_per_node=4");
        test_set(&sc, "cluster.nic_speed=25Gbps");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "storage.nic_speed=400Gbps");
        test_set(&sc, "transport.cc=none");
        test_set(&sc, "workload.bytes_per_writer=16MB");
        test_set(&sc, "seed=3");
        test_set(&sc, "fabric.allow_oversize=true");
        test_set(&sc, "fabric.tiers=3");
        test_set(&sc, "fabric.leaves_per_pod=1");
        test_set(&sc, "fabric.hosts_per_leaf=4");
        test_set(&sc, "fabric.spines=4");
        test_set(&sc, "fabric.uplink_speed=25Gbps");
        test_set(&sc, "model.name=custom");
        test_set(&sc, "model.params=20000000");
        test_set(&sc, "checkpoint.writer_rule=dcp");
        if (v & 1) {
            test_set(&sc, "fabric.load_balancing=wcmp");
            test_set(&sc, "workload.start_jitter=2ms");
        }
        if (v & 2)
            test_set(&sc, "checkpoint.phase=restore");
        bound_kept(&sc, v >> 1);
    }
}

/* Sprayed writers (round robin a packet, the ooo receiver) over two
 * spines: no fixed path, so each hop's equal-cost links cap as one of
 * their summed rate. Eight writers finished under the spine -> storage
 * leaf bound (-0.058%, -0.014%) capped by the NICs only; two on 100 Gbps
 * uplinks ran +0.395% while a hop's two links had to count within one
 * packet of their rate to be full. Each within 0.1% of the packets. */
static void hybrid_sprayed_hops_cap_credit(void)
{
    static const struct {
        int nodes;
        const char *up;
    } v[] = {{8, "25Gbps"}, {8, "100Gbps"}, {2, "100Gbps"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        struct scenario sc;
        two_spines(&sc, v[i].nodes, v[i].up);
        test_set(&sc, "transport.receiver=ooo");
        test_set(&sc, "workload.bytes_per_writer=16MB");
        test_set(&sc, "fabric.load_balancing=spray");
        bound_kept(&sc, 0);
    }
}

/* 16 readers at 10 Gbps off one 100 Gbps storage NIC, jumps of 1.7
 * periods: each receiver's mean rounds to 3 packets a jump, 48 of the
 * NIC's 52, and the fill of a full sender link gave the 4 left only by
 * weight (none: a 16th of 4) and stopped there: 2.4% slow. A packet each
 * in turn: within 0.5% (+0.18%: the readers' ends, jumps this short). */
static void hybrid_full_sender_fills_by_packet(void)
{
    struct scenario sc;
    struct results p, h;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "cluster.nics_per_node=2");
    test_set(&sc, "cluster.nic_speed=10Gbps");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nic_speed=100Gbps");
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "checkpoint.phase=restore");
    test_set(&sc, "seed=3");
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 10, "%u jumps", h.hybrid.jumps);
        CHECKF(h.restore.completion_s >= h.restore.bound_s, "hybrid %.9g s, bound %.9g s",
               h.restore.completion_s, h.restore.bound_s);
        CHECKF(rel(h.restore.completion_s, p.restore.completion_s) < 0.005,
               "hybrid %.9g s, packet %.9g s", h.restore.completion_s, p.restore.completion_s);
        results_release(&h);
    }
    results_release(&p);
}

/* The out-of-order receiver without its held ring (lossless, cc none)
 * never moves its expected PSN, and a draining jump took packets already
 * delivered again: eight writers into one node failed byte conservation
 * (hybfuzz's wide 2 found it under every load balancing). Its highest PSN
 * seen bounds what a jump takes; ooo and uec within 0.1% of the packets. */
static void hybrid_ooo_receiver_conserves(void)
{
    static const char *const rv[] = {"ooo", "uec"};
    for (size_t i = 0; i < sizeof rv / sizeof rv[0]; i++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=8");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "transport.cc=none");
        test_set(&sc, "transport.receiver=%s", rv[i]);
        bound_kept(&sc, 0);
    }
}

/* Phase both: hybrid.* are the save's run; the read's own are the
 * restore's (they were lost: a restore that jumped reported nothing). */
static void hybrid_phase_both_reports_read(void)
{
    struct scenario sc;
    struct results h, s, v;
    two_spines(&sc, 2, "25Gbps");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "model.name=custom");
    test_set(&sc, "model.params=20000000");
    test_set(&sc, "checkpoint.writer_rule=dcp");
    test_set(&sc, "checkpoint.phase=both");
    if (run(&sc, ENGINE_HYBRID, &h))
        return;
    test_set(&sc, "checkpoint.phase=restore");
    if (run(&sc, ENGINE_HYBRID, &s) == 0) {
        CHECK(h.restore.hybrid_on && s.restore.hybrid_on);
        CHECKF(h.restore.hybrid_jumps == s.hybrid.jumps && s.hybrid.jumps >= 1 &&
                   h.restore.hybrid_fraction == s.hybrid.fraction &&
                   h.restore.hybrid_error_s == s.hybrid.error_s,
               "both: the read's %u jumps, %.6f; restore alone: %u, %.6f", h.restore.hybrid_jumps,
               h.restore.hybrid_fraction, s.hybrid.jumps, s.hybrid.fraction);
        results_release(&s);
    }
    test_set(&sc, "checkpoint.phase=save");
    if (run(&sc, ENGINE_HYBRID, &v) == 0) {
        CHECKF(h.hybrid.jumps == v.hybrid.jumps && h.hybrid.fraction == v.hybrid.fraction,
               "both: the save's %u jumps, %.6f; save alone: %u, %.6f", h.hybrid.jumps,
               h.hybrid.fraction, v.hybrid.jumps, v.hybrid.fraction);
        results_release(&v);
    }
    results_release(&h);
}

/* Two writers hashed onto one 25 Gbps uplink: a window counts 30 or 31 of
 * the 30.7 packets it carries, the jumps' credits at the windows' count
 * ran past its rate (seed 3: under the uplinks' bound) and, capped at
 * that rate, short of it where the windows counted 30 (seed 1, 16 MB:
 * +0.15%). A switch link full over both windows is full over the jump,
 * as the NICs' are. Each within 0.1% of the packets. */
static void hybrid_full_switch_link_stays_full(void)
{
    for (int i = 0; i < 2; i++) {
        struct scenario sc;
        two_spines(&sc, 2, "25Gbps");
        test_set(&sc, "seed=%d", i ? 3 : 1);
        test_set(&sc, "workload.bytes_per_writer=%s", i ? "4MB" : "16MB");
        bound_kept(&sc, 0);
    }
}

/* Flowlets over go-back-N: the packets' paths move, arrive out of order,
 * are discarded and resent (1.6 GB resent of 256 MB), which no jump
 * carries (its bytes were not conserved): hybrid runs it as the packet
 * engine, saying why. */
static void hybrid_reordering_runs_as_packet(void)
{
    struct scenario sc;
    struct results p, h;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=4");
    test_set(&sc, "cluster.nics_per_node=2");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nic_speed=100Gbps");
    test_set(&sc, "fabric.uplink_speed=100Gbps");
    test_set(&sc, "fabric.load_balancing=flowlet");
    test_set(&sc, "workload.start_jitter=2ms");
    test_set(&sc, "workload.bytes_per_writer=64MB");
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECK(h.hybrid.jumps == 0);
        CHECKF(strstr(h.hybrid.why, "load_balancing") != NULL, "why: %s", h.hybrid.why);
        CHECK(h.completion_s == p.completion_s && h.events == p.events);
        results_release(&h);
    }
    results_release(&p);
}

/* Writers starting over the first 4 ms: no jump crosses a start (a start
 * left behind would run back in time: time_monotone); the completion within
 * 1% of the packet engine's, each writer's time within 5% (a writer's
 * share of a PFC-paused link is noisy, the sum is not). */
static void hybrid_staggered_starts_never_jumped(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 64, CC_NONE);
    sc.workload.start_jitter_ps = UINT64_C(4000000000); /* 4 ms */
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 1, "%u jumps", h.hybrid.jumps);
        CHECK(h.time_monotone);
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECK(h.n_writer_s == p.n_writer_s);
        for (uint32_t i = 0; i < h.n_writer_s && i < p.n_writer_s; i++)
            CHECKF(rel(h.writer_s[i], p.writer_s[i]) < 0.05, "writer %u: %.9g s against %.9g s",
                   i, h.writer_s[i], p.writer_s[i]);
        results_release(&h);
    }
    results_release(&p);
}

/* DCQCN: rates carried over the jump (its timers moved with the clock). */
static void hybrid_dcqcn_within_1pct(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 128, CC_DCQCN);
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.05, "%u jumps, %.3f skipped",
               h.hybrid.jumps, h.hybrid.fraction);
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECK(h.cnps_sent > 0);
        /* every CNP sent is received, in both engines (a jump crediting the
         * two apart: 2,839 sent, 2,840 received) */
        CHECKF(h.cnps_received == h.cnps_sent && p.cnps_received == p.cnps_sent,
               "CNPs sent / received: hybrid %llu / %llu, packet %llu / %llu",
               (unsigned long long)h.cnps_sent, (unsigned long long)h.cnps_received,
               (unsigned long long)p.cnps_sent, (unsigned long long)p.cnps_received);
        results_release(&h);
    }
    results_release(&p);
}

/* DCQCN's first cuts (its alpha starts at 1) dip a receiver's periods
 * under its links' rate for tens of ms while it runs at that rate between
 * them, and the packets keep it after: a first jump at the windows' mean
 * credited 2.4-4% under it, hybrid ended late by more than its own estimate
 * (hybfuzz cases 100, 120, 197: +2.29%, +1.05%, +0.94% against estimates of
 * 2.27%, 0.62%, 0.56%). A receiver whose links carried their rate in a
 * period of the windows is credited that rate: within 0.5% and within the
 * estimate. */
static void hybrid_dcqcn_receiver_credited_line_rate(void)
{
    static const char *const cases[][6] = {
        {"cluster.nodes=1", "cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps",
         "storage.nodes=2", "checkpoint.phase=save", "seed=3"},
        {"cluster.nodes=3", "cluster.nic_speed=25Gbps", "storage.nic_speed=100Gbps",
         "storage.nodes=2", "checkpoint.phase=restore", "seed=1"},
        {"cluster.nodes=2", "cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps",
         "storage.nodes=2", "checkpoint.phase=save", "seed=1"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct scenario sc;
        struct results p, h;
        scenario_defaults(&sc);
        for (int k = 0; k < 6; k++)
            test_set(&sc, "%s", cases[c][k]);
        test_set(&sc, "transport.cc=dcqcn");
        test_set(&sc, "workload.bytes_per_writer=64MB");
        test_set(&sc, "sim.threads=1");
        if (run(&sc, ENGINE_PACKET, &p))
            return;
        if (run(&sc, ENGINE_HYBRID, &h) == 0) {
            double pc = p.completion_s, hc = h.completion_s;
            CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.2,
                   "case %zu: %u jumps, %.3f skipped", c, h.hybrid.jumps, h.hybrid.fraction);
            CHECKF(rel(hc, pc) < 0.005 && fabs(hc - pc) <= h.hybrid.error_s,
                   "case %zu: hybrid %.9g s, packet %.9g s, estimate %.6g s", c, hc, pc,
                   h.hybrid.error_s);
            results_release(&h);
        }
        results_release(&p);
    }
}

/* The PFC frame counts' own error estimate covers their error against the
 * packet engine's: the 8-writer incast at 64 MB jumps 59% while its pause
 * pattern relaxes (XOFFs 43 -> 17 a period, refreshes 0.3 -> 6-8), so
 * hybrid's XOFFs run ~50% high and its refreshes ~75% low. */
static void hybrid_frames_estimate_covers(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 64, CC_NONE);
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        const struct hybrid_figures *e = &h.hybrid;
        CHECKF(e->jumps >= 1 && e->fraction > 0.4, "%u jumps, %.3f skipped", e->jumps, e->fraction);
        double dx = fabs((double)h.pause_frames - (double)p.pause_frames);
        double dr = fabs((double)h.refresh_frames - (double)p.refresh_frames);
        /* in frames and as a share of the packets' count; XONs are XOFFs */
        CHECKF(dx > 0.2 * (double)p.pause_frames && e->pause_frames_error >= dx &&
                   e->pause_frames_error_fraction >= dx / (double)p.pause_frames &&
                   e->pause_frames_error_fraction < 3 * dx / (double)p.pause_frames,
               "XOFFs %llu against %llu: estimate %.0f (%.3g)", (unsigned long long)h.pause_frames,
               (unsigned long long)p.pause_frames, e->pause_frames_error,
               e->pause_frames_error_fraction);
        CHECKF(p.refresh_frames > 50 && e->refresh_frames_error >= dr &&
                   e->refresh_frames_error_fraction >= dr / (double)p.refresh_frames,
               "refreshes %llu against %llu: estimate %.0f (%.3g)",
               (unsigned long long)h.refresh_frames, (unsigned long long)p.refresh_frames,
               e->refresh_frames_error, e->refresh_frames_error_fraction);
        results_release(&h);
    }
    /* no jump (nothing within a tolerance this tight): none, the pauses
     * the packets' */
    test_set(&sc, "sim.hybrid.tolerance=0.001");
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps == 0 && h.pause_frames == p.pause_frames &&
                   h.hybrid.pause_frames_error == 0 &&
                   h.hybrid.refresh_frames_error == 0,
               "%u jumps: estimates %.0f, %.0f", h.hybrid.jumps, h.hybrid.pause_frames_error,
               h.hybrid.refresh_frames_error);
        results_release(&h);
    }
    results_release(&p);
}

/* A transport whose state it cannot carry (TCP's windows and ACK clock):
 * the packet engine's run exactly, saying why. */
static void hybrid_unsupported_runs_as_packet(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 4, CC_DCQCN);
    test_set(&sc, "fabric.pfc.watchdog=true");
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECK(h.hybrid.jumps == 0 && h.hybrid.fraction == 0);
        CHECKF(strstr(h.hybrid.why, "watchdog") != NULL, "why: %s", h.hybrid.why);
        CHECK(h.completion_s == p.completion_s && h.events == p.events);
        CHECK(h.pause_frames == p.pause_frames && h.max_queue_bytes == p.max_queue_bytes);
        results_release(&h);
    }
    results_release(&p);
}

static int keep_odd(const struct event *ev, void *ctx)
{
    (void)ctx;
    return ev->type & 1;
}

/* evq_shift: events near (the wheel) and far (rings, heap) move by d, those
 * kept stay; pops come in (time, seq) order. */
static void evq_shift_moves_all_but_kept(void)
{
    struct evq q;
    evq_init(&q);
    const uint64_t d = UINT64_C(5000000000); /* 5 ms: past the wheel's horizon */
    uint64_t t[] = {10, 2000, 2000, 70000000, 900, 3000000000, 40, 6000000000};
    unsigned n = sizeof t / sizeof t[0];
    for (unsigned i = 0; i < n; i++)
        CHECK(evq_push(&q, t[i], i, NULL, i) == 0);
    struct event ev;
    CHECK(evq_pop(&q, &ev) && ev.t == 10); /* the wheel's start moves past 0 */
    CHECK(evq_shift(&q, d, keep_odd, NULL) == 0);
    CHECK(evq_len(&q) == n - 1);
    uint64_t last = 0, lseq = 0;
    unsigned got = 0;
    while (evq_pop(&q, &ev)) {
        uint64_t want = t[ev.arg] + (ev.type & 1 ? 0 : d);
        CHECKF(ev.t == want, "event %u at %llu, want %llu", ev.arg, (unsigned long long)ev.t,
               (unsigned long long)want);
        CHECK(ev.t > last || (ev.t == last && ev.seq > lseq) || got == 0);
        last = ev.t;
        lseq = ev.seq;
        got++;
    }
    CHECK(got == n - 1);
    evq_release(&q);
}

/* 64 writers of 32 MB into one storage node through 16 MB buffers: the
 * buffers hold a large share of the data and the 64 shares of the one
 * bottleneck are noisy, while their sum runs at line rate. Judged steady on
 * that sum, most of the time is skipped, the completion within 1% and the
 * pauses and largest queue within 5%; every byte sent and delivered once.
 * (Judged per transfer: 1 jump, 2.1% skipped.) */
static void hybrid_many_flow_incast(void)
{
    struct scenario sc;
    struct results p, h;
    if (incast64(&sc, &p, &h))
        return;
    check_bars(&h, &p);
    CHECKF(fabs(h.completion_s - p.completion_s) <= h.hybrid.error_s,
           "error estimate %.6g s, error %.6g s", h.hybrid.error_s,
           fabs(h.completion_s - p.completion_s));
    uint64_t all = 64 * sc.workload.bytes_per_writer;
    CHECKF(h.bytes_sent == all && h.bytes_delivered == all, "sent %llu, delivered %llu",
           (unsigned long long)h.bytes_sent, (unsigned long long)h.bytes_delivered);
    CHECK(h.bytes_in_flight == 0 && h.drops == 0 && h.time_monotone);
    CHECK(h.n_writer_s == 64);
    results_release(&h);
    results_release(&p);
}

/* The 64-writer incast above: the paused time within 1% of the packet
 * engine's, and each writer's time within 12%. A writer that has sent its
 * last packet while others send keeps draining its queued packets at its
 * share over a jump (given to the senders, the first nine writers ended
 * 5.7 ms late, one 29% off, and the pauses ran 2.4% high). */
static void hybrid_incast_pauses_within_1pct(void)
{
    struct scenario sc;
    struct results p, h;
    if (incast64(&sc, &p, &h))
        return;
    CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.4, "%u jumps, %.3f skipped",
           h.hybrid.jumps, h.hybrid.fraction);
    CHECKF(rel(h.paused_s, p.paused_s) < 0.01, "paused %.6g s against %.6g s", h.paused_s,
           p.paused_s);
    CHECK(h.n_writer_s == p.n_writer_s);
    double worst = 0;
    for (uint32_t i = 0; i < h.n_writer_s && i < p.n_writer_s; i++)
        worst = fmax(worst, rel(h.writer_s[i], p.writer_s[i]));
    CHECKF(worst < 0.12, "a writer %.2f%% off", 100 * worst);
    results_release(&h);
    results_release(&p);
}

/* 16 writers of 16 MB into one storage node through 64 MB buffers: the
 * senders are done by 0.6 ms of 5.2, the rest is the queues draining at
 * the receiver's line rate. The drain is fast-forwarded (its packets taken
 * from the transfers' tails): most of the time skipped, the completion
 * within 1% and inside the error estimate, the pauses and largest queue
 * within 5%, every byte sent and delivered once. (Before the drain was
 * fast-forwarded: no jump, 0% skipped.) */
static void drain_incast(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.buffer=64MB");
    test_set(sc, "workload.bytes_per_writer=16MB");
}

static void hybrid_drain_fast_forwarded(void)
{
    struct scenario sc;
    struct results p, h;
    drain_incast(&sc);
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.5, "%u jumps, %.3f skipped",
               h.hybrid.jumps, h.hybrid.fraction);
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECKF(fabs(h.completion_s - p.completion_s) <= h.hybrid.error_s,
               "error estimate %.6g s, error %.6g s", h.hybrid.error_s,
               fabs(h.completion_s - p.completion_s));
        CHECKF(rel(h.paused_s, p.paused_s) < 0.05, "paused %.6g s against %.6g s", h.paused_s,
               p.paused_s);
        CHECKF(rel((double)h.max_queue_bytes, (double)p.max_queue_bytes) < 0.05,
               "max queue %llu against %llu", (unsigned long long)h.max_queue_bytes,
               (unsigned long long)p.max_queue_bytes);
        CHECKF(h.events < p.events, "%llu events against %llu", (unsigned long long)h.events,
               (unsigned long long)p.events);
        check_conserved(&h, &sc, 16);
        results_release(&h);
    }
    results_release(&p);
}

/* The same drain with the writers' starts spread over the first 6 ms: the
 * queues drain between starts, and the drain's jumps stop at the next start
 * (jumps at 4.36 and 4.89 ms end at the starts of 4.43 and 5.11 ms). A jump
 * past a start leaves the start behind the clock (time_monotone: the
 * hybrid loop checks the queue's head after each jump) and its writer
 * late: the last writer's time within 5% of the packet run's (with the
 * start limit removed: 1.99 ms against 1.52), every byte delivered once,
 * the completion within 1%. */
static void hybrid_drain_never_jumps_a_start(void)
{
    struct scenario sc;
    struct results p, h;
    drain_incast(&sc);
    sc.workload.start_jitter_ps = UINT64_C(6000000000); /* 6 ms */
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 3, "%u jumps", h.hybrid.jumps);
        CHECK(h.time_monotone);
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECKF(rel(h.writer_max_s, p.writer_max_s) < 0.05, "last writer %.9g s against %.9g s",
               h.writer_max_s, p.writer_max_s);
        uint64_t all = 16 * sc.workload.bytes_per_writer;
        CHECK(h.bytes_sent == all && h.bytes_delivered == all && h.bytes_in_flight == 0);
        results_release(&h);
    }
    results_release(&p);
}

/* A storage back end writing at 375 Gbps behind a 400 Gbps NIC
 * (storage.drain_rate): its ingest buffer fills by about 4% of what
 * arrives, steady enough to jump, and the last byte is written once the
 * level ahead of it is. A jump fills the level with the bytes it credits
 * and drains it at the back end's rate: the completion within 1% of the
 * packet run's (a level held still over the jumps: -2.9%). Skipped 47%
 * (62% before jumps were held within WATCH x the time watched). */
static void hybrid_ingest_level_filled(void)
{
    struct scenario sc;
    struct results p, h;
    incast(&sc, 64, CC_NONE);
    test_set(&sc, "storage.drain_rate=375Gbps");
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(h.hybrid.jumps >= 1 && h.hybrid.fraction > 0.4, "%u jumps, %.3f skipped",
               h.hybrid.jumps, h.hybrid.fraction);
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECKF(rel(h.writer_max_s, p.writer_max_s) < 0.01, "last writer %.9g s against %.9g s",
               h.writer_max_s, p.writer_max_s);
        CHECK(h.bytes_delivered == 8 * sc.workload.bytes_per_writer && h.time_monotone);
        results_release(&h);
    }
    results_release(&p);
}

/* A long incast (8 x 4 GB, a 0.67 s bound): the auto period is set by the
 * fabric's round trips, not 1/256 of the bound, so the first jump comes
 * after a few ms of packets and nearly all of it is skipped (88.8%; 92.1%
 * before jumps were held within WATCH x the time watched). */
static void hybrid_long_run_period_from_fabric(void)
{
    struct scenario sc;
    struct results h;
    incast(&sc, 4096, CC_NONE);
    if (run(&sc, ENGINE_HYBRID, &h))
        return;
    CHECKF(h.hybrid.period_s > 0 && h.hybrid.period_s < 0.5 * h.bound_s / 256,
           "period %.6g s, bound %.6g s", h.hybrid.period_s, h.bound_s);
    CHECKF(h.hybrid.fraction > 0.85, "%.3f skipped", h.hybrid.fraction);
    CHECK(h.bytes_delivered == 8 * sc.workload.bytes_per_writer && h.time_monotone);
    results_release(&h);
}

/* The reported error estimate adds the writers' shares' term to the
 * receivers' (docs/engine.md, "Hybrid"). 16 writers into one storage node
 * over 2 spines: ECMP gives the writers unequal shares, the one receiver
 * is steady while they are not. The receivers' term alone was 0.021 us
 * against a 1.4 us completion error (and the median writer 443 us off);
 * with the writers' term the estimate is 706 us. */
static void hybrid_estimate_counts_writers_shares(void)
{
    static const char *const keys[] = {"cluster.nodes=16", "storage.nodes=1", "fabric.buffer=8MB",
                                       "fabric.spines=2", "workload.bytes_per_writer=64MB"};
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    const struct hybrid_figures *hf = &r[1].hybrid;
    double err = fabs(r[1].completion_s - r[0].completion_s);
    CHECKF(hf->jumps >= 1 && hf->fraction > 0.5 && err <= hf->error_s,
           "%u jumps, %.3f skipped; error estimate %.6g s, error %.6g s", hf->jumps, hf->fraction,
           hf->error_s, err);
    results_release(&r[0]);
    results_release(&r[1]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The writers' completion at share q of them (sorted), of r's writers. */
static double writer_at(const struct results *r, double q)
{
    uint32_t n = 0;
    double *v = malloc((r->n_writer_s ? r->n_writer_s : 1) * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t i = 0; r->writer_s && i < r->n_writer_s; i++)
        if (r->writer_s[i] >= 0)
            v[n++] = r->writer_s[i];
    qsort(v, n, sizeof *v, cmp_double);
    double x = n ? v[(uint32_t)(q * (n - 1))] : -1;
    free(v);
    return x;
}

/* The default scenario with keys set under both engines: hybrid skips
 * over `skip` of the time, its writers' completion at shares qa and qb of
 * them within ta and tb of the packets', its completion within 1% and its
 * paused time within 5% (or both none). */
static void writers_within(const char *const *keys, size_t nk, double skip, double qa, double ta,
                           double qb, double tb)
{
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, nk, r))
        return;
    double a0 = writer_at(&r[0], qa), a1 = writer_at(&r[1], qa);
    double b0 = writer_at(&r[0], qb), b1 = writer_at(&r[1], qb);
    CHECKF(r[1].hybrid.jumps >= 1 && r[1].hybrid.fraction > skip, "%u jumps, %.3f skipped",
           r[1].hybrid.jumps, r[1].hybrid.fraction);
    CHECKF(rel(a1, a0) < ta && rel(b1, b0) < tb,
           "writers at %g: %.6g s against %.6g s; at %g: %.6g s against %.6g s", qa, a1, a0, qb,
           b1, b0);
    CHECKF(rel(r[1].completion_s, r[0].completion_s) < 0.01 &&
               (r[1].paused_s == r[0].paused_s || rel(r[1].paused_s, r[0].paused_s) < 0.05),
           "hybrid %.9g s, paused %.6g s; packet %.9g s, %.6g s", r[1].completion_s,
           r[1].paused_s, r[0].completion_s, r[0].paused_s);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* 128 writers into four storage nodes under NSCC: the writers' shares
 * start far apart (spread 0.75 of the mean at 2.4 ms) and close to 0.05 by
 * 8 ms. A jump in that carried each writer's share of the moment: the
 * first writer done at 13.3 ms where the packets' first is at 33.3 ms,
 * the tenth percentile 33% early. No jump while the shares move. */
static void hybrid_writers_shares_settle(void)
{
    static const char *const keys[] = {"transport.cc=nscc", "workload.bytes_per_writer=64MB"};
    writers_within(keys, sizeof keys / sizeof keys[0], 0.4, 0, 0.15, 0.1, 0.1);
}

/* 128 writers into four storage nodes under DCTCP: each writer's share of
 * its receiver scatters about the mean as noise (0.38 correlated half a
 * ms apart, 0.04 at 4 ms), and a jump that carried the windows' shares for
 * 11-16 ms put the tenth percentile writer 6.7% and the median 3.2% early
 * (jump_ops.shares_draw: 1.8% / 1.3%). */
static void hybrid_dctcp_shares_drawn(void)
{
    static const char *const keys[] = {"transport.cc=dctcp", "workload.bytes_per_writer=64MB"};
    writers_within(keys, sizeof keys / sizeof keys[0], 0.6, 0.1, 0.04, 0.5, 0.025);
}

/* 64 readers on 8 nodes at 10 Gbps off two 400 Gbps storage nodes under
 * DCQCN: the readers' links run full on a queue the rates far above them
 * keep, while the rates fall by a third each 10 ms, then rise back to line
 * rate at once and the pauses that follow cut the links to a third for
 * 25 ms. Hybrid held the rates over its jumps and never met that: 14.8%
 * fast. A trend in the senders' rates is no steady state: within 1%. */
static void hybrid_dcqcn_rates_trend_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=10Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=2", "transport.cc=dcqcn", "workload.bytes_per_writer=64MB",
        "checkpoint.phase=restore", "seed=2", "model.name=custom", "model.params=20000000",
        "checkpoint.writer_rule=dcp", "fabric.hosts_per_leaf=16", "fabric.spines=1",
        "fabric.allow_oversize=true"};
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    CHECKF(rel(r[1].completion_s, r[0].completion_s) < 0.01, "hybrid %.9g s (%u jumps), packet %.9g s",
           r[1].completion_s, r[1].hybrid.jumps, r[0].completion_s);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* DeepSpeed's skewed shards from two nodes at 100 Gbps into two storage
 * nodes of two 10 Gbps NICs under DCQCN: the last writer alone, its rate
 * recovering 0.17 Gbps a ms after its cuts; a 13 ms jump held it at
 * 6.6 Gbps and the writer ended 3.4% late, past the estimate. The jump
 * carries the rates along their trend: within 1% and the estimate. */
static void hybrid_dcqcn_rate_carried(void)
{
    static const char *const keys[] = {
        "cluster.nodes=2", "cluster.nic_speed=100Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=2", "storage.nics_per_node=2", "transport.cc=dcqcn",
        "workload.bytes_per_writer=4MB", "seed=3", "model.name=custom",
        "model.params=20000000", "checkpoint.writer_rule=deepspeed"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* Two readers at 400 Gbps behind one 400 Gbps uplink under DCQCN (three
 * tiers): the uplink runs at its rate but for a cut's dip to 340 Gbps in
 * the windows, and a jump credited their mean, 378 Gbps (+0.40%). A switch
 * link that carried its rate in a period of the windows is full over the
 * jump, as a receiver's links are (rx_line): within 0.25%. */
static void hybrid_dcqcn_switch_link_line_rate(void)
{
    static const char *const keys[] = {
        "cluster.nodes=2", "cluster.nic_speed=400Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=2", "transport.cc=dcqcn", "checkpoint.phase=restore", "seed=2",
        "model.name=custom", "model.params=20000000", "checkpoint.writer_rule=deepspeed",
        "fabric.hosts_per_leaf=2", "fabric.spines=1", "fabric.allow_oversize=true",
        "fabric.tiers=3", "fabric.leaves_per_pod=1"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.0025, 1);
}

/* A window transport (cc) over 16 writers into one storage node: most of
 * the time skipped (more than skip), completion within 1% and its
 * estimate, the largest queue within 5%, paused time within 5% (none:
 * none in either). */
static void window_within_bars(const char *cc, int none_paused, double skip)
{
    const char *keys[] = {"cluster.nodes=16", "storage.nodes=1", "workload.bytes_per_writer=64MB",
                          "fabric.buffer=16MB", cc};
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    double err = fabs(r[1].completion_s - r[0].completion_s);
    CHECKF(rel(r[1].completion_s, r[0].completion_s) < 0.01 && err <= r[1].hybrid.error_s,
           "%s: hybrid %.9g s (estimate %.3g s), packet %.9g s", cc, r[1].completion_s,
           r[1].hybrid.error_s, r[0].completion_s);
    CHECKF(none_paused ? r[0].paused_s == 0 && r[1].paused_s == 0
                       : rel(r[1].paused_s, r[0].paused_s) < 0.05,
           "%s: paused %.6g s, packet %.6g s", cc, r[1].paused_s, r[0].paused_s);
    CHECKF(rel((double)r[1].max_queue_bytes, (double)r[0].max_queue_bytes) < 0.05,
           "%s: max queue %llu against %llu", cc, (unsigned long long)r[1].max_queue_bytes,
           (unsigned long long)r[0].max_queue_bytes);
    CHECKF(r[1].rc_acks > 0 && r[1].hybrid.jumps >= 1 && r[1].hybrid.fraction > skip,
           "%s: %llu ACKs, %u jumps, %.3f skipped", cc, (unsigned long long)r[1].rc_acks,
           r[1].hybrid.jumps, r[1].hybrid.fraction);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* Swift: 16 writers into one storage node. A jump carries the windows,
 * the ACKs on their way and the send stamps renumbered with the data: the
 * bars, most of the time skipped (hybrid ran Swift as packet before). */
static void hybrid_swift_within_bars(void)
{
    window_within_bars("transport.cc=swift", 1, 0.6); /* (its queues under its target: no pause) */
}

/* Swift's coalesced ACKs across a renumbering: 32 writers at 100 Gbps
 * into one storage node. A writer's last packets, received before a jump
 * unacknowledged, waited on an ACK due from an ack_ratio-th PSN the jump
 * renumbered away; its window full, it never sent again and the run
 * stopped with one transfer short. */
static void hybrid_swift_acks_renumbered(void)
{
    static const char *const keys[] = {
        "cluster.nodes=32", "cluster.nic_speed=100Gbps", "storage.nic_speed=100Gbps",
        "storage.nodes=1", "transport.cc=swift", "workload.bytes_per_writer=16MB", "seed=1"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* Swift against a back end five times slower than its one 10 Gbps link:
 * the endpoint windows sit under a packet, each sender pacing a packet per
 * RTT / window, and jumps held those paces: 12.1% fast, past the 7.7%
 * estimate. No jump while a sender paces: within 1% and the estimate. */
static void hybrid_swift_paced_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=10Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=swift", "workload.bytes_per_writer=4MB",
        "storage.drain_rate=2Gbps", "storage.ingest_buffer=1MB"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 0);
}

/* NSCC, the second window transport a jump carries (its row in nscc.c):
 * the fill's pauses and the incast's queue at its target delay. */
static void hybrid_nscc_within_bars(void)
{
    /* (each sender's window fitted holds a few jumps: 59% skipped) */
    window_within_bars("transport.cc=nscc", 0, 0.5);
}

/* NSCC, 16 writers at 1 Gbps into one 10 Gbps node: the writers' shares
 * drift apart (the starved ones' windows falling) while the node's sum
 * holds; jumps carried the shares and ended 3.9% early, past the
 * estimate. Each sender's window fitted bounds the span
 * (jump_ops.sender_trend): within 1% and the estimate. */
static void hybrid_nscc_sender_trend(void)
{
    static const char *const keys[] = {
        "cluster.nodes=16", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=nscc", "workload.bytes_per_writer=16MB", "seed=1"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* HPCC: the acknowledged count, the update PSN and the last ACKed
 * packet's INT slot renumbered, the INT as stamped (a port's counters
 * move by the jump's credit, so the first comparison across a jump reads
 * its mean rate). */
static void hybrid_hpcc_within_bars(void)
{
    window_within_bars("transport.cc=hpcc", 1, 0.6); /* (its queues near empty: no pause) */
}

/* Hybrid's mean completion within bar of the packets' over twelve link
 * delays (995 to 1006 ns), with a jump at each, for a case whose shares
 * part (HPCC's senders narrower than their receiver): which writer falls
 * behind turns on a nanosecond, so one draw's error is mostly that
 * chance (below). */
static void means_within(const char *const *keys, size_t nk, double bar)
{
    double m[2] = {0, 0};
    uint32_t jumps = 0;
    for (int ns = 995; ns <= 1006; ns++) {
        struct scenario sc;
        struct results r[2];
        scenario_defaults(&sc);
        for (size_t k = 0; k < nk; k++)
            test_set(&sc, "%s", keys[k]);
        test_set(&sc, "fabric.link_delay=%dns", ns);
        if (run(&sc, ENGINE_PACKET, &r[0]))
            return;
        if (run(&sc, ENGINE_HYBRID, &r[1])) {
            results_release(&r[0]);
            return;
        }
        jumps += r[1].hybrid.jumps;
        for (int e = 0; e < 2; e++) {
            m[e] += r[e].completion_s / 12;
            results_release(&r[e]);
        }
    }
    CHECKF(jumps >= 12 && rel(m[1], m[0]) < bar,
           "hybrid's mean %.6g s against packet's %.6g s (%+.2f%%), %u jumps", m[1], m[0],
           (m[1] / m[0] - 1) * 100, jumps);
}

/* HPCC's senders' windows fitted (jump_ops.sender_trend): 16 writers at
 * 25 Gbps into one 100 Gbps node, whose windows part while their sum
 * holds. At 1 us links one draw ended 1.23% early with the shares
 * carried, 0.05% with the fit; over twelve link delays the packets'
 * completion varies by 0.32 ms (sd, 1.3%), the draw's error is that
 * chance, and the means: -1.0% without the fit, +0.8% with it. This bar
 * holds the means; the fit itself is checked below
 * (hybrid_hpcc_trend_carried fails without it: -7.0%). */
static void hybrid_hpcc_sender_trend(void)
{
    static const char *const keys[] = {
        "cluster.nodes=16", "cluster.nic_speed=25Gbps", "storage.nic_speed=100Gbps",
        "storage.nodes=1", "transport.cc=hpcc", "workload.bytes_per_writer=16MB", "seed=2"};
    means_within(keys, sizeof keys / sizeof keys[0], 0.015);
}

/* ... and carried along their trend: 8 writers at 25 Gbps into one 100
 * Gbps node, whose shares part for the whole run (one falling 10.4 -> 2.4
 * Gbps over 8 ms) while each jump's windows see a trend within tol (1 ns
 * more link delay: the packets' completion +0.55%, 1 ns less +5.7%).
 * Carried flat, hybrid's mean ended 4.1% early (each jump lost its span's
 * trend; without the fit 7.0%); carried along it, 0.2%. */
static void hybrid_hpcc_trend_carried(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=25Gbps", "storage.nic_speed=100Gbps",
        "storage.nodes=1", "transport.cc=hpcc", "workload.bytes_per_writer=16MB",
        "checkpoint.phase=save", "seed=3"};
    means_within(keys, sizeof keys / sizeof keys[0], 0.02);
}

/* HPCC, three writers at 10 Gbps into one 10 Gbps node, UEC's spraying
 * and trimming: windows near a packet take their additive steps a packet
 * apart, not a round trip, so the smallest falls to rmin over 5 ms and
 * the last writer crawls 1.7 ms once the others end. A jump that carried
 * the shares at 2 ms ended 12.5% early, past its 4.6% estimate; no jump
 * while a window is under two ACKs' packets (hpcc_held). */
static void hybrid_hpcc_small_window_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=3", "cluster.nic_speed=10Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=hpcc", "workload.bytes_per_writer=4MB",
        "transport.protocol=uec"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 0);
    /* without UEC's spray no window jumps, and the run says what held it */
    struct results r[2];
    if (both_engines(keys, sizeof keys / sizeof keys[0] - 1, r))
        return;
    CHECKF(r[1].hybrid.jumps == 0 && r[1].completion_s == r[0].completion_s &&
               strstr(r[1].hybrid.why, "steady windows held by HPCC windows under two ACKs'"),
           "%u jumps, why \"%s\"", r[1].hybrid.jumps, r[1].hybrid.why);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* ... unless that crawl (max_stage + 1 packets at rmin, 2 ms) is within
 * the error budget of the run's bound: 32 writers at 25 Gbps into one
 * 10 Gbps node (0.1 s), windows under two packets all along, jump within
 * 1% (held regardless, no jump; at scale, cluster-100k's scaled row under
 * HPCC took 112 s of packets instead of 19 s). */
static void hybrid_hpcc_small_windows_within_budget(void)
{
    static const char *const keys[] = {
        "cluster.nodes=32", "cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=hpcc", "workload.bytes_per_writer=4MB", "seed=2"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* TCP on a lossless class: 16 writers into one storage node, DCTCP and
 * CUBIC. A jump carries una and every segment mark with the delivered
 * segments, the clocks (timed segment, CUBIC's epoch, delayed ACKs) with
 * the time (hybrid ran TCP as packet before). */
static void hybrid_tcp_within_bars(void)
{
    window_within_bars("transport.cc=dctcp", 1, 0.3);
    window_within_bars("transport.cc=cubic", 0, 0.3);
}

/* A TCP writer held by its window beside writers held by their NICs:
 * 3 writers at 1 Gbps into one 10 Gbps node under DCTCP, one of them
 * stuck at a window of 2 segments (0.86 Gbps). The others' Reno windows
 * grow on while their NICs hold them, so their receiver's sum of windows
 * climbed; carried along that trend, the held writer's window left its
 * floor and the run ended 9.6% early. The level is the window only where
 * it bounds the segments out (tcp_level). */
static void hybrid_tcp_window_held_writer(void)
{
    static const char *const keys[] = {
        "cluster.nodes=3", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=dctcp", "workload.bytes_per_writer=16MB", "seed=1"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* TCP's resends (here reordering's: spray over a fabric with a link down,
 * so duplicate ACKs and fast retransmits on a lossless class) are no
 * steady state: no jump while a sender repairs (jump_ops.held) or a
 * resend fell in the windows. Jumped over, 5,117 fast retransmits, bytes
 * not conserved, +29.2%. */
static void hybrid_tcp_resends_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=25Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=4", "transport.cc=dctcp", "workload.bytes_per_writer=16MB", "seed=3",
        "fabric.allow_oversize=true", "fabric.hosts_per_leaf=2", "fabric.spines=4",
        "fabric.uplink_speed=25Gbps", "fabric.load_balancing=spray", "fabric.failed_links=1",
        "workload.start_jitter=200us", "storage.placement=hash", "model.name=custom",
        "model.params=20000000", "checkpoint.writer_rule=dcp"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 0);
}

/* NSCC's windows settle for a few ms after the start, each reader's link
 * short of its rate by the swings' gaps (8 readers at 10 Gbps from one
 * 400 Gbps storage node: 9.4-9.8 Gbps for 2.5 ms, then 9.8 throughout).
 * Credited the windows' mean, a jump at 1.8 ms held the readers 2.9%
 * short to the end, past the estimate; as DCQCN's cuts (jump_ops.cuts), a
 * link that reached its rate in a period of the windows is full. */
static void hybrid_nscc_readers_full(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=10Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=1", "transport.cc=nscc", "workload.bytes_per_writer=16MB",
        "checkpoint.phase=restore", "seed=1"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 1);
}

/* A window transport over out-of-order receivers (UEC's, sprayed over
 * four spines with one uplink down): each receiver's ring of PSNs held
 * past a gap moves with a jump's renumbering (nic_held_shift). Left in
 * place, the moved packets filled no gap: 109 of 193 transfers waited on
 * full windows for good. */
static void hybrid_window_ooo_rings_carried(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=25Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=4", "transport.cc=nscc", "workload.bytes_per_writer=16MB", "seed=3",
        "fabric.allow_oversize=true", "fabric.hosts_per_leaf=2", "fabric.spines=4",
        "fabric.uplink_speed=25Gbps", "fabric.load_balancing=spray", "fabric.failed_links=1",
        "workload.start_jitter=200us", "storage.placement=hash", "model.name=custom",
        "model.params=20000000", "checkpoint.writer_rule=dcp", "transport.receiver=uec"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.02, 1);
}

/* Swift with windows under ack_ratio packets (8 readers at 1 Gbps from
 * one 10 Gbps node): the packets keep a cycle of windows set by which
 * packets ask for their ACKs; a jump broke it into a slower fixed point
 * (+15.4%, past the estimate). No jump while a window is under ack_ratio:
 * within 1% (here the packet engine's run). */
static void hybrid_swift_ack_requests_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=swift", "checkpoint.phase=restore",
        "fabric.uplink_speed=100Gbps"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.01, 0);
}

/* Swift: 8 writers at 1 Gbps into two 400 Gbps storage nodes, windows of
 * a few packets. A jump started their ACK clock anew and the packets
 * after it stood a round trip off (45 us late against an estimate of
 * 28 us; the estimate since counts the longest round trip of a sender a
 * jump carried). Since session 49 windows under ack_ratio packets hold
 * the jump: no jump, the packet engine's run to the event. */
static void hybrid_swift_slow_writers_held(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=1Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=2", "transport.cc=swift", "workload.bytes_per_writer=4MB", "seed=1"};
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    CHECKF(r[1].hybrid.jumps == 0 && r[1].completion_s == r[0].completion_s &&
               r[1].events == r[0].events,
           "%u jumps, hybrid %.9g s, packet %.9g s", r[1].hybrid.jumps, r[1].completion_s,
           r[0].completion_s);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* A lone reader at 400 Gbps under Swift: its window climbs a packet a
 * round trip from its first 12 for most of the read. Jumps that held it
 * ran 0.99% late; the windows' trend holds a jump to tol of their sum and
 * carries them along it: within 0.25%. */
static void hybrid_swift_windows_trend(void)
{
    static const char *const keys[] = {
        "cluster.nodes=1", "cluster.nic_speed=400Gbps", "storage.nic_speed=400Gbps",
        "storage.nodes=1", "transport.cc=swift", "workload.bytes_per_writer=256MB",
        "checkpoint.phase=restore", "seed=2"};
    against_packet(keys, sizeof keys / sizeof keys[0], 0.0025, 1);
}

/* A jump credits whole packets, so the packets' run can stand a packet's
 * time apart from hybrid's after it: one writer at 25 Gbps into four
 * storage nodes of 10 Gbps, and the restore of one node at 10 Gbps from a
 * 400 Gbps one, ended 1.5 and 2.1 us off with an estimate of 0 (the
 * windows matched to the byte). The estimate counts the packet. */
/* Both engines on keys (hybfuzz-style draws): hybrid jumps, its completion
 * within 1% of the packets', its error within its estimate and the
 * estimate under cap_s and cap_frac of the packets' completion (err_seen:
 * the error is not 0). */
static void estimate_within(const char *const *keys, double cap_s, double cap_frac, int err_seen)
{
    struct results r[2]; /* packet, hybrid */
    if (both_engines(keys, 8, r))
        return;
    const struct hybrid_figures *hf = &r[1].hybrid;
    double err = fabs(r[1].completion_s - r[0].completion_s);
    CHECKF(hf->jumps >= 1 && (err > 0 || !err_seen) && err <= hf->error_s &&
               err < 0.01 * r[0].completion_s && hf->error_s < cap_s &&
               hf->error_s < cap_frac * r[0].completion_s,
           "%s %s: %u jumps; error estimate %.6g s, error %.6g s", keys[3], keys[5], hf->jumps,
           hf->error_s, err);
    results_release(&r[0]);
    results_release(&r[1]);
}

static void hybrid_estimate_counts_a_packet(void)
{
    static const char *const keys[2][8] = {
        {"cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps", "storage.nodes=4",
         "checkpoint.phase=save", "cluster.nodes=1", "transport.cc=none",
         "workload.bytes_per_writer=16MB", "seed=2"},
        {"cluster.nic_speed=10Gbps", "storage.nic_speed=400Gbps", "storage.nodes=1",
         "checkpoint.phase=restore", "cluster.nodes=1", "transport.cc=none",
         "workload.bytes_per_writer=16MB", "seed=2"}};
    for (int c = 0; c < 2; c++)
        estimate_within(keys[c], 1e-5, 1, 1);
}

/* hybfuzz's case 213: 16 writers at 1 Gbps into one 10 Gbps storage node.
 * Under DCQCN the jumps carried each writer's share, where the packets'
 * shares drift back to the mean: the writer carried slowest ended alone at
 * its 1 Gbps ~4 ms after the packets' last (+1.93%, against an estimate of
 * 2.05 ms). The estimate counts that tail and a jump keeps it within twice
 * the budget (tail_most): +0.92%, within the estimate. Under cc none the
 * shares hold and the estimate stays as narrow as the error. */
static void hybrid_narrow_tail_counted_and_bounded(void)
{
    static const char *const keys[2][8] = {
        {"cluster.nodes=16", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
         "checkpoint.phase=save", "storage.nodes=1", "transport.cc=dcqcn",
         "workload.bytes_per_writer=16MB", "seed=1"},
        {"cluster.nodes=16", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
         "checkpoint.phase=save", "storage.nodes=1", "transport.cc=none",
         "workload.bytes_per_writer=16MB", "seed=1"}};
    estimate_within(keys[0], 1, 0.1, 1);
    estimate_within(keys[1], 1, 1e-3, 0);
}

/* The 64 x 32 MB incast of hybrid_many_flow_incast: its writers' shares
 * are unfair (PFC), so their ends spread over the last ~15 ms. A jump
 * passes a receiver's ends while enough of its writers go on sending to
 * hold its rate, each credited up to its last packet at its share and that
 * share handed to the others: more than one end in a jump, the completion
 * and the median writer within 1% and 3% of the packet engine's and inside
 * the error estimate, every byte sent and delivered once and no writer
 * past its last packet (a credit past it: bytes sent over the total). */
static void hybrid_passes_many_ends(void)
{
    struct scenario sc;
    struct results p, h;
    if (incast64(&sc, &p, &h))
        return;
    CHECKF(h.hybrid.ends_max > 1,
           "%llu ends passed in %u jumps, at most %u in one",
           (unsigned long long)h.hybrid.ends, h.hybrid.jumps, h.hybrid.ends_max);
    CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
           h.completion_s, p.completion_s);
    CHECKF(fabs(h.completion_s - p.completion_s) <= h.hybrid.error_s,
           "error estimate %.6g s, error %.6g s", h.hybrid.error_s,
           fabs(h.completion_s - p.completion_s));
    CHECKF(rel(h.writer_p50_s, p.writer_p50_s) < 0.03, "median writer %.9g s against %.9g s",
           h.writer_p50_s, p.writer_p50_s);
    check_conserved(&h, &sc, 64);
    for (uint32_t i = 0; i < h.n_writer_s; i++)
        CHECKF(h.writer_s[i] > 0 && h.writer_s[i] <= h.completion_s, "writer %u: %.9g s", i,
               h.writer_s[i]);
    results_release(&h);
    results_release(&p);
}

/* DCP async with sets (nodes: NULL keeps the file's) into sc; nonzero
 * when the file does not load. */
static int dcp_async(struct scenario *sc, const char *nodes, const char *params)
{
    struct err e = {{0}};
    scenario_defaults(sc);
    CHECKF(scenario_load_file(sc, "scenarios/dcp-async-llama3-70b.yaml", &e) == 0, "%s", e.msg);
    if (e.msg[0])
        return 1;
    if (nodes)
        test_set(sc, "%s", nodes);
    test_set(sc, "model.name=custom");
    test_set(sc, "%s", params);
    return 0;
}

/* The paused-time error estimate covers the paused time's real error and
 * is at most `most` of the paused time. */
static void check_paused_estimate(const struct results *h, const struct results *p, double most)
{
    double err = fabs(h->paused_s - p->paused_s);
    CHECKF(err <= h->hybrid.paused_error_s && h->hybrid.paused_error_fraction < most,
           "paused %.6g s against %.6g s: error %.4g s, estimate %.4g s (%.4g of it)", h->paused_s,
           p->paused_s, err, h->hybrid.paused_error_s, h->hybrid.paused_error_fraction);
}

/* Hybrid's run h against the packet engine's p: at least `skip` of the
 * time jumped, the paused time within `paused` of the packet engine's and
 * inside its error estimate (itself under 15% of it), the completion within
 * 1%, the largest queue within `queue` (0: not checked). */
static void hybrid_bars(const struct results *h, const struct results *p, double skip,
                        double paused, double queue)
{
    CHECKF(h->hybrid.jumps >= 1 && h->hybrid.fraction > skip, "%u jumps, %.4f skipped",
           h->hybrid.jumps, h->hybrid.fraction);
    /* (no pause in either, as in a lone node's write: equal) */
    CHECKF(h->paused_s == p->paused_s || rel(h->paused_s, p->paused_s) < paused,
           "paused %.6g s against %.6g s", h->paused_s, p->paused_s);
    check_paused_estimate(h, p, 0.15);
    CHECKF(rel(h->completion_s, p->completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
           h->completion_s, p->completion_s);
    CHECKF(!queue || rel((double)h->max_queue_bytes, (double)p->max_queue_bytes) < queue,
           "max queue %llu against %llu", (unsigned long long)h->max_queue_bytes,
           (unsigned long long)p->max_queue_bytes);
}

/* The scenario under the packet engine, then hybrid: hybrid_bars. */
static void hybrid_against_packet(struct scenario *sc, double skip, double paused, double queue)
{
    struct results p, h;
    if (run(sc, ENGINE_PACKET, &p))
        return;
    if (run(sc, ENGINE_HYBRID, &h) == 0) {
        hybrid_bars(&h, &p, skip, paused, queue);
        results_release(&h);
    }
    results_release(&p);
}

/* DCP async with sets (nodes: NULL keeps the file's), hybrid against packet */
static void dcp_async_within(const char *nodes, const char *params, double skip, double paused)
{
    struct scenario sc;
    if (dcp_async(&sc, nodes, params) == 0)
        hybrid_against_packet(&sc, skip, paused, 0);
}

/* A backlog that relaxes over the run: DCP async, 32 nodes' 256 writers
 * into 3 storage nodes at 40 Gbps (0.48 s). The queues and the pauses
 * they hold upstream fall slowly in the packet run; a jump carries the
 * state unchanged, so the hybrid's stayed high (+8.8% paused with one
 * 0.19 s jump; with the baseline but no LAG bound, +4.5%). A jump now
 * leaves the state at most LAG behind the drift fitted over the long
 * baseline: the paused time within 3% of the packet engine's (+2.1%), the
 * completion within 1%. */
static void hybrid_drifting_backlog_paused_within_3pct(void)
{
    dcp_async_within("cluster.nodes=32", "model.params=500000000", 0, 0.03);
}

/* A paused rate that declines, carried: DCP async on its 232 nodes with a
 * 1e9-parameter model (0.95 s), whose pause tree relaxes from the first
 * windows on. The fit's decline stands beyond six standard errors, so the
 * first jump's paused credit follows the line (the lag grows by the fit's
 * uncertainty, or by the decline x the share the moves leave where that
 * is more: the queues do not follow the line): 4.0% skipped, paused +0.94%
 * of the packet engine's (+1.60% at 7.0% with the lag at the uncertainty
 * alone; +0.99% at 3.79% with the decline not carried), completion within
 * 1%. The run is deterministic: 3.9% skipped tells the carried path from
 * the one that does not carry (3.98% against 3.79%, BENCHMARKS.md session
 * 26). */
static void hybrid_paused_decline_carried(void)
{
    dcp_async_within(NULL, "model.params=1000000000", 0.039, 0.019);
}

/* A drift the first windows do not show: DCP async on 32 nodes with 1e9
 * parameters (0.96 s). At 14 ms the queues' decline fits 0.26/s +- 0.074
 * (0.8-1.2/s from 50 ms on, as the spine ports empty one by one); counted
 * at the slope less three standard errors, a first jump of 0.54 s carried
 * the early pause tree: paused +20.6%. The lag now counts the slope plus
 * one standard error: +3.8%, 9% skipped, completion within 1%. (2e9
 * parameters, +29.5% -> +2.0%, is in BENCHMARKS.md; left out here for
 * make test's time.) */
static void hybrid_unseen_drift_paused_within_5pct(void)
{
    dcp_async_within("cluster.nodes=32", "model.params=1000000000", 0.04, 0.05);
}

/* The paused-time error estimate where the paused time is off: the case
 * above with the young-baseline rule off (sim.hybrid_young_off) jumped
 * 0.54 s on a fit that counts 0.04/s of drift and ended with paused
 * +20.6%; the WATCH cap (4x the 14 ms watched) leaves +5.4%, still past
 * the 5% bar. The estimate counts the drift no fit rules out (slope plus
 * a standard error) x the time the state lags, over the paused time after
 * it: it covers the error. */
static void hybrid_paused_estimate_covers_unseen_drift(void)
{
    struct scenario sc;
    struct results p, h;
    if (dcp_async(&sc, "cluster.nodes=32", "model.params=1000000000") ||
        run(&sc, ENGINE_PACKET, &p))
        return;
    sc.sim.hybrid_young_off = 1;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(rel(h.paused_s, p.paused_s) > 0.05, "paused %.6g s against %.6g s", h.paused_s,
               p.paused_s);
        check_paused_estimate(&h, &p, 1);
        results_release(&h);
    }
    results_release(&p);
}

/* Ends restart the long baseline: no jump until it has a fresh fit.
 * mlperf-llama3-70b's 64 writers with 5e9 parameters (128 transfers
 * whose ends spread over the run): a jump taken on the drift fitted
 * before the ends carried their pauses over a relaxation it could not
 * see (paused +5.9%); with a fresh fit +0.5%. Within 3%, the estimate
 * covering the error, the completion within 1%. */
static void hybrid_ends_refit_paused_within_3pct(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECKF(scenario_load_file(&sc, "scenarios/mlperf-llama3-70b.yaml", &e) == 0, "%s", e.msg);
    if (e.msg[0])
        return;
    test_set(&sc, "checkpoint.mlperf=none");
    test_set(&sc, "checkpoint.phase=save");
    test_set(&sc, "model.name=custom");
    test_set(&sc, "model.params=5000000000");
    hybrid_against_packet(&sc, 0.2, 0.03, 0);
}

/* A shipped scenario as its file sets it; 1 when it does not load. */
static int shipped(struct scenario *sc, const char *file)
{
    struct err e = {{0}};
    scenario_defaults(sc);
    CHECKF(scenario_load_file(sc, file, &e) == 0, "%s", e.msg);
    return e.msg[0] != 0;
}

/* A sender as wide as its receiver is not held by its window's trend:
 * uec-lossless as shipped (32 writers at 400 Gbps into each 400 Gbps
 * node, NSCC over UEC's receivers), whose windows trend throughout, took
 * no jump while every sender's trend counted. */
static void hybrid_nscc_wide_senders_jump(void)
{
    struct scenario sc;
    if (shipped(&sc, "scenarios/transports/uec-lossless.yaml") == 0)
        hybrid_against_packet(&sc, 0.3, 0.05, 0);
}

/* TCP over a class that can drop (tcp-dctcp with PFC off): loss recovery's
 * state (the cumulative ACK heard, the retransmission timer's start) is
 * carried where every sender is quiet; it ran as packet before ("loss
 * recovery runs"). No drop here: DCTCP keeps the queues short. */
static void hybrid_tcp_lossy_jumps(void)
{
    struct scenario sc;
    if (shipped(&sc, "scenarios/transports/tcp-dctcp.yaml"))
        return;
    test_set(&sc, "fabric.pfc.enabled=false");
    hybrid_against_packet(&sc, 0.3, 0.05, 0.05);
}

/* NSCC over UEC's trimming (uec-lossy-nscc as shipped): the senders start
 * at line rate, the switches trim ~122k packets in the first 0.3 ms and
 * the receivers' NACKs have them resent; then NSCC holds the queues under
 * the trim threshold. Loss recovery's state is carried where no sender
 * repairs and no trim, NACK or resend fell in the windows: it ran as
 * packet before ("loss recovery runs"). The trims are the packets'. */
static void hybrid_nscc_trimming_jumps(void)
{
    struct scenario sc;
    if (shipped(&sc, "scenarios/transports/uec-lossy-nscc.yaml"))
        return;
    struct results p, h;
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(p.trims > 100000 && h.trims == p.trims && h.trim_naks == p.trim_naks,
               "trims %llu / %llu, NACKs %llu / %llu", (unsigned long long)p.trims,
               (unsigned long long)h.trims, (unsigned long long)p.trim_naks,
               (unsigned long long)h.trim_naks);
        hybrid_bars(&h, &p, 0.2, 0.05, 0.05);
        CHECKF(fabs(h.completion_s - p.completion_s) <= h.hybrid.error_s,
               "error %.3g s past the estimate %.3g s", fabs(h.completion_s - p.completion_s),
               h.hybrid.error_s);
        results_release(&h);
    }
    results_release(&p);
}

/* Swift and HPCC over UEC's lossy class (uec-lossy-nscc's fabric): loss
 * recovery's state carried as NSCC's; they ran as packet before. */
static void hybrid_window_lossy_jumps(void)
{
    static const char *const ccs[] = {"transport.cc=swift", "transport.cc=hpcc"};
    for (size_t k = 0; k < sizeof ccs / sizeof ccs[0]; k++) {
        struct scenario sc;
        if (shipped(&sc, "scenarios/transports/uec-lossy-nscc.yaml"))
            return;
        test_set(&sc, "%s", ccs[k]);
        hybrid_against_packet(&sc, 0.3, 0.05, 0.05);
    }
}

/* Line rate and DCQCN over a class that can drop (PFC off) carry loss
 * recovery as the window transports do: they ran as packet before ("loss
 * recovery runs"). Incasts whose queues stay inside the buffers, no drop:
 * 3 x 25 Gbps into one 10 Gbps node at line rate (12 MB, under the 70 MB
 * buffer), 16 x 25 Gbps under DCQCN; each jumps, within 1% and its
 * estimate, and drops nothing, as the packets. */
static void hybrid_rate_lossy_jumps(void)
{
    static const char *const keys[][8] = {
        {"cluster.nodes=3", "cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps",
         "storage.nodes=1", "transport.cc=none", "workload.bytes_per_writer=4MB", "seed=2",
         "fabric.pfc.enabled=false"},
        {"cluster.nodes=16", "cluster.nic_speed=25Gbps", "storage.nic_speed=10Gbps",
         "storage.nodes=1", "transport.cc=dcqcn", "workload.bytes_per_writer=4MB", "seed=2",
         "fabric.pfc.enabled=false"},
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        struct results r[2];
        if (both_engines(keys[k], 8, r))
            return;
        CHECKF(r[0].drops == 0 && r[1].drops == 0 && r[1].hybrid.jumps >= 1 &&
                   rel(r[1].completion_s, r[0].completion_s) < 0.01 &&
                   fabs(r[1].completion_s - r[0].completion_s) <= r[1].hybrid.error_s,
               "%s: drops %llu / %llu, %u jumps, hybrid %.9g s (estimate %.3g s), packet %.9g s",
               keys[k][4], (unsigned long long)r[0].drops, (unsigned long long)r[1].drops,
               r[1].hybrid.jumps, r[1].completion_s, r[1].hybrid.error_s, r[0].completion_s);
        results_release(&r[0]);
        results_release(&r[1]);
    }
}

/* Once a class that can drop has dropped, no jump: when the next drop
 * comes follows the state to the packet. 8 readers at 1 Gbps under CUBIC
 * with 2 MB buffers and PFC off: 1,642 drops, 13 timeouts of 200 ms; a
 * jump of 0.3% of the read moved it 0.31%, past its estimate, and one
 * credited the duplicates the receivers discarded by their mean (bytes
 * not conserved). The read is the packet engine's. */
static void hybrid_tcp_no_jump_after_a_drop(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=1Gbps", "storage.nic_speed=10Gbps",
        "storage.nodes=1", "transport.cc=cubic", "workload.bytes_per_writer=16MB",
        "checkpoint.phase=restore", "seed=1", "fabric.pfc.enabled=false", "fabric.buffer=2MB"};
    struct results r[2];
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    CHECKF(r[0].drops > 1000 && r[1].restore.hybrid_on && r[1].completion_s == r[0].completion_s &&
               r[1].events == r[0].events,
           "%llu drops; hybrid %.9g s against %.9g s", (unsigned long long)r[0].drops,
           r[1].completion_s, r[0].completion_s);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* Once a timer fired under loss recovery, no jump. One reader at 1 Gbps
 * reads 4 MB at line rate from four 100 Gbps nodes over the ooo receiver:
 * the whole read queues at its port for 32 ms, longer than the 320 us
 * timer, whose resends of still-queued packets go on all read (adaptive
 * timer: backed off, the read completes). Jumps between them lost the
 * resent copies' bytes (sent 4 MB + resent 13.2 MB != 8.5 MB accounted).
 * The read is the packet engine's, and the run says why. */
static void hybrid_no_jump_after_a_timeout(void)
{
    static const char *const keys[] = {
        "cluster.nodes=1", "cluster.nic_speed=1Gbps", "storage.nic_speed=100Gbps",
        "storage.nodes=4", "transport.cc=none", "workload.bytes_per_writer=4MB",
        "checkpoint.phase=restore", "transport.receiver=ooo", "fabric.pfc.enabled=false",
        "transport.rto=adaptive"};
    struct results r[2];
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    CHECKF(r[0].timeouts > 0 && r[1].ok && r[1].restore.hybrid_on &&
               r[1].completion_s == r[0].completion_s && r[1].events == r[0].events,
           "%llu timeouts; hybrid %.9g s against %.9g s, invariants %d",
           (unsigned long long)r[0].timeouts, r[1].completion_s, r[0].completion_s,
           r[1].ok);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* NSCC over a class that drops (PFC off, 2 MB buffers, 16 writers into one
 * node): from the first drop no jump, and the summary's hybrid line says
 * so (it said only "0 jumps"). The run is the packet engine's. */
static void hybrid_drop_says_why(void)
{
    static const char *const keys[] = {"cluster.nodes=16", "transport.cc=nscc",
                                       "fabric.pfc.enabled=false", "fabric.buffer=2MB",
                                       "workload.bytes_per_writer=4MB"};
    struct results r[2];
    if (both_engines(keys, sizeof keys / sizeof keys[0], r))
        return;
    CHECKF(r[0].drops > 1000 && r[1].hybrid.jumps == 0 &&
               strstr(r[1].hybrid.why, "no jump from ") && strstr(r[1].hybrid.why, "(a drop)") &&
               r[1].completion_s == r[0].completion_s && r[1].events == r[0].events,
           "%llu drops, %u jumps, why \"%s\"", (unsigned long long)r[0].drops, r[1].hybrid.jumps,
           r[1].hybrid.why);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* A reference scenario with a custom model of `params` parameters; 1
 * when it does not load. */
static int custom_model(struct scenario *sc, const char *file, const char *params)
{
    if (shipped(sc, file))
        return 1;
    test_set(sc, "model.name=custom");
    test_set(sc, "model.params=%s", params);
    return 0;
}

/* The same with 1e10 parameters. */
static int scaled(struct scenario *sc, const char *file)
{
    return custom_model(sc, file, "10000000000");
}

#if defined(__SANITIZE_ADDRESS__)
/* Hybrid's first `limit` of sc, the invariants checked (the limit is the
 * run's only complaint: a broken invariant says so), with at least `jumps`
 * jumps and more than `frac` skipped. */
static void asan_window_to(struct scenario *sc, const char *limit, unsigned jumps, double frac)
{
    test_set(sc, "sim.time_limit=%s", limit);
    sc->engine = ENGINE_HYBRID;
    struct results h;
    int rc = test_run(sc, &h);
    CHECKF(rc == 0 && !h.finished && strstr(h.violation, "stopped at the time limit"), "%s",
           rc == 0 ? h.violation : "");
    if (rc == 0) {
        CHECKF(h.hybrid.jumps >= jumps && h.hybrid.fraction > frac, "%u jumps, %.4f skipped",
               h.hybrid.jumps, h.hybrid.fraction);
        results_release(&h);
    }
}

/* the same over the first 25 ms */
static void asan_window(struct scenario *sc, unsigned jumps, double frac)
{
    asan_window_to(sc, "25ms", jumps, frac);
}
#endif

/* Tails' ends passed: the production checkpoint's 16,384 writers into 40
 * storage nodes with a 1e10-parameter model (77.6 ms). From 9 ms on some
 * writer has always sent its last packet and waits for its queued packets
 * (a tail) within a period of its end; a jump that stopped short of every
 * tail's end skipped 7.0%. A jump now passes them where more than 16
 * senders go on, each tail ending at its share (its done time the level
 * at which its receiver's credit reached it), bounded past the first by
 * the paused rate's drift no fit rules out x the state's lag. The backlog
 * parts between a switch's queues while their sums hold; a jump that
 * left it where it stood lagged the packets' pauses (14.3% skipped, paused
 * +4.5%); one that moves it by each queue's fitted drift, as far as its
 * bend goes, lags only by what the moves leave: over 20% skipped (24.4%),
 * the completion within 1% (-0.43%), the paused time within 4% (+3.7%),
 * the largest queue within 5%. */
static void hybrid_passes_tails_ends(void)
{
    struct scenario sc;
    if (scaled(&sc, "scenarios/llama3-405b-production.yaml"))
        return;
#if defined(__SANITIZE_ADDRESS__)
    /* under ASan (3x slower) the first 18 ms only: two jumps (3.4 and 7.0
     * ms, 12.8 ms skipped), the second passing tails' ends and moving the
     * backlog, with the invariants checked; the other lanes compare */
    asan_window_to(&sc, "18ms", 2, 0.6);
    return;
#endif
    hybrid_against_packet(&sc, 0.2, 0.04, 0.05);
}

/* Hybrid on the thread team (sim.threads 2 and 3, the windows split
 * between the threads or run by thread 0 alone every other meeting, across
 * the periods' ends): the same figures as one thread, to the JSON's last
 * digit (perf aside), with jumps, samples and writers under several
 * leaves, so each thread has events to shift. 16 MB a writer, so that
 * jumps cross samples: a crossed sample lands off the grid behind the
 * grid's next, and split threads met forever short of it (window_run
 * notes a whole-fabric event it meets as thread 0's instant). */
static void threads_same_figures(const char *cc)
{
    struct scenario sc;
    struct results one;
    incast(&sc, 16, CC_NONE);
    test_set(&sc, "cluster.nodes=32");
    test_set(&sc, "telemetry.interval=200us");
    test_set(&sc, "transport.cc=%s", cc);
    sc.sim.threads = 1;
    if (run(&sc, ENGINE_HYBRID, &one))
        return;
    char *js1 = test_json(&sc, &one);
    CHECKF(one.hybrid.jumps >= 1 && one.threads == 1, "%u jumps on one thread", one.hybrid.jumps);
    const int modes[] = {TEAM_SPLIT, TEAM_ALTERNATE};
    for (unsigned t = 2; t <= 3; t++)
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            struct scenario run_sc = sc; /* the JSON echoes sc's keys */
            struct results r;
            run_sc.sim.threads = t;
            run_sc.sim.team_mode = modes[m];
            if (run(&run_sc, ENGINE_HYBRID, &r))
                continue;
            char *js = test_json(&sc, &r);
            CHECKF(js && js1 && !strcmp(js, js1) && r.events == one.events &&
                       r.hybrid.jumps == one.hybrid.jumps,
                   "%s, %u threads, mode %d: completion %.9g s against %.9g s, %u jumps against "
                   "%u, %llu events against %llu",
                   cc, t, modes[m], r.completion_s, one.completion_s, r.hybrid.jumps,
                   one.hybrid.jumps, (unsigned long long)r.events,
                   (unsigned long long)one.events);
            CHECKF(r.threads == t && (modes[m] != TEAM_SPLIT || r.threads_solo == 0),
                   "%u threads ran, %.3f of windows alone", r.threads, r.threads_solo);
            free(js);
            results_release(&r);
        }
    free(js1);
    results_release(&one);
}

/* (Swift, NSCC and HPCC: their ACKs the jump sends and renumbers, on
 * each thread's own flows; DCTCP: its receivers' delayed-ACK timers.) */
static void hybrid_threads_same_figures(void)
{
    threads_same_figures("none");
    threads_same_figures("swift");
    threads_same_figures("nscc");
    threads_same_figures("hpcc");
    threads_same_figures("dctcp");
}

/* A carried decline lags by what the state does not follow: the size-swept
 * 405B checkpoint (size-llama3-405b, 1e10 parameters, 76.2 ms), whose pause
 * tree relaxes from its fill on. Its one jump (5 ms, +22.6 ms) credited the
 * paused time along the fitted decline but left the queues where they
 * stood, counting only the fit's uncertainty (0.46/s) to the lag: the state
 * stayed 16 ms behind, paused +6.0%. The decline's uncarried share (4.2/s x
 * the moves' 0.72) now counts: 8 jumps, 17.3% skipped, paused +2.5%,
 * completion within 1%, the largest queue within 5%. */
static void hybrid_carried_decline_lags(void)
{
    struct scenario sc;
    if (scaled(&sc, "scenarios/size-llama3-405b.yaml"))
        return;
#if defined(__SANITIZE_ADDRESS__)
    /* under ASan the first 14 ms only (its first jump, 5.0 -> 13.3 ms, the
     * moves and the carried decline), the invariants checked */
    asan_window_to(&sc, "14ms", 1, 0.5);
    return;
#endif
    hybrid_against_packet(&sc, 0.1, 0.05, 0.05);
}

/* The 3-tier burst with 4 MB a writer (10.6 ms): its 4 GB sit in the
 * switch buffers by 0.1 ms and all eight receivers drain beside each other
 * from then on, their last packets waiting in the spines behind other
 * receivers' paused ones. A drain jump takes each transfer's packets just
 * below its last, the furthest upstream, so it deletes those stragglers and
 * every receiver ends at the bound: with drains beside others jumped (1/2
 * or 1/8 of the bytes in flight a jump) the completion was 1.1% early and
 * the paused time 9-34% high. Hybrid stays within the bars: completion 1%,
 * paused time and largest queue 5% (BENCHMARKS.md "Hybrid on three
 * tiers"). */
static void hybrid_3tier_drains_within_bars(void)
{
    struct scenario sc;
    struct results p, h;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECKF(scenario_load_file(&sc, "scenarios/bench-1024-3tier.yaml", &e) == 0, "%s", e.msg);
    if (e.msg[0])
        return;
#if defined(__SANITIZE_ADDRESS__)
    test_set(&sc, "workload.bytes_per_writer=2MB"); /* (jumped: paused +7.5% to +52%) */
#else
    test_set(&sc, "workload.bytes_per_writer=4MB");
#endif
    if (run(&sc, ENGINE_PACKET, &p))
        return;
    if (run(&sc, ENGINE_HYBRID, &h) == 0) {
        CHECKF(rel(h.completion_s, p.completion_s) < 0.01, "hybrid %.9g s, packet %.9g s",
               h.completion_s, p.completion_s);
        CHECKF(rel(h.paused_s, p.paused_s) < 0.05, "paused %.6g s against %.6g s", h.paused_s,
               p.paused_s);
        CHECKF(rel((double)h.max_queue_bytes, (double)p.max_queue_bytes) < 0.05,
               "max queue %llu against %llu", (unsigned long long)h.max_queue_bytes,
               (unsigned long long)p.max_queue_bytes);
        results_release(&h);
    }
    results_release(&p);
}

/* Clustered ends: size-llama3-405b-hand44 (the production checkpoint's
 * 16,384 writers into 80 storage NICs over 44 switches) with a
 * 1e9-parameter model (15.2 ms). Its writers' shares make their ends come
 * together (the tenth percentile's level within 8-16% of the median's on
 * 78 of 80 receivers), and the pause tree relaxes with them: a jump that
 * passed one in 50 of a receiver's senders' ends landed on the tree from
 * before them (at 1e10 parameters paused +5.29%, the median writer 2.9 ms
 * late; none passed: +4.86%). There a jump passes no sender's end: at
 * most a tail's in one jump (51 ends in one before), and still jumps. */
static void hybrid_clustered_ends_not_passed(void)
{
    struct scenario sc;
    struct results h;
    if (custom_model(&sc, "scenarios/size-llama3-405b-hand44.yaml", "1000000000"))
        return;
#if defined(__SANITIZE_ADDRESS__)
    /* under ASan the first 6 ms (its first five jumps), the invariants checked */
    asan_window_to(&sc, "6ms", 2, 0.05);
    return;
#endif
    if (run(&sc, ENGINE_HYBRID, &h))
        return;
    CHECKF(h.hybrid.jumps >= 2 && h.hybrid.fraction > 0.05, "%u jumps, %.4f skipped",
           h.hybrid.jumps, h.hybrid.fraction);
    CHECKF(h.hybrid.ends_max < 16, "%llu ends passed in %u jumps, %u in one",
           (unsigned long long)h.hybrid.ends, h.hybrid.jumps, h.hybrid.ends_max);
    results_release(&h);
}

/* Jumps within WATCH x the state watched: the production row's writers,
 * 128 nodes into 2 storage nodes at 40 Gbps, a 1e9-parameter model
 * (1.43 s). The pause tree is flat on the first fit (13 ms watched) but
 * relaxes later; the first jumps (to 15x the time watched) left the state
 * tens of ms old: paused +6.9%, 23.5% skipped. A jump now spans at most 4x
 * the time watched since the start: paused +3.1%, 10.7% skipped (packet
 * 188.86 s paused; BENCHMARKS.md session 29, branch watch). */
static void hybrid_jumps_within_watch(void)
{
    struct scenario sc;
    if (custom_model(&sc, "scenarios/llama3-405b-production.yaml", "1000000000"))
        return;
    test_set(&sc, "cluster.nodes=128");
    test_set(&sc, "storage.nodes=2");
    test_set(&sc, "storage.nic_speed=40Gbps");
    hybrid_against_packet(&sc, 0.05, 0.05, 0.05);
}

/* A flat fit does not speak for a long jump: DCP async on its 232 nodes
 * with a 7e9-parameter model at seed 3 (6.68 s). Its pause tree relaxes
 * in steps (compute-leaf uplinks paused 166 -> 133 -> 98 ports at 0.06,
 * 0.48, 1.5 s); at 0.51 s the baseline's later half (74 ms) sat on one
 * step, no drift beyond three standard errors, and with LAG spent a jump
 * of 1.01 s on it, then more, left the state 1.5 s behind: paused +6.30%,
 * 22.9% skipped. Where that fit shows none, the long history's (every
 * eighth observation, 0.24 s at 0.51 s) counts: 1.1% skipped, paused
 * +0.21%. Hybrid only (the packet engine's 1,952.6 s paused at seed 3 is
 * its run's; 13 s less here); under ASan its first 0.3 s, the invariants
 * checked. */
static void hybrid_flat_fit_long_history(void)
{
    struct scenario sc;
    struct results h;
    if (dcp_async(&sc, NULL, "model.params=7000000000"))
        return;
    test_set(&sc, "seed=3");
#if defined(__SANITIZE_ADDRESS__)
    test_set(&sc, "sim.time_limit=300ms");
    sc.engine = ENGINE_HYBRID;
    int rc = test_run(&sc, &h);
    CHECKF(rc == 0 && !h.finished && strstr(h.violation, "stopped at the time limit"), "%s",
           rc == 0 ? h.violation : "");
    if (rc == 0)
        results_release(&h);
    return;
#endif
    if (run(&sc, ENGINE_HYBRID, &h))
        return;
    CHECKF(h.hybrid.fraction < 0.05 && rel(h.paused_s, 1952.6) < 0.02,
           "%u jumps, %.4f skipped, paused %.6g s against the packets' 1952.6 s", h.hybrid.jumps,
           h.hybrid.fraction, h.paused_s);
    results_release(&h);
}

/* One node's 8 writers, its NIC serving them in turn, to 4 storage nodes:
 * mlperf-llama3-8b's save at 2e9 parameters (7 jumps). Each writer's credit
 * by its own window counts left them up to k / per packets apart a jump;
 * their last two, alone on one uplink, queued 20,378 B against the
 * packets' 13,896 (+47%). A node's transfers at one rate within a packet a
 * window take one credit (level; BENCHMARKS.md session 31). */
static void hybrid_nic_writers_end_together(void)
{
    struct scenario sc;
    if (custom_model(&sc, "scenarios/mlperf-llama3-8b.yaml", "2000000000"))
        return;
    test_set(&sc, "checkpoint.mlperf=none");
    test_set(&sc, "checkpoint.phase=save");
    hybrid_against_packet(&sc, 0.9, 0.05, 0.05);
}

/* The steady incast with a sample pending long after its last transfer's
 * end (telemetry.interval 10 s): once every transfer has ended hybrid has
 * nothing to skip and runs on as the packet engine, unobserved (main
 * observed every period up to the sample, 10 s / 41 us of them), and the
 * fraction skipped is of the time up to that end, not up to the sample. */
static void hybrid_stops_observing_after_last_end(void)
{
    struct scenario sc;
    struct results a, b;
    incast(&sc, 64, CC_NONE);
    if (run(&sc, ENGINE_HYBRID, &a))
        return;
    test_set(&sc, "telemetry.interval=10s");
    if (run(&sc, ENGINE_HYBRID, &b) == 0) {
        CHECKF(b.hybrid.jumps == a.hybrid.jumps && b.completion_s == a.completion_s,
               "%u jumps, %.9g s against %u, %.9g s", b.hybrid.jumps, b.completion_s,
               a.hybrid.jumps, a.completion_s);
        CHECKF(a.hybrid.observations > 0 && b.hybrid.observations <= a.hybrid.observations + 1,
               "%llu observations against %llu", (unsigned long long)b.hybrid.observations,
               (unsigned long long)a.hybrid.observations);
        CHECKF(b.hybrid.fraction > 0.5 && rel(b.hybrid.fraction, a.hybrid.fraction) < 1e-9 &&
                   rel(b.hybrid.fraction, b.hybrid.skipped_s / b.completion_s) < 0.01,
               "fraction %.6f against %.6f (%.6g s of %.6g s)", b.hybrid.fraction,
               a.hybrid.fraction, b.hybrid.skipped_s, b.completion_s);
        results_release(&b);
    }
    results_release(&a);
}

/* The steady incast sampled every quarter of hybrid's period (as --csv-dir's
 * default interval on bench-1024): the same jumps and figures as without
 * telemetry (main cut each jump at the next sample: none fit), the samples
 * inside the jumps written and marked fast-forwarded, every sample on its
 * grid, the checkpoint's remaining bytes never rising and each transfer's
 * delivered bytes never falling across them. */
static void hybrid_samples_inside_jumps_marked(void)
{
    struct scenario sc;
    struct results a, b;
    incast(&sc, 64, CC_NONE);
    if (run(&sc, ENGINE_HYBRID, &a))
        return;
    double iv = a.hybrid.period_s / 4;
    test_set(&sc, "telemetry.interval=%.0fns", iv * 1e9);
    test_set(&sc, "telemetry.flows=true");
    iv = (double)sc.telemetry.interval_ps / 1e12;
    if (run(&sc, ENGINE_HYBRID, &b) == 0) {
        CHECKF(a.hybrid.jumps >= 1 && b.hybrid.jumps == a.hybrid.jumps &&
                   b.hybrid.skipped_s == a.hybrid.skipped_s,
               "%u jumps (%.6g s) against %u (%.6g s)", b.hybrid.jumps, b.hybrid.skipped_s,
               a.hybrid.jumps, a.hybrid.skipped_s);
        CHECKF(b.completion_s == a.completion_s && b.paused_s == a.paused_s &&
                   b.max_queue_bytes == a.max_queue_bytes,
               "%.9g s, %.6g s paused, %llu B against %.9g s, %.6g s, %llu B", b.completion_s,
               b.paused_s, (unsigned long long)b.max_queue_bytes, a.completion_s, a.paused_s,
               (unsigned long long)a.max_queue_bytes);
        check_conserved(&b, &sc, 8);
        uint32_t ff = 0, nf = b.n_sample_flows, bad = 0;
        const struct series *s = &b.series;
        CHECK(b.sample_ff && nf == 8 && s->n == b.n_samples);
        for (uint32_t k = 0; b.sample_ff && k < b.n_samples; k++) {
            ff += b.sample_ff[k];
            bad += fabs(b.sample_t[k] - k * iv) > 1e-12;
            if (k && s->n == b.n_samples)
                bad += s->remaining[k] > s->remaining[k - 1];
            for (uint32_t i = 0; k && i < nf; i++)
                bad += b.sample_delivered[(size_t)k * nf + i] <
                       b.sample_delivered[(size_t)(k - 1) * nf + i];
        }
        double want = b.hybrid.skipped_s / iv;
        CHECKF(ff > 0 && fabs(ff - want) <= b.hybrid.jumps, "%u samples marked, %.1f in the jumps",
               ff, want);
        CHECKF(!bad, "%u samples off the grid or against the monotone figures", bad);
        results_release(&b);
    }
    results_release(&a);
}

/* Samples sparser than the jumps (HPCC, 8 writers at 25 Gbps into one
 * 100 Gbps node, every 500 us; jumps of 0.35-0.95 ms): a jump moves the
 * sample it crosses off the grid, and a later jump that crosses that one
 * as well still writes from the grid. The series had ended at 2 ms of the
 * 12 ms run; now it reaches the end, each sample on its grid. */
static void hybrid_sparse_samples_reach_the_end(void)
{
    static const char *const keys[] = {
        "cluster.nodes=8", "cluster.nic_speed=25Gbps", "storage.nic_speed=100Gbps",
        "storage.nodes=1", "transport.cc=hpcc", "workload.bytes_per_writer=16MB",
        "checkpoint.phase=save", "seed=3", "telemetry.interval=500us"};
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        test_set(&sc, "%s", keys[k]);
    if (run(&sc, ENGINE_HYBRID, &r))
        return;
    double iv = 500e-6;
    uint32_t bad = 0, n = r.n_samples;
    for (uint32_t k = 0; k < n; k++)
        bad += fabs(r.sample_t[k] - k * iv) > 1e-12;
    CHECKF(r.hybrid.jumps >= 3 && n > 0 && r.sample_t[n - 1] >= r.completion_s - iv,
           "%u samples, the last at %.6g s of a %.6g s run (%u jumps)", n,
           n ? r.sample_t[n - 1] : 0.0, r.completion_s, r.hybrid.jumps);
    CHECKF(!bad, "%u samples off the grid", bad);
    results_release(&r);
}

/* hstrag31's bed B at seed 3 (the production row's writers, 256 nodes, 4
 * storage nodes, 4e9 parameters): the last writers end 0.7 ms early, set
 * in the packets after the jumps, which the estimate from the windows
 * before them (0.61 ms) missed. Each jump's writers are checked one window
 * after it against what it credited them, both ways: the estimate covers
 * the error and stays under the 1% bar; the jumps' terms in quadrature keep
 * it within 3x the error (their sum was 2.82 ms, 4.0x). */
static void hybrid_estimate_covers_after_jumps(void)
{
    static const char *const keys[] = {"model.name=custom", "model.params=4000000000",
                                       "cluster.nodes=256", "storage.nodes=4", "seed=3"};
    struct scenario sc;
    struct err e = {{0}};
    struct results r[2]; /* packet, hybrid */
    scenario_defaults(&sc);
    CHECKF(scenario_load_file(&sc, "scenarios/llama3-405b-production.yaml", &e) == 0, "%s", e.msg);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        test_set(&sc, "%s", keys[k]);
#if defined(__SANITIZE_ADDRESS__)
    /* under ASan (9 s plain, 26 s there) the first 25 ms only: a jump and
     * the window after it checked, the invariants held; the other lanes
     * compare with packet */
    asan_window(&sc, 1, 0);
    return;
#endif
    int rc[2] = {run(&sc, ENGINE_PACKET, &r[0]), run(&sc, ENGINE_HYBRID, &r[1])};
    if (rc[0] == 0 && rc[1] == 0) {
        const struct hybrid_figures *hf = &r[1].hybrid;
        double err = fabs(r[1].completion_s - r[0].completion_s);
        CHECKF(hf->jumps >= 1 && err > 0 && err <= hf->error_s && hf->error_s < 0.01 * r[0].completion_s &&
                   hf->error_s <= 3 * err,
               "%u jumps; error estimate %.6g s, error %.6g s", hf->jumps, hf->error_s, err);
    }
    for (int k = 0; k < 2; k++)
        if (rc[k] == 0)
            results_release(&r[k]);
}

/* sc at seed s, hybrid against packet: at least one jump, and the bars
 * with the largest queue within `queue` (the rules were once fitted on
 * seed 1 alone, and five rows of the validation table went out at seed 2
 * or 3). */
static void within_bars_at(struct scenario *sc, int s, double queue)
{
    struct results r[2]; /* packet, hybrid */
    sc->seed = (uint64_t)s;
    int rc[2] = {run(sc, ENGINE_PACKET, &r[0]), run(sc, ENGINE_HYBRID, &r[1])};
    if (rc[0] == 0 && rc[1] == 0) {
        char at[16];
        snprintf(at, sizeof at, "seed %d: ", s);
        CHECKF(r[1].hybrid.jumps >= 1, "%sno jump", at);
        check_within(&r[1], &r[0], at, queue);
    }
    for (int k = 0; k < 2; k++)
        if (rc[k] == 0)
            results_release(&r[k]);
}

/* the same at seeds 1 to `seeds`, the queue at the 5% bar */
static void within_bars_at_seeds(struct scenario *sc, int seeds)
{
    for (int s = 1; s <= seeds; s++)
        within_bars_at(sc, s, 0.05);
}

/* sc at seed s within the bars; under ASan its first `limit` instead, with
 * at least `jumps` jumps and the invariants held (the full run is slow) */
static void within_at_seed(struct scenario *sc, int s, const char *limit, unsigned jumps)
{
    sc->seed = (uint64_t)s;
#if defined(__SANITIZE_ADDRESS__)
    asan_window_to(sc, limit, jumps, 0);
#else
    (void)limit, (void)jumps;
    within_bars_at(sc, s, 0.05);
#endif
}

/* bench-1024 (1,016 writers of 8 MB into 8 storage nodes: the benchmark's
 * burst, hybrid jumps 2-4 times) within the bars at seeds 1-3 (session
 * 40: +0.03% / +0.89% / -3.29% at seed 1, -0.05% / +0.57% / -0.33% at
 * seed 3). */
static void hybrid_bench1024_within_bars_at_seeds(void)
{
    struct scenario sc;
    if (shipped(&sc, "scenarios/bench-1024.yaml"))
        return;
#if defined(__SANITIZE_ADDRESS__)
    within_bars_at_seeds(&sc, 1); /* seed 1 only: the plain lane runs all three */
    return;
#endif
    within_bars_at_seeds(&sc, 3);
}

/* A node's writers in lockstep: the scaled mlperf-llama3-70b row (7e9
 * parameters, 8 nodes of 16 transfers, 16 of 32 senders a receiver) at
 * seed 2. Each writer's credit by its own window bytes set a node's
 * writers apart where its NIC keeps them within a packet; their ends
 * spread and the last queued alone: completion +2.05%, largest queue
 * +30.8% (session 41). Lockstep gives them one credit, kept off the
 * moves: largest queue -5.69% (session 41, hyb47p): a 56.7 ms jump at
 * 21.6 ms carried the nodes' shares while they still moved (one 1.24 of
 * the mean, 1.35 in the packets from 55 ms), so the nodes ended in
 * another order. A jump now spans at most the time a lockstep node's
 * share, at its fitted drift, takes to move 1% (node_drift): completion
 * -0.09%, paused +0.08%, largest queue -0.06% (session 42, hyb48q). */
static void hybrid_m70_lockstep_seed2(void)
{
    struct scenario sc;
    if (custom_model(&sc, "scenarios/mlperf-llama3-70b.yaml", "7000000000"))
        return;
    test_set(&sc, "checkpoint.mlperf=none");
    test_set(&sc, "checkpoint.phase=save");
    /* under ASan: the lockstep's first jump (at 33.6 ms) */
    within_at_seed(&sc, 2, "45ms", 1);
}

/* A jump WATCH alone holds: the scaled production row at seed 2. Its
 * second jump came at 6.8 ms on fits that counted no drift (the paused
 * rate's decline -1.89 +- 0.78/s, 2.4 standard errors; the queued bytes'
 * 2.0), so WATCH alone held it, to 16.8 ms; the state ran that far behind
 * the packets' unpausing uplinks: completion -1.458%, paused +5.78%
 * (session 41). Bounded by the drift no fit rules out over its own span
 * (WATCH_EU / eu: 6.5 ms): -0.71% / +2.59% / +0.00% (session 42, hyb48w).
 * Under ASan its first 15 ms, that jump (its second) with the invariants
 * checked. */
static void hybrid_watch_jump_within_eu(void)
{
    struct scenario sc;
    if (scaled(&sc, "scenarios/llama3-405b-production.yaml"))
        return;
    within_at_seed(&sc, 2, "15ms", 2);
}

/* The queue walk hybrid's shift, gather and moves share (PKT_SPAN_FOR_EACH):
 * from the head chunk's index to the tail chunk's, in order, never into a
 * chunk after the tail (a wire keeps its last; a run may go on); through
 * a non-const head it may write. */
static void hybrid_span_walk_stops_at_tail(void)
{
    static struct pkt_chunk ch[3];
    memset(ch, 0, sizeof ch);
    for (unsigned c = 0; c < 3; c++)
        for (unsigned i = 0; i < PKT_CHUNK; i++)
            ch[c].p[i].psn = 100 * c + i;
    ch[0].next = &ch[1];
    ch[1].next = &ch[2];
    uint32_t seen[2 * PKT_CHUNK], k = 0;
    const struct pkt_chunk *hc = &ch[0];
    PKT_SPAN_FOR_EACH(hc, PKT_CHUNK - 2, &ch[1], 3, pk, if (k < 2 * PKT_CHUNK) seen[k] = pk->psn; k++;)
    uint32_t want[] = {PKT_CHUNK - 2, PKT_CHUNK - 1, 100, 101, 102};
    CHECKF(k == 5, "%u packets walked, 5 queued", k);
    for (uint32_t i = 0; i < 5 && i < k; i++)
        CHECKF(seen[i] == want[i], "packet %u: psn %u, want %u", i, seen[i], want[i]);
    /* head and tail in one chunk; an empty span; none */
    k = 0;
    PKT_SPAN_FOR_EACH(&ch[1], 4, &ch[1], 9, pk, CHECK(pk->psn == 104 + k); k++;)
    CHECKF(k == 5, "one chunk: %u walked, 5 queued", k);
    k = 0;
    PKT_SPAN_FOR_EACH(&ch[1], 7, &ch[1], 7, pk, (void)pk; k++;)
    hc = NULL;
    PKT_SPAN_FOR_EACH(hc, 0, hc, 0, pk, (void)pk; k++;)
    CHECKF(k == 0, "empty spans walked %u", k);
    /* written through (the shift's use); the chunk past the tail untouched */
    struct pkt_chunk *mc = &ch[0];
    PKT_SPAN_FOR_EACH(mc, 0, &ch[1], PKT_CHUNK, pk, pk->t += 7;)
    CHECK(ch[0].p[0].t == 7 && ch[1].p[PKT_CHUNK - 1].t == 7 && ch[2].p[0].t == 0);
}

SUITE(suite_hybrid) = {
    {"hybrid_span_walk_stops_at_tail", hybrid_span_walk_stops_at_tail},
    {"evq_shift_moves_all_but_kept", evq_shift_moves_all_but_kept},
    {"hybrid_steady_incast_within_1pct", hybrid_steady_incast_within_1pct},
    {"hybrid_port_counters_credited", hybrid_port_counters_credited},
    {"hybrid_bytes_conserved", hybrid_bytes_conserved},
    {"hybrid_staggered_starts_never_jumped", hybrid_staggered_starts_never_jumped},
    {"hybrid_slow_senders_keep_bound", hybrid_slow_senders_keep_bound},
    {"hybrid_full_links_stay_full", hybrid_full_links_stay_full},
    {"hybrid_drain_with_senders_credits_all", hybrid_drain_with_senders_credits_all},
    {"hybrid_backend_buffer_keeps_bound", hybrid_backend_buffer_keeps_bound},
    {"hybrid_switch_links_cap_credit", hybrid_switch_links_cap_credit},
    {"hybrid_full_switch_link_stays_full", hybrid_full_switch_link_stays_full},
    {"hybrid_phase_both_reports_read", hybrid_phase_both_reports_read},
    {"hybrid_drained_paths_stay_full", hybrid_drained_paths_stay_full},
    {"hybrid_sprayed_hops_cap_credit", hybrid_sprayed_hops_cap_credit},
    {"hybrid_full_sender_fills_by_packet", hybrid_full_sender_fills_by_packet},
    {"hybrid_ooo_receiver_conserves", hybrid_ooo_receiver_conserves},
    {"hybrid_reordering_runs_as_packet", hybrid_reordering_runs_as_packet},
    {"hybrid_dcqcn_within_1pct", hybrid_dcqcn_within_1pct},
    {"hybrid_dcqcn_receiver_credited_line_rate", hybrid_dcqcn_receiver_credited_line_rate},
    {"hybrid_dcqcn_rates_trend_held", hybrid_dcqcn_rates_trend_held},
    {"hybrid_dcqcn_rate_carried", hybrid_dcqcn_rate_carried},
    {"hybrid_dcqcn_switch_link_line_rate", hybrid_dcqcn_switch_link_line_rate},
    {"hybrid_frames_estimate_covers", hybrid_frames_estimate_covers},
    {"hybrid_unsupported_runs_as_packet", hybrid_unsupported_runs_as_packet},
    {"hybrid_many_flow_incast", hybrid_many_flow_incast},
    {"hybrid_incast_pauses_within_1pct", hybrid_incast_pauses_within_1pct},
    {"hybrid_drain_fast_forwarded", hybrid_drain_fast_forwarded},
    {"hybrid_drain_never_jumps_a_start", hybrid_drain_never_jumps_a_start},
    {"hybrid_ingest_level_filled", hybrid_ingest_level_filled},
    {"hybrid_long_run_period_from_fabric", hybrid_long_run_period_from_fabric},
    {"hybrid_estimate_counts_writers_shares", hybrid_estimate_counts_writers_shares},
    {"hybrid_estimate_counts_a_packet", hybrid_estimate_counts_a_packet},
    {"hybrid_narrow_tail_counted_and_bounded", hybrid_narrow_tail_counted_and_bounded},
    {"hybrid_writers_shares_settle", hybrid_writers_shares_settle},
    {"hybrid_dctcp_shares_drawn", hybrid_dctcp_shares_drawn},
    {"hybrid_passes_many_ends", hybrid_passes_many_ends},
    {"hybrid_drifting_backlog_paused_within_3pct", hybrid_drifting_backlog_paused_within_3pct},
    {"hybrid_paused_decline_carried", hybrid_paused_decline_carried},
    {"hybrid_unseen_drift_paused_within_5pct", hybrid_unseen_drift_paused_within_5pct},
    {"hybrid_paused_estimate_covers_unseen_drift", hybrid_paused_estimate_covers_unseen_drift},
    {"hybrid_ends_refit_paused_within_3pct", hybrid_ends_refit_paused_within_3pct},
    {"hybrid_passes_tails_ends", hybrid_passes_tails_ends},
    {"hybrid_threads_same_figures", hybrid_threads_same_figures},
    {"hybrid_carried_decline_lags", hybrid_carried_decline_lags},
    {"hybrid_3tier_drains_within_bars", hybrid_3tier_drains_within_bars},
    {"hybrid_clustered_ends_not_passed", hybrid_clustered_ends_not_passed},
    {"hybrid_jumps_within_watch", hybrid_jumps_within_watch},
    {"hybrid_flat_fit_long_history", hybrid_flat_fit_long_history},
    {"hybrid_nic_writers_end_together", hybrid_nic_writers_end_together},
    {"hybrid_stops_observing_after_last_end", hybrid_stops_observing_after_last_end},
    {"hybrid_samples_inside_jumps_marked", hybrid_samples_inside_jumps_marked},
    {"hybrid_sparse_samples_reach_the_end", hybrid_sparse_samples_reach_the_end},
    {"hybrid_estimate_covers_after_jumps", hybrid_estimate_covers_after_jumps},
    {"hybrid_bench1024_within_bars_at_seeds", hybrid_bench1024_within_bars_at_seeds},
    {"hybrid_m70_lockstep_seed2", hybrid_m70_lockstep_seed2},
    {"hybrid_watch_jump_within_eu", hybrid_watch_jump_within_eu},
    {"hybrid_swift_within_bars", hybrid_swift_within_bars},
    {"hybrid_swift_acks_renumbered", hybrid_swift_acks_renumbered},
    {"hybrid_swift_windows_trend", hybrid_swift_windows_trend},
    {"hybrid_swift_paced_held", hybrid_swift_paced_held},
    {"hybrid_swift_ack_requests_held", hybrid_swift_ack_requests_held},
    {"hybrid_swift_slow_writers_held", hybrid_swift_slow_writers_held},
    {"hybrid_nscc_within_bars", hybrid_nscc_within_bars},
    {"hybrid_hpcc_within_bars", hybrid_hpcc_within_bars},
    {"hybrid_nscc_sender_trend", hybrid_nscc_sender_trend},
    {"hybrid_nscc_readers_full", hybrid_nscc_readers_full},
    {"hybrid_tcp_within_bars", hybrid_tcp_within_bars},
    {"hybrid_tcp_window_held_writer", hybrid_tcp_window_held_writer},
    {"hybrid_tcp_resends_held", hybrid_tcp_resends_held},
    {"hybrid_tcp_lossy_jumps", hybrid_tcp_lossy_jumps},
    {"hybrid_tcp_no_jump_after_a_drop", hybrid_tcp_no_jump_after_a_drop},
    {"hybrid_nscc_trimming_jumps", hybrid_nscc_trimming_jumps},
    {"hybrid_drop_says_why", hybrid_drop_says_why},
    {"hybrid_window_lossy_jumps", hybrid_window_lossy_jumps},
    {"hybrid_hpcc_sender_trend", hybrid_hpcc_sender_trend},
    {"hybrid_hpcc_trend_carried", hybrid_hpcc_trend_carried},
    {"hybrid_hpcc_small_window_held", hybrid_hpcc_small_window_held},
    {"hybrid_hpcc_small_windows_within_budget", hybrid_hpcc_small_windows_within_budget},
    {"hybrid_rate_lossy_jumps", hybrid_rate_lossy_jumps},
    {"hybrid_no_jump_after_a_timeout", hybrid_no_jump_after_a_timeout},
    {"hybrid_nscc_wide_senders_jump", hybrid_nscc_wide_senders_jump},
    {"hybrid_window_ooo_rings_carried", hybrid_window_ooo_rings_carried},
    {NULL, NULL},
};
