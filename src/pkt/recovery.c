/* Acknowledgements and loss recovery of the queue pairs, on the transport
 * interface: the receivers (transport.receiver: go-back-N and out-of-order
 * placement, their NAKs and duplicate ACKs), the sender's side of a NAK and
 * of a cumulative ACK (which tells the transport's on_ack, and opens its
 * window), and the retransmission timer with its retry count. Loss recovery
 * proper (ACKs that end a transfer, timeouts) runs only where a data class
 * can drop (n->recover). The NIC's send and receive paths are nic.c's. */
#include <string.h>

#include "pnet.h"
#include "rccc.h"

/* Loss recovery runs where a data class can drop: the checkpoint's or
 * training's. A lossless data class keeps its results as they were: no
 * ACKs, no timers (a lossy control class alone does not count: its few
 * packets go first, and a lost NAK is asked again at the next gap). */
static int held_setup(struct pnet *n, struct err *e);
static inline void sack_heard(struct pnet *n, const struct flow *f);

/* uec: a cumulative ACK (REPS: an echo) every ack_bytes of packets. */
static void uec_ack_setup(struct pnet *n)
{
    uint32_t k = n->sc->transport.uec.ack_bytes / n->mtu;
    n->uec_ack_pkts = k ? k : 1;
}

int nic_recovery_setup(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    unsigned used = 1u << sc->transport.data_priority;
    if (n->tr)
        used |= 1u << n->tr->prio;
    n->recover = (used & ~(unsigned)n->lossless) != 0;
    /* lossless, an out-of-order receiver still keeps the cumulative PSN a
     * window transport's ACKs carry (no NAKs, no timers), and REPS's
     * echoes (uec) carry it too */
    if (n->recover && sc->transport.rto_mode == RTO_ADAPTIVE) {
        n->rto_est = arena_calloc(&n->arena, (size_t)n->n_flows + n->n_train, sizeof *n->rto_est);
        if (!n->rto_est)
            return err_set(e, "out of memory for the adaptive retransmission timers (%u flows)",
                           n->n_flows + n->n_train);
    }
    if (!n->recover && n->rx->kind != RX_TCP) {
        if (n->reps)
            uec_ack_setup(n);
        return (n->tp->on_ack || n->reps) && rx_scheme(n->rx->kind)->keeps_out_of_order
                   ? held_setup(n, e)
                   : 0;
    }
    return n->rx->recovery_setup(n, e);
}


static int gbn_recovery_setup(struct pnet *n, struct err *e)
{
    (void)e;
    n->rto_ps = transport_rto_ps(n->sc, NULL);
    return 0;
}

/* The held ring of every flow (ooo and uec receivers): which PSNs past
 * expect_psn arrived. */
static int held_setup(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    /* a power of two, no larger than the longest flow needs */
    uint32_t nf = n->n_flows + n->n_train;
    uint64_t most = 0;
    for (uint32_t i = 0; i < nf; i++)
        most = n->flows[i].bytes > most ? n->flows[i].bytes : most;
    most = most / n->mtu + 1;
    uint32_t w = 64;
    while (w * 2 <= sc->transport.sack_window && w < most)
        w *= 2;
    n->sack_win = w;
    uint64_t *bits = arena_calloc(&n->arena, (size_t)nf * (w / 64) + 1, sizeof *bits);
    if (!bits)
        return err_set(e, "out of memory for the ooo receivers' windows (transport.sack_window "
                          "%u x %u flows)", w, nf);
    for (uint32_t i = 0; i < nf; i++)
        n->flows[i].held = bits + (size_t)i * (w / 64);
    return 0;
}

static int ooo_recovery_setup(struct pnet *n, struct err *e)
{
    n->rto_ps = transport_rto_ps(n->sc, NULL);
    return held_setup(n, e);
}


/* The sender hears that packets below psn arrived: progress resets the
 * retry count and the timer's start. */
