/* RCCC (transport.uec.rccc, src/pkt/rccc.c): UEC's receiver credits.
 *
 * The trajectory: two senders into one receiver, the engine's grants
 * (time, flow, cumulative credit) read off the receiver's pacer at each
 * arrival and matched one by one against this file's own model of the rule
 * (round robin over the flows that asked, rccc_pull packets a grant, each
 * grant's wire time at rccc_rate x the line between grants), and against
 * the hand-worked period. Then the 127:1 incast on the lossy fabric, eight
 * flows' shares of one 400G NIC, and bytes conserved in both engines. */
#include <math.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "../src/pkt/rccc.h"
#include "harness.h"
#include "support.h"

#define RMAXF 8
#define RMAXG 4096

struct grant {
    uint64_t t;
    uint32_t flow, cum;
};

static struct rrec {
    uint64_t first[RMAXF];   /* its first arrival: its credit request */
    uint32_t granted[RMAXF]; /* cumulative credit last seen */
    uint32_t init[RMAXF];    /* its initial credit */
    uint64_t seen_grants;
    struct grant g[RMAXG];
    uint32_t ng, multi, over, sends, mtu;
    double ps_per_pkt;
    /* arrivals per flow inside [w0, w1) (fairness), and their wire bytes */
    uint64_t w0, w1, got[RMAXF], wire, last[RMAXF], line_bps;
    uint32_t nf;
} rrec;

static uint64_t rec_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    const struct rccc_tx *s = &n->rccc->tx[f->id];
    rrec.over += s->spent > s->credit;
    rrec.sends++;
    return transport_line_rate.on_send(n, f, pk, wire);
}

/* At each arrival: the request time of a flow's first, and the grants the
 * pacer made since the last arrival (each one's time is its wire time
 * before free_at). */
static void rec_arrival(struct pnet *n, uint32_t node, const struct flow *f,
                        const struct packet *pk)
{
    const struct rccc_node *r = &n->rccc->node[node];
    uint32_t id = f->id;
    if (!rrec.first[id]) {
        rrec.first[id] = n->now;
        rrec.granted[id] = rrec.init[id] = n->rccc->rx[id].granted;
    }
    rrec.mtu = n->mtu;
    rrec.ps_per_pkt = r->ps_per_pkt;
    rrec.line_bps = n->ports[n->topo->nodes[node].first_port].bps;
    if (n->now >= rrec.w0 && n->now < rrec.w1) {
        rrec.got[id] += pk->payload;
        rrec.wire += pk->payload + n->wire_overhead;
    }
    rrec.last[id] = n->now;
    if (r->grants == rrec.seen_grants)
        return;
    rrec.multi += r->grants != rrec.seen_grants + 1;
    rrec.seen_grants = r->grants;
    for (uint32_t i = 0; i < rrec.nf; i++) {
        uint32_t now = n->rccc->rx[i].granted;
        if (now == rrec.granted[i] || !rrec.first[i] || rrec.ng == RMAXG)
            continue;
        uint64_t wt = (uint64_t)((double)(now - rrec.granted[i]) * r->ps_per_pkt + 0.5);
        rrec.g[rrec.ng++] = (struct grant){r->free_at - wt, i, now};
        rrec.granted[i] = now;
    }
}

static void rec_on_data(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    rec_arrival(n, node, f, pk);
}

static void rec_on_data_nscc(struct pnet *n, uint32_t node, struct flow *f,
                             const struct packet *pk)
{
    rec_arrival(n, node, f, pk);
    transport_nscc.on_data(n, node, f, pk);
}

/* nf writers (hosts 0, 2, 4, ...) into the first storage node, bytes
 * each, through the transport o. */
static void run_flows(struct scenario *sc, uint32_t nf, uint64_t bytes,
                      const struct transport_ops *o, struct results *r)
{
    struct test_built b;
    rrec.nf = nf;
    test_run_incast(&b, sc, nf, 2, bytes, o, r);
    arena_release(&b.a);
}

static void rccc_scenario(struct scenario *sc, const char *cc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "transport.protocol=uec");
    test_set(sc, "transport.cc=%s", cc);
    test_set(sc, "transport.uec.rccc=true");
}

