/* RoCE NIC: one reliable-connection queue pair per transfer, packetised by
 * MTU and paced at the rate its transport (congestion control) allows.
 * Active queue pairs share the port round robin, one packet at a time. The
 * receiver counts payload bytes, completes a transfer on its last byte, and
 * hands each accepted data packet its transport asks for to the transport's
 * receiver hook (DCQCN: a CNP for a marked one; transport.h). */
#include <string.h>

#include "../core/units.h"
#include "pnet.h"
#include "rccc.h"

/* A storage endpoint's back end: its node's first NIC holds the one ingest
 * buffer, drain and read side of all the node's NICs. */
static inline struct nic *backend(struct pnet *n, uint32_t node)
{
    const struct topo *t = n->topo;
    if (node < t->first_storage || node >= t->first_cleaf)
        return &n->nics[node];
    return &n->nics[workload_store_owner(t, n->sc, node)];
}

/* The NICs of the storage node whose first NIC's endpoint is owner. */
static uint32_t backend_nics(const struct pnet *n, uint32_t owner)
{
    uint32_t k = n->sc->storage.nics_per_node > 1 ? n->sc->storage.nics_per_node : 1;
    return owner + k <= n->topo->first_cleaf ? k : n->topo->first_cleaf - owner;
}

static void ring_insert(struct flow **rr, struct flow *f)
{
    if (!*rr) {
        f->next = f->prev = f;
        *rr = f;
        return;
    }
    /* insert just before rr: it is served last in the current round */
    f->next = *rr;
    f->prev = (*rr)->prev;
    f->prev->next = f;
    (*rr)->prev = f;
}

static void ring_remove(struct flow **rr, struct flow *f)
{
    if (f->next == f) {
        *rr = NULL;
    } else {
        f->prev->next = f->next;
        f->next->prev = f->prev;
        if (*rr == f)
            *rr = f->next;
    }
    f->next = f->prev = NULL;
}

static struct flow **ring_of(struct pnet *n, struct nic *nic, const struct flow *f);

/* None of the run's variants a pull tests is on (request slots, RCCC's
 * credit, the storage window, the read rate, entropies, training, work
 * after a send): its pulls run pull_ring's copy without their tests. */
static inline int pull_plain(const struct pnet *n)
{
    return !n->req && !n->rccc && !n->window && !n->read_bps && !n->entropies && !n->n_train &&
           !n->after_send;
}

/* None of the run's variants an arrival tests is on (RCCC, trimming, the
 * storage window or request slots, loss recovery's ACKs, training, a
 * transport's hook for data): nic_receive's copy without their tests. */
static inline int rx_plain_run(const struct pnet *n)
{
    return !n->rccc && !n->trim && !n->window && !n->req && !n->recover && !n->n_train &&
           !n->tp->on_data;
}

void nic_variants(struct pnet *n)
{
    n->tx_plain = (uint8_t)pull_plain(n);
    n->rx_plain = (uint8_t)rx_plain_run(n);
}

void nic_flow_start(struct pnet *n, struct flow *f)
{
    if (f->bytes == 0) {
        f->done = 1;
        f->done_ps = f->first_tx_ps = n->now;
        n->flows_done++;
        return;
    }
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    f->active = 1;
    f->rx_bytes = f->bytes; /* no packet of it is on its way yet */
    f->line_bps = p->bps;
    f->next_send = n->now;
    f->min_rate = (double)p->bps;
    if (n->tp->start)
        n->tp->start(n, f);
    struct nic *nic = &n->nics[f->src];
    struct nic *be = backend(n, f->src);
    if (n->read_bps && !nic->rr && be->read_t < n->now)
        be->read_t = n->now; /* an idle back end starts reading now */
    ring_insert(ring_of(n, nic, f), f);
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else if (p->state == PORT_WAIT)
        port_wake_at(n, p, n->now);
}

static void make_data(struct pnet *n, struct flow *f, struct packet *pk)
{
    uint64_t left = f->bytes - f->sent;
    uint32_t mtu = n->mtu;
    pk->payload = left < mtu ? (uint32_t)left : mtu;
    pk->flow = f->id;
    pk->psn = (uint32_t)(f->sent / mtu);
    pk->kind = PK_DATA;
    pk->dscp = f->dscp;
    pk->prio = f->prio;
    pk->ce = 0;
    pk->trim = 0;
    pk->echo = 0;
    pk->echo_ce = 0;
    pk->gen = f->tx_gen;
    pk->t = 0;
    pk->in_port = 0;
    pk->ev = 0;
}

