/* NSCC: Ultra Ethernet's network-signal congestion control (UEC 1.0, June
 * 2025), a sender window driven by ECN marks and delay.
 *
 * Every ACK gives the sender its packets' RTT (the side table's send stamp)
 * and whether the packet that asked for it was CE-marked (echoed in the
 * side slot). With base = the smallest RTT seen (from the path's unloaded
 * RTT), delay = rtt - base and target = the delay target:
 *   no ECN, delay >= target: fair increase,          inc += fi x acked
 *   no ECN, delay <  target: proportional increase,  inc += alpha x acked x
 *       (target - delay); at delay < 1 us after a window of such ACKs, fast
 *       increase instead: cwnd += fi_scale x acked, at once
 *   ECN,    delay >= target: multiplicative decrease, at most once per base
 *       RTT and only while avg > target: cwnd x= max(1 - gamma (avg -
 *       target) / avg, 0.5); with decrease ack (the default), on every
 *       such ACK instead: cwnd -= min(gamma (avg - target) / avg, 0.5) x
 *       min(acked, cwnd)
 *   ECN,    delay <  target: no change (a hot path; spraying moves off it)
 * avg is an EWMA (delay_alpha) of the delay, where an unmarked sample above
 * target counts as base / 4. Increases are owed and paid at an adjustment,
 * after 8 MTU acknowledged or a base RTT: cwnd += inc / cwnd (fair: small
 * windows grow faster), plus eta once per base RTT (decrease rtt) or, with
 * decrease ack, inc += eta x acked on every ACK (eta per window). Quick adapt: each
 * period of base + target, after a loss or a delay above 4 x target, a flow
 * that delivered less than maxwnd / 2^qa_gate sets cwnd to what it
 * delivered and ignores the marked feedback of what was in flight. A NAK or
 * a timeout takes a packet off the window and asks quick adapt to look.
 * cwnd stays in [1 MTU, max_window x BDP]. Constants scale from htsim's
 * reference network (100 Gbps, 12 us; uec.cpp), as the spec's do:
 * a = BDP / 150 kB, b = target / 12 us, alpha = 4 MSS a b / target,
 * fi = 5 MSS a, eta = 0.15 MSS a, fi_scale = 0.25 a.
 *
 * The receiver ACKs every ack_every packets (coalescing), the last, and a
 * packet the sender flagged because it filled the window with no ACK coming
 * (UEC's ACK request, in the packet); it keeps each packet's CE mark in its
 * side slot, and an ACK counts as marked when a packet it covers was. Its RTT is that of
 * the packet that triggered it.
 */
#include <string.h>

#include "../core/units.h"
#include "engine.h"
#include "pnet.h"

#define NSCC_WINDOW NSCC_MAX_PACKETS /* side slots per flow: the most packets in flight */
#define F_CE 1               /* slot flag: the packet arrived CE-marked */
#define F_AR 2               /* slot flag: the packet asked for an ACK */
#define REF_BDP 150000.0     /* htsim's reference: 100 Gbps x 12 us, bytes */
#define REF_RTT_PS 12e6
#define FAST_DELAY_PS 1e6    /* fast increase below 1 us of delay (htsim) */
#define ADJUST_MTUS 8        /* an adjustment after 8 MTU acknowledged (htsim) */

/* The flow's constants from its base RTT and target. */
struct nscc_k {
    double mss, base, target, maxwnd, alpha, fi, eta, fi_scale;
};

static void consts(const struct pnet *n, const struct flow *f, struct nscc_k *k)
{
    const struct nscc_params *p = &n->sc->transport.nscc;
    const struct nscc_state *s = &f->cc.nscc;
    k->mss = (double)n->mtu;
    k->base = (double)s->base_rtt;
    k->target = (double)s->target;
    double bdp = k->base * 1e-12 * (double)f->line_bps / 8;
    k->maxwnd = nscc_max_window(p, (double)f->line_bps, k->base, k->mss);
    double a = bdp / REF_BDP, b = k->target / REF_RTT_PS;
    k->alpha = 4 * k->mss * a * b / k->target;
    k->fi = 5 * k->mss * a;
    k->eta = 0.15 * k->mss * a;
    k->fi_scale = 0.25 * a;
}

