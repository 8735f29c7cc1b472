/* One egress port and its wire: per-priority queues served by strict
 * priority or DWRR, exact serialisation, a pipe of packets in propagation.
 * Host ports send their queued control packets (CNPs) first, then pull data
 * from the NIC's queue pairs. */
#include <string.h>

#include "pnet.h"

/* Serialisation time, carrying the sub-picosecond remainder so long trains
 * of packets drift by less than 1 ps in total. The quotient and remainder of
 * the last wire size are cached: trains of MTU packets need no division.
 * Forced inline: start_tx's copies in the window loop made it a call. */
static inline __attribute__((always_inline)) uint64_t ser_time(struct port *p, uint64_t wire)
{
    if (wire != p->ser_wire) {
        uint64_t num = wire * 8 * UINT64_C(1000000000000);
        p->ser_wire = (uint32_t)wire;
        p->ser_q = num / p->bps;
        p->ser_r = num % p->bps;
    }
    uint64_t rem = p->ser_rem + p->ser_r; /* < 2 * bps */
    uint64_t carry = rem >= p->bps;
    p->ser_rem = rem - (carry ? p->bps : 0);
    return p->ser_q + carry;
}

/* Log-linear buckets of 256 B units, 16 per power of two: with s the
 * shift that leaves v's top 5 bits, (v >> s) is 16 + its next 4 bits, so
 * the bucket is (v >> s) + 16 s. Below 32 units s is 0 (v | 16 keeps the
 * count of leading zeros at 59) and the bucket is v. No branch: two
 * notes a switch hop (enqueue and dequeue). */
static inline unsigned bucket_of(uint64_t bytes)
{
    uint64_t v = bytes >> 8;
    unsigned s = 59u - (unsigned)__builtin_clzll(v | 16);
    unsigned b = (unsigned)(v >> s) + 16 * s;
    return b < QHIST_BUCKETS ? b : QHIST_BUCKETS - 1;
}

unsigned qhist_bucket(uint64_t bytes)
{
    return bucket_of(bytes);
}

uint64_t qhist_bucket_floor(unsigned b)
{
    if (b < 16)
        return (uint64_t)b << 8;
    unsigned e = b / 16 + 3;
    return ((uint64_t)(16 + b % 16) << (e - 4)) << 8;
}

static inline void qhist_note(struct pnet *n, struct port *p)
{
    uint64_t d = n->now - p->q_changed_t;
    /* none since the last change (a packet into an idle port leaves at once) */
    if (!d)
        return;
    n->qhist[(size_t)p->seg * QHIST_BUCKETS + bucket_of(p->q_bytes)] += d;
    p->q_changed_t = n->now;
}

void port_qhist_flush(struct pnet *n, struct port *p)
{
    if (p->tx_pkts)
        qhist_note(n, p);
}

/* SIDE_INT: the switch's egress telemetry, appended to pk's slot (a slot
 * that a newer packet of the flow took keeps that one's). A resend appends
 * none: its first copy may be appending to the slot still. */
static void side_int(struct pnet *n, const struct port *p, const struct packet *pk)
{
    struct side_slot *sl = pnet_side(n, &n->flows[pk->flow], pk->psn);
    if (sl->psn != pk->psn || sl->hops >= SIDE_HOPS)
        return;
    struct side_hop *h = &sl->hop[sl->hops++];
    h->t = n->now;
    h->tx_bytes = p->tx_bytes;
    h->q_bytes = p->q_bytes;
    h->port = (uint32_t)(p - n->ports);
}

/* A packet p starts to send, where the run watches them (n->tx_watch). */
static __attribute__((noinline)) void tx_watch(struct pnet *n, const struct port *p)
{
    if (n->cap)
        capture_packet(n, p, &p->tx);
    if (n->side && (n->tp->side & SIDE_INT) && !p->is_host && p->tx.kind == PK_DATA &&
        !pkt_resend(&p->tx))
        side_int(n, p, &p->tx);
}

