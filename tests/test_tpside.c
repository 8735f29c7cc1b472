/* What the next transports need, built and used by a transport that lives
 * only here (a window sender with an ACK per packet, as HPCC or Swift): the
 * side table's send stamps and per-hop telemetry (transport.h), an ACK per
 * data packet on a lossless fabric (nic_send_ack), and a window beside the
 * pacing rate (may_send). On one idle path the figures are arithmetic:
 * every RTT is the path's serialisations, cable delays and switch
 * latencies both ways, each packet's INT has one entry per switch, and a
 * window of W packets sends W per RTT. */
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/units.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

#define PROBE_PKTS 128
#define PROBE_WIN 4

/* What the probe saw. The hooks take no context pointer, and a test runs
 * one engine at a time on one thread: the probe's record is this file's. */
static struct probe {
    uint64_t sent_ps[PROBE_PKTS]; /* per PSN, read back from the side table */
    uint64_t rtt_lo, rtt_hi;
    uint32_t acks, data, hops_lo, hops_hi, hop_port_bad, hop_t_bad;
    uint64_t hop_q_max;
    uint32_t max_in_flight;
    uint32_t path[TOPO_MAX_HOPS], path_len;
} probe;

/* Its per-flow state, in the flow's union (copied: the union has no member
 * of its type, and a member for a test would grow nothing but tests). */
struct probe_state {
    uint32_t acked; /* packets below it are acknowledged */
};
_Static_assert(sizeof(struct probe_state) <= sizeof(union cc_state), "fits the union");

static struct probe_state get_state(const struct flow *f)
{
    struct probe_state s;
    memcpy(&s, &f->cc, sizeof s);
    return s;
}

static uint32_t in_flight(const struct pnet *n, const struct flow *f)
{
    return (uint32_t)((f->sent + n->sc->fabric.mtu - 1) / n->sc->fabric.mtu) - get_state(f).acked;
}

static void probe_start(struct pnet *n, struct flow *f)
{
    (void)n;
    struct probe_state s = {0};
    memcpy(&f->cc, &s, sizeof s);
}

static uint64_t probe_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)pk, (void)wire;
    uint32_t k = in_flight(n, f);
    probe.max_in_flight = k > probe.max_in_flight ? k : probe.max_in_flight;
    return f->line_bps;
}

static double probe_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return (double)f->line_bps;
}

/* The sender: an ACK for the packet below psn; its slot still holds the
 * send stamp (at most PROBE_WIN in flight, the table's window). */
static void probe_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    struct probe_state s = get_state(f);
    if (psn <= s.acked || psn > PROBE_PKTS)
        return;
    const struct side_slot *sl = pnet_side(n, f, psn - 1);
    if (sl->psn == psn - 1) {
        uint64_t rtt = n->now - sl->sent_ps;
        probe.sent_ps[psn - 1] = sl->sent_ps;
        probe.rtt_lo = rtt < probe.rtt_lo ? rtt : probe.rtt_lo;
        probe.rtt_hi = rtt > probe.rtt_hi ? rtt : probe.rtt_hi;
        probe.acks++;
    }
    s.acked = psn;
    memcpy(&f->cc, &s, sizeof s);
}

static int probe_may_send(const struct pnet *n, const struct flow *f)
{
    return in_flight(n, f) < PROBE_WIN;
}

/* The receiver: the packet's INT, then an ACK for it. */
static void probe_on_data(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    const struct side_slot *sl = pnet_side(n, f, pk->psn);
    probe.data++;
    probe.hops_lo = sl->hops < probe.hops_lo ? sl->hops : probe.hops_lo;
    probe.hops_hi = sl->hops > probe.hops_hi ? sl->hops : probe.hops_hi;
    for (uint32_t h = 0; h < sl->hops; h++) {
        /* the switches' egress ports in path order: the NIC's is path[0] */
        probe.hop_port_bad += h + 1 >= probe.path_len || sl->hop[h].port != probe.path[h + 1];
        probe.hop_t_bad += sl->hop[h].t <= (h ? sl->hop[h - 1].t : sl->sent_ps);
        if (sl->hop[h].q_bytes > probe.hop_q_max)
            probe.hop_q_max = sl->hop[h].q_bytes;
    }
    nic_send_ack(n, node, f, f->expect_psn);
}

static const struct transport_ops probe_ops = {
    .cc = CC_NONE,
    .start = probe_start,
    .on_send = probe_on_send,
    .rate = probe_rate,
    .on_ack = probe_on_ack,
    .may_send = probe_may_send,
    .on_data = probe_on_data,
    .side = SIDE_STAMP | SIDE_INT,
    .side_window = PROBE_WIN,
};

/* One transfer of PROBE_PKTS packets from host 0 to the first storage node
 * on an idle two-tier fabric (host, leaf, spine, leaf, storage). */