/* The ring of f's class at its NIC: under logical isolation training has
 * its own (the NIC schedules traffic classes as the switches do). */
static struct flow **ring_of(struct pnet *n, struct nic *nic, const struct flow *f)
{
    return n->train_own_class && pnet_is_train(n, f->id) ? &nic->rr_train : &nic->rr;
}

enum pull_status { PULL_OK, PULL_NONE, PULL_WINDOW };

/* Loss recovery's timer, the transport's side slot and window, when the
 * run has any (n->after_send): one branch per packet for runs without. */
static void after_send(struct pnet *n, struct flow *f, const struct packet *pk)
{
    if (n->side) { /* its slot: the send time; a first send: its PSN, no hops yet */
        struct side_slot *sl = pnet_side(n, f, pk->psn);
        sl->sent_ps = n->now;
        sl->resent = (uint8_t)pkt_resend(pk);
        if (!pkt_resend(pk)) {
            sl->psn = pk->psn;
            sl->hops = 0;
        }
    }
    if (n->tp->may_send && !n->tp->may_send(n, f))
        f->next_send = UINT64_MAX; /* its window is full: an ACK opens it */
    if (n->recover) {
        if (n->rto_est)
            nic_rto_sent(n, f, pk);
        f->rto_last = n->now;
        if (!f->rto_pending)
            nic_rto_arm(n, f);
    }
}

/* Pacing and the retransmission timer after f's packet pk left; plain:
 * the run has no work after a send (pull_plain). */
static inline __attribute__((always_inline)) void sent_packet(struct pnet *n, struct flow *f,
                                                             struct packet *pk, int plain)
{
    uint64_t wire = pkt_wire(n, pk);
    const struct transport_ops *tp = n->tp;
    uint64_t rate = tp->line_rate ? f->line_bps : tp->on_send(n, f, pk, wire);
    if (f->cap_bps && f->cap_bps < rate)
        rate = f->cap_bps;
    /* at line rate the port itself paces; below it, the queue pair waits */
    f->last_send = n->now;
    f->last_wire = (uint32_t)wire;
    f->next_send = rate >= f->line_bps ? n->now : n->now + units_ser_ps(wire, rate);
    if (!plain && n->after_send)
        after_send(n, f, pk);
}

/* ooo: the packet of PSN sr_psn again (selective repeat); uec: the next
 * of its resend ring. */
static void resend_one(struct pnet *n, struct flow *f, struct packet *pk)
{
    uint32_t psn = f->sr_psn;
    int failed = LB_EV_REWIND; /* ooo: the entropy its NAK names is not known */
    f->sr_pending = 0;
    if (n->rsq) {
        psn = n->rsq[(size_t)f->id * (n->rsq_mask + 1) + f->rsq_head];
        failed = n->rsq_ev[(size_t)f->id * (n->rsq_mask + 1) + f->rsq_head];
        f->rsq_head = (uint16_t)((f->rsq_head + 1) & n->rsq_mask);
        f->rsq_n--;
        f->sr_pending = f->rsq_n != 0;
    }
    uint64_t mtu = n->mtu, off = (uint64_t)psn * mtu;
    uint64_t left = f->bytes - off;
    make_data(n, f, pk);
    pk->payload = (uint16_t)(left < mtu ? left : mtu);
    pk->psn = psn;
    pk->echo_ce = 1; /* a resend (pkt_resend) */
    if (n->entropies)
        lb_entropy_send(n, f, pk, failed);
    n->retx_bytes += pk->payload;
    n->train_retx += pnet_is_train(n, f->id) ? pk->payload : 0;
    n->retx_pkts++;
}

/* The next packet of ring *rr: the first queue pair in round-robin order
 * whose pacing allows one. PULL_NONE: none ready (*soonest: the earliest
 * that will be); PULL_WINDOW: the storage window holds it back. plain (a
 * constant): the copy for runs with no variant on (pull_plain), which the
 * compiler strips of their tests. */
