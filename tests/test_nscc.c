/* NSCC (transport.cc nscc, src/pkt/nscc.c) against its specification.
 *
 * Trajectories: the engine runs the real transport through a recorder that
 * hears each ACK as the sender does (its RTT from the packet's send stamp,
 * the CE echo of the packets it covers) and replays it through this file's
 * own model of UEC NSCC's equations; the window after every ACK must match.
 * The base RTT the model starts from is the path's arithmetic (as
 * test_tpside), not the transport's. Then the steady state of N flows on
 * one bottleneck, the 1016-writer burst, and the loss reaction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/units.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

#define ECHO_CE 1 /* NSCC's side-slot flag: the packet arrived CE-marked */
#define MAXF 4

/* The model: UEC NSCC as the spec and htsim's uec.cpp state it. */
struct model {
    double cwnd, inc, avg, base, target, mss, line;
    double last_adjust, last_dec, qa_end;
    double fi_count, achieved, received, ignore;
    int fast, trigger;
    uint32_t acked; /* packets */
    unsigned fair, prop, fastinc, md, noop, qa, loss;
};

static struct rec {
    const struct scenario *sc;
    struct model m[MAXF];
    uint32_t acks, bad, nak_bad, naks;
    double worst;       /* largest relative window difference */
    uint64_t rtt_min[MAXF], rtt_max[MAXF];
    uint64_t start_base[MAXF]; /* the transport's base RTT at its start */
    uint32_t ecn_acks;
} rec;

struct mk {
    double maxwnd, alpha, fi, eta, fis;
};

static void model_k(const struct model *m, const struct scenario *sc, struct mk *k)
{
    double bdp = m->base * 1e-12 * m->line / 8;
    k->maxwnd = fmin(sc->transport.nscc.max_bdp * bdp, 256 * m->mss);
    k->maxwnd = fmax(k->maxwnd, m->mss);
    double a = bdp / 150000.0, b = m->target / 12e6; /* 100 Gbps x 12 us */
    k->alpha = 4 * m->mss * a * b / m->target;
    k->fi = 5 * m->mss * a;
    k->eta = 0.15 * m->mss * a;
    k->fis = 0.25 * a;
}

static void clampw(struct model *m, const struct mk *k)
{
    m->cwnd = fmin(fmax(m->cwnd, m->mss), k->maxwnd);
}

/* Quick adapt: 1 = no other change from this ACK. */
static int model_qa(struct model *m, const struct mk *k, const struct scenario *sc, double now,
                    int loss, int marked, double delay, double in_flight)
{
    if (!sc->transport.nscc.quick_adapt)
        return 0;
    int done = 0;
    if (m->ignore > 0 && marked) {
        done = 1;
    } else if (now > m->qa_end) {
        double gate = floor(floor(k->maxwnd) / pow(2, sc->transport.nscc.qa_gate));
        if (m->qa_end > 0 && (m->trigger || loss || delay > 4 * m->target) &&
            m->achieved < gate) {
            m->cwnd = fmax(m->achieved, m->mss);
            m->ignore = in_flight;
            m->trigger = 0;
            m->qa++;
            done = 1;
        }
        m->achieved = 0;
        m->qa_end = now + m->base + m->target;
    }
    if (done)
        m->inc = m->received = 0;
    return done;
}