/* The rule, from the requests' times: the pacer serves the flows that
 * still need credit in the order they asked (one served goes to the back),
 * min(pull, need - granted) packets each time, the next grant that many
 * packets' wire time later; idle, it starts at the next request. */
static uint32_t model_grants(const uint64_t *req, uint32_t nf, uint32_t need, uint32_t init,
                             uint32_t pull, double ps_per_pkt, struct grant *out,
                             uint32_t cap)
{
    uint32_t order[RMAXF], q[RMAXF * 2], qh = 0, qn = 0, granted[RMAXF], ng = 0;
    for (uint32_t i = 0; i < nf; i++) {
        order[i] = i;
        granted[i] = init;
    }
    for (uint32_t i = 1; i < nf; i++) /* by request time */
        for (uint32_t j = i; j > 0 && req[order[j]] < req[order[j - 1]]; j--) {
            uint32_t s = order[j];
            order[j] = order[j - 1];
            order[j - 1] = s;
        }
    uint64_t fire = UINT64_MAX, free_at = 0;
    uint32_t ri = 0;
    for (;;) {
        uint64_t rt = ri < nf ? req[order[ri]] : UINT64_MAX;
        if (rt == UINT64_MAX && fire == UINT64_MAX)
            break;
        if (rt < fire) {
            q[(qh + qn++) % (RMAXF * 2)] = order[ri++];
            if (fire == UINT64_MAX)
                fire = rt > free_at ? rt : free_at;
            continue;
        }
        uint32_t x = q[qh];
        qh = (qh + 1) % (RMAXF * 2);
        qn--;
        uint32_t g = need - granted[x] < pull ? need - granted[x] : pull;
        granted[x] += g;
        if (ng < cap)
            out[ng] = (struct grant){fire, x, granted[x]};
        ng++;
        if (granted[x] < need)
            q[(qh + qn++) % (RMAXF * 2)] = x;
        free_at = fire + (uint64_t)((double)g * ps_per_pkt + 0.5);
        fire = qn ? free_at : UINT64_MAX;
    }
    return ng;
}

/* Two senders, each starting with one BDP of credit (its unloaded round
 * trip at 400 Gbps in whole packets: init) and sending init + 120 packets:
 * the rest comes in 30 grants of 4 packets per flow, one grant every 4 x
 * 4218 wire bytes at 0.99 x 400 Gbps = 340848 ps (rounded), back to back
 * from the first request, so the 60th grant is 59 periods after the first.
 * Each flow gets 4 packets every 2 periods, half the receiver's line. The
 * engine's grants match the model's one by one, and no packet ever went
 * past its credit. */