static inline __attribute__((always_inline)) int
pull_ring(struct pnet *n, struct port *p, struct nic *nic, struct flow **rr, uint64_t *soonest,
          struct packet *pk, const int plain)
{
    struct flow *f = *rr;
    if (!f)
        return PULL_NONE;
    struct flow *start = f;
again:
    /* storage.protocol: a flow whose rank has no request slot free waits */
    while (f->next_send > n->now || (p->paused & (1u << f->prio)) ||
           (!plain && n->req && !req_gate(n, f, soonest))) {
        if (!(p->paused & (1u << f->prio)) && f->next_send > n->now &&
            f->next_send < *soonest)
            *soonest = f->next_send;
        f = f->next;
        if (f == start)
            return PULL_NONE; /* paused classes resume with a kick when their pause ends */
    }
    if (__builtin_expect(f->feed != 0, 0) && f->sent >= f->max_sent && !f->sr_pending &&
        store_fwd_held(n, f)) {
        /* a replica forward ahead of its primary: its arrivals wake it */
        f->fwd_wait = 1;
        f->next_send = UINT64_MAX;
        f = f->next;
        if (f == start)
            return PULL_NONE;
        goto again;
    }
    if (!plain && __builtin_expect(n->rccc != NULL, 0) && rccc_blocked(n, f)) {
        /* RCCC: out of credit; a credit packet wakes it (rccc.c) */
        f->next_send = UINT64_MAX;
        f = f->next;
        if (f == start)
            return PULL_NONE;
        goto again;
    }
    if (f->sr_pending) { /* ooo: the one packet its receiver asked for */
        resend_one(n, f, pk);
        if (!plain && n->rccc)
            rccc_spend(n, f);
        sent_packet(n, f, pk, plain);
        *rr = f->next;
        if (f->sent == f->bytes && !f->sr_pending)
            ring_remove(rr, f), f->active = 0;
        return PULL_OK;
    }
    /* storage.max_outstanding: a client may have that many requests in
     * flight; the next one waits for an acknowledgement. A packet goes while
     * the window is not full, so a request that does not end on a packet
     * boundary may overshoot it by less than a packet: holding that packet
     * back would leave the request short and never acknowledged. */
    if (!plain && n->window && !pnet_is_train(n, f->id) && f->sent >= f->max_sent &&
        nic->outstanding >= n->window) {
        n->window_stalls++;
        return PULL_WINDOW; /* an ACK kicks the port */
    }
    /* restore.read_rate: a storage node sends what its back end has read */
    uint64_t read_t = 0;
    if (!plain && n->read_bps && p->node >= n->topo->first_storage &&
        p->node < n->topo->first_cleaf && f->sent >= f->max_sent) {
        uint64_t left = f->bytes - f->sent, mtu = n->mtu;
        read_t = backend(n, p->node)->read_t + units_ser_ps(left < mtu ? left : mtu, n->read_bps);
        if (read_t > n->now) {
            if (read_t < *soonest)
                *soonest = read_t;
            return PULL_NONE;
        }
    }
    make_data(n, f, pk);
    if (!plain && n->entropies)
        lb_entropy_send(n, f, pk, f->sent < f->max_sent ? LB_EV_REWIND : LB_EV_NEW);
    if (read_t)
        backend(n, p->node)->read_t = read_t;
    if (f->max_sent == 0) {
        f->first_tx_ps = n->now;
        if (n->now < n->first_tx_ps)
            n->first_tx_ps = n->now;
    }
    int tr = !plain && pnet_is_train(n, f->id);
    if (f->sent < f->max_sent) {
        pk->echo_ce = 1; /* a resend (pkt_resend) */
        n->retx_bytes += pk->payload; /* go-back-N resends */
        n->train_retx += tr ? pk->payload : 0;
        n->retx_pkts++;
    } else {
        n->bytes_sent += pk->payload;
        n->train_sent += tr ? pk->payload : 0;
        f->max_sent = f->sent + pk->payload;
        nic->outstanding += tr ? 0 : pk->payload; /* the storage window is the checkpoint's */
        if (!plain && n->req)
            req_sent(n, f, f->sent, pk->payload);
        if (!plain && n->rccc)
            rccc_spend(n, f);
    }
    f->sent += pk->payload;
    if (!plain && __builtin_expect(n->sack_at != NULL, 0) && f->sent < f->max_sent)
        nic_sack_advance(n, f); /* a timeout's resends pass what ACKs reported held */
    sent_packet(n, f, pk, plain);
    *rr = f->next;
    if (f->sent == f->bytes) {
        f->active = 0;
        ring_remove(rr, f);
    }
    return PULL_OK;
}

