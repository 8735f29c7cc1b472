/* Packet engine runtime: the state of one packet-level simulation.
 *
 * One struct pnet holds the clock, the event queue, every port, switch, NIC
 * and flow, and the packet free list; every function takes it first.
 * Event discipline: a port has at most one service event (WAKE or TX_DONE)
 * and one wire event (RX of the head of its pipe) pending, so the queue grows
 * with busy ports, not with packets in flight.
 */
#ifndef CKPT_PNET_H
#define CKPT_PNET_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/evq.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

enum ev_type {
    EV_TX_DONE,     /* port finished serialising its packet */
    EV_RX,          /* head of the port's pipe reaches the peer */
    EV_WAKE,        /* head of the egress queue is ready (switch latency) */
    EV_PAUSE,       /* PFC frame reaches this egress port; arg 1 = XOFF */
    EV_FLOW_START,  /* a writer starts its transfer */
};

struct packet {
    struct packet *next;
    uint64_t t;        /* pipe: arrival time; egress queue: ready time */
    uint32_t flow;
    uint32_t payload;
    uint32_t in_port;  /* ingress port at the current switch */
    uint32_t psn;
};

/* Intrusive FIFO of packets. */
struct pktq {
    struct packet *head, *tail;
    uint64_t bytes;    /* wire bytes */
    uint32_t len;
};

enum port_state { PORT_IDLE, PORT_WAIT, PORT_BUSY };

struct flow;

struct port {
    struct pktq q;           /* egress queue (switch ports) */
    struct pktq pipe;        /* packets on the wire toward the peer */
    struct packet *tx;       /* packet being serialised */
    uint64_t bps, delay_ps;
    uint64_t ser_rem;        /* carry of sub-ps serialisation time */
    uint64_t ser_wire, ser_q, ser_r; /* cached division for the last size */
    uint32_t node, peer;
    uint8_t state, paused, is_host, xoff_sent;
    /* ingress side: bytes in this switch that arrived through this port */
    uint64_t in_bytes, xoff, xon;
    /* counters */
    uint64_t tx_bytes, tx_pkts, max_q_bytes;
    uint64_t pause_since, paused_ps, pause_rx;
};

struct sw {
    uint64_t buffer, used, max_used;
    uint64_t latency_ps;
    uint64_t seed;           /* ECMP hash seed */
};

struct flow {
    struct flow *next, *prev; /* NIC round-robin ring of active flows */
    uint64_t bytes, sent, recv;
    uint64_t start_ps, first_tx_ps, done_ps;
    uint32_t src, dst, id, writer;
    uint16_t sport;
    uint8_t active, done;
};

struct nic {
    struct flow *rr;          /* next flow to send from */
};

struct pnet {
    uint64_t now;
    struct evq q;
    const struct scenario *sc;
    const struct topo *topo;
    struct arena arena;       /* runtime state and packet slabs */
    struct port *ports;
    struct sw *sws;           /* indexed by switch index */
    struct nic *nics;         /* indexed by node id, endpoints only */
    struct flow *flows;
    uint32_t n_flows, flows_done, n_writers;
    struct packet *free_pkts;
    uint64_t pkts_allocated;
    /* totals */
    uint64_t bytes_sent, bytes_delivered, bytes_dropped;
    uint64_t drops, pkts_delivered, pause_frames, resume_frames;
    uint64_t events, max_pending;
    uint64_t first_tx_ps, last_rx_ps;
    int time_went_back;
};

/* Packet free list (slabs come from the arena; never freed one by one). */
struct packet *pnet_pkt_alloc(struct pnet *n);
static inline void pnet_pkt_free(struct pnet *n, struct packet *p)
{
    p->next = n->free_pkts;
    n->free_pkts = p;
}

static inline void pktq_push(struct pktq *q, struct packet *p, uint64_t wire)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->bytes += wire;
    q->len++;
}

static inline struct packet *pktq_pop(struct pktq *q, uint64_t wire_of_head)
{
    struct packet *p = q->head;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    q->bytes -= wire_of_head;
    q->len--;
    return p;
}

static inline uint64_t pkt_wire(const struct packet *p)
{
    return (uint64_t)p->payload + ROCE_OVERHEAD;
}

int pnet_schedule(struct pnet *n, uint64_t t, enum ev_type type, void *obj,
                  uint32_t arg);

/* port.c: egress service and the wire */
void port_kick(struct pnet *n, struct port *p);
void port_on_tx_done(struct pnet *n, struct port *p);
void port_on_rx(struct pnet *n, struct port *p);
void port_on_wake(struct pnet *n, struct port *p);
void port_on_pause(struct pnet *n, struct port *p, int xoff);

/* mmu.c: switch buffer admission and PFC (ingress accounting) */
int mmu_setup(struct pnet *n, struct err *e);
int mmu_admit(struct pnet *n, struct sw *s, struct port *in, struct packet *pk);
void mmu_release(struct pnet *n, struct sw *s, struct packet *pk);

/* switch.c: forwarding */
void switch_receive(struct pnet *n, uint32_t node, struct port *in,
                    struct packet *pk);

/* nic.c: RoCE transport at the endpoints */
struct packet *nic_pull(struct pnet *n, uint32_t node);
void nic_receive(struct pnet *n, uint32_t node, struct packet *pk);
void nic_flow_start(struct pnet *n, struct flow *f);

#endif
