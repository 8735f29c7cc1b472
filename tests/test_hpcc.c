/* HPCC (transport.cc hpcc, src/pkt/hpcc.c) against its paper.
 *
 * - Trajectory: the transport runs wrapped, and at every ACK the test
 *   copies the ACKed packet's INT (the side slot) and works out the window
 *   from Algorithm 1 of the paper (Li et al., SIGCOMM 2019) on its own
 *   state: U from the most utilised hop of two consecutive INT records,
 *   W = W_c/(U/eta) + W_AI or W_c + W_AI, W_c once per RTT. T comes from the
 *   path's arithmetic, not from the transport. The simulation's window must
 *   be the same at every ACK, for one flow and a 2-flow incast.
 * - Steady state: N flows on one bottleneck share it within 5%, keep it
 *   busy near eta, and the queue near zero.
 * - A lossy fabric (loss recovery) and a checkpoint burst complete.
 */
#include <math.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/units.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

#define HT_FLOWS 2
#define HT_ACKS 1024

/* The model's state per flow and what it found. The hooks take no context
 * pointer and a test runs one engine at a time: the record is this file's. */
static struct hp_model {
    uint64_t t_ps;          /* T from the path */
    double line, mtu;
    struct hm_flow {
        int have;
        struct side_slot last; /* L: the previous ACK's INT */
        double u, wc;
        uint32_t stage, acked, last_update;
    } f[HT_FLOWS];
    uint32_t acks, bad, mult, add, full;
    double worst; /* largest relative difference of W */
} hm;

static double model_w_ai(double line)
{
    return line / 2500 * (double)hm.t_ps * 1e-12 / 8; /* 10 Mbps per 25 Gbps, x T */
}

/* Algorithm 1 for one ACK of flow i: the expected window, or < 0 when the
 * ACK changes nothing (the first one: only L). */
static double model_ack(int i, uint32_t psn, const struct side_slot *now, uint64_t sent,
                        const struct scenario *sc)
{
    double eta = sc->transport.hpcc.eta, T = (double)hm.t_ps * 1e-12;
    uint32_t snd_nxt = (uint32_t)ceil((double)sent / hm.mtu);
    struct hm_flow *m = &hm.f[i];
    if (!m->have) {
        m->have = 1;
        m->u = 1;
        m->wc = hm.line * T / 8;
        m->last_update = snd_nxt;
        m->last = *now;
        return -1;
    }
    /* MeasureInflight */
    double u = -1;
    uint64_t tau = 0;
    for (uint32_t h = 0; h < now->hops && h < m->last.hops; h++) {
        const struct side_hop *a = &now->hop[h], *b = &m->last.hop[h];
        double B = hm.line; /* every link of these fabrics runs at the NIC's rate */
        double tx_rate = (double)(a->tx_bytes - b->tx_bytes) * 8 / ((double)(a->t - b->t) * 1e-12);
        double qlen = (double)(a->q_bytes < b->q_bytes ? a->q_bytes : b->q_bytes);
        double up = qlen * 8 / (B * T) + tx_rate / B;
        if (up > u) {
            u = up;
            tau = a->t - b->t;
        }
    }
    m->last = *now;
    if (tau > hm.t_ps)
        tau = hm.t_ps;
    m->u = (1 - (double)tau / (double)hm.t_ps) * m->u + (double)tau / (double)hm.t_ps * u;
    /* ComputeWind, with ns-3's bounds (rmin T .. line T) */
    int full = psn > m->last_update;
    double w;
    if (m->u >= eta || m->stage >= sc->transport.hpcc.max_stage) {
        w = m->wc / (m->u / eta) + model_w_ai(hm.line);
        hm.mult++;
        if (full)
            m->stage = 0;
    } else {
        w = m->wc + model_w_ai(hm.line);
        hm.add++;
        if (full)
            m->stage++;
    }
    double lo = (double)sc->transport.hpcc.rmin_bps * T / 8, hi = hm.line * T / 8;
    w = w < lo ? lo : w > hi ? hi : w;
    if (full) {
        m->wc = w;
        m->last_update = snd_nxt;
        hm.full++;
    }
    return w;
}