/* Serialise p->tx, filled in by the caller, of wire bytes. Forced inline
 * (as dequeue below): port_kick's two calls were a call each a hop. */
static inline __attribute__((always_inline)) void start_tx(struct pnet *n, struct port *p,
                                                           uint64_t wire)
{
    if (__builtin_expect(n->tx_watch, 0))
        tx_watch(n, p);
    if (!p->tx_pkts && !p->first_tx_t)
        p->first_tx_t = n->now;
    p->state = PORT_BUSY;
    pnet_schedule_part(n, n->now + ser_time(p, wire), EV_TX_DONE,
                       n->part[p->node], p, 0);
}

void port_wake_at(struct pnet *n, struct port *p, uint64_t t)
{
    if (p->state == PORT_BUSY || (p->state == PORT_WAIT && p->wake_t <= t))
        return;
    p->state = PORT_WAIT;
    p->wake_t = t;
    pnet_schedule(n, t, EV_WAKE, p, ++p->wake_gen);
}

/* Move the head of queue prio into p->tx, with its accounting; returns
 * its wire bytes (hw: the head's, when the queue's choice counted them;
 * else 0). */
static inline __attribute__((always_inline)) uint64_t dequeue(struct pnet *n, struct port *p,
                                                              unsigned prio, uint64_t hw)
{
    struct pktq *q = &p->q[prio];
    qhist_note(n, p);
    uint64_t wire = hw ? hw : pkt_wire(n, pktq_head(q));
    struct packet *pk = &p->tx;
    pktq_pop(n, q, wire, pk);
    /* the queue's next line: written when its packets arrived, long out of
     * cache by the time they reach the head */
    if (q->len > 3) {
        unsigned i = q->hi + 3u;
        ckpt_prefetch(i < PKT_CHUNK ? &q->hc->p[i] : &q->hc->next->p[i - PKT_CHUNK]);
    }
    if (pnet_train_data(n, pk)) {
        victim_note(n, p);
        p->train_q--;
    }
    p->q_bytes -= wire;
    if (!q->len)
        p->qmask &= (uint8_t)~(1u << prio);
    return wire;
}

/* DWRR when queue i is the only one holding packets: the outcome of the
 * round-robin walk below without walking it. The walk zeroes the credit of
 * every empty queue it passes: those from dwrr_next up to i, and, when i
 * needs a new quantum (one quantum >= one packet), all the others too. */
static inline __attribute__((always_inline)) int dwrr_alone(struct pnet *n, struct port *p,
                                                            unsigned i, uint64_t *hw)
{
    int64_t w = (int64_t)pkt_wire(n, pktq_head(&p->q[i]));
    *hw = (uint64_t)w; /* the dequeue's, after it */
    unsigned from = p->dwrr_next;
    if (p->deficit[i] < w) {
        int32_t d = p->deficit[i] + n->dwrr_quantum[i];
        memset(p->deficit, 0, sizeof p->deficit);
        p->deficit[i] = d;
    } else {
        for (unsigned j = from; j != i; j = (j + 1) % NPRIO)
            p->deficit[j] = 0;
    }
    p->deficit[i] -= (int32_t)w;
    p->dwrr_next = (uint8_t)i;
    return (int)i;
}

/* DWRR's round-robin walk over the priorities from dwrr_next. */
static inline int dwrr_walk(struct pnet *n, struct port *p, unsigned ready)
{
    for (int tries = 0; tries < 2 * NPRIO + 1; tries++) {
        unsigned i = p->dwrr_next;
        if (ready & (1u << i)) {
            int64_t w = (int64_t)pkt_wire(n, pktq_head(&p->q[i]));
            if (p->deficit[i] >= w) {
                p->deficit[i] -= (int32_t)w;
                return (int)i;
            }
            p->deficit[i] += n->dwrr_quantum[i];
        } else if (!(p->qmask & (1u << i))) {
            p->deficit[i] = 0; /* an empty queue keeps no credit */
        }
        p->dwrr_next = (uint8_t)((i + 1) % NPRIO);
    }
    return 31 - __builtin_clz(ready);
}