static void rccc_two_sender_trajectory(void)
{
    struct scenario sc;
    rccc_scenario(&sc, "none");
    /* init: one BDP of the unloaded round trip, as the key's doc says */
    struct err e;
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    struct arena a;
    arena_init(&a);
    struct topo t;
    CHECK(topo_build(&t, &sc, &a, &e) == 0);
    uint32_t init = 0;
    for (uint32_t i = 0; i < 2; i++) {
        uint64_t rtt = pkt_cnp_direct_ps(&t, &sc, 2 * i, t.first_storage, (uint16_t)(50000 + i)) +
                       pkt_cnp_direct_ps(&t, &sc, t.first_storage, 2 * i, (uint16_t)(50000 + i));
        uint64_t bdp = (uint64_t)((double)rtt * 1e-12 * 400e9 / 8);
        uint32_t k = (uint32_t)((bdp + 4095) / 4096);
        CHECKF(i == 0 || k == init, "flow %u: %u packets of initial credit, flow 0 %u", i, k, init);
        init = k;
    }
    arena_release(&a);
    uint32_t need = init + 120;
    struct transport_ops o = transport_line_rate;
    o.on_send = rec_on_send;
    o.line_rate = 0; /* its on_send is called */
    o.on_data = rec_on_data;
    memset(&rrec, 0, sizeof rrec);
    struct results r;
    rccc_scenario(&sc, "none");
    run_flows(&sc, 2, (uint64_t)need * 4096, &o, &r);
    CHECKF(rrec.mtu == 4096, "mtu %u", rrec.mtu);
    CHECKF(rrec.multi == 0 && rrec.over == 0 && rrec.sends == 2 * need,
           "%u multi, %u over, %u sends", rrec.multi, rrec.over, rrec.sends);
    CHECKF(rrec.init[0] == init && rrec.init[1] == init, "initial credit %u, %u, BDP %u",
           rrec.init[0], rrec.init[1], init);
    printf("  initial credit %u packets, 60 grants\n", init);
    CHECK(r.rccc && r.credit_packets == 60 && r.credits_granted == 2ull * 120 * 4096);
    struct grant m[RMAXG];
    uint32_t nm = model_grants(rrec.first, 2, need, init, 4, rrec.ps_per_pkt, m, RMAXG);
    CHECKF(nm == 60 && rrec.ng == 60, "model %u grants, engine %u", nm, rrec.ng);
    uint32_t bad = 0;
    for (uint32_t k = 0; k < nm && k < rrec.ng; k++) {
        if (m[k].t != rrec.g[k].t || m[k].flow != rrec.g[k].flow || m[k].cum != rrec.g[k].cum) {
            if (bad++ < 3)
                printf("  grant %u: engine t %llu flow %u cum %u, model t %llu flow %u cum %u\n",
                       k, (unsigned long long)rrec.g[k].t, rrec.g[k].flow, rrec.g[k].cum,
                       (unsigned long long)m[k].t, m[k].flow, m[k].cum);
        }
    }
    CHECKF(bad == 0, "%u grants differ from the model", bad);
    /* by hand: 340848 ps a grant, no gap after the first request */
    CHECKF(fabs(rrec.ps_per_pkt * 4 - 340848.48) < 0.01, "%.2f ps a grant", rrec.ps_per_pkt * 4);
    if (rrec.ng == 60) {
        CHECKF(rrec.g[59].t - rrec.g[0].t == 59ull * 340848, "last grant %llu ps after the first",
               (unsigned long long)(rrec.g[59].t - rrec.g[0].t));
        uint32_t last[2] = {0, 0};
        for (uint32_t k = 0; k < 60; k++) /* every flow ends with all it needs */
            last[rrec.g[k].flow] = rrec.g[k].cum;
        CHECK(last[0] == need && last[1] == need);
        /* after the first round, while both need credit, they alternate */
        uint32_t same = 0;
        for (uint32_t k = 3; k < 59; k++)
            same += rrec.g[k].flow == rrec.g[k - 1].flow;
        CHECKF(same == 0, "%u grants in a row to one flow after the first round", same);
    }
    results_release(&r);
}

/* UEC's lossy fabric (PFC off, trimming), 127 writers x 8 MB into one
 * storage node, no window (cc none) and receiver credits: zero timeouts,
 * every trimmed packet resent once (no resend trims again: the queue is
 * short after the first RTT), completion within 2% of the bound. The
 * trims are the first RTT's uncredited data: with one packet of initial
 * credit there is none. Without RCCC the same incast collapses
 * (docs/engine.md, Ultra Ethernet). */