static void heard_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    if (!n->recover)
        return;
    if (n->rto_est && n->rto_est[f->id].timing && psn > n->rto_est[f->id].psn) {
        struct rto_est *e = &n->rto_est[f->id];
        e->timing = 0;
        rto_est_sample(e, n->now - e->t0);
    }
    /* every ACK restarts the timer (RFC 6298 5.3), with selective ACKs
     * too: one comes every few arrivals in any order, so a hole waits until
     * they stop (UEC's per-packet timers would resend it a timeout after its
     * send, and under a fixed timer below a deep queue resend what is still
     * queued: docs/engine.md, Ultra Ethernet) */
    f->rto_last = n->now;
    if (psn > f->ack_psn) {
        f->ack_psn = psn;
        f->retries = 0;
    }
}

/* A NAK reaches the sender: it is news of progress, and its receiver kind
 * says what to resend. */
void nic_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    if (f->peer_done || f->failed)
        return;
    if (n->rx->nak_names_one) {
        f->rto_last = n->now; /* news from the receiver, not of the packets below */
    } else {
        heard_ack(n, f, psn);
        /* a go-back-N NAK ACKs every packet below its PSN (IB's sequence
         * error NAK): a window transport counts them, or, its window full
         * of packets received with no coalesced ACK due, it can resend
         * nothing and waits for good (Swift and NSCC over spray stopped
         * with half their transfers short) */
        if (n->tp->on_ack) {
            n->tp->on_ack(n, f, psn);
            if (f->active && f->next_send == UINT64_MAX && n->tp->may_send && n->tp->may_send(n, f))
                nic_repace(n, f); /* it opened the window */
        }
    }
    n->rx->on_nak(n, f, psn);
}

/* Sender side of go-back-N: resend from the PSN the receiver expects. A NAK
 * that asks for no more than an earlier one is stale (its gap is already
 * being resent). The sender knows only what reached it: not whether the
 * receiver has meanwhile completed the flow. */
static void gbn_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    uint64_t off = (uint64_t)psn * n->mtu;
    if ((f->una && off <= f->una) || off >= f->sent)
        return;
    if (n->tp->on_nak)
        n->tp->on_nak(n, f, psn);
    f->una = off ? off : 1;
    f->sent = off;
    nic_reactivate(n, f);
}

/* ooo: with loss recovery a NAK asks for that one packet (selective
 * repeat); without, the receiver takes every packet and never NAKs. */
static void ooo_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    if (!n->recover) {
        gbn_on_nak(n, f, psn);
        return;
    }
    if ((uint64_t)psn * n->mtu >= f->max_sent)
        return; /* never sent: it comes in its turn */
    f->sr_psn = psn;
    f->sr_pending = 1;
    if (n->tp->on_nak)
        n->tp->on_nak(n, f, psn);
    nic_reactivate(n, f);
}

/* The reliable connection's ACK (loss recovery): the receiver holds every
 * packet below psn; all of them: the transfer is done for the sender too. */
void nic_on_rc_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    if (f->peer_done || f->failed)
        return;
    if (n->sack_hz)
        sack_heard(n, f);
    heard_ack(n, f, psn);
    if (n->tp->on_ack)
        n->tp->on_ack(n, f, psn);
    uint64_t off = (uint64_t)psn * n->mtu;
    if (off >= f->bytes) {
        f->peer_done = 1;
        f->sr_pending = 0;
        f->rsq_n = 0;
        off = f->bytes;
    }
    if (f->sent < off)
        f->sent = off; /* no resend of what arrived */
    if (f->active && f->sent == f->bytes && !f->sr_pending)
        nic_park(n, f);
    /* (RCCC parks a flow without a window too: its credit wakes it) */
    if (f->active && f->next_send == UINT64_MAX && n->tp->may_send && n->tp->may_send(n, f))
        nic_repace(n, f); /* the ACK opened its window */
}