static uint32_t in_flight(const struct pnet *n, const struct flow *f)
{
    uint64_t mtu = n->mtu;
    uint32_t sent = (uint32_t)((f->sent + mtu - 1) / mtu), acked = f->cc.nscc.acked;
    return sent > acked ? sent - acked : 0;
}

/* One way from -> to, idle: each link's cable delay and each switch's
 * latency (pkt_ctrl_direct_ps of no bytes), and wire bytes' serialisation
 * on each link at the engine's rounding. */
uint64_t pnet_one_way_ps(const struct pnet *n, uint32_t from, uint32_t to, uint16_t sport,
                         uint64_t wire)
{
    const struct topo *t = n->topo;
    uint64_t ps = pkt_ctrl_direct_ps(t, n->sc, from, to, sport, 0, NULL);
    uint32_t path[TOPO_MAX_HOPS];
    uint32_t hops = topo_path(t, from, to, sport, path, TOPO_MAX_HOPS);
    for (uint32_t k = 0; k < hops; k++)
        ps += units_ser_ps(wire, t->ports[path[k]].bps);
    return ps;
}

/* The idle RTT of f's path: the data packet out, the protocol's ACK back
 * (UEC's 110 B ACK_CC, RoCE's ACK in its data framing). */
static uint64_t path_rtt(const struct pnet *n, const struct flow *f)
{
    return pnet_one_way_ps(n, f->src, f->dst, f->sport, n->mtu_wire) +
           pnet_one_way_ps(n, f->dst, f->src, f->sport, pkt_ctl_wire(n, PK_RCACK));
}

static void bounds(struct nscc_state *s, const struct nscc_k *k)
{
    if (s->cwnd < k->mss)
        s->cwnd = k->mss;
    if (s->cwnd > k->maxwnd)
        s->cwnd = k->maxwnd;
}

static void cut_done(const struct pnet *n, struct flow *f, const struct nscc_k *k)
{
    (void)n;
    f->decreases++;
    double r = f->cc.nscc.cwnd * 8 / (k->base * 1e-12); /* the window's rate */
    if (r < f->min_rate)
        f->min_rate = r;
}

static void nscc_start(struct pnet *n, struct flow *f)
{
    const struct nscc_params *p = &n->sc->transport.nscc;
    struct nscc_state *s = &f->cc.nscc;
    memset(s, 0, sizeof *s);
    uint64_t base = p->base_rtt_ps != UINT64_MAX ? p->base_rtt_ps : path_rtt(n, f);
    if (base == 0) /* no path: its samples set it */
        base = 1000000;
    s->base_rtt = base < UINT32_MAX ? (uint32_t)base : UINT32_MAX;
    uint64_t target = p->target_ps != UINT64_MAX ? p->target_ps : s->base_rtt;
    s->target = target < UINT32_MAX ? (uint32_t)target : UINT32_MAX;
    struct nscc_k k;
    consts(n, f, &k);
    s->cwnd = p->initial_window ? (double)p->initial_window : k.maxwnd;
    bounds(s, &k);
    s->last_adjust = n->now;
}

/* Quick adapt; 1 = it acted or the ACK is stale feedback: no other change. */
static int quick_adapt(const struct pnet *n, struct flow *f, const struct nscc_k *k,
                       int loss, int marked, double delay)
{
    const struct nscc_params *p = &n->sc->transport.nscc;
    struct nscc_state *s = &f->cc.nscc;
    if (!p->quick_adapt)
        return 0;
    int done = 0;
    if (s->ignore && marked) {
        done = 1;
    } else if (n->now > s->qa_end) {
        if (s->qa_end && (s->trigger_qa || loss || delay > 4 * k->target) &&
            s->achieved < ((uint64_t)k->maxwnd >> p->qa_gate)) {
            s->cwnd = s->achieved > k->mss ? (double)s->achieved : k->mss;
            uint64_t fl = (uint64_t)in_flight(n, f) * n->mtu;
            s->ignore = fl < UINT32_MAX ? (uint32_t)fl : UINT32_MAX;
            s->trigger_qa = 0;
            done = 1;
            cut_done(n, f, k);
        }
        s->achieved = 0;
        s->qa_end = n->now + s->base_rtt + s->target;
    }
    if (done) {
        s->inc = 0;
        s->received = 0;
    }
    return done;
}