int nic_pull(struct pnet *n, struct port *p, struct packet *pk)
{
    struct nic *nic = &n->nics[p->node];
    uint64_t soonest = UINT64_MAX;
    if (!nic->rr_train) { /* one class */
        int st = n->tx_plain ? pull_ring(n, p, nic, &nic->rr, &soonest, pk, 1)
                             : pull_ring(n, p, nic, &nic->rr, &soonest, pk, 0);
        if (st == PULL_NONE && soonest != UINT64_MAX)
            port_wake_at(n, p, soonest);
        return st == PULL_OK;
    }
    /* two classes: strict priority, or the one that has sent least for its
     * DWRR weight (start-time fair queueing, DWRR's long-run shares) */
    int train_first;
    if (n->sc->fabric.scheduling == SCHED_STRICT)
        train_first = n->tr->prio > n->sc->transport.data_priority;
    else
        train_first = !nic->rr || nic->vt_train <= nic->vt_data;
    struct flow **order[2] = {&nic->rr_train, &nic->rr};
    if (!train_first) {
        order[0] = &nic->rr;
        order[1] = &nic->rr_train;
    }
    int stalled = 0, got = 0;
    for (int k = 0; k < 2 && !got; k++) {
        int st = pull_ring(n, p, nic, order[k], &soonest, pk, 0);
        stalled |= st == PULL_WINDOW;
        got = st == PULL_OK;
    }
    if (got) {
        double w = (double)pkt_wire(n, pk);
        if (pnet_is_train(n, pk->flow))
            nic->vt_train += w / (double)n->dwrr_quantum[n->tr->prio];
        else
            nic->vt_data += w / (double)n->dwrr_quantum[n->sc->transport.data_priority];
        /* a class that was idle banks no credit */
        if (!nic->rr && nic->vt_data < nic->vt_train)
            nic->vt_data = nic->vt_train;
        if (!nic->rr_train && nic->vt_train < nic->vt_data)
            nic->vt_train = nic->vt_data;
    } else if (soonest != UINT64_MAX && !stalled) {
        port_wake_at(n, p, soonest);
    }
    return got;
}

/* The transport changed f's rate: move its next packet accordingly (the
 * NIC's rate limiter applies a new rate at once). */
void nic_rate_changed(struct pnet *n, struct flow *f)
{
    /* UINT64_MAX: a full window, which only an ACK opens */
    if (!f->active || f->next_send <= n->now || f->next_send == UINT64_MAX)
        return;
    nic_repace(n, f);
}

/* f's next packet from its last one at the transport's rate now. */
void nic_repace(struct pnet *n, struct flow *f)
{
    uint64_t rate = (uint64_t)n->tp->rate(n, f);
    if (f->cap_bps && f->cap_bps < rate)
        rate = f->cap_bps;
    uint64_t ns = rate >= f->line_bps ? f->last_send
                                      : f->last_send + units_ser_ps(f->last_wire, rate ? rate : 1);
    f->next_send = ns > n->now ? ns : n->now;
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else
        port_wake_at(n, p, f->next_send);
}

/* Bring a storage node's ingest level up to now. */
static void drain(struct pnet *n, struct nic *s)
{
    if (s->cache_cap) {
        store_advance(n, s);
        return;
    }
    uint64_t gone = (uint64_t)((double)(n->now - s->level_t) * 1e-12 *
                               (double)s->drain_bps / 8.0);
    s->level = gone >= s->level ? 0 : s->level - gone;
    s->level_t = n->now;
}

/* Wake up when the level will have drained to XON. */
static void arm_drain(struct pnet *n, uint32_t node, struct nic *s)
{
    uint64_t over = s->level > s->xon ? s->level - s->xon : 0;
    (void)node;
    if (!s->drain_bps)
        return; /* stuck: XOFF stays, refreshed, for good */
    uint64_t wait = s->cache_cap ? store_wait_ps(s, over) : units_ser_ps(over, s->drain_bps);
    pnet_schedule(n, n->now + wait + 1,
                  EV_DRAIN, s, ++s->drain_gen);
}