void rto_est_sample(struct rto_est *e, uint64_t r)
{
    if (!e->srtt) { /* the first: SRTT = R, RTTVAR = R / 2 */
        e->srtt = r ? r : 1;
        e->rttvar = r / 2;
        return;
    }
    uint64_t dev = e->srtt > r ? e->srtt - r : r - e->srtt;
    e->rttvar = (3 * e->rttvar + dev) / 4;
    e->srtt = (7 * e->srtt + r) / 8;
}

#define RTO_BACKOFF_MAX 6 /* doubled at most 6 times: 64x */

uint64_t nic_rto_of(const struct pnet *n, const struct flow *f)
{
    if (!n->rto_est)
        return n->rto_ps;
    const struct rto_est *e = &n->rto_est[f->id];
    uint64_t rto = e->srtt + 4 * e->rttvar;
    rto = rto > n->rto_ps ? rto : n->rto_ps;
    unsigned k = f->retries < RTO_BACKOFF_MAX ? f->retries : RTO_BACKOFF_MAX;
    return rto << k;
}

void nic_rto_sent(struct pnet *n, const struct flow *f, const struct packet *pk)
{
    struct rto_est *e = &n->rto_est[f->id];
    if (pkt_resend(pk)) {
        if (e->timing && pk->psn <= e->psn)
            e->timing = 0; /* its ACK could be the resend's */
    } else if (!e->timing) {
        e->timing = 1;
        e->psn = pk->psn;
        e->t0 = n->now;
    }
}

void nic_rto_arm(struct pnet *n, struct flow *f)
{
    f->rto_pending = 1;
    uint64_t rto = nic_rto_of(n, f);
    if (rto > n->rto_max_ps)
        n->rto_max_ps = rto;
    pnet_schedule(n, f->rto_last + rto, EV_RTO, f, f->rto_gen);
}

/* uec selective ACKs (transport.uec.sack). UEC's ACKs carry a 64-bit SACK
 * bitmap; the model's 24-byte packet record has no room for one, so the
 * receiver keeps, per flow, a ring of acceptance records by PSN: its lap
 * (PSN >> sack_bits, + 1: 0 is none) and when it was accepted (units of
 * 2^SACK_UNIT ps, the unit after it). An ACK arriving at the sender at t tells it
 * every acceptance up to t less the ACK path's unloaded latency (sack_hz):
 * what an ACK sent then reports, where each ACK's bitmap reaches back to
 * the cumulative PSN. Partitions: a record the sender counts was written
 * at least a window (rx_lead) before it reads it, so it is in place in
 * every event order; one written since is later than sack_hz, and so is
 * any it replaced, and counts as not heard either way. The receiver writes
 * a PSN's record only within the ring of its cumulative PSN (the lap before
 * was accepted already), and the sender trusts none whose next lap it has
 * sent; relaxed atomics for the one record both may touch in a window. */
#define SACK_UNIT 14
#define SACK_TBITS 40
#define SACK_TMAX ((UINT64_C(1) << SACK_TBITS) - 1)

static inline uint64_t sack_lap(const struct pnet *n, uint32_t psn)
{
    return (uint64_t)(psn >> n->sack_bits) % ((UINT64_C(1) << 24) - 1) + 1;
}

static inline uint64_t *sack_ring(const struct pnet *n, const struct flow *f)
{
    return &n->sack_at[(size_t)f->id * (n->sack_mask + 1)];
}

/* receiver: psn accepted now, was its cumulative PSN before */
static inline void sack_rec(struct pnet *n, const struct flow *f, uint32_t psn, uint32_t was)
{
    if (!n->sack_at || psn - was > n->sack_mask)
        return;
    uint64_t u = (n->now >> SACK_UNIT) + 1; /* past its time: heard only after it */
    u = u < SACK_TMAX ? u : SACK_TMAX; /* past ~5 h simulated: never heard */
    __atomic_store_n(&sack_ring(n, f)[psn & n->sack_mask], sack_lap(n, psn) << SACK_TBITS | u,
                     __ATOMIC_RELAXED);
}