static void model_ack(struct model *m, const struct scenario *sc, double now, double acked,
                      double rtt, int ecn, double in_flight)
{
    double da = sc->transport.nscc.delay_alpha;
    m->achieved += acked;
    m->received += acked;
    m->ignore = fmax(m->ignore - acked, 0);
    m->base = fmin(m->base, rtt);
    struct mk k;
    model_k(m, sc, &k);
    double delay = rtt - m->base;
    /* an unmarked sample above target counts as base / 4 */
    double s = !ecn && delay > m->target ? m->base / 4 : delay;
    m->avg = da * s + (1 - da) * m->avg;
    if (model_qa(m, &k, sc, now, 0, ecn, delay, in_flight))
        return;
    if (!ecn && delay >= m->target) {
        m->inc += k.fi * acked;
        m->fair++;
    } else if (!ecn) {
        if (delay < 1e6) {
            m->fi_count += acked;
            m->fast = m->fi_count > m->cwnd || m->fast;
        } else {
            m->fi_count = 0;
            m->fast = 0;
        }
        if (m->fast) {
            m->cwnd += acked * k.fis;
            m->fastinc++;
        } else {
            m->inc += k.alpha * acked * (m->target - delay);
            m->prop++;
        }
    } else if (delay >= m->target) {
        m->fast = 0;
        m->fi_count = 0;
        if (m->avg > m->target && sc->transport.nscc.decrease == NSCC_DEC_ACK) {
            /* per ACK: a part of one cut for each byte acknowledged */
            double cut = sc->transport.nscc.gamma * (m->avg - m->target) / m->avg;
            m->cwnd -= fmin(cut, 0.5) * fmin(acked, m->cwnd);
            m->md++;
        } else if (m->avg > m->target && now - m->last_dec > m->base) {
            m->cwnd *= fmax(1 - sc->transport.nscc.gamma * (m->avg - m->target) / m->avg, 0.5);
            m->last_dec = now;
            m->md++;
        }
    } else {
        m->noop++;
    }
    clampw(m, &k);
    int per_ack = sc->transport.nscc.decrease == NSCC_DEC_ACK;
    if (per_ack)
        m->inc += k.eta * acked; /* eta per window's bytes */
    if (m->received > 8 * m->mss || now - m->last_adjust > m->base) {
        m->cwnd += m->inc / m->cwnd;
        if (now - m->last_adjust >= m->base) {
            m->cwnd += per_ack ? 0 : k.eta;
            m->last_adjust = now;
        }
        m->inc = m->received = 0;
        clampw(m, &k);
    }
}

/* The path's idle RTT as the engine's arithmetic (test_tpside): each link's
 * serialisation and delay and each switch's latency, data out, the
 * protocol's ACK back. */
static uint64_t arith_rtt(const struct topo *t, const struct scenario *sc, uint32_t src,
                          uint32_t dst, uint16_t sport)
{
    uint32_t path[TOPO_MAX_HOPS], back[TOPO_MAX_HOPS];
    uint32_t h = topo_path(t, src, dst, sport, path, TOPO_MAX_HOPS);
    uint32_t hb = topo_path(t, dst, src, sport, back, TOPO_MAX_HOPS);
    /* UEC: 122 B of headers and its own 110 B ACK; RoCE: the ACK a
     * control record in the data packets' framing */
    int uec = sc->transport.protocol == PROTO_UEC;
    uint64_t over = uec ? 122 : ROCE_OVERHEAD, rtt = 0;
    uint64_t data = sc->fabric.mtu + over, ack = uec ? 110 : CNP_PAYLOAD + over;
    for (uint32_t i = 0; i < h; i++) {
        const struct tport *p = &t->ports[path[i]];
        rtt += units_ser_ps(data, p->bps) + topo_delay(t, p);
        if (i > 0)
            rtt += p->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                             : sc->fabric.leaf_latency_ps;
    }
    for (uint32_t i = 0; i < hb; i++) {
        const struct tport *p = &t->ports[back[i]];
        rtt += units_ser_ps(ack, p->bps) + topo_delay(t, p);
        if (i > 0)
            rtt += p->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                             : sc->fabric.leaf_latency_ps;
    }
    return rtt;
}

static void model_start(struct model *m, const struct scenario *sc, double base, double line,
                        double now)
{
    memset(m, 0, sizeof *m);
    m->mss = (double)sc->fabric.mtu;
    m->line = line;
    m->base = base;
    m->target = sc->transport.nscc.target_ps == UINT64_MAX ? base
                                                           : (double)sc->transport.nscc.target_ps;
    struct mk k;
    model_k(m, sc, &k);
    m->cwnd = sc->transport.nscc.initial_window ? (double)sc->transport.nscc.initial_window
                                                : k.maxwnd;
    clampw(m, &k);
    m->last_adjust = now;
}