/* Choose the queue to serve among those whose head is ready (bit set in
 * ready): the CNP priority first, then strict priority or DWRR. *hw: the
 * chosen head's wire bytes where the choice counted them, else left. */
static inline __attribute__((always_inline)) int pick_queue(struct pnet *n, struct port *p,
                                                            unsigned ready, uint64_t *hw)
{
    unsigned cnp = n->cnp_prio;
    if (ready & (1u << cnp))
        return (int)cnp;
    /* one queue holding packets: strict priority's choice too (strict
     * reads no DWRR credit, so dwrr_alone's bookkeeping is harmless) */
    if (p->qmask == ready && !(ready & (ready - 1)))
        return dwrr_alone(n, p, (unsigned)__builtin_ctz(ready), hw);
    if (n->strict)
        return 31 - __builtin_clz(ready); /* highest priority */
    return dwrr_walk(n, p, ready);
}

int port_pick_queue(struct pnet *n, struct port *p, unsigned ready)
{
    uint64_t hw;
    return pick_queue(n, p, ready, &hw);
}

int port_dwrr_walk(struct pnet *n, struct port *p, unsigned ready)
{
    return dwrr_walk(n, p, ready);
}

/* port_kick's body, forced inline where a hop calls it every packet (a
 * transmit-done); the other callers take the call. */
static inline __attribute__((always_inline)) void kick(struct pnet *n, struct port *p)
{
    if (p->state != PORT_IDLE)
        return;
    unsigned eligible = (unsigned)(p->qmask & ~p->paused);
    if (p->is_host) {
        /* control packets (CNPs) first, then data from the queue pairs */
        if (eligible) {
            unsigned prio = 31u - (unsigned)__builtin_clz(eligible);
            start_tx(n, p, dequeue(n, p, prio, 0));
            return;
        }
        if (nic_pull(n, p, &p->tx))
            start_tx(n, p, pkt_wire(n, &p->tx));
        return;
    }
    if (!eligible)
        return;
    unsigned ready = 0;
    uint64_t first = UINT64_MAX;
    for (unsigned m = eligible; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        uint64_t t = pktq_head(&p->q[i])->t;
        if (t <= n->now)
            ready |= 1u << i;
        else if (t < first)
            first = t;
    }
    if (!ready) {
        port_wake_at(n, p, first);
        return;
    }
    uint64_t hw = 0;
    unsigned i = (unsigned)pick_queue(n, p, ready, &hw);
    uint64_t wire = dequeue(n, p, i, hw);
    struct sw *s = pnet_sw(n, p->node);
    /* the packet's priority is its queue's */
    mmu_release_prio(n, s, &p->tx, wire, i);
    ecn_mark_q(n, s, p, &p->q[i], &p->tx);
    start_tx(n, p, wire);
}

void port_kick(struct pnet *n, struct port *p)
{
    kick(n, p);
}

void port_on_wake(struct pnet *n, struct port *p, uint32_t gen)
{
    if (gen != p->wake_gen || p->state != PORT_WAIT)
        return; /* superseded by an earlier wake-up */
    p->state = PORT_IDLE;
    port_kick(n, p);
}

/* The two events of a hop, forced inline into the window loop (sched.c),
 * which runs most of them: no call and no saving of registers an event.
 * Other callers take the calls below. */