/* sender: an ACK of f arrived now */
static inline void sack_heard(struct pnet *n, const struct flow *f)
{
    uint64_t *d = &n->sack_d[f->id];
    if (!*d) /* its ACKs' unloaded latency, at least a window */
        *d = pnet_one_way_ps(n, f->dst, f->src, f->sport, pkt_ctl_wire(n, PK_RCACK));
    uint64_t w = *d > n->rx_lead ? *d : n->rx_lead;
    if (n->now > w && n->now - w > n->sack_hz[f->id])
        n->sack_hz[f->id] = n->now - w;
}

/* A timeout with selective ACKs resends from the cumulative ACK as
 * without, at the transport's pace and window, but passes each packet an
 * ACK reported held (the window still counts those as in flight: a
 * transport's in-flight is its next PSN less its cumulative ACK). */
void nic_sack_advance(struct pnet *n, struct flow *f)
{
    uint64_t mtu = n->mtu;
    uint32_t end = (uint32_t)((f->max_sent + mtu - 1) / mtu);
    uint64_t hz = n->sack_hz[f->id] >> SACK_UNIT;
    hz = hz < SACK_TMAX ? hz : SACK_TMAX - 1;
    const uint64_t *rec = sack_ring(n, f);
    while (f->sent < f->max_sent) {
        uint32_t q = (uint32_t)(f->sent / mtu);
        /* (a PSN whose next lap was sent: its slot may be that one's) */
        if (end - q > n->sack_mask + 1)
            return;
        uint64_t v = __atomic_load_n(&rec[q & n->sack_mask], __ATOMIC_RELAXED);
        if (v >> SACK_TBITS != sack_lap(n, q) || (v & SACK_TMAX) > hz)
            return;
        uint64_t next = (uint64_t)(q + 1) * mtu;
        f->sent = next < f->max_sent ? next : f->max_sent;
        n->sack_skipped++;
    }
}

void nic_sack_forget(struct pnet *n, const struct flow *f)
{
    if (!n->sack_at)
        return;
    memset(sack_ring(n, f), 0, ((size_t)n->sack_mask + 1) * sizeof *n->sack_at);
    n->sack_hz[f->id] = 0;
}

/* The retransmission timer: one event per flow, which moves itself on while
 * packets or progress came since it was set. Expired, the queue pair resends
 * from the first PSN not known received (go-back-N as IB's local ACK timeout;
 * the ooo receiver keeps what it holds), or after retry_count timeouts in a
 * row fails the transfer, as a NIC moves the queue pair to its error state. */
void nic_on_rto(struct pnet *n, struct flow *f, uint32_t gen)
{
    if (gen != f->rto_gen)
        return; /* armed before a training step restarted the flow */
    f->rto_pending = 0;
    if (f->peer_done || f->failed)
        return;
    if (n->now < f->rto_last + nic_rto_of(n, f)) {
        nic_rto_arm(n, f);
        return;
    }
    if (f->active && f->next_send != UINT64_MAX && f->next_send > n->now) {
        /* its pacer holds the next packet (a window under one packet
         * paces one a round trip / window): the timer runs from its send,
         * not against a resend that has not left */
        f->rto_last = f->next_send;
        nic_rto_arm(n, f);
        return;
    }
    n->timeouts++;
    if (f->retries >= n->sc->transport.retry_count) {
        f->failed = 1;
        n->qp_errors++;
        if (f->active)
            nic_park(n, f);
        if (n->req) { /* the rank's other transfers take its request slots */
            req_fail(n, f);
            struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
            if (p->state == PORT_IDLE)
                port_kick(n, p);
        }
        return;
    }
    f->retries++;
    if (n->tp->on_timeout)
        n->tp->on_timeout(n, f);
    uint64_t off = (uint64_t)f->ack_psn * n->mtu;
    f->sent = off < f->bytes ? off : f->bytes;
    f->una = 0; /* NAKs from here on are news */
    f->sr_pending = 0;
    f->rsq_n = 0; /* resent from ack_psn anyway */
    if (n->sack_at)
        nic_sack_advance(n, f);
    f->rto_last = n->now;
    nic_rto_arm(n, f);
    if (f->sent < f->bytes)
        nic_reactivate(n, f);
}