static uint32_t sat_add(uint32_t a, uint64_t b)
{
    return b >= UINT32_MAX - a ? UINT32_MAX : a + (uint32_t)b;
}

/* One ACK: acked bytes newly acknowledged, its RTT, its packet's mark. */
static void on_sample(struct pnet *n, struct flow *f, uint64_t acked, uint64_t rtt, int ecn)
{
    const struct nscc_params *p = &n->sc->transport.nscc;
    struct nscc_state *s = &f->cc.nscc;
    s->achieved = sat_add(s->achieved, acked);
    s->received = sat_add(s->received, acked);
    s->ignore -= acked < s->ignore ? (uint32_t)acked : s->ignore;
    if (rtt < s->base_rtt)
        s->base_rtt = (uint32_t)rtt;
    struct nscc_k k;
    consts(n, f, &k);
    double delay = (double)(rtt - s->base_rtt), a = (double)acked;
    double sample = !ecn && delay > k.target ? k.base / 4 : delay;
    s->avg_delay = p->delay_alpha * sample + (1 - p->delay_alpha) * s->avg_delay;
    if (quick_adapt(n, f, &k, 0, ecn, delay))
        return;
    if (!ecn && delay >= k.target) {
        s->inc += k.fi * a; /* fair increase */
    } else if (!ecn) {
        int fast = 0;
        if (delay < FAST_DELAY_PS) {
            s->fi_count = sat_add(s->fi_count, acked);
            fast = (double)s->fi_count > s->cwnd || s->fast;
        } else {
            s->fi_count = 0;
        }
        s->fast = (uint8_t)fast;
        if (fast)
            s->cwnd += a * k.fi_scale;
        else
            s->inc += k.alpha * a * (k.target - delay); /* proportional */
    } else if (delay >= k.target) {
        s->fast = 0;
        s->fi_count = 0;
        if (s->avg_delay > k.target && p->decrease == NSCC_DEC_ACK) {
            /* each marked byte pays its part of a cut: flows are cut in
             * proportion to what they send, not by which ACK comes first */
            double cut = p->gamma * (s->avg_delay - k.target) / s->avg_delay;
            s->cwnd -= (cut < 0.5 ? cut : 0.5) * (a < s->cwnd ? a : s->cwnd);
            bounds(s, &k);
            cut_done(n, f, &k);
        } else if (s->avg_delay > k.target && (double)(n->now - s->last_dec) > k.base) {
            double keep = 1 - p->gamma * (s->avg_delay - k.target) / s->avg_delay;
            s->cwnd *= keep > 0.5 ? keep : 0.5;
            s->last_dec = n->now;
            bounds(s, &k);
            cut_done(n, f, &k);
        }
    } /* else marked below target: no change */
    bounds(s, &k);
    /* per ACK, eta is owed per byte acknowledged (eta a window): tied to
     * the ACK clock as the per-ACK cut is, not to when ACKs happen to land */
    if (p->decrease == NSCC_DEC_ACK)
        s->inc += k.eta * a;
    if (s->received > ADJUST_MTUS * k.mss || (double)(n->now - s->last_adjust) > k.base) {
        s->cwnd += s->inc / s->cwnd;
        if ((double)(n->now - s->last_adjust) >= k.base) {
            s->cwnd += p->decrease == NSCC_DEC_ACK ? 0 : k.eta;
            s->last_adjust = n->now;
        }
        s->inc = 0;
        s->received = 0;
        bounds(s, &k);
    }
}

static void nscc_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    struct nscc_state *s = &f->cc.nscc;
    if (psn <= s->acked)
        return;
    uint64_t mtu = n->mtu;
    uint64_t hi = (uint64_t)psn * mtu, lo = (uint64_t)s->acked * mtu;
    hi = hi < f->bytes ? hi : f->bytes;
    lo = lo < f->bytes ? lo : f->bytes;
    /* marked: any packet it covers arrived CE-marked (at most a window's
     * slots: older ones hold newer packets) */
    int ecn = 0;
    uint32_t from = psn - s->acked > NSCC_WINDOW ? psn - NSCC_WINDOW : s->acked;
    for (uint32_t q = from; q < psn; q++) {
        const struct side_slot *c = pnet_side(n, f, q);
        ecn |= c->psn == q && (c->flags & F_CE);
    }
    s->acked = psn;
    const struct side_slot *sl = pnet_side(n, f, psn - 1);
    if (sl->psn != psn - 1 || sl->sent_ps > n->now)
        return; /* its stamp is gone: no sample */
    on_sample(n, f, hi - lo, n->now - sl->sent_ps, ecn);
}

