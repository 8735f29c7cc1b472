/* TCP as storage front ends run it (transport.cc dctcp, cubic): a window
 * of segments (the protocol row's MSS of payload each: transport.protocol
 * tcp takes fabric.mtu as the IP MTU), cumulative ACKs with delayed
 * ACKs, fast retransmit and recovery, and the retransmission timeout of
 * recovery.c. docs/engine.md "TCP (DCTCP, CUBIC)" has the equations.
 *
 * Sender, per new ACK of `acked` segments (Linux's order):
 * - DCTCP (RFC 8257 3.3): acked and (ECE) marked segments add up; once the
 *   ACK passes the window's end, alpha = (1-g) alpha + g marked/acked and a
 *   new window starts at the highest segment sent. Then an ECE in the open
 *   state cuts cwnd = max(cwnd (1 - alpha/2), 2) = ssthresh, once per window
 *   of data (the CWR state until una passes it; no growth meanwhile).
 * - growth in the open and loss states: slow start cwnd += acked (up to
 *   ssthresh), then Reno cwnd += acked/cwnd (DCTCP) or CUBIC (RFC 9438):
 *   W(t) = C (t - K)^3 + W_max from the epoch's first ACK, K =
 *   cbrt((W_max - cwnd_epoch)/C); W_est += a acked/cwnd with a = 3(1-b)/(1+b)
 *   (1 once W_est reaches W_max); cwnd = W_est where W(t) < W_est, else
 *   cwnd += (target - cwnd)/cwnd per segment acked, target = W(t + srtt)
 *   clamped to [cwnd, 1.5 cwnd]. CUBIC ignores ECE (Linux's default
 *   net.ipv4.tcp_ecn = 2 asks for no ECN).
 * - pacing (transport.tcp.pacing, Linux under fq): a segment leaves len /
 *   rate after the last, rate = ratio x max(cwnd, pipe) / SRTT (2 in slow
 *   start); unpaced flows into one port keep their phase and DCTCP's step
 *   mark then hits each about equally often whatever its window: no
 *   convergence to fair shares.
 * - loss: the dupack_threshold-th duplicate ACK retransmits una (fast
 *   retransmit) with ssthresh = cwnd = max(cwnd/2, 2) (DCTCP, RFC 8257 3.5)
 *   or max(b cwnd, 2) with W_max = cwnd, or cwnd (1+b)/2 below the last
 *   W_max (CUBIC fast convergence); a cut already made this window (CWR)
 *   is not repeated. Recovery (RFC 6675-like): each duplicate ACK is one
 *   segment the receiver holds past the hole, so the pipe is the segments
 *   out less those; a partial ACK retransmits the next hole (RFC 6582);
 *   una reaching the highest segment sent at the cut ends it.
 * - timeout (recovery.c, RTO = transport.tcp.rto_min): ssthresh as for a
 *   loss, cwnd = 1, go-back-N from una (the receiver keeps what it holds,
 *   and its cumulative ACK skips it), slow start; no fast retransmit until
 *   una passes what had been sent.
 * Receiver (tcp_rx_segment, under recovery.c's tcp row): an ACK every
 * delack_segments in-order segments or after delack_timeout, at once for
 * a segment out of order, a duplicate, one that fills a hole, and the
 * last one; its ECE is the CE state of RFC 8257 3.2 (a change of state
 * first ACKs what came before, with the old state).
 */
#include <math.h>
#include <string.h>

#include "pnet.h"

enum tcp_ca { CA_OPEN, CA_CWR, CA_RECOVERY, CA_LOSS };
#define DELACK 0x80000000u /* on_timer arg: the receiver's delayed-ACK timer | gen */

static inline uint32_t segs(const struct pnet *n, uint64_t bytes)
{
    uint64_t m = n->mtu;
    return (uint32_t)((bytes + m - 1) / m);
}

static inline int is_cubic(const struct pnet *n)
{
    return n->tp->cc == CC_CUBIC;
}

static void tcp_start(struct pnet *n, struct flow *f)
{
    struct tcp_state *s = &f->cc.tcp;
    memset(s, 0, sizeof *s);
    s->cwnd = n->sc->transport.tcp.init_cwnd;
    s->ssthresh = HUGE_VAL; /* slow start until the first cut */
    if (!is_cubic(n))
        s->u.d.alpha = n->sc->transport.dctcp.initial_alpha;
}