void nic_recovery_shift(struct pnet *n, struct flow *f, uint64_t d, uint32_t dpsn)
{
    if (n->rto_est && n->rto_est[f->id].timing) {
        n->rto_est[f->id].t0 += d;
        n->rto_est[f->id].psn += dpsn;
    }
    f->ack_psn += dpsn;
    if (f->rto_last)
        f->rto_last += d; /* (its timer's event moves with every event) */
    /* the receiver's NAK and duplicate-ACK spacing runs on from them */
    if (f->nak_sent)
        f->last_nak += d;
    if (f->dup_acked)
        f->last_dup_ack += d;
}

/* Receiver: ask f's sender for the packet of psn (a NAK), at most once per
 * nak_interval for the same gap. */
static void nak_gap(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn, int now)
{
    if (!now && f->nak_sent && n->now - f->last_nak < n->sc->transport.nak_interval_ps)
        return;
    f->nak_sent = 1;
    f->last_nak = n->now;
    n->naks_sent++;
    n->sr_naks += rx_scheme(n->sc->transport.receiver)->keeps_out_of_order;
    nic_send_control(n, node, f, PK_NAK, psn);
}

/* Receiver: a packet it already holds came again (a resend after a timeout,
 * or after a lost ACK): the sender learns what arrived, once per
 * nak_interval. */
static void dup_ack(struct pnet *n, uint32_t node, struct flow *f)
{
    if (f->dup_acked && n->now - f->last_dup_ack < n->sc->transport.nak_interval_ps)
        return;
    f->dup_acked = 1;
    f->last_dup_ack = n->now;
    n->rc_acks++;
    nic_send_control(n, node, f, PK_RCACK, f->expect_psn);
}

/* ooo with loss recovery: the held ring's bit of psn (past expect_psn). */
static inline int held_bit(const struct pnet *n, const struct flow *f, uint32_t psn)
{
    uint32_t i = psn & (n->sack_win - 1);
    return (int)((f->held[i / 64] >> (i % 64)) & 1);
}

static inline void held_flip(const struct pnet *n, struct flow *f, uint32_t psn)
{
    uint32_t i = psn & (n->sack_win - 1);
    f->held[i / 64] ^= UINT64_C(1) << (i % 64);
}

void nic_held_shift(struct pnet *n, struct flow *f, uint32_t d, uint32_t below,
                    uint64_t *scratch)
{
    if (!f->held || !d || !f->seen_any || f->max_psn <= f->expect_psn)
        return;
    /* every bit set is a PSN in (expect_psn, expect_psn + w): the ring
     * turns by d, each bit to its PSN + d */
    uint32_t w = n->sack_win, e = f->expect_psn;
    memcpy(scratch, f->held, w / 8);
    memset(f->held, 0, w / 8);
    for (uint32_t k = 0; k < w / 64; k++)
        for (uint64_t b = scratch[k]; b; b &= b - 1) {
            uint32_t i = k * 64 + (uint32_t)__builtin_ctzll(b);
            uint32_t q = e + ((i - e) & (w - 1)); /* its PSN */
            if (q >= below)
                held_flip(n, f, q); /* a drain's last: kept as it is */
            else if (q + d < below)
                held_flip(n, f, q + d);
        }
}

/* ooo with loss recovery: place each packet once. Below expect_psn or held:
 * a duplicate; past the window: dropped (asked for again when reached). A
 * gap NAKs its first missing packet; so does the next gap once one fills. */