void nic_on_drain(struct pnet *n, struct nic *s, uint32_t gen)
{
    if (gen != s->drain_gen)
        return;
    uint32_t node = (uint32_t)(s - n->nics), k = backend_nics(n, node);
    unsigned paused = 0;
    for (uint32_t q = node; q < node + k; q++)
        paused |= n->ports[n->topo->nodes[q].first_port].xoff;
    if (!paused)
        return;
    drain(n, s);
    if (s->level <= s->xon) { /* resume every NIC of the node */
        for (uint32_t q = node; q < node + k; q++) {
            struct port *p = &n->ports[n->topo->nodes[q].first_port];
            for (unsigned m = p->xoff; m; m &= m - 1)
                pfc_send(n, p, (unsigned)__builtin_ctz(m), 0);
        }
    } else {
        arm_drain(n, node, s);
    }
}

/* Storage nodes with a finite ingest buffer pause the fabric (PFC) when it
 * fills: XOFF leaves headroom for what is on the wire, XON two MTUs lower. */
int nic_setup(struct pnet *n, struct err *e)
{
    const struct scenario *sc = n->sc;
    uint64_t cap = sc->storage.ingest_buffer;
    /* scenario_validate checked the window, stuck nodes and ingest buffers */
    n->window = (uint64_t)sc->storage.max_outstanding * sc->storage.request_size;
    if (req_setup(n, e) < 0)
        return -1;
    n->read_bps = n->w->restore ? sc->restore.read_bps : 0;
    /* one back end a storage node, at its first NIC (backend()) */
    uint32_t k = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
    for (uint32_t i = n->topo->first_storage; i < n->topo->first_cleaf; i += k) {
        struct nic *s = &n->nics[i];
        int stuck = (i - n->topo->first_storage) / k < sc->storage.stuck_nodes;
        s->drain_bps = stuck ? 0 : sc->storage.drain_bps;
        s->buffered = stuck || sc->storage.drain_bps;
        /* a write cache that fills: the back end slows to the media's pace */
        if (!stuck && sc->storage.cache_bytes && sc->storage.media_bps &&
            sc->storage.media_bps < sc->storage.drain_bps) {
            s->cache_cap = sc->storage.cache_bytes;
            s->media_bps = sc->storage.media_bps;
        }
        if (!s->buffered || !cap)
            continue;
        /* room for what is on the wire of each of its NICs when it pauses */
        uint64_t h = 0;
        for (uint32_t q = i; q < i + backend_nics(n, i); q++) {
            const struct port *p = &n->ports[n->topo->nodes[q].first_port];
            h += scenario_headroom(sc, p->bps, p->delay_ps);
        }
        n->nics[i].xoff = cap - h;
        n->nics[i].xon = n->nics[i].xoff > 2 * n->mtu_wire ? n->nics[i].xoff - 2 * n->mtu_wire : 0;
    }
    return 0;
}

/* A control packet (CNP, NAK or ACK) from the receiver back to f's sender, on
 * the CNP priority. */
static void send_control(struct pnet *n, uint32_t node, struct flow *f, enum pkt_kind kind,
                         uint32_t psn, int echo)
{
    struct packet cp = {0}, *c = &cp;
    c->flow = f->id;
    c->payload = CNP_PAYLOAD;
    c->kind = (uint8_t)kind;
    c->dscp = (uint8_t)n->sc->transport.cnp_dscp;
    c->prio = (uint8_t)n->sc->transport.cnp_priority;
    c->ce = 0;
    c->gen = f->gen;
    c->psn = psn;
    c->ev = f->rx_ev; /* the data packet that asked for it (uec) */
    if (echo) { /* REPS: its mark too; an unmarked entropy is recycled */
        c->echo = 1;
        c->echo_ce = f->rx_ce;
    }
    c->t = n->now;
    nic_control_out(n, node, f, c);
}

void nic_send_control(struct pnet *n, uint32_t node, struct flow *f, enum pkt_kind kind,
                      uint32_t psn)
{
    send_control(n, node, f, kind, psn, 0);
}

void nic_send_echo(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn)
{
    n->rc_acks++;
    send_control(n, node, f, PK_RCACK, psn, 1);
}

/* f's direct ACK pipe: a wire of its own (pnet.h's wire_push and
 * wire_pop), its tail written by the receiver, its head by the sender,
 * chunks from the packet pool (nothing allocated per ACK); one EV_ACK per
 * record, so the sender never pops an empty pipe. */