static uint32_t pipe_segs(const struct pnet *n, const struct flow *f);

static inline uint32_t srtt_of(const struct pnet *n, const struct tcp_state *s)
{
    return is_cubic(n) ? s->u.c.srtt_ns : s->u.d.srtt_ns;
}

static uint64_t tcp_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)pk;
    struct tcp_state *s = &f->cc.tcp;
    /* time one new segment per RTT (Karn: none while resending) */
    if (!s->timing && s->state <= CA_CWR && f->sent == f->max_sent) {
        s->timing = 1;
        s->rtt_psn = segs(n, f->sent);
        s->rtt_t = n->now;
    }
    /* Linux's pacing (fq): ratio x max(cwnd, packets out) / SRTT, the next
     * packet len / rate after this one; before an RTT sample, none */
    double ratio = s->cwnd < s->ssthresh ? 2.0 : n->sc->transport.tcp.pacing;
    uint32_t srtt = srtt_of(n, s);
    if (n->sc->transport.tcp.pacing > 0 && srtt) {
        double w = s->cwnd, out = (double)pipe_segs(n, f);
        double bps = ratio * (w > out ? w : out) * (double)wire * 8 / ((double)srtt * 1e-9);
        if (bps < (double)f->line_bps)
            return bps > 1 ? (uint64_t)bps : 1;
    }
    return f->line_bps;
}

static double tcp_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return (double)f->line_bps;
}

/* Segments in the network: sent past una, less those the receiver holds. */
static uint32_t pipe_segs(const struct pnet *n, const struct flow *f)
{
    const struct tcp_state *s = &f->cc.tcp;
    uint32_t top = segs(n, f->sent);
    uint32_t out = top > s->una ? top - s->una : 0;
    return out > s->sacked ? out - s->sacked : 0;
}

static int tcp_may_send(const struct pnet *n, const struct flow *f)
{
    return f->sr_pending || (double)pipe_segs(n, f) < f->cc.tcp.cwnd;
}

static void tcp_on_ece(struct pnet *n, struct flow *f)
{
    (void)n;
    f->cc.tcp.ece = 1;
}

static void cut_counted(struct pnet *n, struct flow *f)
{
    n->tcp_cuts++;
    f->decreases++;
}

/* ssthresh after a loss (fast retransmit or timeout). */
static void loss_ssthresh(struct pnet *n, struct flow *f)
{
    struct tcp_state *s = &f->cc.tcp;
    if (is_cubic(n)) {
        const double b = n->sc->transport.cubic.beta;
        if (n->sc->transport.cubic.fast_convergence && s->cwnd < s->u.c.w_max)
            s->u.c.w_max = s->cwnd * (1 + b) / 2;
        else
            s->u.c.w_max = s->cwnd;
        s->u.c.epoch = 0;
        s->ssthresh = s->cwnd * b;
    } else {
        s->ssthresh = s->cwnd / 2;
    }
    if (s->ssthresh < 2)
        s->ssthresh = 2;
    cut_counted(n, f);
}

/* Resend segment psn, whatever the window (the pipe counts it out). */
static void retransmit(struct pnet *n, struct flow *f, uint32_t psn)
{
    f->sr_psn = psn;
    f->sr_pending = 1;
    nic_reactivate(n, f);
}

static void fast_retransmit(struct pnet *n, struct flow *f)
{
    struct tcp_state *s = &f->cc.tcp;
    n->tcp_fast_retx++;
    if (s->state != CA_CWR) { /* one cut per window */
        loss_ssthresh(n, f);
        s->cwnd = s->ssthresh;
    }
    s->state = CA_RECOVERY;
    s->high = segs(n, f->max_sent);
    s->timing = 0;
    retransmit(n, f, s->una);
}

/* DCTCP's reaction to an ECE: once per window of data. */
static void dctcp_cut(struct pnet *n, struct flow *f)
{
    struct tcp_state *s = &f->cc.tcp;
    if (s->state != CA_OPEN)
        return;
    s->cwnd *= 1 - s->u.d.alpha / 2;
    if (s->cwnd < 2)
        s->cwnd = 2;
    s->ssthresh = s->cwnd;
    s->state = CA_CWR;
    s->high = segs(n, f->max_sent);
    cut_counted(n, f);
}

