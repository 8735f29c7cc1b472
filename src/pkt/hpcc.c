/* HPCC: High Precision Congestion Control (Li et al., SIGCOMM 2019,
 * Algorithm 1; the authors' ns-3 rdma-hw model for what the paper leaves
 * open).
 *
 * Each switch stamps its egress INT into the data packet (the side table's
 * SIDE_INT: time, bytes sent, queue, port); the receiver ACKs every
 * ack_interval packets and the ACK carries its packet's INT back. Per ACK,
 * with L the INT of the previous ACK's packet, for each hop i:
 *   u_i = min(q_i, q_i') / (B_i T) + (tx_i - tx_i') / ((t_i - t_i') B_i)
 * the most utilised hop gives u and tau = min(t_i - t_i', T), and
 *   U <- (1 - tau/T) U + (tau/T) u.
 * The window: W = W_c / (U/eta) + W_AI when U >= eta or after max_stage
 * additive steps, else W = W_c + W_AI; W_c (and the stage) take W only
 * once per RTT, on the first ACK of a packet sent after the last update
 * (ack.seq > lastUpdateSeq); other ACKs react at once from W_c. The rate
 * is W / T, the window limits the bytes in flight, and W stays within
 * [rmin T, W_init = line rate x T] (ns-3's rate bounds).
 */
#include <math.h>
#include <string.h>

#include "../core/units.h"
#include "pnet.h"

/* The unloaded RTT of f's path: an MTU packet out, the protocol's ACK
 * back, through each switch's latency both ways. */
static uint64_t base_rtt(const struct pnet *n, const struct flow *f)
{
    uint32_t path[TOPO_MAX_HOPS];
    uint32_t hops = topo_path(n->topo, f->src, f->dst, f->sport, path, TOPO_MAX_HOPS);
    return topo_round_trip_ps(n->topo, n->sc, path, hops, n->mtu_wire, pkt_ctl_wire(n, PK_RCACK));
}

static uint64_t flow_rtt(const struct pnet *n, const struct flow *f)
{
    uint64_t t = n->sc->transport.hpcc.base_rtt_ps;
    return t ? t : base_rtt(n, f);
}

static uint64_t line_of(const struct pnet *n, const struct flow *f)
{
    return n->ports[n->topo->nodes[f->src].first_port].bps;
}

static double w_ai(const struct pnet *n, const struct flow *f)
{
    uint64_t rai = n->sc->transport.hpcc.rai_bps;
    if (!rai)
        rai = f->line_bps / 2500; /* 10 Mbps per 25 Gbps */
    return hpcc_window((double)rai, f->cc.hpcc.t_ps);
}

/* Slots per flow: more than the largest window in packets, so the INT of
 * the last ACKed packet is still in its slot when the next ACK comes. */
static uint32_t hpcc_side_window(const struct pnet *n)
{
    double most = 0;
    uint32_t nf = n->n_flows + n->n_train;
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = &n->flows[i];
        double w = hpcc_window((double)line_of(n, f), flow_rtt(n, f));
        most = w > most ? w : most;
    }
    double pkts = most / n->mtu + 3;
    uint32_t win = 4;
    while (win < pkts && win < (1u << 20))
        win *= 2;
    return win;
}

static void hpcc_start(struct pnet *n, struct flow *f)
{
    struct hpcc_state *c = &f->cc.hpcc;
    memset(c, 0, sizeof *c);
    c->t_ps = flow_rtt(n, f);
    c->w = c->wc = hpcc_window((double)f->line_bps, c->t_ps);
    c->u = 1; /* ns-3's start */
}

static double hpcc_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    const struct hpcc_state *c = &f->cc.hpcc;
    double r = c->w * 8 / ((double)c->t_ps * 1e-12);
    return r < (double)f->line_bps ? r : (double)f->line_bps;
}

static uint64_t hpcc_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)pk, (void)wire;
    return (uint64_t)hpcc_rate(n, f);
}

static uint64_t in_flight(const struct pnet *n, const struct flow *f)
{
    uint64_t acked = (uint64_t)f->cc.hpcc.acked * n->mtu;
    return f->sent > acked ? f->sent - acked : 0;
}

/* The window, never below ack_interval packets: the receiver ACKs only
 * every ack_interval packets, so a smaller window would wait for an ACK
 * that never comes. */
static int hpcc_may_send(const struct pnet *n, const struct flow *f)
{
    double k = (double)n->sc->transport.hpcc.ack_interval * n->mtu;
    double w = f->cc.hpcc.w > k ? f->cc.hpcc.w : k;
    return (double)in_flight(n, f) < w;
}