__attribute__((always_inline)) inline void port_tx_done_inl(struct pnet *n, struct port *p)
{
    struct packet *pk = &p->tx;
    /* ser_time's cache of the size it last serialised: this packet's (only
     * start_tx serialises, and nothing changes the packet's size meanwhile) */
    uint64_t wire = p->ser_wire;
    uint64_t prev_at = p->last_tx_t + p->delay_ps; /* the wire's last packet's arrival */
    p->state = PORT_IDLE;
    p->tx_bytes += wire;
    if (pnet_train_data(n, pk))
        p->train_tx_bytes += wire; /* training's share, per link */
    n->seg_tx[p->seg] += wire; /* telemetry's throughput without a port scan */
    p->tx_pkts++;
    p->last_tx_t = n->now;
    if (n->lb_adaptive)
        lb_note_tx(n, p, wire);
    p->paused_at_last_tx = p->paused_ps;
    for (unsigned m = p->paused; m; m &= m - 1)
        p->paused_at_last_tx += n->now - p->pause_since[__builtin_ctz(m)];
    pk->t = n->now + p->delay_ps;
    pk->in_port = 0; /* on the wire: the gap to the next one's key, 0 = none */
    struct packet *prev = p->wire_tc ? &p->wire_tc->p[p->wire_ti - 1] : NULL;
    if (wire_push(n, p, pk) < 0)
        return; /* out of memory: the run stops (n->oom) */
    /* its arrival's tie key taken now, as if scheduled now, whoever
     * schedules it: the order of events stays that of one event a packet */
    uint64_t key = pnet_next_tie(n);
    uint64_t gap = (key - ((uint64_t)p->wire_key_hi << 16 | p->wire_key_lo)) &
                   ((UINT64_C(1) << 48) - 1);
    p->wire_key_lo = (uint16_t)key;
    p->wire_key_hi = (uint32_t)(key >> 16);
    /* The far end schedules it as it pops the previous packet when that
     * one arrives rx_lead or more after now: simulated times alone decide,
     * so two threads do as one. The far end's window then starts after
     * now (a window is at most rx_lead long): this packet is on the wire
     * when it looks, and the previous one not yet popped while the gap is
     * written into it. */
    if (prev && n->rx_lead && prev_at >= n->now + n->rx_lead && gap < (1u << 16))
        prev->in_port = (uint32_t)gap & 0xffff;
    else
        pnet_schedule_seq(n, pk->t, key, EV_RX, p->peer_part, &n->ports[p->peer], 0);
    kick(n, p);
}

void port_on_tx_done(struct pnet *n, struct port *p)
{
    port_tx_done_inl(n, p);
}

__attribute__((always_inline)) inline void port_rx_inl(struct pnet *n, struct port *in,
                                                       uint64_t key)
{
    struct packet pk;
    wire_arrive(n, in, key, &pk);
    if (is_switch_node(n, in->rx_node))
        switch_receive(n, in->rx_node, in, &pk);
    else
        nic_receive(n, in->rx_node, &pk);
}

void port_on_rx(struct pnet *n, struct port *in, uint64_t key)
{
    port_rx_inl(n, in, key);
}

/* hop: a switch's arrival (the window loop's), which serves an idle
 * port with port_kick's body inlined; other callers take the call. */
static inline __attribute__((always_inline)) void queue(struct pnet *n, struct port *p,
                                                        const struct packet *pk, int hop,
                                                        uint64_t wire, unsigned prio)
{
    qhist_note(n, p);
    if (pktq_push(n, &p->q[prio], pk, wire) < 0)
        return; /* out of memory: the run stops (n->oom) */
    if (pnet_train_data(n, pk)) {
        victim_note(n, p);
        p->train_q++;
    }
    p->qmask |= (uint8_t)(1u << prio);
    p->q_bytes += wire;
    if (p->q_bytes > p->max_q_bytes)
        p->max_q_bytes = p->q_bytes;
    if (p->state == PORT_IDLE) {
        if (hop)
            kick(n, p);
        else
            port_kick(n, p);
    } else if (p->state == PORT_WAIT && pk->t < p->wake_t) {
        port_wake_at(n, p, pk->t < n->now ? n->now : pk->t);
    }
}

/* Inlined into their callers (link-time optimisation): a call a switch
 * hop less. */
__attribute__((always_inline)) inline void port_queue(struct pnet *n, struct port *p,
                                                      const struct packet *pk)
{
    queue(n, p, pk, 0, pkt_wire(n, pk), pk->prio);
}

__attribute__((always_inline)) inline void port_queue_hop(struct pnet *n, struct port *p,
                                                          const struct packet *pk, uint64_t wire,
                                                          unsigned prio)
{
    queue(n, p, pk, 1, wire, prio);
}