/* RFC 8257 3.3: the fraction of marked segments per window of data. */
static void dctcp_observe(struct pnet *n, struct flow *f, uint32_t acked, int ece, uint32_t psn)
{
    struct tcp_state *s = &f->cc.tcp;
    const double g = n->sc->transport.dctcp.g;
    s->u.d.acked += acked;
    s->u.d.marked += ece ? acked : 0;
    if (psn > s->u.d.win_end) {
        double F = s->u.d.acked ? (double)s->u.d.marked / s->u.d.acked : 0;
        s->u.d.alpha = (1 - g) * s->u.d.alpha + g * F;
        s->u.d.win_end = segs(n, f->max_sent);
        s->u.d.acked = s->u.d.marked = 0;
    }
}

static void cubic_grow(struct pnet *n, struct flow *f, uint32_t acked)
{
    struct tcp_state *s = &f->cc.tcp;
    const double C = n->sc->transport.cubic.c, b = n->sc->transport.cubic.beta;
    if (!s->u.c.epoch) { /* the first ACK of congestion avoidance after a cut */
        s->u.c.epoch = 1;
        s->u.c.t_epoch = n->now;
        if (s->u.c.w_max <= s->cwnd) {
            s->u.c.w_max = s->cwnd;
            s->u.c.k = 0;
        } else {
            s->u.c.k = (float)cbrt((s->u.c.w_max - s->cwnd) / C);
        }
        s->u.c.w_est = s->cwnd;
    }
    double t = (double)(n->now - s->u.c.t_epoch) * 1e-12, k = s->u.c.k;
    double rtt = (double)s->u.c.srtt_ns * 1e-9;
    /* Reno's rate once W_est passes cwnd_prior, the window before the cut
     * (RFC 9438 4.3; ssthresh = b cwnd_prior): not W_max, which fast
     * convergence lowers, so that a flow giving way sped up sooner */
    double a = s->u.c.w_est >= s->ssthresh / b ? 1.0 : 3 * (1 - b) / (1 + b);
    s->u.c.w_est += a * acked / s->cwnd;
    double w_t = C * (t - k) * (t - k) * (t - k) + s->u.c.w_max;
    if (w_t < s->u.c.w_est) { /* the Reno-friendly region */
        s->cwnd = s->u.c.w_est;
        return;
    }
    double d = t + rtt - k, target = C * d * d * d + s->u.c.w_max;
    if (target < s->cwnd)
        target = s->cwnd;
    if (target > 1.5 * s->cwnd)
        target = 1.5 * s->cwnd;
    s->cwnd += (target - s->cwnd) / s->cwnd * acked;
}

static void grow(struct pnet *n, struct flow *f, uint32_t acked)
{
    struct tcp_state *s = &f->cc.tcp;
    if (s->cwnd < s->ssthresh) {
        s->cwnd += acked;
        if (s->cwnd > s->ssthresh)
            s->cwnd = s->ssthresh;
    } else if (is_cubic(n)) {
        cubic_grow(n, f, acked);
    } else {
        s->cwnd += (double)acked / s->cwnd;
    }
}

/* RFC 6298's SRTT (pacing; CUBIC's W(t + RTT)). */
static void rtt_sample(const struct pnet *n, struct tcp_state *s, uint64_t ps)
{
    uint64_t ns = ps / 1000, old = srtt_of(n, s);
    if (ns > INT32_MAX)
        ns = INT32_MAX;
    uint32_t v = (uint32_t)((old ? (7 * old + ns) / 8 : ns) & INT32_MAX);
    if (is_cubic(n))
        s->u.c.srtt_ns = v;
    else
        s->u.d.srtt_ns = v;
}