/* The next PSN the sender would send (snd_nxt). */
static uint32_t next_psn(const struct pnet *n, const struct flow *f)
{
    uint64_t mtu = n->mtu;
    return (uint32_t)((f->sent + mtu - 1) / mtu);
}

/* MeasureInflight: U brought up to this ACK's INT; 0 if no hop compares. */
static int measure(struct pnet *n, struct hpcc_state *c, const struct side_slot *now,
                   const struct side_slot *was)
{
    double T = (double)c->t_ps * 1e-12, u = 0;
    uint64_t tau = 0;
    int any = 0;
    uint32_t hops = now->hops < was->hops ? now->hops : was->hops;
    for (uint32_t i = 0; i < hops; i++) {
        const struct side_hop *a = &now->hop[i], *b = &was->hop[i];
        if (a->port != b->port || a->t <= b->t)
            continue; /* another path (spraying): nothing to compare */
        double B = (double)n->ports[a->port].bps;
        double dt = (double)(a->t - b->t) * 1e-12;
        double q = (double)(a->q_bytes < b->q_bytes ? a->q_bytes : b->q_bytes);
        double ui = q * 8 / (B * T) + (double)(a->tx_bytes - b->tx_bytes) * 8 / (dt * B);
        if (!any || ui > u) {
            u = ui;
            tau = a->t - b->t;
        }
        any = 1;
    }
    if (!any)
        return 0;
    if (tau > c->t_ps)
        tau = c->t_ps;
    double k = (double)tau / (double)c->t_ps;
    c->u = (1 - k) * c->u + k * u;
    return 1;
}

/* ComputeWind: the window from U; W_c and the stage move on a full update. */
static void compute_wind(struct pnet *n, struct flow *f, int full)
{
    const struct hpcc_params *p = &n->sc->transport.hpcc;
    struct hpcc_state *c = &f->cc.hpcc;
    double w;
    int mult = c->u >= p->eta || c->inc_stage >= p->max_stage;
    if (mult)
        w = c->wc / (c->u / p->eta) + w_ai(n, f);
    else
        w = c->wc + w_ai(n, f);
    double lo = hpcc_window((double)p->rmin_bps, c->t_ps);
    double hi = hpcc_window((double)f->line_bps, c->t_ps);
    w = w < lo ? lo : w > hi ? hi : w;
    c->w = w;
    if (full) {
        if (mult && w < c->wc)
            f->decreases++;
        c->wc = w;
        c->inc_stage = mult ? 0 : (uint8_t)(c->inc_stage < 255 ? c->inc_stage + 1 : 255);
        c->last_update = next_psn(n, f);
    }
    double r = hpcc_rate(n, f);
    if (r < f->min_rate)
        f->min_rate = r;
}

/* An ACK: packets below psn are in, and the INT of packet psn - 1. */
static void hpcc_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    struct hpcc_state *c = &f->cc.hpcc;
    if (psn <= c->acked)
        return; /* a duplicate (loss recovery's): no news */
    c->acked = psn;
    const struct side_slot *now = pnet_side(n, f, psn - 1);
    /* a resent packet's INT is its first copy's, which may be partial
     * (dropped) or still being appended (overtaken): no sample */
    if (now->psn == psn - 1 && now->hops && !now->resent) {
        if (!c->have_int) { /* the first: only L */
            c->have_int = 1;
            c->last_update = next_psn(n, f);
        } else {
            const struct side_slot *was = pnet_side(n, f, c->int_psn);
            if (was->psn == c->int_psn && measure(n, c, now, was))
                compute_wind(n, f, psn > c->last_update);
        }
        c->int_psn = psn - 1;
    }
    if (f->active && f->next_send != UINT64_MAX)
        nic_rate_changed(n, f);
}

/* Loss recovery resends (a NAK, a timeout): a queue pair its full window
 * parked waits for no ACK now, as the resend empties the flight. The
 * window itself does not react (HPCC assumes a lossless fabric). */
static void hpcc_resend(struct pnet *n, struct flow *f)
{
    if (f->next_send == UINT64_MAX)
        f->next_send = n->now;
}

static void hpcc_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    (void)psn;
    hpcc_resend(n, f);
}

/* The receiver: an ACK every ack_interval packets in order, and for the
 * last one. */