static void compare(const struct flow *f, const struct model *m)
{
    double d = fabs(f->cc.nscc.cwnd - m->cwnd) / m->cwnd;
    if (d > rec.worst)
        rec.worst = d;
    rec.bad += d > 1e-9;
}

static void rec_start(struct pnet *n, struct flow *f)
{
    transport_nscc.start(n, f);
    if (f->id < MAXF)
        rec.start_base[f->id] = f->cc.nscc.base_rtt;
    if (f->id < MAXF)
        model_start(&rec.m[f->id], n->sc,
                    (double)arith_rtt(n->topo, n->sc, f->src, f->dst, f->sport),
                    (double)f->line_bps, (double)n->now);
    if (f->id < MAXF)
        compare(f, &rec.m[f->id]);
}

static void rec_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    struct model *m = &rec.m[f->id < MAXF ? f->id : 0];
    uint64_t mtu = n->sc->fabric.mtu;
    if (f->id >= MAXF || psn <= m->acked) {
        transport_nscc.on_ack(n, f, psn);
        return;
    }
    /* what the sender hears: the packets' CE echo and the RTT of the one
     * that asked for the ACK */
    int ecn = 0;
    for (uint32_t q = m->acked; q < psn; q++) {
        const struct side_slot *c = pnet_side(n, f, q);
        ecn |= c->psn == q && (c->flags & ECHO_CE);
    }
    const struct side_slot *sl = pnet_side(n, f, psn - 1);
    double acked = fmin((double)psn * (double)mtu, (double)f->bytes) -
                   fmin((double)m->acked * (double)mtu, (double)f->bytes);
    m->acked = psn;
    transport_nscc.on_ack(n, f, psn);
    if (sl->psn != psn - 1 || sl->sent_ps > n->now)
        return; /* a resend took the stamp: an ACK without an RTT */
    uint64_t rtt = n->now - sl->sent_ps;
    uint64_t sent = (f->sent + mtu - 1) / mtu; /* a rewind can put it below psn */
    double fl = sent > psn ? (double)(sent - psn) * (double)mtu : 0;
    model_ack(m, n->sc, (double)n->now, acked, (double)rtt, ecn, fl);
    rec.acks++;
    rec.ecn_acks += ecn;
    rec.rtt_min[f->id] = rtt < rec.rtt_min[f->id] ? rtt : rec.rtt_min[f->id];
    rec.rtt_max[f->id] = rtt > rec.rtt_max[f->id] ? rtt : rec.rtt_max[f->id];
    compare(f, m);
}

/* A NAK or a timeout: one packet off the window (or quick adapt), as the
 * model says. */
static void rec_loss(struct pnet *n, struct flow *f)
{
    struct model *m = &rec.m[f->id < MAXF ? f->id : 0];
    uint64_t mtu = n->sc->fabric.mtu;
    if (f->id >= MAXF)
        return;
    struct mk k;
    model_k(m, n->sc, &k);
    m->ignore = fmax(m->ignore - (double)mtu, 0);
    m->avg = n->sc->transport.nscc.delay_alpha * m->base +
             (1 - n->sc->transport.nscc.delay_alpha) * m->avg;
    m->trigger = 1;
    uint64_t sent = (f->sent + mtu - 1) / mtu, acked = f->cc.nscc.acked;
    double fl = sent > acked ? (double)(sent - acked) * (double)mtu : 0;
    if (!model_qa(m, &k, n->sc, (double)n->now, 1, 1, 0, fl)) {
        m->cwnd -= m->mss;
        clampw(m, &k);
        m->loss++;
    }
    rec.naks++;
    double d = fabs(f->cc.nscc.cwnd - m->cwnd) / m->cwnd;
    rec.nak_bad += d > 1e-9;
}

static void rec_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    transport_nscc.on_nak(n, f, psn);
    rec_loss(n, f);
}

static void rec_on_timeout(struct pnet *n, struct flow *f)
{
    transport_nscc.on_timeout(n, f);
    rec_loss(n, f);
}

static struct transport_ops rec_ops(void)
{
    struct transport_ops o = transport_nscc;
    o.start = rec_start;
    o.on_ack = rec_on_ack;
    o.on_nak = rec_on_nak;
    o.on_timeout = rec_on_timeout;
    return o;
}