static int ackq_push(struct pnet *n, struct flow *f, const struct packet *c)
{
    if (!f->ackq_tc || f->ackq_ti == PKT_CHUNK) {
        struct pkt_chunk *k = pnet_chunk_alloc(n);
        if (!k)
            return -1;
        k->next = NULL;
        if (f->ackq_tc) {
            f->ackq_tc->next = k;
        } else {
            f->ackq_hc = k;
            f->ackq_hi = 0;
        }
        f->ackq_tc = k;
        f->ackq_ti = 0;
    }
    struct packet *r = &f->ackq_tc->p[f->ackq_ti++];
    *r = *c;
    pkt_tail_ahead(f->ackq_tc, r);
    return 0;
}

void nic_control_out(struct pnet *n, uint32_t node, struct flow *f, const struct packet *c)
{
    const uint64_t *l = n->ack_lat && c->kind != PK_CNP
                            ? &n->ack_lat[4 * (size_t)f->id + (c->payload == 0)] : NULL;
    if (!l || !l[0]) { /* through the fabric (or no path to go direct by) */
        port_queue(n, &n->ports[n->topo->nodes[node].first_port], c);
        return;
    }
    /* in the order sent; one sent while the last is still on its way
     * follows it by a serialisation on the slowest link, as a deterministic
     * tandem of idle queues spaces them */
    uint64_t t = n->now + l[0];
    if (f->ackq_last && t < f->ackq_last + l[2])
        t = f->ackq_last + l[2];
    f->ackq_last = t;
    if (ackq_push(n, f, c) == 0)
        pnet_schedule(n, t, EV_ACK, f, 0);
}

void nic_on_ack_direct(struct pnet *n, struct flow *f)
{
    if (f->ackq_hi == PKT_CHUNK) {
        struct pkt_chunk *k = f->ackq_hc;
        f->ackq_hc = k->next;
        f->ackq_hi = 0;
        pnet_chunk_free(n, k);
    }
    struct packet pk = f->ackq_hc->p[f->ackq_hi++];
    nic_receive(n, f->src, &pk);
}

/* Out of line: the transports' receiver hooks call it at the end, as a
 * tail call, so the hook itself stays a few instructions for the marked
 * packets that send nothing (callgrind: inlined, each call saved and
 * restored six registers). */
__attribute__((noinline)) void nic_send_cnp(struct pnet *n, uint32_t node, struct flow *f)
{
    f->last_cnp = n->now;
    f->sent_cnp = 1;
    n->cnps_sent++;
    if (n->cnp_lat && n->cnp_lat[f->id]) { /* transport.dcqcn.cnp_path direct */
        pnet_schedule(n, n->now + n->cnp_lat[f->id], EV_CNP, f, f->gen);
        return;
    }
    nic_send_control(n, node, f, PK_CNP, 0);
}

void nic_send_ack(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn)
{
    n->rc_acks++;
    nic_send_control(n, node, f, PK_RCACK, psn);
}

uint64_t nic_ingest_wait(struct pnet *n, uint32_t node, uint32_t payload)
{
    const struct nic *s = backend(n, node);
    if (!s->buffered || s->level <= payload)
        return 0;
    return s->drain_bps ? units_ser_ps(s->level - payload, s->drain_bps) : UINT64_MAX;
}

void nic_on_cnp(struct pnet *n, struct flow *f, uint32_t gen)
{
    if (gen != f->gen)
        return; /* for a training step that is over */
    f->cnps_rx++;
    n->cnps_rx++;
    n->tp->on_cnp(n, f);
}

/* f's queue pair has something to send again: back in its NIC's ring. */
/* f's queue pair has nothing to send (done, or failed): out of its ring. */
void nic_park(struct pnet *n, struct flow *f)
{
    f->active = 0;
    ring_remove(ring_of(n, &n->nics[f->src], f), f);
}

void nic_reactivate(struct pnet *n, struct flow *f)
{
    if (!f->active) {
        f->active = 1;
        ring_insert(ring_of(n, &n->nics[f->src], f), f);
        if (n->tp->resume)
            n->tp->resume(n, f);
    }
    /* a window transport parked on a full window: a rewind (NAK, timeout)
     * may have opened it, and no ACK may come to say so */
    if (f->next_send == UINT64_MAX && n->tp->may_send && n->tp->may_send(n, f))
        f->next_send = n->now;
    struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
    if (p->state == PORT_IDLE)
        port_kick(n, p);
    else if (p->state == PORT_WAIT && n->recover) /* not behind another flow's pacing */
        port_wake_at(n, p, f->next_send > n->now ? f->next_send : n->now);
}

/* A training flow is done: the step clock may end the step and schedule
 * the next one. */