static void hpcc_on_data(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    (void)pk;
    uint32_t k = n->sc->transport.hpcc.ack_interval;
    if (k > 1 && f->expect_psn % k && f->recv < f->bytes)
        return;
    nic_send_ack(n, node, f, f->expect_psn);
}

/* ---- a hybrid jump (transport.h jump_ops) ---- */

static double hpcc_level(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return f->cc.hpcc.w;
}

/* The packets a jump delivered count as ACKed; the slots from the last
 * ACKed packet's (L, whose INT the next ACK's is compared with) move with
 * their PSNs. Their INT stays as stamped: a port's counters move by the
 * jump's credit over the time jumped, so the first comparison across a
 * jump reads the jump's mean rate, as a long ACK gap would. The windows
 * follow their receiver's trend. */
static void hpcc_carry(struct pnet *n, struct flow *f, const struct jump_move *m)
{
    struct hpcc_state *c = &f->cc.hpcc;
    uint32_t from = c->have_int && c->int_psn + 1 == c->acked ? c->int_psn : c->acked;
    jump_side_carry(n, f, from, 1, m, NULL);
    if (c->have_int && c->int_psn >= from)
        c->int_psn += m->dpsn;
    c->acked += m->dpsn;
    c->last_update += m->dpsn;
    if (m->g != 1) {
        const struct hpcc_params *p = &n->sc->transport.hpcc;
        double lo = hpcc_window((double)p->rmin_bps, c->t_ps);
        double hi = hpcc_window((double)f->line_bps, c->t_ps);
        c->w = fmin(fmax(c->w * m->g, lo), hi);
        c->wc = fmin(fmax(c->wc * m->g, lo), hi);
    }
}

/* its control loop: the base RTT T, U's EWMA over it, W_c once a round
 * trip; a period of two round trips at T sees a step of it */
static uint64_t hpcc_period_floor(const struct pnet *n, uint64_t rtt)
{
    uint64_t t = n->sc->transport.hpcc.base_rtt_ps;
    return 2 * (rtt + (t ? t : rtt));
}

/* A window under two ACKs' packets paces its sender at most two ACKs a
 * round trip: W_c moves once a paced packet, not once a round trip, so
 * the smaller windows' additive steps come slower and their shares keep
 * falling. A sender as wide as its receiver, left behind, then crawls
 * back from that window (max_stage additive steps a packet apart, at
 * worst at rmin) where a jump would carry its share: three writers at 10
 * Gbps into one 10 Gbps node, one at 3.7 KB falling to rmin over 5 ms,
 * ended 12.5% early. No jump while such a sender's window is that small
 * (held_wide: narrower senders' shares are fitted), unless that crawl is
 * within the error budget of the run's bound (a 0.15 s write into 20
 * nodes skips 78% within 0.2%). */
#define HPCC_BUDGET 0.02

static int hpcc_held(const struct pnet *n, const struct flow *f)
{
    const struct hpcc_params *p = &n->sc->transport.hpcc;
    double k = (double)p->ack_interval * n->mtu;
    if (!(f->cc.hpcc.w < 2 * k))
        return 0;
    double crawl = (p->max_stage + 1.0) * k * 8 / (double)p->rmin_bps;
    double budget = n->sc->sim.hybrid_error > 0 ? n->sc->sim.hybrid_error : HPCC_BUDGET;
    return crawl > budget * n->res->bound_s;
}

static uint64_t hpcc_stands_off(const struct flow *f)
{
    return f->cc.hpcc.t_ps;
}

static const struct jump_ops hpcc_jump = {
    .budget = HPCC_BUDGET,
    .level = hpcc_level,
    .trend_full = 1,
    .side = 1,
    .sender_trend = 1,
    .period_floor = hpcc_period_floor,
    .carry = hpcc_carry,
    .held = hpcc_held,
    .held_why = "HPCC windows under two ACKs' packets, whose shares drift",
    .held_wide = 1,
    .stands_off = hpcc_stands_off,
};

const struct transport_ops transport_hpcc = {
    .cc = CC_HPCC,
    .start = hpcc_start,
    .on_send = hpcc_on_send,
    .rate = hpcc_rate,
    .on_ack = hpcc_on_ack,
    .may_send = hpcc_may_send,
    .on_nak = hpcc_on_nak,
    .on_timeout = hpcc_resend,
    .on_data = hpcc_on_data,
    .side = SIDE_STAMP | SIDE_INT,
    .side_window = 0,
    .side_window_of = hpcc_side_window,
    .jump = &hpcc_jump,
};