static void rccc_incast_127(void)
{
    for (int one = 0; one < 2; one++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=127");
        test_set(&sc, "storage.nodes=1");
        test_set(&sc, "workload.bytes_per_writer=8MB");
        test_set(&sc, "transport.protocol=uec");
        test_set(&sc, "transport.cc=none");
        test_set(&sc, "transport.uec.rccc=true");
        if (one)
            test_set(&sc, "transport.uec.rccc_initial=4KB");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        CHECK(r.flows_done == 127 && r.bytes_delivered == 127ull * 8000000);
        CHECK(r.bytes_sent == r.bytes_delivered);
        CHECKF(r.timeouts == 0 && r.drops == 0, "%llu timeouts, %llu drops",
               (unsigned long long)r.timeouts, (unsigned long long)r.drops);
        CHECKF(r.retx_packets == r.trims, "%llu resent for %llu trims",
               (unsigned long long)r.retx_packets, (unsigned long long)r.trims);
        uint64_t pkts = 127ull * ((8000000 + 4095) / 4096);
        CHECKF(one ? r.trims == 0 : r.trims > 0 && r.trims < pkts / 50, "%llu trims of %llu",
               (unsigned long long)r.trims, (unsigned long long)pkts);
        CHECKF(r.completion_s < 1.02 * r.bound_s, "completion %.3f ms, bound %.3f ms (%.1f%%)",
               r.completion_s * 1e3, r.bound_s * 1e3, 100 * r.completion_s / r.bound_s);
        CHECK(r.rccc && r.credit_packets > 0);
        printf("  127 x 8 MB, initial credit %s: %.2f%% of the bound, %llu trims, %llu credit "
               "packets\n", one ? "1 packet" : "1 BDP", 100 * r.completion_s / r.bound_s,
               (unsigned long long)r.trims, (unsigned long long)r.credit_packets);
        results_release(&r);
    }
}

/* Eight flows x 16 MB into one 400G storage NIC (UEC's framing, sprayed):
 * over 40%..90% of the first finisher's life the NIC above 95% busy and,
 * with RCCC alone (cc none), every flow within 5% of the fair share (the
 * pacer's round robin: 0.13%). Under NSCC and RCCC together NSCC's windows,
 * cut by the marks of the queue the first RTT left, move shares by 4-5%
 * (the last hop's ECN stays on here; UEC deployments turn it off for an
 * RCCC class): within 10%. */
static void rccc_fair_8(void)
{
    const char *cc[2] = {"none", "nscc"};
    const double spread[2] = {0.05, 0.10};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        struct transport_ops o = k ? transport_nscc : transport_line_rate;
        o.on_data = k ? rec_on_data_nscc : rec_on_data;
        uint64_t bytes = 16u << 20;
        /* a first run finds the first finisher, a second measures its window */
        memset(&rrec, 0, sizeof rrec);
        struct results r;
        rccc_scenario(&sc, cc[k]);
        run_flows(&sc, 8, bytes, &o, &r);
        uint64_t t_end = UINT64_MAX;
        for (uint32_t i = 0; i < 8; i++)
            t_end = rrec.last[i] < t_end ? rrec.last[i] : t_end;
        results_release(&r);
        memset(&rrec, 0, sizeof rrec);
        rrec.w0 = t_end / 10 * 4;
        rrec.w1 = t_end / 10 * 9;
        rccc_scenario(&sc, cc[k]);
        run_flows(&sc, 8, bytes, &o, &r);
        uint64_t total = 0;
        for (uint32_t i = 0; i < 8; i++)
            total += rrec.got[i];
        double share = (double)total / 8, worst = 0;
        for (uint32_t i = 0; i < 8; i++) {
            double d = fabs((double)rrec.got[i] / share - 1);
            worst = d > worst ? d : worst;
        }
        double busy = (double)rrec.wire * 8 /
                      ((double)rrec.line_bps * (double)(rrec.w1 - rrec.w0) * 1e-12);
        CHECKF(total > 0 && worst < spread[k], "cc %s: worst share %.2f%% off fair", cc[k],
               100 * worst);
        CHECKF(busy > 0.95 && busy < 1.01, "cc %s: storage NIC %.2f%% busy", cc[k], 100 * busy);
        printf("  8 flows, cc %s + rccc: worst share %.2f%% off fair, NIC %.2f%% busy\n", cc[k],
               100 * worst, 100 * busy);
        results_release(&r);
    }
}

static const struct unmodelled *unmod(const struct results *r, const char *key)
{
    for (uint32_t i = 0; i < r->n_unmodelled; i++)
        if (!strcmp(r->unmodelled[i].key, key))
            return &r->unmodelled[i];
    return NULL;
}

/* Bytes conserved in both engines; the fluid engine lists RCCC as
 * unmodelled (optimistic: it runs the fair share at the full line). */