static void train_flow_done(struct pnet *n, struct flow *f)
{
    f->done = 1;
    f->done_ps = n->now;
    if (train_clock_done(&n->tc, n->now) && n->tc.next_ps != UINT64_MAX) {
        /* an event of the whole fabric: its tie key must not depend on
         * which receiver finished last */
        uint32_t c = n->cur;
        pnet_set_cur(n, n->topo->n_nodes);
        pnet_schedule(n, n->tc.next_ps, EV_TRAIN_STEP, NULL, 0);
        pnet_set_cur(n, c);
    }
}

/* The current step's communication starts: every training flow again,
 * as a new generation of the same queue pair (NCCL keeps its connections). */
void nic_train_step(struct pnet *n)
{
    if (!train_clock_start(&n->tc, n->now)) {
        if (n->tc.next_ps != UINT64_MAX) /* nothing leaves a node: the next step */
            pnet_schedule(n, n->tc.next_ps, EV_TRAIN_STEP, NULL, 0);
        return;
    }
    for (uint32_t i = n->n_flows; i < n->n_flows + n->n_train; i++) {
        struct flow *f = &n->flows[i], keep = *f;
        memset(f, 0, sizeof *f);
        f->id = keep.id;
        f->src = keep.src;
        f->dst = keep.dst;
        f->leaf = keep.leaf;
        f->sport = keep.sport;
        f->writer = keep.writer;
        f->bytes = keep.bytes;
        f->prio = keep.prio;
        f->dscp = keep.dscp;
        f->gen = (uint8_t)(keep.gen + 1);
        f->tx_gen = f->gen;
        f->rto_gen = keep.rto_gen + 1; /* the last step's timer is stale */
        if (n->rto_est) /* its round trips go on; no packet timed */
            n->rto_est[i].timing = 0;
        f->held = keep.held;
        /* ACKs of the last step still on their way keep their pipe */
        f->ackq_hc = keep.ackq_hc;
        f->ackq_hi = keep.ackq_hi;
        f->ackq_tc = keep.ackq_tc;
        f->ackq_ti = keep.ackq_ti;
        f->ackq_last = keep.ackq_last;
        if (f->held)
            memset(f->held, 0, n->sack_win / 8);
        nic_sack_forget(n, f); /* its PSNs start again */
        f->cnps_rx = keep.cnps_rx;
        f->decreases = keep.decreases;
        f->start_ps = n->now;
        nic_flow_start(n, f);
    }
}

/* nic_receive's body; plain (a constant): the copy for runs with no
 * variant on (rx_plain_run), which the compiler strips of their tests. */