static void model_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    int i = (int)f->id;
    if (i < HT_FLOWS && psn > hm.f[i].acked) {
        hm.f[i].acked = psn;
        struct side_slot now = *pnet_side(n, f, psn - 1);
        hm.bad += now.psn != psn - 1; /* the slot must still be this packet's */
        double want = model_ack(i, psn, &now, f->sent, n->sc);
        transport_hpcc.on_ack(n, f, psn);
        if (want >= 0) {
            double got = f->cc.hpcc.w, d = fabs(got - want) / want;
            hm.worst = d > hm.worst ? d : hm.worst;
            hm.bad += d > 1e-9;
            /* the pacing rate is W / T */
            double r = transport_hpcc.rate(n, f), rw = got * 8 / ((double)hm.t_ps * 1e-12);
            hm.bad += fabs(r - (rw < hm.line ? rw : hm.line)) > 1e-6 * hm.line;
            hm.acks++;
        }
        return;
    }
    transport_hpcc.on_ack(n, f, psn);
}

/* writers hosts under one leaf, 100G, 1 us links, 500 ns switches, one
 * spine, one storage node: the leaf's uplink and the storage NIC carry
 * every flow. */
static void hp_fabric(struct scenario *sc, unsigned writers, const char *bytes)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=%u", writers);
    test_set(sc, "fabric.hosts_per_leaf=%u", writers < 4 ? 4 : writers);
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.storage_per_leaf=1");
    test_set(sc, "fabric.spines=1");
    test_set(sc, "cluster.nic_speed=100Gbps");
    test_set(sc, "storage.nic_speed=100Gbps");
    test_set(sc, "fabric.uplink_speed=100Gbps");
    test_set(sc, "fabric.link_delay=1us");
    test_set(sc, "fabric.switch_latency=500ns");
    test_set(sc, "fabric.mtu=4096B");
    test_set(sc, "workload.bytes_per_writer=%s", bytes);
    test_set(sc, "transport.cc=hpcc");
    test_set(sc, "engine=packet");
}

/* T by hand: an MTU packet out and its ACK back, host, leaf, spine, leaf,
 * storage (4 links each way, 3 switches each way), for a data packet of
 * data_over bytes beyond its payload and an ACK of ack wire bytes. */
static uint64_t path_rtt_framed(const struct scenario *sc, uint64_t data_over, uint64_t ack)
{
    uint64_t data = sc->fabric.mtu + data_over;
    uint64_t ps = 4 * (units_ser_ps(data, 100000000000ull) + units_ser_ps(ack, 100000000000ull));
    ps += 8 * 1000000ull;            /* 1 us per link, both ways */
    ps += 2 * (2 * sc->fabric.leaf_latency_ps + sc->fabric.spine_latency_ps);
    return ps;
}

/* RoCE: the ACK is a control record in the data packets' framing. */
static uint64_t path_rtt(const struct scenario *sc)
{
    return path_rtt_framed(sc, ROCE_OVERHEAD, CNP_PAYLOAD + ROCE_OVERHEAD);
}

static void trajectory(unsigned writers)
{
    struct scenario sc;
    hp_fabric(&sc, writers, "2MB");
    struct err e;
    CHECK(scenario_resolve(&sc, &e) == 0);
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    memset(&hm, 0, sizeof hm);
    hm.t_ps = path_rtt(&sc);
    hm.line = 100e9;
    hm.mtu = sc.fabric.mtu;
    struct transport_ops ops = transport_hpcc;
    ops.on_ack = model_on_ack;
    struct results r;
    memset(&r, 0, sizeof r);
    CHECK(pkt_run_transport(&sc, &b.t, &b.w, &r, &ops, &e) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == (uint64_t)writers * 2000000);
    /* every ACK of every flow, each window as the paper's equations give */
    uint32_t pkts = (2000000 + sc.fabric.mtu - 1) / sc.fabric.mtu;
    CHECKF(hm.acks == writers * (pkts - 1), "%u ACKs compared, %u expected", hm.acks,
           writers * (pkts - 1));
    CHECKF(hm.bad == 0, "%u ACKs off the model (worst relative W difference %.3g)", hm.bad,
           hm.worst);
    /* a trajectory that exercises the algorithm: multiplicative and
     * additive steps, W_c updated once per RTT (far fewer than ACKs) */
    CHECKF(hm.mult > 0 && hm.add > 0, "%u multiplicative, %u additive", hm.mult, hm.add);
    CHECKF(hm.full > 10 && hm.full < hm.acks / 4, "%u full updates of %u ACKs", hm.full,
           hm.acks);
    results_release(&r);
    arena_release(&b.a);
}

static void hpcc_trajectory_one_flow(void)
{
    trajectory(1);
}