/* A loss: the packet leaves the window and quick adapt looks. */
static void nscc_loss(struct pnet *n, struct flow *f)
{
    const struct nscc_params *p = &n->sc->transport.nscc;
    struct nscc_state *s = &f->cc.nscc;
    uint32_t mtu = n->mtu;
    struct nscc_k k;
    consts(n, f, &k);
    s->ignore -= mtu < s->ignore ? mtu : s->ignore;
    /* its delay sample: a base RTT of queueing (htsim: the trim threshold) */
    s->avg_delay = p->delay_alpha * k.base + (1 - p->delay_alpha) * s->avg_delay;
    s->trigger_qa = 1;
    if (quick_adapt(n, f, &k, 1, 1, 0))
        return;
    s->cwnd -= k.mss;
    bounds(s, &k);
    cut_done(n, f, &k);
}

static void nscc_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    (void)psn;
    nscc_loss(n, f);
}

/* An ACK will come for what f has in flight: a packet on the coalescing
 * boundary, one that asked for it, or the last. */
static int ack_coming(const struct pnet *n, const struct flow *f, uint32_t sent, uint32_t acked)
{
    uint32_t k = n->sc->transport.nscc.ack_every;
    if (sent / k > acked / k || f->sent >= f->bytes)
        return 1;
    return sent > acked && pnet_side(n, f, sent - 1)->ask;
}

/* The window. Past it, a packet still goes while nothing in flight will be
 * ACKed (a cut left fewer than ack_every packets out, none of which asked):
 * the window overshoots by less than ack_every packets rather than stall. */
static int nscc_may_send(const struct pnet *n, const struct flow *f)
{
    uint64_t mtu = n->mtu;
    uint32_t sent = (uint32_t)((f->sent + mtu - 1) / mtu), acked = f->cc.nscc.acked;
    uint32_t k = sent > acked ? sent - acked : 0;
    if (f->sr_pending)
        return 1; /* a NACKed packet left the network: its resend replaces it */
    if (k >= NSCC_WINDOW)
        return 0;
    return (double)(k + 1) * (double)mtu <= f->cc.nscc.cwnd || !ack_coming(n, f, sent, acked);
}

/* Each packet that fills the window with no ACK coming asks for one: in
 * the packet, and at its first send in its slot (a resend keeps that
 * request, so one that asks counts as an ACK coming). */
static uint64_t nscc_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)wire;
    uint64_t mtu = n->mtu;
    uint32_t sent = (uint32_t)((f->sent + mtu - 1) / mtu), acked = f->cc.nscc.acked;
    struct side_slot *sl = pnet_side(n, f, pk->psn);
    if (!pkt_resend(pk))
        sl->ask = 0; /* the slot is this packet's now */
    uint32_t k = sent > acked ? sent - acked : 0;
    pk->echo = (double)(k + 1) * (double)mtu > f->cc.nscc.cwnd && !ack_coming(n, f, sent, acked);
    if (!pkt_resend(pk))
        sl->ask = pk->echo;
    return f->line_bps;
}

/* A window, not a pacer: the NIC sends at line rate what the window holds. */
static double nscc_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return (double)f->line_bps;
}

/* Receiver: the mark and the request (this copy's or its first send's)
 * into the slot; ACK as the coalescing rule says. */