/* nf writers on distinct leaves... of the first hosts, to the first storage
 * node, bytes each, through the recorder. */
static void run_recorded(struct scenario *sc, uint32_t nf, uint64_t bytes, struct results *r)
{
    memset(&rec, 0, sizeof rec);
    rec.sc = sc;
    for (int i = 0; i < MAXF; i++)
        rec.rtt_min[i] = UINT64_MAX;
    struct transport_ops o = rec_ops();
    struct test_built b;
    if (test_run_incast(&b, sc, nf, 1, bytes, &o, r) == 0) {
        /* one flow alone: the arithmetic base RTT is the idle RTT it sees */
        uint64_t base = arith_rtt(&b.t, sc, 0, b.t.first_storage, 50000);
        CHECKF(nf > 1 || rec.rtt_min[0] == base, "smallest RTT %llu ps, path %llu ps",
               (unsigned long long)rec.rtt_min[0], (unsigned long long)base);
    }
    arena_release(&b.a);
}

static void nscc_scenario(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "transport.cc=nscc");
}

/* One flow on an idle path: every RTT is the base, so the window grows by
 * proportional increase until a window of zero-delay ACKs, then fast
 * increase, to the maximum window. */
static void nscc_single_flow_trajectory(void)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "transport.nscc.initial_window=8KB");
    struct results r;
    run_recorded(&sc, 1, 2000 * 4096, &r);
    const struct model *m = &rec.m[0];
    CHECKF(rec.bad == 0 && rec.acks > 400, "%u of %u ACKs off the model (worst %.3g)", rec.bad,
           rec.acks, rec.worst);
    CHECKF(rec.rtt_max[0] == rec.rtt_min[0], "RTT %llu..%llu ps on an idle path",
           (unsigned long long)rec.rtt_min[0], (unsigned long long)rec.rtt_max[0]);
    CHECKF(m->prop > 0 && m->fastinc > 0 && m->fair == 0 && m->md == 0 && m->noop == 0,
           "prop %u fast %u fair %u md %u noop %u", m->prop, m->fastinc, m->fair, m->md,
           m->noop);
    /* ends at the maximum window: 1.5 BDP of its path */
    struct mk k;
    model_k(m, &sc, &k);
    CHECKF(fabs(m->cwnd - k.maxwnd) < 1e-6 && k.maxwnd > 100 * 4096.0,
           "window %.0f, max %.0f", m->cwnd, k.maxwnd);
    results_release(&r);
}

/* The same under UEC's framing (spray, trimming, its receiver): the base
 * RTT NSCC starts from is the path's with UEC's 110 B ACK, which the idle
 * flow then measures (with the 138 B of a data-framed control record it
 * started 2.24 ns high and 106 of 1002 ACKs left the model). */
static void nscc_uec_single_flow_trajectory(void)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.nscc.initial_window=8KB");
    struct results r;
    run_recorded(&sc, 1, 2000 * 4096, &r);
    CHECKF(rec.bad == 0 && rec.acks > 100, "%u of %u ACKs off the model (worst %.3g)", rec.bad,
           rec.acks, rec.worst);
    CHECKF(rec.start_base[0] == rec.rtt_min[0] && rec.rtt_max[0] == rec.rtt_min[0],
           "base RTT %llu ps at start, RTT %llu..%llu ps on an idle path",
           (unsigned long long)rec.start_base[0], (unsigned long long)rec.rtt_min[0],
           (unsigned long long)rec.rtt_max[0]);
    results_release(&r);
}

/* Two writers into one storage NIC at line rate each: the queue passes
 * the target; marked ACKs above it cut, unmarked ones add fairly, marked
 * ones below it leave the window alone. Under htsim's rule (decrease rtt:
 * a cut at most once per base RTT, eta once per base RTT); the default's
 * per-ACK rule is nscc_incast2_ack_trajectory. */