static inline __attribute__((always_inline)) void receive(struct pnet *n, uint32_t node,
                                                         struct flow *f, struct packet *pk,
                                                         const int plain)
{
    if (!plain && pk->gen != f->gen) {
        /* a training packet of an earlier step, still in the fabric */
        if (pk->kind == PK_DATA) {
            n->discarded_bytes += pk->payload;
            n->train_discarded += pk->payload;
        }
        return;
    }
    /* the control kinds: one test for a data packet (most arrivals) */
    if (pk->kind != PK_DATA) {
        if (pk->kind == PK_CNP) {
            nic_on_cnp(n, f, pk->gen);
            return;
        }
        if (pk->kind == PK_NAK) {
            f->nak_ev = (uint8_t)pk->ev;
            nic_on_nak(n, f, pk->psn);
            return;
        }
        if (pk->kind == PK_RCACK) {
            if (pk->ce && n->tp->on_ece) /* TCP's ECE: switches mark data only */
                n->tp->on_ece(n, f);
            if (pk->echo) /* an echo of the entropy of ack_pkts arrivals (REPS) */
                lb_entropy_ack(n, f, pk);
            nic_on_rc_ack(n, f, pk->psn);
            return;
        }
        if (pk->kind == PK_CREDIT) {
            rccc_on_credit(n, f, pk->psn);
            return;
        }
        if (pk->kind == PK_ACK) {
            struct nic *c = &n->nics[f->src];
            c->outstanding -= pk->psn < c->outstanding ? pk->psn : c->outstanding;
            if (n->req)
                req_on_ack(n, f, pk->psn);
            struct port *p = &n->ports[n->topo->nodes[f->src].first_port];
            if (p->state == PORT_IDLE)
                port_kick(n, p);
            return;
        }
    }
    f->rx_ev = (uint8_t)pk->ev; /* echoed by the ACK or NACK it asks for */
    f->rx_ce = pk->ce;
    if (!plain && __builtin_expect(n->rccc != NULL, 0)) /* the first one asks for credit */
        rccc_on_arrival(n, node, f);
    if (!plain && __builtin_expect(pk->trim, 0)) {
        nic_on_trimmed(n, node, f, pk);
        return;
    }
    struct nic *s = backend(n, node);
    uint64_t cap = n->sc->storage.ingest_buffer;
    if (s->buffered) {
        drain(n, s);
        if (cap && s->level + pk->payload > cap) {
            /* dropped before the transport sees it, so the sender resends
             * it. Lossless: the fabric ignored our pause (watchdog) or
             * headroom was short; lossy (PFC off): a plain drop. */
            if ((n->lossless >> pk->prio) & 1)
                n->drops_lossless++;
            else
                n->drops_lossy++, n->drops_lossy_data++;
            pnet_drop_bytes(n, pk);
            return;
        }
    }
    if (!nic_accepts(n, node, f, pk)) {
        n->discarded_bytes += pk->payload;
        n->train_discarded += !plain && pnet_is_train(n, pk->flow) ? pk->payload : 0;
        return;
    }
    uint64_t done_at = n->now;
    if (s->buffered) {
        s->level += pk->payload;
        /* FIFO back end: this byte is written once all before it are; a
         * stuck node never writes it */
        uint64_t wait = !s->drain_bps ? UINT64_MAX
                        : s->cache_cap ? store_wait_ps(s, s->level)
                                       : units_ser_ps(s->level, s->drain_bps);
        done_at = wait < UINT64_MAX - n->now ? n->now + wait : UINT64_MAX;
        unsigned prio = pk->prio;
        if (cap && ((n->lossless >> prio) & 1) && s->level >= s->xoff) {
            /* the node's buffer is full: pause every NIC of it */
            uint32_t o = (uint32_t)(s - n->nics), sent = 0;
            for (uint32_t q = o; q < o + backend_nics(n, o); q++) {
                struct port *p = &n->ports[n->topo->nodes[q].first_port];
                if (!(p->xoff & (1u << prio))) {
                    pfc_send(n, p, prio, 1);
                    sent++;
                }
            }
            if (sent)
                arm_drain(n, o, s);
        }
    }
    f->recv += pk->payload;
    if (__builtin_expect(f->fwd_n != 0, 0))
        store_fwd_arrived(n, f);
    n->bytes_delivered += pk->payload;
    n->train_delivered += !plain && pnet_is_train(n, pk->flow) ? pk->payload : 0;
    n->pkts_delivered++;
    /* a request is acknowledged once all of it is in (bytes in the PSN field) */
    if (!plain && (n->window || n->req) && !pnet_is_train(n, pk->flow)) {
        uint64_t req = n->sc->storage.request_size;
        uint64_t upto = f->recv == f->rx_bytes ? f->rx_bytes : f->recv / req * req;
        if (upto > f->acked) {
            n->acks++;
            nic_send_control(n, node, f, PK_ACK, (uint32_t)(upto - f->acked));
            f->acked = upto;
        }
    }
    if (!plain && f->recv == f->rx_bytes && n->recover) { /* the last packet asks for an ACK */
        n->rc_acks++;
        nic_send_control(n, node, f, PK_RCACK, f->expect_psn);
    }
    if (!plain && f->recv == f->rx_bytes && pnet_is_train(n, pk->flow)) {
        train_flow_done(n, f);
    } else if (f->recv == f->rx_bytes && done_at != UINT64_MAX) {
        f->done = 1;
        f->done_ps = done_at;
        n->flows_done++;
        if (done_at > n->last_rx_ps)
            n->last_rx_ps = done_at;
        if (n->flows_done == n->n_flows)
            train_clock_ckpt_end(&n->tc, n->last_rx_ps);
    }
    const struct transport_ops *tp = n->tp;
    if (!plain && tp->on_data && (pk->ce || !tp->data_ce_only))
        tp->on_data(n, node, f, pk);
}

void nic_receive(struct pnet *n, uint32_t node, struct packet *pk)
{
    struct flow *f = &n->flows[pk->flow];
    if (n->rx_plain)
        receive(n, node, f, pk, 1);
    else
        receive(n, node, f, pk, 0);
}