static int ooo_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    uint32_t psn = pk->psn;
    if (psn < f->expect_psn || (psn - f->expect_psn < n->sack_win && held_bit(n, f, psn))) {
        n->dup_rx++;
        dup_ack(n, node, f);
        return 0;
    }
    if (psn - f->expect_psn >= n->sack_win) {
        nak_gap(n, node, f, f->expect_psn, 0);
        return 0;
    }
    if (psn != f->expect_psn) {
        held_flip(n, f, psn);
        nak_gap(n, node, f, f->expect_psn, 0);
        return 1;
    }
    f->expect_psn++;
    f->nak_sent = 0;
    while (f->max_psn >= f->expect_psn && held_bit(n, f, f->expect_psn)) {
        held_flip(n, f, f->expect_psn);
        f->expect_psn++;
    }
    if (f->max_psn >= f->expect_psn) /* the next gap, known already */
        nak_gap(n, node, f, f->expect_psn, 1);
    return 1;
}

/* Receiver side: 1 = accept the data packet, 0 = discard it. go-back-N takes
 * only the PSN it expects and NAKs a gap (again after nak_interval); ooo
 * places anything (once each, with loss recovery). */
int nic_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    if (f->seen_any && pk->psn < f->max_psn)
        n->reordered++;
    if (!f->seen_any || pk->psn > f->max_psn)
        f->max_psn = pk->psn;
    f->seen_any = 1;
    return n->rx->accepts(n, node, f, pk);
}

/* Lossless (nothing to resend): move the cumulative PSN over what arrived,
 * where a window transport's ACKs read it; the ring holds what came early. */
static void place_lossless(const struct pnet *n, struct flow *f, uint32_t psn)
{
    if (!f->held || psn < f->expect_psn || psn - f->expect_psn >= n->sack_win)
        return;
    if (psn != f->expect_psn) {
        if (!held_bit(n, f, psn))
            held_flip(n, f, psn);
        return;
    }
    f->expect_psn++;
    while (held_bit(n, f, f->expect_psn)) {
        held_flip(n, f, f->expect_psn);
        f->expect_psn++;
    }
}

static int ooo_receiver_accepts(struct pnet *n, uint32_t node, struct flow *f,
                                const struct packet *pk)
{
    if (n->recover)
        return ooo_accepts(n, node, f, pk);
    place_lossless(n, f, pk->psn);
    return 1;
}

static int gbn_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    if (pk->psn == f->expect_psn) {
        f->expect_psn++;
        f->nak_sent = 0;
        /* later packets were already thrown away: ask for them now, as no
         * further arrival may come to reveal the gap */
        if (f->max_psn >= f->expect_psn)
            nak_gap(n, node, f, f->expect_psn, 1);
        return 1;
    }
    if (pk->psn > f->expect_psn) {
        nak_gap(n, node, f, f->expect_psn, 0);
        return 0;
    }
    n->dup_rx++;
    if (n->recover)
        dup_ack(n, node, f);
    else if (n->tp->on_ack)
        /* lossless, a resend after a stale NAK: a window transport may wait
         * on this very packet's ACK (its first copy arrived asking none,
         * coalesced): the receiver ACKs a duplicate, as IB's responder */
        nic_send_ack(n, node, f, f->expect_psn);
    return 0;
}

/* Ultra Ethernet's receiver: out-of-order placement as ooo, but a gap is
 * no loss (spraying reorders every flow): loss is known from a trimmed
 * packet, which it NACKs at once, and a drop (no trimming) from the
 * sender's timeout. */