static void nscc_incast2_trajectory(void)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "fabric.ecn.kmin=100KB");
    test_set(&sc, "fabric.ecn.kmax=400KB");
    test_set(&sc, "transport.nscc.decrease=rtt");
    struct results r;
    run_recorded(&sc, 2, 1500 * 4096, &r);
    CHECKF(rec.bad == 0 && rec.acks > 500, "%u of %u ACKs off the model (worst %.3g)", rec.bad,
           rec.acks, rec.worst);
    for (int i = 0; i < 2; i++) {
        const struct model *m = &rec.m[i];
        CHECKF(m->md > 0 && m->fair > 0 && m->prop > 0, "flow %d: md %u fair %u prop %u", i,
               m->md, m->fair, m->prop);
    }
    CHECK(rec.ecn_acks > 0 && r.rate_decreases > 0);
    CHECK(r.drops == 0 && r.pause_frames == 0);
    results_release(&r);
}

/* A lossy fabric (no PFC, shallow buffers): each NAK takes a packet off
 * the window or lets quick adapt reset it, as the model says. */
static void nscc_nak_decrease(void)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "fabric.pfc.enabled=false");
    test_set(&sc, "fabric.buffer=1.5MB");
    test_set(&sc, "fabric.ecn.enabled=false");
    struct results r;
    run_recorded(&sc, 4, 1000 * 4096, &r);
    CHECKF(rec.naks > 0 && rec.nak_bad == 0 && rec.bad == 0,
           "%u NAKs, %u off the model; %u of %u ACKs off", rec.naks, rec.nak_bad, rec.bad,
           rec.acks);
    unsigned cuts = 0;
    for (int i = 0; i < 4; i++)
        cuts += rec.m[i].loss + rec.m[i].qa;
    CHECK(cuts > 0);
    results_release(&r);
}

/* The 1016-writer x 8 MB burst on its lossless fabric completes with every
 * byte, no drop. */
static void nscc_burst_1016(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct err e;
    CHECKF(scenario_load_file(&sc, "scenarios/bench-1024.yaml", &e) == 0, "%s", e.msg);
    test_set(&sc, "transport.cc=nscc");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECKF(r.bytes_delivered == (uint64_t)r.transfers * 8000000 && r.bytes_sent == r.bytes_delivered && r.transfers >= 1016, "%u transfers, %llu B sent, %llu delivered", r.transfers, (unsigned long long)r.bytes_sent, (unsigned long long)r.bytes_delivered);
    CHECK(r.drops == 0 && r.flows_done == r.transfers);
    CHECK(r.rc_acks > 0 && r.rate_decreases > 0);
    results_release(&r);
}

/* Steady state of N flows on one bottleneck: each ACK the senders hear,
 * recorded (time, flow, packets newly acknowledged, RTT, target). */
#define FAIR_MAXF 16
struct fair_ack {
    uint64_t t, rtt, base, target;
    uint32_t flow, num;
};

static struct {
    struct fair_ack *a;
    size_t n, cap;
    uint32_t acked[FAIR_MAXF];
} frec;

static void fair_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    uint32_t id = f->id < FAIR_MAXF ? f->id : 0, before = frec.acked[id];
    const struct side_slot *sl = pnet_side(n, f, psn ? psn - 1 : 0);
    uint64_t rtt = psn && sl->psn == psn - 1 && sl->sent_ps <= n->now ? n->now - sl->sent_ps : 0;
    transport_nscc.on_ack(n, f, psn);
    if (psn <= before)
        return;
    frec.acked[id] = psn;
    if (frec.n == frec.cap) {
        frec.cap = frec.cap ? 2 * frec.cap : 4096;
        frec.a = realloc(frec.a, frec.cap * sizeof *frec.a);
        CHECK(frec.a != NULL);
    }
    frec.a[frec.n++] = (struct fair_ack){.t = n->now, .rtt = rtt, .flow = id,
                                         .num = psn - before, .base = f->cc.nscc.base_rtt,
                                         .target = f->cc.nscc.target};
}