static void nscc_on_data(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    struct side_slot *sl = pnet_side(n, f, pk->psn);
    uint32_t every = n->sc->transport.nscc.ack_every;
    int ask = pk->echo;
    if (sl->psn == pk->psn) {
        ask |= sl->ask;
        sl->flags = (uint8_t)((ask ? F_AR : 0) | (pk->ce ? F_CE : 0));
    }
    /* a packet that filled a hole: one held past it may have asked while
     * its ACK could not say so (sprayed, it came early); each slot is
     * looked at once, by the packet that makes it cumulative */
    uint32_t end = pk->psn >= f->expect_psn                ? 0
                   : f->expect_psn - pk->psn > NSCC_WINDOW ? pk->psn + NSCC_WINDOW
                                                           : f->expect_psn;
    for (uint32_t q = pk->psn + 1; !ask && q < end; q++) {
        const struct side_slot *c = pnet_side(n, f, q);
        ask = c->psn == q && (c->flags & F_AR);
    }
    if (ask || pk->ce || f->expect_psn / every > pk->psn / every ||
        (f->recv == f->bytes && !n->recover)) /* with recovery the last has its ACK */
        nic_send_ack(n, node, f, f->expect_psn);
}

/* ---- a hybrid jump (transport.h jump_ops) ---- */

static double nscc_level(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return f->cc.nscc.cwnd;
}

static void ask(struct side_slot *sl)
{
    sl->ask = 1;
    sl->flags |= F_AR;
}

static int asked(const struct side_slot *sl)
{
    return sl->ask;
}

/* As Swift's: the packets a jump delivered count as acknowledged (the
 * packets in flight stay the window's), their slots (stamps, marks, asks)
 * move with their PSNs, the adjustment, decrease and quick-adapt clocks
 * with the time, and the window follows its receiver's trend. What the
 * state counts (bytes since an adjustment, achieved in the quick-adapt
 * period, stale feedback) is the packets' own, left as it stood. */
static void nscc_carry(struct pnet *n, struct flow *f, const struct jump_move *m)
{
    struct nscc_state *s = &f->cc.nscc;
    jump_side_carry(n, f, s->acked, n->sc->transport.nscc.ack_every, m, ask);
    s->acked += m->dpsn;
    s->last_adjust += m->d;
    if (s->last_dec)
        s->last_dec += m->d;
    if (s->qa_end)
        s->qa_end += m->d;
    if (m->g != 1) {
        struct nscc_k k;
        consts(n, f, &k);
        s->cwnd *= m->g;
        bounds(s, &k);
    }
}

static void nscc_after(struct pnet *n, struct flow *f)
{
    jump_side_acks(n, f, f->cc.nscc.acked, n->sc->transport.nscc.ack_every, asked, ask);
}

/* its ACK clock starts anew after a jump: a round trip at its delay */
static uint64_t nscc_stands_off(const struct flow *f)
{
    return (uint64_t)((double)f->cc.nscc.base_rtt + f->cc.nscc.avg_delay);
}

/* At least two round trips at its target delay, as Swift's: a period
 * shorter sees its ACKs' bursts and each base RTT's adjustment */
static uint64_t nscc_period_floor(const struct pnet *n, uint64_t rtt)
{
    uint64_t t = n->sc->transport.nscc.target_ps;
    return 2 * (rtt + (t != UINT64_MAX ? t : rtt));
}

/* Under loss recovery (a class that can drop, UEC's trimming) no jump
 * while a loss's quick adapt is pending (hybrid holds a sender repairing,
 * and a window in which a trim, NACK or resend fell: uec-lossy-nscc trims
 * only in its first 0.3 ms, as the senders start at line rate). */
static int nscc_held(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return f->cc.nscc.trigger_qa;
}

static const struct jump_ops nscc_jump = {
    .budget = 0.02,
    .level = nscc_level,
    .trend_full = 1,
    .cuts = 1,
    .side = 1,
    .sender_trend = 1,
    .held = nscc_held,
    .held_why = "NSCC's quick adapt after a loss",
    .period_floor = nscc_period_floor,
    .carry = nscc_carry,
    .after = nscc_after,
    .stands_off = nscc_stands_off,
};

const struct transport_ops transport_nscc = {
    .cc = CC_NSCC,
    .start = nscc_start,
    .on_send = nscc_on_send,
    .rate = nscc_rate,
    .on_ack = nscc_on_ack,
    .on_nak = nscc_on_nak,
    .on_timeout = nscc_loss,
    .may_send = nscc_may_send,
    .on_data = nscc_on_data,
    .side = SIDE_STAMP,
    .side_window = NSCC_WINDOW,
    .jump = &nscc_jump,
};