static void tcp_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    struct tcp_state *s = &f->cc.tcp;
    int ece = s->ece && !is_cubic(n);
    s->ece = 0;
    if (psn < s->una)
        return; /* older than one already heard */
    if (psn == s->una) {
        uint32_t top = segs(n, f->max_sent);
        if (top <= s->una)
            return; /* nothing outstanding */
        n->tcp_dupacks++;
        s->dupacks++;
        if (s->sacked < top - s->una)
            s->sacked++;
        if (ece)
            dctcp_cut(n, f);
        if (s->dupacks == n->sc->transport.tcp.dupack_threshold && s->state != CA_RECOVERY &&
            s->state != CA_LOSS)
            fast_retransmit(n, f);
        return;
    }
    uint32_t acked = psn - s->una;
    s->una = psn;
    s->dupacks = 0;
    if (s->timing && psn >= s->rtt_psn) {
        s->timing = 0;
        rtt_sample(n, s, n->now - s->rtt_t);
    }
    if (!is_cubic(n)) {
        dctcp_observe(n, f, acked, ece, psn);
        if (ece)
            dctcp_cut(n, f);
    }
    switch (s->state) {
    case CA_RECOVERY:
        if (psn >= s->high) {
            s->state = CA_OPEN;
            s->cwnd = s->ssthresh;
            s->sacked = 0;
            return;
        }
        /* a partial ACK: the segments it covers past the hole were held */
        s->sacked = s->sacked > acked - 1 ? s->sacked - (acked - 1) : 0;
        retransmit(n, f, psn);
        return;
    case CA_CWR:
        if (psn >= s->high)
            s->state = CA_OPEN;
        s->sacked = 0;
        return; /* no growth in the reduction's window */
    case CA_LOSS:
        if (psn >= s->high)
            s->state = CA_OPEN;
        break;
    default:
        break;
    }
    s->sacked = 0;
    grow(n, f, acked);
}

static void tcp_on_timeout(struct pnet *n, struct flow *f)
{
    struct tcp_state *s = &f->cc.tcp;
    if (s->state != CA_LOSS) { /* repeated timeouts keep the first one's ssthresh */
        loss_ssthresh(n, f);
        /* RFC 9438 4.8: the first epoch after a timeout has K = 0 and W_max
         * = W_est = cwnd at its start (cubic_grow, from W_max 0) */
        if (is_cubic(n))
            s->u.c.w_max = 0;
    }
    s->cwnd = 1;
    s->state = CA_LOSS;
    s->high = segs(n, f->max_sent);
    s->dupacks = 0;
    s->sacked = 0;
    s->timing = 0;
    if (!is_cubic(n)) { /* a new observation window from what is resent */
        s->u.d.acked = s->u.d.marked = 0;
    }
    f->next_send = n->now; /* recovery.c resends from una: the window is open */
}

/* Receiver: an ACK for the segments below psn, its ECE the CE state. */
static void send_ack(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn)
{
    struct packet a = {0};
    a.flow = f->id;
    a.payload = 0; /* a pure ACK: the protocol's headers alone */
    a.kind = PK_RCACK;
    a.dscp = (uint8_t)n->sc->transport.cnp_dscp;
    a.prio = (uint8_t)n->sc->transport.cnp_priority;
    a.ce = f->tcp_ce;
    a.gen = f->gen;
    a.psn = psn;
    a.t = n->now;
    f->tcp_unacked = 0;
    n->rc_acks++;
    nic_control_out(n, node, f, &a);
}

void tcp_rx_segment(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk,
                    int inorder, int gap)
{
    const struct tcp_params *p = &n->sc->transport.tcp;
    if (pk->ce != f->tcp_ce) { /* RFC 8257 3.2: what came before, with the old state */
        if (f->tcp_unacked)
            send_ack(n, node, f, inorder ? pk->psn : f->expect_psn);
        f->tcp_ce = pk->ce;
    }
    if (!inorder || gap || f->tcp_unacked + 1u >= p->delack_segments ||
        (uint64_t)f->expect_psn * n->mtu >= f->bytes) {
        send_ack(n, node, f, f->expect_psn);
        return;
    }
    f->tcp_unacked++;
    f->delack_at = n->now + p->delack_ps;
    if (!f->delack_pending) {
        f->delack_pending = 1;
        pnet_schedule_part(n, f->delack_at, EV_CC_TIMER, n->part[node], f, DELACK | f->gen);
    }
}

/* The delayed-ACK timer, at the receiver: one event per flow, which moves
 * itself to the latest deadline. */