/* nf writers spread over the leaves, `bytes` each, into the first storage
 * node's 400G NIC, under the defaults NSCC brings (its ECN thresholds,
 * target, ACK rule). Over 40%..90% of the first finisher's life: the NIC
 * above 95% busy, the mean queueing delay (RTT - base) within [0.5, 1.5] x
 * the target, every flow's ACKed packets within 10% of the fair share.
 * (Under the once-per-RTT rule seeds 1..6 gave 1.1..7.8% with 4 flows
 * and 3.5..8.5% with 8; the per-ACK default holds the 5%:
 * nscc_fair_8_ecmp_seeds_5pct; docs/engine.md.) */
struct nscc_fair {
    double worst, busy, delay, target; /* share off fair; NIC busy; us */
    size_t samples;
};

static void nscc_fair_measure(uint32_t nf, uint64_t bytes, uint64_t seed, const char *extra,
                              struct nscc_fair *out)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "sim.time_limit=0.1s");
    test_set(&sc, "seed=%llu", (unsigned long long)seed);
    for (const char *p = extra; p && *p;) { /* settings split by ';' */
        size_t len = strcspn(p, ";");
        test_set(&sc, "%.*s", (int)len, p);
        p += len + (p[len] == ';');
    }
    free(frec.a);
    memset(&frec, 0, sizeof frec);
    struct transport_ops o = transport_nscc;
    o.on_ack = fair_on_ack;
    struct results r;
    struct test_built b;
    test_run_incast(&b, &sc, nf, 2, bytes, &o, &r);
    arena_release(&b.a);
    uint64_t last[FAIR_MAXF] = {0}, t_end = UINT64_MAX;
    for (size_t k = 0; k < frec.n; k++)
        last[frec.a[k].flow] = frec.a[k].t;
    for (uint32_t i = 0; i < nf; i++)
        t_end = last[i] < t_end ? last[i] : t_end;
    uint64_t t0 = t_end / 10 * 4, t1 = t_end / 10 * 9;
    uint64_t got[FAIR_MAXF] = {0}, total = 0;
    double delay = 0, target = 0;
    size_t samples = 0;
    for (size_t k = 0; k < frec.n; k++) {
        const struct fair_ack *q = &frec.a[k];
        if (q->t < t0 || q->t >= t1)
            continue;
        got[q->flow] += q->num;
        total += q->num;
        if (q->rtt) {
            delay += (double)(q->rtt - q->base);
            target += (double)q->target;
            samples++;
        }
    }
    double share = (double)total / nf, worst = 0;
    for (uint32_t i = 0; i < nf; i++)
        worst = fmax(worst, fabs((double)got[i] / share - 1));
    double wire = (double)(sc.fabric.mtu + ROCE_OVERHEAD) * 8;
    double busy = (double)total * wire / ((double)(t1 - t0) * 1e-12) / 400e9;
    delay /= samples ? (double)samples : 1;
    target /= samples ? (double)samples : 1;
    printf("  %u flows, seed %llu: worst share %.2f%% off fair, NIC %.2f%% busy, mean delay "
           "%.2f us, target %.2f us, %zu ACKs\n",
           nf, (unsigned long long)seed, 100 * worst, 100 * busy, delay / 1e6, target / 1e6,
           frec.n);
    *out = (struct nscc_fair){worst, busy, delay / 1e6, target / 1e6, samples};
    free(frec.a);
    memset(&frec, 0, sizeof frec);
    results_release(&r);
}

/* One seed: the share within `spread` of fair, the NIC above 95% busy, the
 * mean queueing delay within [0.5, 1.5] x the target. */
static void nscc_fair_check(uint32_t nf, uint64_t bytes, uint64_t seed, const char *extra,
                            double spread)
{
    struct nscc_fair o;
    nscc_fair_measure(nf, bytes, seed, extra, &o);
    CHECKF(o.worst < spread, "%u flows, seed %llu: worst share %.1f%% off fair", nf,
           (unsigned long long)seed, 100 * o.worst);
    CHECKF(o.busy > 0.95, "%u flows: storage NIC %.1f%% busy", nf, 100 * o.busy);
    CHECKF(o.samples > 0 && o.delay > 0.5 * o.target && o.delay < 1.5 * o.target,
           "%u flows: mean queueing delay %.2f us against a %.2f us target", nf, o.delay,
           o.target);
}