static int uec_recovery_setup(struct pnet *n, struct err *e)
{
    if (ooo_recovery_setup(n, e) < 0)
        return -1;
    if (n->sc->fabric.trim) {
        n->trim = 1;
        n->trim_at = n->sc->fabric.trim_threshold ? n->sc->fabric.trim_threshold : UINT64_MAX;
    }
    /* NACKed PSNs wait here for their resend: a flow's resends go first
     * (nic.c), so a few are ever waiting; a NACK that finds the ring full
     * is left to the timeout */
    uint32_t nf = n->n_flows + n->n_train, ring = UEC_RESEND_RING;
    n->rsq = arena_calloc(&n->arena, (size_t)nf * ring + 1, sizeof *n->rsq);
    n->rsq_ev = arena_calloc(&n->arena, (size_t)nf * ring + 1, sizeof *n->rsq_ev);
    if (!n->rsq || !n->rsq_ev)
        return err_set(e, "out of memory for the uec senders' resend rings (%u flows)", nf);
    n->rsq_mask = ring - 1;
    uec_ack_setup(n);
    if (n->sc->transport.uec.sack) {
        /* records a flow: UEC_SACK_RING, fewer past 8 M in all (64 MB) */
        uint32_t k = UEC_SACK_RING, bits = 0;
        while (k > 64 && (uint64_t)k * nf > (UINT64_C(8) << 20))
            k /= 2;
        while ((1u << bits) < k)
            bits++;
        n->sack_mask = k - 1;
        n->sack_bits = (uint8_t)bits;
        n->sack_at = arena_calloc(&n->arena, (size_t)nf * k, sizeof *n->sack_at);
        n->sack_hz = arena_calloc(&n->arena, nf, sizeof *n->sack_hz);
        n->sack_d = arena_calloc(&n->arena, nf, sizeof *n->sack_d);
        if (!n->sack_at || !n->sack_hz || !n->sack_d)
            return err_set(e, "out of memory for the uec receivers' selective ACKs (%u flows)",
                           nf);
    }
    return 0;
}

/* REPS: an ACK each ack_pkts arrivals in any order, echoing the last
 * one's entropy (ACKs on in-order progress would echo mostly the late
 * packets that fill holes: those of the slow paths) */
static void reps_echo(struct pnet *n, uint32_t node, struct flow *f)
{
    if (++f->rx_arrivals >= n->uec_ack_pkts) {
        f->rx_arrivals = 0;
        nic_send_echo(n, node, f, f->expect_psn);
    }
}

static int uec_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    if (!n->recover) {
        place_lossless(n, f, pk->psn);
        /* lossless: no loss to ACK for, but REPS still needs its echoes
         * to recycle entropies */
        if (n->reps)
            reps_echo(n, node, f);
        return 1;
    }
    uint32_t psn = pk->psn;
    if (psn < f->expect_psn || (psn - f->expect_psn < n->sack_win && held_bit(n, f, psn))) {
        n->dup_rx++;
        dup_ack(n, node, f);
        return 0;
    }
    if (psn - f->expect_psn >= n->sack_win)
        return 0; /* past its window: the sender's timeout resends it */
    uint32_t was = f->expect_psn;
    if (psn != f->expect_psn) {
        held_flip(n, f, psn);
    } else {
        f->expect_psn++;
        while (f->max_psn >= f->expect_psn && held_bit(n, f, f->expect_psn)) {
            held_flip(n, f, f->expect_psn);
            f->expect_psn++;
        }
    }
    sack_rec(n, f, psn, was);
    if (n->reps) {
        reps_echo(n, node, f);
        return 1;
    }
    /* a cumulative ACK each ack_pkts packets in order: the sender's
     * progress (its retry count, its timeout's resend point); with
     * selective ACKs also each ack_pkts accepted in any order (htsim's
     * sink), so a hole does not silence them */
    int due = was / n->uec_ack_pkts != f->expect_psn / n->uec_ack_pkts;
    if (n->sack_at && ++f->rx_arrivals >= n->uec_ack_pkts)
        due = 1;
    if (due) {
        f->rx_arrivals = 0;
        n->rc_acks++;
        nic_send_control(n, node, f, PK_RCACK, f->expect_psn);
    }
    return 1;
}