static void tcp_on_timer(struct pnet *n, struct flow *f, uint32_t arg)
{
    if (!(arg & DELACK) || (uint8_t)arg != f->gen)
        return; /* a training step's that is over */
    f->delack_pending = 0;
    if (!f->tcp_unacked)
        return;
    if (n->now < f->delack_at) {
        f->delack_pending = 1;
        pnet_schedule_part(n, f->delack_at, EV_CC_TIMER, n->part[f->dst], f, arg);
        return;
    }
    send_ack(n, f->dst, f, f->expect_psn);
}

/* the window where it bounds the segments out; past them (a NIC's
 * rate holds the flow, and Reno's window grows on regardless) the
 * segments out: a receiver's sum of windows that climbs while no
 * flow is held by its window is no trend of its rate */
static double tcp_level(const struct pnet *n, const struct flow *f)
{
    double out = (double)pipe_segs(n, f);
    return f->cc.tcp.cwnd < out ? f->cc.tcp.cwnd : out;
}

/* A hybrid jump (a quiet sender, tcp_held; the NIC's loss recovery moves
 * in recovery.c): the segments it delivered are acknowledged (una and
 * every segment mark the state keeps move with them), its clocks (the
 * timed segment's send, CUBIC's epoch, the receiver's delayed ACK) move
 * with the time, and the window follows its receiver's trend. DCTCP's
 * counts of the window being observed are the packets' own, as they stood. */
static void tcp_carry(struct pnet *n, struct flow *f, const struct jump_move *m)
{
    struct tcp_state *s = &f->cc.tcp;
    s->una += m->dpsn;
    s->high += m->dpsn;
    s->rtt_psn += m->dpsn;
    s->rtt_t += m->d;
    if (is_cubic(n)) {
        if (s->u.c.epoch)
            s->u.c.t_epoch += m->d;
    } else {
        s->u.d.win_end += m->dpsn;
    }
    if (f->delack_pending)
        f->delack_at += m->d;
    if (m->g != 1) {
        s->cwnd *= m->g;
        if (s->cwnd < 1)
            s->cwnd = 1;
        if (is_cubic(n))
            s->u.c.w_est *= m->g;
    }
}

/* a sender repairing a loss (or holding duplicate ACKs, a resend
 * pending) sends no steady rate: no jump while one does */
static int tcp_held(const struct pnet *n, const struct flow *f)
{
    (void)n;
    const struct tcp_state *s = &f->cc.tcp;
    return s->state >= CA_RECOVERY || s->dupacks || s->sacked || f->sr_pending || f->rsq_n ||
           f->retries;
}

/* its ACK clock starts anew after a jump: a smoothed round trip */
static uint64_t dctcp_stands_off(const struct flow *f)
{
    return (uint64_t)f->cc.tcp.u.d.srtt_ns * 1000;
}

static uint64_t cubic_stands_off(const struct flow *f)
{
    return (uint64_t)f->cc.tcp.u.c.srtt_ns * 1000;
}

/* At least four round trips: DCTCP's observation windows are a round
 * trip each, and a period holds a few */
static uint64_t tcp_period_floor(const struct pnet *n, uint64_t rtt)
{
    (void)n;
    return 4 * rtt;
}

#define TCP_JUMP(so)                                                          \
    {                                                                         \
        .budget = 0.02, .level = tcp_level, .trend_full = 1,                  \
        .sender_trend = 1, .shares_draw = 1, .period_floor = tcp_period_floor, \
        .carry = tcp_carry, .held = tcp_held, .stands_off = (so),             \
        .held_why = "TCP senders in loss recovery",                           \
    }
static const struct jump_ops dctcp_jump = TCP_JUMP(dctcp_stands_off);
static const struct jump_ops cubic_jump = TCP_JUMP(cubic_stands_off);

/* DCTCP and CUBIC share every hook; the row's cc picks the window law */
#define TCP_OPS(kind, jo)                                                     \
    {                                                                         \
        .cc = (kind), .start = tcp_start, .on_send = tcp_on_send,             \
        .rate = tcp_rate, .on_timer = tcp_on_timer, .on_ack = tcp_on_ack,     \
        .on_timeout = tcp_on_timeout, .on_ece = tcp_on_ece,                   \
        .may_send = tcp_may_send, .jump = (jo),                               \
    }

const struct transport_ops transport_dctcp = TCP_OPS(CC_DCTCP, &dctcp_jump);
const struct transport_ops transport_cubic = TCP_OPS(CC_CUBIC, &cubic_jump);