static void rccc_both_engines(void)
{
    const char *eng[2] = {"packet", "fluid"};
    double done[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=32");
        test_set(&sc, "storage.nodes=2");
        test_set(&sc, "workload.bytes_per_writer=2MB");
        test_set(&sc, "transport.protocol=uec");
        test_set(&sc, "transport.uec.rccc=true");
        test_set(&sc, "engine=%s", eng[k]);
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s: %s", eng[k], r.violation);
        CHECK(r.bytes_delivered == 32ull * 2000000);
        const struct unmodelled *u = unmod(&r, "transport.uec.rccc");
        CHECKF(k == 0 || (u && u->dir == UNMOD_OPTIMISTIC), "fluid lists rccc: %s",
               u ? "yes" : "no");
        done[k] = r.completion_s;
        results_release(&r);
    }
    /* optimistic: the fluid run is not slower */
    CHECKF(done[1] <= done[0], "fluid %.3f ms, packet %.3f ms", done[1] * 1e3, done[0] * 1e3);
}

/* Refused without Ultra Ethernet, naming the key. */
static void rccc_refused_without_uec(void)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    test_set(&sc, "transport.uec.rccc=true");
    CHECK(scenario_validate(&sc, &e) != 0 && strstr(e.msg, "transport.uec.rccc") &&
          strstr(e.msg, "transport.protocol: uec"));
    scenario_defaults(&sc);
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.receiver=ooo");
    test_set(&sc, "fabric.trim.enabled=false");
    test_set(&sc, "transport.uec.rccc=true");
    CHECKF(scenario_validate(&sc, &e) != 0 && strstr(e.msg, "transport.uec.rccc") &&
               strstr(e.msg, "transport.receiver: uec"), "%s", e.msg);
}

/* A dropped credit: data lossless (PFC), the control class lossy with a
 * tiny dynamic threshold (lossy_alpha 0.001 of the free pool), credits
 * and ACKs through the fabric: 16 writers x 1 MB into one storage node
 * lose 45 credit packets while PFC holds the pool full. A flow whose last
 * grant is lost has spent its credit with nothing in flight, so no timer
 * of its own: the receiver's re-grant timer sends the credit again after a
 * retransmission timeout with nothing received. Without it 1 of 16
 * transfers never ended (0 of 16 at lossy_alpha 0.0001, 430 drops). */
static void rccc_credit_drop_regrant(void)
{
    struct scenario sc;
    test_uec_incast(&sc, 16);
    test_set(&sc, "fabric.pfc.enabled=true");
    test_set(&sc, "fabric.buffer=8MB");
    test_set(&sc, "fabric.mmu.lossy_alpha=0.001");
    test_set(&sc, "transport.uec.rccc=true");
    test_set(&sc, "engine=packet");
    test_set(&sc, "sim.time_limit=50ms");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.drops_lossy > 0 && r.drops_lossless == 0, "%llu lossy drops, %llu lossless",
           (unsigned long long)r.drops_lossy, (unsigned long long)r.drops_lossless);
    CHECKF(r.flows_done == 16 && r.bytes_delivered == 16ull * 1000000,
           "%u of 16 transfers done, %llu B delivered", r.flows_done,
           (unsigned long long)r.bytes_delivered);
    /* within a retransmission timeout or two of the bound, not the limit */
    CHECKF(r.completion_s < 2e-3, "completion %.3f ms", r.completion_s * 1e3);
    /* lost credits are repaired by the re-grant, not a violation: every
     * byte arrived once and no data was lost */
    CHECKF(r.ok && r.finished, "run not ok: %s", r.violation);
    printf("  %llu control packets dropped; completion %.1f us\n",
           (unsigned long long)r.drops_lossy, r.completion_s * 1e6);
    results_release(&r);
}

const struct test suite_rccc[] = {
    {"rccc_two_sender_trajectory", rccc_two_sender_trajectory},
    {"rccc_incast_127", rccc_incast_127},
    {"rccc_fair_8", rccc_fair_8},
    {"rccc_both_engines", rccc_both_engines},
    {"rccc_refused_without_uec", rccc_refused_without_uec},
    {"rccc_credit_drop_regrant", rccc_credit_drop_regrant},
    {0, 0},
};