static void tpside_window_probe(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=16");
    test_set(&sc, "storage.nodes=2");
    struct err e;
    CHECK(scenario_resolve(&sc, &e) == 0);
    struct arena a;
    arena_init(&a);
    struct topo t;
    CHECK(topo_build(&t, &sc, &a, &e) == 0);
    uint64_t mtu = sc.fabric.mtu;
    struct transfer x;
    memset(&x, 0, sizeof x);
    x.src = 0;
    x.dst = t.first_storage;
    x.bytes = PROBE_PKTS * mtu;
    x.sport = 50000;
    struct workload w;
    memset(&w, 0, sizeof w);
    w.xfers = &x;
    w.n = w.n_writers = 1;
    w.total_bytes = x.bytes;
    memset(&probe, 0, sizeof probe);
    probe.rtt_lo = UINT64_MAX;
    probe.hops_lo = UINT32_MAX;
    probe.path_len = topo_path(&t, x.src, x.dst, x.sport, probe.path, TOPO_MAX_HOPS);
    CHECKF(probe.path_len == 4, "path of %u ports", probe.path_len); /* NIC, leaf, spine, leaf */
    /* the path both ways: the data packet forward, its ACK back */
    uint64_t data_wire = mtu + ROCE_OVERHEAD, ack_wire = CNP_PAYLOAD + ROCE_OVERHEAD;
    uint64_t rtt = 0;
    for (uint32_t i = 0; i < probe.path_len; i++) {
        const struct tport *fw = &t.ports[probe.path[i]], *bk = &t.ports[fw->peer];
        rtt += units_ser_ps(data_wire, fw->bps) + topo_delay(&t, fw);
        rtt += units_ser_ps(ack_wire, bk->bps) + topo_delay(&t, bk);
        if (i > 0) /* a switch: its latency each way */
            rtt += 2 * (fw->node >= t.first_spine ? sc.fabric.spine_latency_ps
                                                  : sc.fabric.leaf_latency_ps);
    }
    struct results r;
    memset(&r, 0, sizeof r);
    CHECK(pkt_run_transport(&sc, &t, &w, &r, &probe_ops, &e) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == x.bytes);
    /* every packet answered, every RTT the arithmetic's */
    CHECKF(probe.acks == PROBE_PKTS, "%u ACKs heard", probe.acks);
    CHECKF(probe.rtt_lo == rtt && probe.rtt_hi == rtt, "RTT %llu..%llu ps, path %llu ps",
           (unsigned long long)probe.rtt_lo, (unsigned long long)probe.rtt_hi,
           (unsigned long long)rtt);
    /* INT: one entry per switch, at the path's ports, in time order; the
     * queue behind a packet holds at most the rest of its window (the
     * engine's queue counts packets inside the switch latency too) */
    CHECK(probe.data == PROBE_PKTS);
    CHECKF(probe.hops_lo == probe.path_len - 1 && probe.hops_hi == probe.path_len - 1,
           "hops %u..%u, path %u switches", probe.hops_lo, probe.hops_hi, probe.path_len - 1);
    CHECKF(probe.hop_port_bad == 0 && probe.hop_t_bad == 0, "%u hops off the path, %u out of order",
           probe.hop_port_bad, probe.hop_t_bad);
    CHECKF(probe.hop_q_max > 0 && probe.hop_q_max <= (PROBE_WIN - 1) * data_wire,
           "%llu B queued behind a packet", (unsigned long long)probe.hop_q_max);
    /* the window: never more than W in flight, each packet sent one RTT
     * after the one W before it, W packets per RTT */
    CHECK(probe.max_in_flight <= PROBE_WIN);
    uint32_t gap_bad = 0;
    for (uint32_t i = 0; i + PROBE_WIN < PROBE_PKTS; i++)
        gap_bad += probe.sent_ps[i + PROBE_WIN] - probe.sent_ps[i] != rtt;
    CHECKF(gap_bad == 0, "%u sends not one RTT after the one a window before", gap_bad);
    double want = (double)PROBE_WIN * (double)mtu * 8 / ((double)rtt * 1e-12);
    double got = (double)(PROBE_PKTS - PROBE_WIN) * (double)mtu * 8 /
                 ((double)(probe.sent_ps[PROBE_PKTS - PROBE_WIN] - probe.sent_ps[0]) * 1e-12);
    CHECKF(got > 0.98 * want && got < 1.02 * want, "throughput %.4g bps, window/RTT %.4g",
           got, want);
    CHECK(r.rc_acks == PROBE_PKTS); /* nic_send_ack counts them */
    results_release(&r);
    arena_release(&a);
}

/* The built-in transports that hear no ACKs ask for no side table and no
 * window: their runs allocate nothing and keep every per-packet branch on
 * a NULL pointer. */
static void tpside_builtins_ask_nothing(void)
{
    for (int k = 0; k < CC_COUNT; k++) {
        const struct transport_ops *tp = transport_of((enum cc_kind)k);
        CHECK(tp != NULL);
        if (tp && !tp->on_ack)
            CHECK(tp->side == 0 && tp->side_window == 0 && tp->may_send == NULL);
    }
    CHECK(sizeof(struct packet) == 24);
}

SUITE(suite_tpside) = {
    {"tpside_window_probe", tpside_window_probe},
    {"tpside_builtins_ask_nothing", tpside_builtins_ask_nothing},
    {0, 0},
};