/* Issue 27's bar with one path per flow (RoCE framing, ECMP): 4 flows
 * within 5% of fair over seeds 1..5 (0.2-1.1% under the default per-ACK
 * decrease; seeds 2 and 4 gave 6.2% and 6.4% under the once-per-RTT rule,
 * flows hashed onto shared uplinks). */
static void nscc_fair_4_ecmp_seeds(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        nscc_fair_check(4, 128u << 20, seed, NULL, 0.05);
}

/* UEC on its lossy fabric (the protocol row: PFC off, spray, trimming)
 * under NSCC, 127 writers x 2 MB into one storage node: every trimmed
 * packet is NACKed and resent with no timeout, and completion is within
 * 10% of the bound. A NACKed packet's resend goes past the window (it left
 * the network); before, it waited behind a window the hole kept full (the
 * cumulative ACK cannot pass it) until the retransmission timeout: 128
 * timeouts, 134.6% of the bound. */
static void nscc_uec_lossy_incast(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=127");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.cc=nscc");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECK(r.flows_done == 127 && r.bytes_delivered == 127ull * sc.workload.bytes_per_writer);
    CHECK(r.uec && r.trimming && r.trims > 0 && r.retx_packets == r.trims);
    CHECKF(r.timeouts == 0 && r.drops == 0, "%llu timeouts, %llu drops",
           (unsigned long long)r.timeouts, (unsigned long long)r.drops);
    CHECKF(r.completion_s < 1.10 * r.bound_s, "completion %.3f ms, bound %.3f ms (%.1f%%)",
           r.completion_s * 1e3, r.bound_s * 1e3, 100 * r.completion_s / r.bound_s);
    printf("  127 x 2 MB: %.1f%% of the bound, %llu trims\n", 100 * r.completion_s / r.bound_s,
           (unsigned long long)r.trims);
    results_release(&r);
}

/* The transports comparison's UEC-lossless burst (256 writers x 8 MB,
 * PFC, spray, NSCC): every transfer completes. A packet that asked for an
 * ACK (the window was full with none coming) but arrived ahead of a hole
 * got an ACK that could not cover it; the packet that then filled the hole
 * sent none, and the flow waited forever (1 of 256 transfers). */
static void nscc_uec_lossless_sprayed(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct err e;
    CHECKF(scenario_load_file(&sc, "scenarios/transports/uec-lossless.yaml", &e) == 0, "%s",
           e.msg);
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    CHECKF(r.flows_done == 256 && r.bytes_delivered == 256ull * 8000000, "%u transfers done",
           r.flows_done);
    CHECK(r.drops == 0);
    results_release(&r);
}

/* The rows' defaults under the user's keys: transport.protocol uec runs
 * NSCC (decrease per ACK) unless transport.cc is set, and NSCC brings
 * pmax 1 unless fabric.ecn.pmax is set. */
static void nscc_row_defaults(void)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    test_set(&sc, "transport.protocol=uec");
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    CHECKF(sc.transport.cc == CC_NSCC && sc.fabric.ecn_pmax == 1, "cc %d, pmax %g",
           sc.transport.cc, sc.fabric.ecn_pmax);
    /* the fairness tests' runs take the per-ACK decrease from this default */
    CHECKF(sc.transport.nscc.decrease == NSCC_DEC_ACK, "decrease %d", sc.transport.nscc.decrease);
    scenario_defaults(&sc);
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.cc=none");
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    CHECKF(sc.transport.cc == CC_NONE && sc.fabric.ecn_pmax == 0.2, "cc %d, pmax %g",
           sc.transport.cc, sc.fabric.ecn_pmax);
    scenario_defaults(&sc);
    test_set(&sc, "transport.cc=nscc");
    test_set(&sc, "fabric.ecn.pmax=0.5");
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    CHECK(sc.transport.cc == CC_NSCC && sc.fabric.ecn_pmax == 0.5);
}