static void hpcc_trajectory_incast_2(void)
{
    trajectory(2);
}

/* N flows on the bottleneck: each flow's bytes received in the steady part
 * (from 0.5 ms to 90% of the first completion), against the mean. W_AI
 * takes the share of the 1 - eta headroom that N flows' additive steps fill
 * in one RTT: W_init (1 - eta) / N, rai = line (1 - eta) / N. */
static void steady(unsigned writers, const char *bytes)
{
    struct scenario sc;
    hp_fabric(&sc, writers, bytes);
    test_set(&sc, "transport.hpcc.rai=%.0fbps", 100e9 * 0.05 / writers);
    test_set(&sc, "telemetry.interval=10us");
    test_set(&sc, "telemetry.flows=true");
    struct results r;
    memset(&r, 0, sizeof r);
    if (test_run(&sc, &r) != 0) {
        CHECK(0);
        return;
    }
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.drops == 0 && r.pause_frames == 0);
    CHECK(r.n_sample_flows == writers && r.n_samples > 10);
    double first = 1e9;
    for (unsigned k = 0; k < r.n_samples; k++)
        for (unsigned f = 0; f < writers; f++)
            if (r.sample_delivered[k * writers + f] >= r.sample_delivered[(r.n_samples - 1) * writers + f] &&
                r.sample_t[k] < first)
                first = r.sample_t[k];
    unsigned a = 0, z = 0;
    for (unsigned k = 0; k < r.n_samples; k++) {
        if (!a && r.sample_t[k] >= 0.5e-3)
            a = k;
        if (r.sample_t[k] <= 0.9 * first)
            z = k;
    }
    CHECKF(a && z > a + 20, "steady window %u..%u of %u samples", a, z, r.n_samples);
    if (!(a && z > a + 20)) {
        results_release(&r);
        return;
    }
    double dt = r.sample_t[z] - r.sample_t[a], sum = 0, lo = 1e30, hi = 0;
    for (unsigned f = 0; f < writers; f++) {
        double rate = (double)(r.sample_delivered[z * writers + f] -
                               r.sample_delivered[a * writers + f]) * 8 / dt;
        sum += rate;
        lo = rate < lo ? rate : lo;
        hi = rate > hi ? rate : hi;
    }
    double mean = sum / writers;
    CHECKF(hi <= 1.05 * mean && lo >= 0.95 * mean, "%u flows: %.2f..%.2f Gbps, fair %.2f",
           writers, lo / 1e9, hi / 1e9, mean / 1e9);
    /* payload goodput over the line: wire busy is 4096 + 62 B per packet */
    double busy = sum / 100e9 * (4096.0 + ROCE_OVERHEAD) / 4096.0;
    CHECKF(busy > 0.95 && busy < 1.0, "bottleneck %.4f busy", busy);
    double q = 0;
    for (unsigned k = a; k <= z; k++)
        q += (double)r.sample_max_queue[k];
    q /= (double)(z - a + 1);
    CHECKF(q < 4 * (4096.0 + ROCE_OVERHEAD), "mean largest queue %.0f B", q);
    results_release(&r);
}

static void hpcc_fair_4(void)
{
    steady(4, "8MB");
}

static void hpcc_fair_8(void)
{
    steady(8, "4MB");
}

/* Without PFC packets drop in the first RTT's burst (every flow starts at
 * W_init): loss recovery resends them. A resend must not wait behind a
 * window that only ACKs open: before on_nak/on_timeout released it, 3 of
 * the 4 transfers failed after 8 timeouts each. */
static void lossy(const char *receiver)
{
    struct scenario sc;
    hp_fabric(&sc, 4, "2MB");
    test_set(&sc, "fabric.pfc.enabled=false");
    test_set(&sc, "fabric.buffer=400KB");
    test_set(&sc, "transport.receiver=%s", receiver);
    test_set(&sc, "transport.ack_timeout=8"); /* 1 ms: go-back-N's tail resend */
    struct results r;
    memset(&r, 0, sizeof r);
    if (test_run(&sc, &r) != 0) {
        CHECK(0);
        return;
    }
    CHECKF(r.ok, "%s", r.violation);
    CHECKF(r.drops > 0, "%llu drops: the case needs losses", (unsigned long long)r.drops);
    CHECK(r.qp_errors == 0 && r.bytes_delivered == 4 * 2000000ull);
    results_release(&r);
}

static void hpcc_lossy_ooo(void)
{
    lossy("ooo");
}