/* A trimmed packet reaches its receiver: a NACK for that PSN at once (the
 * switch said what is missing), unless it holds the packet already. */
void nic_on_trimmed(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    uint32_t psn = pk->psn;
    if (!n->recover || psn < f->expect_psn ||
        (psn - f->expect_psn < n->sack_win && held_bit(n, f, psn)))
        return;
    n->trim_naks++;
    n->naks_sent++;
    n->sr_naks++;
    nic_send_control(n, node, f, PK_NAK, psn);
    if (n->rccc) /* its resend needs credit */
        rccc_on_nack(n, node, f);
}

/* Sender: the NACKed PSN joins its resend ring (pull_ring sends those
 * first, one at a time). */
static void uec_on_nak(struct pnet *n, struct flow *f, uint32_t psn)
{
    if (!n->recover || (uint64_t)psn * n->mtu >= f->max_sent)
        return;
    if (f->rsq_n > n->rsq_mask)
        return; /* full: the timeout resends it */
    size_t at = (size_t)f->id * (n->rsq_mask + 1) + ((f->rsq_head + f->rsq_n) & n->rsq_mask);
    n->rsq[at] = psn;
    n->rsq_ev[at] = f->nak_ev; /* its resend goes elsewhere (lb.c) */
    f->rsq_n++;
    f->sr_pending = 1;
    if (n->tp->on_nak)
        n->tp->on_nak(n, f, psn);
    nic_reactivate(n, f);
}

const struct receiver_ops receiver_uec = {
    .kind = RX_UEC,
    .accepts = uec_accepts,
    .on_nak = uec_on_nak,
    .recovery_setup = uec_recovery_setup,
    .nak_names_one = 1,
};

const struct receiver_ops receiver_gbn = {
    .kind = RX_GBN,
    .accepts = gbn_accepts,
    .on_nak = gbn_on_nak,
    .recovery_setup = gbn_recovery_setup,
};

const struct receiver_ops receiver_ooo = {
    .kind = RX_OOO,
    .accepts = ooo_receiver_accepts,
    .on_nak = ooo_on_nak,
    .recovery_setup = ooo_recovery_setup,
};

/* TCP's receiver: segments placed as ooo places them (what a receiver
 * holds past a hole is what SACK tells a sender), on any class, ACKed by
 * TCP's rules (tcp.c): never a NAK, a duplicate ACK for each segment out
 * of order. */
static int tcp_recovery_setup(struct pnet *n, struct err *e)
{
    if (ooo_recovery_setup(n, e) < 0)
        return -1;
    n->rto_ps = transport_rto_ps(n->sc, NULL);
    return 0;
}

static int tcp_rx_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    uint32_t psn = pk->psn, before = f->expect_psn;
    int keep = 1, inorder = 0;
    if (psn < f->expect_psn || (psn - f->expect_psn < n->sack_win && held_bit(n, f, psn))) {
        keep = 0; /* a duplicate */
        n->dup_rx++;
    } else if (psn - f->expect_psn >= n->sack_win) {
        keep = 0; /* past the window: resent after a timeout */
    } else if (psn != f->expect_psn) {
        held_flip(n, f, psn);
    } else {
        inorder = 1;
        f->expect_psn++;
        while (f->max_psn >= f->expect_psn && held_bit(n, f, f->expect_psn)) {
            held_flip(n, f, f->expect_psn);
            f->expect_psn++;
        }
    }
    /* a hole remains, or this one filled one: RFC 5681 ACKs at once */
    int gap = f->max_psn >= f->expect_psn || f->expect_psn - before > 1;
    tcp_rx_segment(n, node, f, pk, inorder, gap);
    return keep;
}

const struct receiver_ops receiver_tcp = {
    .kind = RX_TCP,
    .accepts = tcp_rx_accepts,
    .on_nak = ooo_on_nak,
    .recovery_setup = tcp_recovery_setup,
};