/* Issue 27's bar under UEC's own framing (transport.protocol uec: packets
 * sprayed, out-of-order receiver, trimming): every flow within 5% of fair
 * over seeds 1..5 (4 flows: 0.3-0.6% under the default per-ACK decrease,
 * 1.2-4.1% under the once-per-RTT rule). */
static void nscc_fair_4_uec_seeds(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        nscc_fair_check(4, 128u << 20, seed, "transport.protocol=uec", 0.05);
}

/* transport.nscc.decrease ack: every marked ACK above the target cuts
 * min(gamma (avg - target) / avg, 0.5) x its bytes. The 2:1 incast's
 * every ACK matches the model's window (proportional increases and
 * decreases); both flows cut more often than once per base RTT could
 * (381 cuts in 23 base RTTs: under the old rule the model leaves the
 * engine at the first marked ACK after a cut). */
static void nscc_incast2_ack_trajectory(void)
{
    struct scenario sc;
    nscc_scenario(&sc);
    test_set(&sc, "fabric.ecn.kmin=100KB");
    test_set(&sc, "fabric.ecn.kmax=400KB");
    test_set(&sc, "transport.nscc.decrease=ack");
    struct results r;
    run_recorded(&sc, 2, 1500 * 4096, &r);
    CHECKF(sc.transport.nscc.decrease == NSCC_DEC_ACK, "decrease %d", sc.transport.nscc.decrease);
    CHECKF(rec.bad == 0 && rec.acks > 500, "%u of %u ACKs off the model (worst %.3g)", rec.bad,
           rec.acks, rec.worst);
    /* the run's span in base RTTs bounds what the once-per-RTT rule allows */
    double rtts = r.completion_s * 1e12 / rec.m[0].base;
    for (int i = 0; i < 2; i++) {
        const struct model *m = &rec.m[i];
        CHECKF(m->md > rtts && m->prop > 0, "flow %d: md %u (%.0f base RTTs) prop %u", i, m->md,
               rtts, m->prop);
    }
    CHECK(r.drops == 0 && r.pause_frames == 0);
    results_release(&r);
}

/* Issue 27's bar under the default rule (decrease ack): 8 sprayed flows
 * within 5% of fair on seeds 1..5 (0.5-1.3%; the once-per-RTT rule gave
 * 3.2-6.3%, seeds 1 and 4 at 5.5% and 6.3%), NIC above 95% busy, mean
 * queueing delay within [0.5, 1.5] x target. */
static void nscc_fair_8_uec_seeds_5pct(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        nscc_fair_check(8, 64u << 20, seed, "transport.protocol=uec", 0.05);
}

/* The same with one path per flow (RoCE framing, ECMP): 0.6-1.9% under
 * the default; eta once per base RTT next to the per-ACK cut left these
 * 34-46% apart (a flow's eta followed when its ACKs landed). */
static void nscc_fair_8_ecmp_seeds_5pct(void)
{
    for (uint64_t seed = 1; seed <= 5; seed++)
        nscc_fair_check(8, 64u << 20, seed, NULL, 0.05);
}

SUITE(suite_nscc) = {
    {"nscc_single_flow_trajectory", nscc_single_flow_trajectory},
    {"nscc_uec_single_flow_trajectory", nscc_uec_single_flow_trajectory},
    {"nscc_incast2_trajectory", nscc_incast2_trajectory},
    {"nscc_nak_decrease", nscc_nak_decrease},
    {"nscc_burst_1016", nscc_burst_1016},
    {"nscc_uec_lossy_incast", nscc_uec_lossy_incast},
    {"nscc_uec_lossless_sprayed", nscc_uec_lossless_sprayed},
    {"nscc_row_defaults", nscc_row_defaults},
    {"nscc_fair_4_ecmp_seeds", nscc_fair_4_ecmp_seeds},
    {"nscc_fair_4_uec_seeds", nscc_fair_4_uec_seeds},
    {"nscc_incast2_ack_trajectory", nscc_incast2_ack_trajectory},
    {"nscc_fair_8_uec_seeds_5pct", nscc_fair_8_uec_seeds_5pct},
    {"nscc_fair_8_ecmp_seeds_5pct", nscc_fair_8_ecmp_seeds_5pct},
    {0, 0},
};