static void hpcc_lossy_gbn(void)
{
    lossy("gbn");
}

/* An ACK every 8 packets: 8 flows hold ~5 packets of window each, so a
 * window below 8 packets waited for an ACK the receiver never sent (the
 * run stopped with transfers incomplete before may_send kept it at least
 * ack_interval packets). */
static void hpcc_ack_interval(void)
{
    struct scenario sc;
    hp_fabric(&sc, 8, "1MB");
    test_set(&sc, "transport.hpcc.ack_interval=8");
    struct results r;
    memset(&r, 0, sizeof r);
    if (test_run(&sc, &r) != 0) {
        CHECK(0);
        return;
    }
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == 8 * 1000000ull);
    /* one ACK per 8 packets of each flow, and its last */
    uint64_t per = (1000000 + sc.fabric.mtu - 1) / sc.fabric.mtu;
    CHECKF(r.rc_acks == 8 * (per / 8 + (per % 8 != 0)), "%llu ACKs for %llu packets",
           (unsigned long long)r.rc_acks, (unsigned long long)(8 * per));
    CHECK(r.rate_decreases > 0);
    results_release(&r);
}

/* The benchmark's burst (scenarios/bench-1024.yaml: 400G, 8 storage nodes,
 * 8 MB per writer) at 64 writers, lossless: every byte once, no drops, no
 * pause needed to hold it. */
static void hpcc_burst(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct err e;
    CHECKF(scenario_load_file(&sc, "scenarios/bench-1024.yaml", &e) == 0, "%s", e.msg);
    test_set(&sc, "cluster.nodes=64");
    test_set(&sc, "transport.cc=hpcc");
    test_set(&sc, "engine=packet");
    struct results r;
    memset(&r, 0, sizeof r);
    if (test_run(&sc, &r) != 0) {
        CHECK(0);
        return;
    }
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == 64 * 8000000ull && r.bytes_sent == r.bytes_delivered);
    CHECK(r.drops == 0);
    CHECK(r.rate_decreases > 0 && r.rc_acks >= r.data_packets);
    results_release(&r);
}

/* T under UEC's framing: 122 B of headers a data packet and its own 110 B
 * ACK (PDS ACK_CC + SES response), not a data-framed control record
 * (138 B): each flow's T is the path's arithmetic with those sizes. */
static struct {
    uint32_t starts, bad;
    uint64_t want, got;
} uec_t;

static void uec_t_start(struct pnet *n, struct flow *f)
{
    transport_hpcc.start(n, f);
    uec_t.starts++;
    uec_t.got = f->cc.hpcc.t_ps;
    uec_t.bad += f->cc.hpcc.t_ps != uec_t.want;
}

static void hpcc_uec_ack_rtt(void)
{
    struct scenario sc;
    hp_fabric(&sc, 2, "256KB");
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.cc=hpcc");
    struct err e;
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    memset(&uec_t, 0, sizeof uec_t);
    uec_t.want = path_rtt_framed(&sc, 122, 20 + 14 + 20 + 8 + 32 + 12 + 4);
    struct transport_ops ops = transport_hpcc;
    ops.start = uec_t_start;
    struct results r;
    memset(&r, 0, sizeof r);
    CHECKF(pkt_run_transport(&sc, &b.t, &b.w, &r, &ops, &e) == 0, "%s", e.msg);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == 2ull * 256000);
    CHECKF(uec_t.starts == 2 && uec_t.bad == 0, "%u starts, %u off: T %llu ps, by hand %llu ps",
           uec_t.starts, uec_t.bad, (unsigned long long)uec_t.got,
           (unsigned long long)uec_t.want);
    results_release(&r);
    arena_release(&b.a);
}

SUITE(suite_hpcc) = {
    {"hpcc_trajectory_one_flow", hpcc_trajectory_one_flow},
    {"hpcc_trajectory_incast_2", hpcc_trajectory_incast_2},
    {"hpcc_fair_4", hpcc_fair_4},
    {"hpcc_fair_8", hpcc_fair_8},
    {"hpcc_lossy_ooo", hpcc_lossy_ooo},
    {"hpcc_lossy_gbn", hpcc_lossy_gbn},
    {"hpcc_ack_interval", hpcc_ack_interval},
    {"hpcc_burst", hpcc_burst},
    {"hpcc_uec_ack_rtt", hpcc_uec_ack_rtt},
    {0, 0},
};
