/* Packet engine runtime: the state of one packet-level simulation.
 *
 * One struct pnet holds the clock, the event queue, every port, switch, NIC
 * and flow, and the packet free list; every function takes it first.
 * Event discipline: a port has at most one live service event (WAKE or
 * TX_DONE) pending, and a wire the arrival of its head and of the packets
 * whose sender scheduled theirs (RX: the sender, when the wire's previous
 * packet arrives within rx_lead of the send; else the far end, as it pops
 * that one: port.c), so the queue holds the busy ports plus about one
 * arrival a busy link. Packets queued at a port have no event. PFC timers and flow
 * starts add a few more.
 */
#ifndef CKPT_PNET_H
#define CKPT_PNET_H

#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/evq.h"
#include "../core/rng.h"
#include "../core/wire.h" /* NPRIO, struct wire_fmt */
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/train.h"
#include "../work/work.h"
#include "transport.h"

struct pnet;

#define TEAM_MAX 8 /* sim.threads at most */
#define CNP_PAYLOAD 16 /* CNP: BTH + 16 B reserved; 98 B on the wire */

enum ev_type {
    EV_TX_DONE,      /* port finished serialising its packet */
    EV_RX,           /* the head of the wire into this port arrives */
    EV_WAKE,         /* a port may have work now; arg = wake generation */
    EV_PAUSE,        /* PFC frame reaches this egress port; arg = prio | quanta << 8 */
    EV_PAUSE_END,    /* pause time of (port, prio) may have run out; arg = prio */
    EV_PFC_REFRESH,  /* re-send XOFF for (ingress port, prio); arg = prio | gen << 8 */
    EV_WATCHDOG,     /* PFC watchdog check of (port, prio); arg = prio | gen << 8 */
    EV_FLOW_START,   /* a writer starts a transfer */
    EV_SAMPLE,       /* telemetry sample */
    EV_CC_TIMER,     /* congestion-control timer of a flow; arg = generation */
    EV_DRAIN,        /* a storage node's ingest buffer reaches XON; arg = generation */
    EV_TRAIN_STEP,   /* a training step's communication starts (train.c) */
    EV_CNP,          /* a CNP sent direct reaches its flow's sender; arg = generation */
    EV_RTO,          /* retransmission timer of a flow's sender; arg = generation */
    EV_ACK,          /* the head of a flow's direct ACK pipe reaches its sender */
    EV_CREDIT,       /* RCCC: a receiver's credit pacer may grant (obj: its NIC port) */
};
#define EV_KINDS_N (EV_CREDIT + 1)
#ifdef CKPT_EV_KINDS
/* The counting build's slots after the kinds: a packet arriving at a switch
 * finds its egress idle with nothing queued (the one case where its arrival
 * and its departure could be one event), idle with its queue paused (PFC),
 * waiting out the switch latency, or busy (switch.c). */
enum { EVC_EGRESS_IDLE = EV_KINDS_N, EVC_EGRESS_PAUSED, EVC_EGRESS_WAIT, EVC_EGRESS_BUSY, EVC_N };
#endif
/* The kinds whose object is a port come first. */
#define EV_PORT_KINDS_END EV_FLOW_START
_Static_assert(EV_WATCHDOG + 1 == EV_PORT_KINDS_END && EV_CC_TIMER > EV_PORT_KINDS_END &&
                   EV_DRAIN > EV_PORT_KINDS_END && EV_SAMPLE > EV_PORT_KINDS_END &&
                   EV_TRAIN_STEP > EV_PORT_KINDS_END && EV_CNP > EV_PORT_KINDS_END &&
                   EV_RTO > EV_PORT_KINDS_END && EV_ACK > EV_PORT_KINDS_END,
               "port events first: sched.c's prefetch and pnet_part_of rely on it");

/* PK_ACK: storage.max_outstanding's request acknowledgement (bytes in the
 * PSN field); PK_RCACK: the reliable connection's cumulative ACK (packets
 * received in order in the PSN field), sent only where loss recovery runs. */
enum pkt_kind { PK_DATA, PK_CNP, PK_NAK, PK_ACK, PK_RCACK,
                PK_CREDIT /* RCCC: the receiver's cumulative credit (packets) in the PSN field */ };

/* A packet record, 24 bytes: it lives by value in the rings of the ports
 * (egress queues, the wire) and in the port serialising it. The packets in
 * flight of a large burst are most of the engine's memory (a million in
 * the 1024-writer benchmark), so fields are packed: payload <= the 9216 B
 * MTU limit, ingress port < 2^24 (checked at set-up). */
#define PKT_MAX_PORTS (UINT32_C(1) << 24)
#define PKT_PORTS_MSG                                                                    \
    "the packet engine holds at most %u ports, the fabric has %u: use engine: fluid"
struct packet {
    uint64_t t;        /* pipe: arrival time; egress queue: ready time */
    uint32_t flow;
    uint32_t psn;
    /* ingress port at the current switch, from its first (a switch has
     * fewer than 2^16 ports: setup.c) */
    uint32_t in_port : 16;
    /* data: its entropy (lb.c pkt_entropy); ACK and NACK: the one of the
     * data packet that asked for it, echoed (REPS) */
    uint32_t ev : 8;
    uint32_t gen : 8;  /* its flow's generation (training steps reuse flows) */
    /* payload <= the 9216 B MTU limit: 14 bits. An ACK under REPS:
     * echo, it echoes the arrival that asked for it, that one's entropy in
     * ev and its CE mark in echo_ce (the PDS ACK's M flag, UEC 1.0). Data:
     * echo, this copy asks for its ACK (NSCC's AR, Swift's request; beside
     * its first send's, in the side slot); echo_ce, a resend (pkt_resend):
     * what each copy carries travels with it, never through the slot
     * another copy of its PSN may read (docs/engine.md, Event order) */
    uint16_t payload : 14, echo : 1, echo_ce : 1;
    uint8_t kind : 3, ce : 1, prio : 3;
    uint8_t trim : 1; /* data: cut to its headers by a switch (payload 0) */
    uint8_t dscp;
};
_Static_assert(sizeof(struct packet) == 24, "a packet record is 24 bytes");

/* FIFO of packet records in chunks of PKT_CHUNK: a queue's packets sit side
 * by side in memory (no pointer chase per packet), and chunks come from a
 * free list that slabs refill, so memory follows the packets in flight and
 * nothing is allocated per packet. */
#define PKT_CHUNK 21
struct pkt_chunk {
    struct packet p[PKT_CHUNK];
    struct pkt_chunk *next;
};
_Static_assert(sizeof(struct pkt_chunk) == 512, "a chunk is 8 whole cache lines");

struct pktq {
    struct pkt_chunk *hc, *tc; /* head and tail chunks, NULL when empty */
    uint16_t hi, ti;           /* next to pop in hc, next free in tc */
    uint32_t len;
    uint64_t bytes;            /* wire bytes */
};

enum port_state { PORT_IDLE, PORT_WAIT, PORT_BUSY };

/* Ingress MMU accounting of one (port, priority group): one cache line
 * holds all three. */
struct ing_pg {
    uint64_t reserve, shared, hdrm;
};

/* Laid out hot first: what every packet through the port touches sits in
 * the first cache lines (ports are 64-byte aligned, setup.c); counters
 * read only at the end of the run and PFC timers come last. */
struct port {
    /* every packet: state, serialisation, queue totals */
    _Alignas(64) uint8_t state;
    uint8_t is_host, seg;
    uint8_t qmask;           /* priorities with packets queued */
    uint8_t paused;          /* priorities paused by the peer (PFC) */
    uint8_t storm;           /* priorities in PFC-watchdog drop mode */
    uint8_t dwrr_next;
    /* priorities with a pause-expiry event pending: beside paused, so a
     * PFC frame at a host reads this line and pause_since[] only */
    uint8_t end_armed;
    uint32_t node, peer;
    uint64_t bps, delay_ps;
    uint64_t ser_rem;        /* carry of sub-ps serialisation time */
    uint32_t ser_wire;       /* cached division for the last size */
    uint32_t peer_part;      /* the peer's partition (its wire arrivals) */
    uint64_t ser_q, ser_r;
    uint64_t q_bytes;        /* all priorities */
    uint64_t q_changed_t;    /* for the time-weighted occupancy histogram */
    uint64_t max_q_bytes;
    uint64_t tx_bytes, tx_pkts;
    uint64_t last_tx_t;      /* last serialisation end */
    uint64_t paused_at_last_tx; /* paused_ps as of last_tx_t */
    uint64_t paused_ps;
    /* third line: the packet being serialised, the tail of the outgoing
     * wire (the sender's end: wire_push), ECN thresholds */
    struct packet tx;        /* packet being serialised (state PORT_BUSY) */
    struct pkt_chunk *wire_tc;
    uint16_t wire_ti;
    /* the tie key of the last packet pushed, its low 48 bits (port.c:
     * the next packet's arrival key is it plus the gap the record keeps) */
    uint16_t wire_key_lo;
    uint32_t wire_key_hi;
    uint64_t ecn_marked;     /* marked as they left (often: queues past kmin) */
    uint64_t kmin, kmax;     /* ECN thresholds */
    /* fourth line, the ingress side: what a wire arrival into this port
     * reads (the head of the incoming wire, wire_pop; its node; the MMU's
     * limits and peaks), apart from its PG's counters. A port of a switch
     * that only receives (a leaf's host port in an incast) touches this
     * line and ing[pg] alone. */
    struct pkt_chunk *wire_hc;
    uint16_t wire_hi;
    uint8_t xoff;            /* priorities we paused upstream */
    /* ingress: XOFFs whose refreshes are implicit (a train every half
     * pause from xoff_since, counted when it stops; pfc.c) */
    uint8_t xoff_implicit;
    uint32_t rx_node;        /* node, for the arrivals */
    uint64_t headroom;       /* per lossless priority group */
    uint64_t max_shared;
    uint64_t max_hdrm;
    /* the PFC frames this ingress sends (pfc_send): an XON comes from
     * mmu_release, which has read this line (xoff) */
    uint64_t implicit_rx;    /* implicit refreshes of ours the peer received
                              * (pfc.c; counted here, added to its pause_rx) */
    uint64_t resume_tx, pause_tx;
    /* DWRR credit (a quantum is at most 1000 MTUs of 9 KB: 32 bits) */
    int32_t deficit[NPRIO];
    /* per priority: egress queues (switch ports; CNPs at hosts) and
     * ingress accounting */
    struct pktq q[NPRIO];
    struct ing_pg ing[NPRIO];
    /* egress side PFC state, per priority (the watchdog's, pause expiry) */
    uint64_t pause_end[NPRIO], last_pause_rx[NPRIO];
    uint32_t wd_gen[NPRIO];
    uint32_t refresh_gen[NPRIO]; /* explicit refreshes only (pfc.c) */
    uint64_t drops;
    double load;             /* adaptive: EWMA of bytes sent (bytes) */
    uint64_t load_t;
    /* The PFC frames of a pause and its end, each side on one line for
     * priorities 1-7 (0, best effort by convention, is seldom lossless):
     * an XOFF received writes pause_since[prio] and pause_rx, its XON
     * reads pause_since[prio]; an XON sent reads xoff_since[prio] (with
     * line 0 and the ingress line), and the XOFF after it writes it and
     * xoff_shared_sum (mmu_admit). */
    uint64_t pause_since[NPRIO];
    uint64_t pause_rx;
    /* seldom: first packet, wake-ups */
    uint64_t first_tx_t;     /* first serialisation start */
    uint32_t wake_gen;
    uint64_t wake_t;
    /* training traffic (train.c): its data packets queued here, its wire
     * bytes sent, and the time its packets sat behind a PFC pause of
     * their class (victim_note: one line) */
    uint32_t train_q;
    uint64_t train_tx_bytes, victim_ps, victim_t;
    uint64_t xoff_since[NPRIO]; /* an implicit XOFF's start (see above) */
    uint64_t xoff_shared_sum; /* shared use of the PG at each XOFF, summed */
};
/* what a packet through a switch port touches: lines 0-2 and its queue
 * going out, line 3 and its PG's counters coming in */
_Static_assert(offsetof(struct port, tx) == 128 && offsetof(struct port, kmax) < 192 &&
                   offsetof(struct port, end_armed) < 64 &&
                   offsetof(struct port, wire_hc) == 192 &&
                   offsetof(struct port, max_hdrm) + 8 <= 256 &&
                   offsetof(struct port, xoff_implicit) / 64 == 3 &&
                   offsetof(struct port, implicit_rx) / 64 == 3 &&
                   offsetof(struct port, pause_tx) + 8 <= 256 &&
                   offsetof(struct port, xoff_since[1]) % 64 == 0 &&
                   offsetof(struct port, xoff_shared_sum) / 64 ==
                       offsetof(struct port, xoff_since[1]) / 64 &&
                   offsetof(struct port, pause_since[1]) % 64 == 0 &&
                   offsetof(struct port, pause_rx) / 64 ==
                       offsetof(struct port, pause_since[1]) / 64 &&
                   offsetof(struct port, train_q) / 64 == offsetof(struct port, victim_t) / 64 &&
                   sizeof(struct port) == 1152 &&
                   offsetof(struct port, q) % 32 == 0 && offsetof(struct port, ing) % 64 == 32,
               "struct port's hot lines moved");

struct flowlet {
    uint64_t last;           /* last packet seen */
    uint32_t port, tag;      /* chosen egress; flow id + 1 that set it */
    uint32_t epoch;          /* flowlets started in this entry */
};

struct sw { /* cache-line aligned: neighbours may run on different threads */
    _Alignas(64) struct flowlet *flowlets; /* flowlet table (flowlet/adaptive schemes) */
    uint64_t buffer, used, max_used;
    /* shared pools (fabric.mmu.pools; pnet.pool_of maps a priority to
     * its pool): size less reserves and headroom, bytes in use, peak */
    uint64_t pool[NPRIO], shared_used[NPRIO], max_shared[NPRIO];
    uint64_t latency_ps;
    uint64_t seed;           /* ECMP hash seed */
    uint32_t first_port;     /* its ports from here (packets' in_port) */
    /* the switch's own random streams (RED marks; load-balancing ties and
     * spray), so no draw depends on what other switches did meanwhile */
    struct rng ecn_rng, lb_rng;
};

struct flow;

struct flow {
    /* first line: what a switch reads to forward the flow's packets, from
     * the topology at set-up (no topology lookups per packet) */
    _Alignas(64) uint32_t src; /* (an alignment binds each name it declares) */
    uint32_t dst;
    /* ECMP's choice for this flow's data at switch ecmp_node - 1 (0: none):
     * the hash and its division are the same for every packet (lb.c) */
    uint32_t ecmp_node, ecmp_port;
    struct flow_leaves {
        uint32_t src, dst;           /* src's and dst's leaves (node ids) */
        uint32_t src_port, dst_port; /* the leaf port facing src / dst */
        uint32_t src_first;          /* first port of src's leaf */
    } leaf;
    /* storage.protection replica: a forward sends only what its primary
     * (flow feed - 1) has received. Set once; here, not with the rest of
     * the sender's state, because every pull reads it. */
    uint32_t feed;
    uint64_t uplinks;         /* first-hop uplinks used (bit per index) */
    uint64_t bytes;           /* read by both ends */
    uint32_t id;
    uint16_t sport;
    uint8_t prio, dscp;       /* its traffic class */
    /* the sender's (and set-up's): written only where the flow starts.
     * This line holds all that a pull of its next packet reads and writes
     * (nic_pull), so a sender touches two lines a packet */
    _Alignas(64) struct flow *next; /* NIC round-robin ring of active flows */
    uint64_t sent;
    uint64_t next_send;       /* pacing: earliest time of the next packet */
    uint64_t last_send;       /* the packet that set next_send: its time */
    uint32_t last_wire;       /* and its wire bytes (one packet's: < 2^16) */
    uint8_t sr_pending;       /* ooo: a selective resend asked for (sr_psn) */
    /* the sender's copy of gen below (nic_train_step sets both): its
     * packets carry it, and gen's line is the receiver's */
    uint8_t tx_gen;
    uint64_t cap_bps, line_bps;
    uint64_t max_sent;        /* highest byte offset ever sent (retransmission) */
    struct flow *prev;
    uint64_t start_ps, first_tx_ps;
    uint64_t una;             /* sender: lowest offset a NAK asked for */
    /* loss recovery (pnet.recover): the retransmission timer runs from
     * rto_last (the last packet sent or progress heard) */
    uint64_t rto_last;
    uint32_t ack_psn;         /* packets below it are known received */
    uint32_t sr_psn;          /* ooo: a selective resend asked for */
    uint32_t rto_gen;
    uint8_t rto_pending, retries;
    uint8_t peer_done;        /* the receiver said it has everything */
    uint8_t failed;           /* retries exhausted: the transfer failed */
    /* uec: PSNs its receiver NACKed (trimmed), waiting to be resent, a
     * ring of rsq_mask + 1 in pnet.rsq at the flow's place */
    uint16_t rsq_head, rsq_n;
    /* uec.lb reps: the unmarked entropies its ACKs echoed, a ring of
     * pnet.reps_size at the flow's place in pnet.reps_buf, oldest first */
    uint8_t reps_head, reps_n;
    uint8_t nak_ev;           /* the entropy the last NACK echoed */
    uint64_t cnps_rx, decreases;
    double min_rate;
    union cc_state cc;        /* its transport's (transport.h) */
    uint32_t writer;
    uint8_t active;
    /* transport.ack_path direct: the head of its ACK pipe (a wire of its
     * own, the receiver holds the tail: nic.c) */
    uint16_t ackq_hi;
    struct pkt_chunk *ackq_hc;
    uint8_t fwd_wait;         /* a replica forward held for its primary (feed) */
    /* the receiver's, on lines of their own: the two ends may run on
     * different threads (sim.threads). The first holds what a data
     * packet's arrival reads and writes (nic_receive), the second the
     * control packets' times and ACK state */
    _Alignas(64) uint64_t recv;
    /* the receiver's copy of bytes (nic_flow_start sets it): an arrival
     * then reads this line only, not the flow's first */
    uint64_t rx_bytes;
    uint32_t expect_psn, max_psn; /* receiver: next in-order PSN, highest seen */
    uint8_t done, sent_cnp, nak_sent, seen_any, dup_acked;
    uint8_t gen;              /* training: bumped every step (stale packets are dropped) */
    uint8_t rx_ev, rx_ce;     /* receiver: the last data packet's entropy and mark (echoed) */
    uint32_t rx_arrivals;     /* receiver, reps: arrivals since its last echo */
    /* receiver, TCP (tcp.c): in-order segments not yet ACKed, the CE state
     * its ACKs echo (RFC 8257); its delayed-ACK timer below */
    uint8_t tcp_unacked, tcp_ce, delack_pending;
    /* a primary's forwards: flows fwd_first .. + fwd_n (0 = none), woken
     * as its bytes arrive */
    uint32_t fwd_first, fwd_n;
    uint64_t *held;           /* ooo with loss recovery: PSNs held past expect_psn
                               * (a ring of sack_win bits, by PSN) */
    uint16_t ackq_ti;         /* the tail of its ACK pipe (ackq_tc below) */
    _Alignas(64) uint64_t done_ps;
    uint64_t last_cnp;        /* receiver: last CNP sent */
    uint64_t last_nak;
    uint64_t acked;           /* receiver: bytes acknowledged (whole requests) */
    uint64_t last_dup_ack;    /* receiver: last ACK answering a duplicate */
    uint64_t delack_at;
    /* transport.ack_path direct: the tail of its ACK pipe, and when the
     * last ACK put on it arrives (the next, sent back to back, arrives a
     * serialisation on the slowest link later, as through idle queues) */
    struct pkt_chunk *ackq_tc;
    uint64_t ackq_last;
};
_Static_assert(offsetof(struct flow, next) == 64, "a flow's forwarding facts fill one line");
/* what a data packet's arrival at the receiver reads (nic_receive): line 5 only */
#define FLOW_RX_LINE(f) (offsetof(struct flow, f) / 64 == 5)
_Static_assert(FLOW_RX_LINE(recv) && FLOW_RX_LINE(rx_bytes) && FLOW_RX_LINE(expect_psn) &&
                   FLOW_RX_LINE(max_psn) && FLOW_RX_LINE(gen) && FLOW_RX_LINE(seen_any) &&
                   FLOW_RX_LINE(done) && FLOW_RX_LINE(rx_ce) && FLOW_RX_LINE(fwd_n) &&
                   sizeof(struct flow) == 448,
               "a flow's receiving state left its line");
/* what a pull of the sender's next packet reads: lines 0-1 only */
#define FLOW_TX_LINE(f) (offsetof(struct flow, f) / 64 == 1)
_Static_assert(FLOW_TX_LINE(next) && FLOW_TX_LINE(sent) && FLOW_TX_LINE(next_send) &&
                   FLOW_TX_LINE(last_send) && FLOW_TX_LINE(last_wire) &&
                   FLOW_TX_LINE(sr_pending) && FLOW_TX_LINE(tx_gen) &&
                   FLOW_TX_LINE(cap_bps) &&
                   FLOW_TX_LINE(line_bps) && FLOW_TX_LINE(max_sent) &&
                   offsetof(struct flow, feed) < 64,
               "a flow's sending state left its first two lines");

struct nic { /* cache-line aligned: neighbours may run on different threads */
    _Alignas(64) struct flow *rr; /* next flow to send from */
    /* logical isolation: training's queue pairs in a ring of their own
     * (read by every pull, so beside rr) */
    struct flow *rr_train;
    uint64_t outstanding;     /* client: request bytes sent, not yet acknowledged */
    /* storage back end: ingest buffer drained at storage.drain_rate */
    uint64_t level, level_t;  /* bytes buffered as of level_t */
    uint64_t xoff, xon;       /* PFC thresholds of the ingest buffer */
    uint64_t drain_bps;       /* 0 with buffered = stuck */
    uint32_t drain_gen;
    uint8_t buffered;         /* has an ingest buffer ahead of a back end */
    /* write cache behind the ingest buffer (storage.c): drain_bps absorbs
     * until cache bytes reach cache_cap, then media_bps; cache_cap 0 = none */
    double cache;
    uint64_t cache_cap, media_bps;
    /* restore: the back end reads ahead at restore.read_rate; a packet
     * leaves once its payload is read (read_t: all sent so far is) */
    uint64_t read_t;
    /* logical isolation: each class's bytes sent / its DWRR weight
     * (start-time fair queueing) */
    double vt_train, vt_data;
};
/* what a compute host's pull reads: its first line */
_Static_assert(offsetof(struct nic, outstanding) < 64, "a NIC's sending state left its first line");

/* A partition's next tie key, pnet_tie(c, events it scheduled so far), on a
 * line of its own (threads): kept whole, an event's key is one increment.
 * (It differs from pnet_tie only past 2^40 events of one partition.) */
struct pseq {
    _Alignas(64) uint64_t next;
};

/* The run's counters that each thread of a team adds to (sim.threads > 1):
 * declared here, and summed, from this one list. A count of the whole run
 * goes here; one that is not a sum (a maximum, a time) does not. */
#define PNET_SUMS(X)                                                                \
    X(flows_done) X(bytes_sent) X(bytes_delivered) X(bytes_dropped)                 \
    X(drops_lossless) X(drops_lossy) X(drops_watchdog) X(pkts_delivered)            \
    X(drops_lossy_data) /* of them, data (control packets have their own repair) */ \
    X(pause_frames) X(resume_frames) X(refresh_frames) X(ecn_marked) X(cnps_sent)   \
    X(cnps_rx) X(storms) X(events) X(reordered) X(naks_sent) X(retx_bytes)          \
    X(discarded_bytes) X(acks) X(window_stalls) X(train_sent) X(train_retx)         \
    X(train_delivered) X(train_dropped) X(train_discarded)                          \
    X(timeouts) X(retx_pkts) X(rc_acks) X(qp_errors) X(sr_naks)                     \
    X(sack_skipped) /* uec: past the cumulative ACK at a timeout, reported held */  \
    X(dup_rx) /* data copies that reached a receiver holding that PSN already */    \
    X(trims) X(trimmed_bytes) X(trim_naks) /* packet trimming (uec) */             \
    /* uec entropies: recycled and explored (reps), resends on the failed one */    \
    X(ev_recycled) X(ev_explored) X(ev_resend_same)                                 \
    X(tcp_fast_retx) X(tcp_dupacks) X(tcp_cuts)                                     \
    X(lookahead_bad) /* events for another partition inside a window */             \
    X(pkts_allocated) /* packet slots in all chunks */                              \
    X(slab_bytes)
#define PNET_SUM_FIELD(f) uint64_t f;
#define PNET_SUM_ONE(f) +1
#define PNET_NSUMS (0 PNET_SUMS(PNET_SUM_ONE))

struct pnet {
    uint64_t now;
    struct evq q;
    const struct scenario *sc;
    const struct topo *topo;
    const struct workload *w; /* the transfers' files (workload_durable) */
    const struct transport_ops *tp;
    const struct receiver_ops *rx; /* transport.receiver's (pnet_scenario_flags) */
    struct arena arena;       /* runtime state and packet slabs */
    /* Partitions: a node, or all NICs of one storage node (they share a back
     * end). An event belongs to the partition whose state it changes; its
     * tie key depends only on the partition that scheduled it (pnet_tie), so
     * results do not depend on the order partitions run in. */
    uint32_t *part;           /* per node */
    uint32_t *port_part;      /* per port: its node's partition */
    struct pseq *pseq;        /* events scheduled so far, per partition */
    uint32_t cur;             /* partition of the running event */
    struct pseq *cur_seq;     /* &pseq[cur] (pnet_set_cur): a tie key is one increment */
    uint32_t whole;           /* partition of set-up and of whole-fabric events (n_nodes) */
    uint32_t first_sw;        /* topo->first_cleaf: a hop's switch test without the topo's line */
    struct pseq pseq_bare;    /* a pnet made by pnet_bare: one partition */
    uint32_t part_bare[8];
    /* window-by-window order (sched.c): events before wend that the running
     * partition schedules for itself wait in a small heap */
    uint64_t wend;            /* 0: no window open */
    /* a packet sent now whose wire's previous one arrives rx_lead or more
     * later has its arrival scheduled by the far end (port.c): at least
     * the window's length, so the far end's window sees it on the wire;
     * 0: the sender schedules every arrival */
    uint64_t rx_lead;
    /* every port's PFC refresh period (half a pause) where all ports run
     * at one rate and each link's ends share a delay, else 0 (per port):
     * an XON counting its implicit refreshes, and an XOFF choosing them,
     * then read neither its ingress's line 0 nor its peer's (pfc.c) */
    uint64_t pfc_half_ps;
    struct event *wh;         /* a binary heap */
    size_t whn, whcap;
    /* those in (time, key) order: a FIFO (most are transmit-dones a
     * serialisation ahead), as pointers so an append tests and stores
     * through one: its head, its tail (the next free slot), its end */
    struct event *wf, *wfp, *wft, *wfe;
    /* a thread's copy (sim.threads: 2): events for later windows wait here
     * for the main thread's queue */
    uint8_t outbox_on, team_id, obk; /* obk: the outboxes this window fills */
    uint8_t *owner;           /* per partition: its thread (sim.threads > 1) */
    uint64_t instant_t;       /* two threads: the pending whole-fabric event */
    struct event *ob[2][TEAM_MAX]; /* by window parity, then the thread it goes to */
    size_t obn[2][TEAM_MAX], obcap[2][TEAM_MAX];
    uint64_t ob_min[2];       /* earliest event in each parity's outboxes */
    struct port *ports;
    struct sw *sws;           /* indexed by switch index */
    struct nic *nics;         /* indexed by node id, endpoints only */
    struct flow *flows;
    uint32_t n_flows, n_writers;
    uint64_t *cnp_lat;        /* transport.dcqcn.cnp_path direct: per flow, the
                               * unloaded latency of its CNPs; NULL = fabric */
    uint64_t *ack_lat;        /* transport.ack_path direct: per flow i, from its
                               * receiver to its sender, the unloaded latency
                               * of a control packet of CNP_PAYLOAD ([4i]) and
                               * of a bare header ([4i + 1]), and their
                               * serialisation on the slowest link ([4i + 2],
                               * [4i + 3]); NULL = fabric */
    uint8_t lossless;         /* lossless priority mask (0 when PFC is off) */
    uint8_t recover;          /* a class the transport uses can drop: ACKs,
                               * retransmission timeouts, selective repeat */
    uint32_t sack_win;        /* ooo: bits in each flow's held ring */
    /* packet trimming (fabric.trim, a uec receiver where data can drop):
     * the queue depth past which a switch trims, UINT64_MAX = none */
    uint8_t trim;
    uint64_t trim_at;
    uint32_t *rsq;            /* uec: each flow's resend ring (struct flow) */
    uint32_t rsq_mask;
    uint32_t uec_ack_pkts;    /* uec: a cumulative ACK every this many packets */
    uint32_t entropies;       /* transport.uec.entropies (spray) */
    uint8_t reps;             /* transport.uec.lb reps */
    uint8_t *reps_buf;        /* reps: each flow's ring of recyclable entropies */
    uint8_t *rsq_ev;          /* uec: the entropy each rsq entry failed on */
    uint32_t reps_size;       /* transport.uec.reps_buffer */
    struct rccc *rccc;        /* transport.uec.rccc: receiver credits (rccc.h), NULL = off */
    struct side_slot *side;   /* the transport's side table, or NULL (transport.h) */
    uint32_t side_mask;       /* its side_window - 1 */
    /* one branch per packet each, set at set-up: start_tx has a capture or
     * SIDE_INT to serve; sent_packet has loss recovery, side stamps or a
     * window to serve */
    uint8_t tx_watch, after_send;
    /* the run has none of a pull's (an arrival's) variants: nic_pull
     * (nic_receive) runs its copy without their tests. Set last in set-up
     * (nic_variants), from flags no later step sets; 0 = the general copy */
    uint8_t tx_plain, rx_plain;
    uint64_t rto_ps;          /* the receiver kind's retransmission timeout */
    /* transport.rto adaptive: each flow's round-trip estimator (by flow
     * id; NULL when fixed or without loss recovery), the sender's alone */
    struct rto_est *rto_est;
    uint64_t rto_max_ps;      /* the longest timer armed (adaptive; folded) */
    /* transport.uec.sack (recovery.c): per flow, a ring of sack_mask + 1
     * acceptance records by PSN, the receiver's (sack_rec); the time up to
     * which the sender has heard them (sack_hz) and the ACK path's unloaded
     * latency that sets it (sack_d), the sender's. NULL: off */
    uint64_t *sack_at, *sack_hz, *sack_d;
    uint32_t sack_mask;
    uint8_t sack_bits;        /* log2(sack_mask + 1) */
    /* scenario choices read per packet, kept here beside the clock */
    uint8_t any_failed;       /* some link of the fabric is down */
    uint8_t cnp_prio, strict, lb_adaptive, lb_ecmp, ecn;
    uint8_t pool_of[NPRIO];   /* buffer pool of each priority (mmu.c) */
    uint8_t n_pools;          /* 1 = shared; per_class: lossless + 1 */
    uint8_t dscp_prio[64];
    uint64_t mtu_wire;        /* the largest frame's wire bytes */
    /* > what one packet's shared admission can lower a lossless PG's
     * threshold by (mmu_xoff_slack); 0: unknown (hand-built pnets) */
    uint64_t xoff_slack;
    uint32_t mtu;             /* payload of a full packet (transport.protocol) */
    uint32_t wire_overhead;   /* wire bytes of a packet beyond its payload */
    /* the same by packet kind: a control record's own ACK or NACK framing
     * where the protocol has one (setup.c pnet_framing) */
    uint32_t kind_overhead[8];
    int32_t dwrr_quantum[NPRIO];
    struct pkt_chunk *free_chunks;
    uint64_t n_free;          /* chunks on free_chunks */
    uint64_t team_evq_bytes;  /* several threads: their event queues' memory */
    /* several threads: the chunks a thread frees beyond its own needs go
     * back to the team's pool (a chunk is freed by the thread that
     * dequeues it, often not the one that took it) */
    struct chunk_pool *pool;
    struct pkt_chunk *slabs;  /* 2 MB slabs of chunks, linked by their first */
    int oom;                  /* no memory for a chunk: the run stops */
    /* totals: each thread's share, added up (PNET_SUMS) */
    union {
        struct {
            PNET_SUMS(PNET_SUM_FIELD)
            uint64_t seg_tx[PATH_SETS]; /* wire bytes sent per segment */
        };
        uint64_t sums[PNET_NSUMS + PATH_SETS];
    };
    uint64_t max_pending;
#ifdef CKPT_EV_KINDS
    /* a build with -DCKPT_EV_KINDS counts events by kind (BENCHMARKS.md,
     * events per packet), then switch arrivals by their egress's state
     * (EVC_*); pnet_loop prints them to stderr */
    uint64_t ev_kinds[EVC_N];
#endif
    uint64_t first_tx_ps, last_rx_ps;
    uint64_t time_limit_ps;   /* the run stops here (pause storms, deadlock) */
    int time_limit_hit;
    int interrupted;          /* ckpt_progress.stop was set */
    int time_went_back;
    /* load balancing and receivers */
    uint64_t window;          /* storage.max_outstanding x request_size; 0 = none */
    struct req_state *req;    /* storage.protocol's request slots (request.c); NULL = none */
    uint64_t read_bps;        /* restore: storage nodes' read rate; 0 = none */
    /* time-weighted queue occupancy per segment (for p99) */
    uint64_t *qhist;          /* [PATH_SETS][QHIST_BUCKETS] ps */
    /* telemetry samples of flow rates */
    struct results *res;
    uint32_t sample_cap;      /* room in res->sample_* */
    struct ckpt_capture *cap; /* packet capture (capture.h); NULL = none */
    /* training traffic (train.c): flows [n_flows, n_flows + n_train), the
     * same ones restarted every step; its bytes apart from the totals above */
    const struct training *tr;
    struct train_clock tc;
    uint32_t n_train;
    uint8_t train_bit;        /* 1 << its priority; 0 = no training here */
    uint8_t train_own_class;  /* isolation logical: NICs schedule it as a class */
    /* hybrid on several threads: the team kept between its periods, this
     * pnet its thread 0's copy (sched.c); NULL otherwise */
    struct team *team;
};

/* seg_tx ends the summed block: the array covers every counter and no more */
_Static_assert(offsetof(struct pnet, seg_tx) + sizeof(((struct pnet *)0)->seg_tx) ==
                   offsetof(struct pnet, sums) + sizeof(((struct pnet *)0)->sums),
               "struct pnet's summed counters and their array disagree");

/* Copies the scenario's per-packet choices into n (set-up; tests that build
 * a pnet by hand call it after setting n->sc). */
void pnet_scenario_flags(struct pnet *n);
/* A pnet with nothing but sc, its flags and an empty queue (unit tests that
 * drive one mechanism by hand). */
void pnet_bare(struct pnet *n, const struct scenario *sc);

/* A training flow (or a packet of one)? */
static inline int pnet_is_train(const struct pnet *n, uint32_t flow)
{
    return flow >= n->n_flows;
}

/* A training flow's data packet? Without training (most runs) one test of
 * the run's flags per packet: data packets' flows are then below n_flows.
 * Marked unlikely: the hop's three callers (port.c) then leave the training
 * accounting out of line, and the hop keeps its values in registers (41
 * instructions a packet fewer at 256 writers, session 34) */
static inline int pnet_train_data(const struct pnet *n, const struct packet *pk)
{
    return __builtin_expect(n->n_train != 0, 0) && pk->kind == PK_DATA &&
           pnet_is_train(n, pk->flow);
}

/* Payload of a dropped data packet, counted per class. */
static inline void pnet_drop_bytes(struct pnet *n, const struct packet *pk)
{
    n->bytes_dropped += pk->payload;
    if (pnet_is_train(n, pk->flow))
        n->train_dropped += pk->payload;
}

/* Training packets held at p by a pause of their class: bring the victim
 * time up to now (called before either condition changes). */
static inline void victim_note(struct pnet *n, struct port *p)
{
    if (!n->train_bit)
        return; /* no training class: no victim time, and a PFC frame at a
                 * host reads none of the port's two seldom lines */
    if (p->train_q && (p->paused & n->train_bit))
        p->victim_ps += n->now - p->victim_t;
    p->victim_t = n->now;
}

#define QHIST_BUCKETS 512
unsigned qhist_bucket(uint64_t bytes);
uint64_t qhist_bucket_floor(unsigned b);

/* Chunks come in slabs of one 2 MB huge page where the system grants it
 * (madvise): the packets in flight of a large run span tens of MB, and
 * with 4 KB pages every chunk touched would cost a TLB miss. The first
 * chunk of a slab links the slabs. */
#define PKT_SLAB_BYTES (UINT64_C(2) << 20)
#define PKT_SLAB_CHUNKS (PKT_SLAB_BYTES / sizeof(struct pkt_chunk) - 1)

/* A chunk from the free list (refilled a slab at a time); NULL when out
 * of memory (n->oom set). */
struct pkt_chunk *pnet_chunk_alloc(struct pnet *n);
void pnet_release_slabs(struct pnet *n);
static inline void pnet_chunk_free(struct pnet *n, struct pkt_chunk *c)
{
    c->next = n->free_chunks;
    n->free_chunks = c;
    n->n_free++;
    /* the next allocation takes it (LIFO) and writes its first record
     * there: that line was read long before its last one, which freed it
     * (pnet_chunk_alloc's hint is of the head then, which this free moved) */
    ckpt_prefetch_w(c);
}

/* Several threads: a thread keeps at most CHUNK_KEEP_MAX free chunks
 * between meetings (the rest to the pool, pnet_chunk_share) and takes
 * CHUNK_KEEP from the pool before it allocates a slab. */
#define CHUNK_KEEP PKT_SLAB_CHUNKS
#define CHUNK_KEEP_MAX (2 * PKT_SLAB_CHUNKS)
void pnet_chunk_share(struct pnet *n);

/* After record r went to a tail chunk: the line the next record ends on,
 * fetched for writing now. A quiet tail (a wire or queue with a packet per
 * tens of us) writes a new line of its chunk long after the chunk came
 * warm off the free list: the miss is taken here, off the next push's
 * path. After a chunk's last slot the line is another chunk's (a hint
 * only, never read; a load in the CKPT_PREFETCH_LOADS build, so there the
 * last slot fetches nothing). */
static inline void pkt_tail_ahead(const struct pkt_chunk *c, const struct packet *r)
{
#ifdef CKPT_PREFETCH_LOADS
    if (r == &c->p[PKT_CHUNK - 1])
        return;
#else
    (void)c;
#endif
    ckpt_prefetch_w((const char *)(r + 2) - 1);
}

/* The head; q must not be empty. */
static inline struct packet *pktq_head(const struct pktq *q)
{
    return &q->hc->p[q->hi];
}

static inline int pktq_push(struct pnet *n, struct pktq *q, const struct packet *p,
                            uint64_t wire)
{
    if (!q->tc || q->ti == PKT_CHUNK) {
        struct pkt_chunk *c = pnet_chunk_alloc(n);
        if (!c)
            return -1;
        c->next = NULL;
        if (q->tc)
            q->tc->next = c;
        else
            q->hc = c, q->hi = 0;
        q->tc = c;
        q->ti = 0;
    }
    struct packet *r = &q->tc->p[q->ti++];
    *r = *p;
    pkt_tail_ahead(q->tc, r);
    q->len++;
    q->bytes += wire;
    return 0;
}

/* Removes the head into *out. */
static inline void pktq_pop(struct pnet *n, struct pktq *q, uint64_t wire_of_head,
                            struct packet *out)
{
    struct pkt_chunk *c = q->hc;
    *out = c->p[q->hi++];
    q->len--;
    q->bytes -= wire_of_head;
    if (!q->len) {
        pnet_chunk_free(n, c); /* the only chunk */
        q->hc = q->tc = NULL;
    } else if (q->hi == PKT_CHUNK) {
        q->hc = c->next;
        q->hi = 0;
        pnet_chunk_free(n, c);
    }
}

/* A wire's packets, from the sender (push) to the far end (pop; one arrival
 * event per packet, so it never pops an empty wire; port.c says who
 * schedules it). Its tail (wire_tc,
 * wire_ti) is in the sender port, its head (wire_hc, wire_hi) in the far
 * end port, on its ingress line: each end writes only its own port (the
 * two may run on different threads), and a chunk's link is written before
 * the far end needs it. An empty wire keeps its last chunk. */
static inline int wire_push(struct pnet *n, struct port *p, const struct packet *pk)
{
    if (!p->wire_tc || p->wire_ti == PKT_CHUNK) {
        struct pkt_chunk *c = pnet_chunk_alloc(n);
        if (!c)
            return -1;
        c->next = NULL;
        if (p->wire_tc) {
            p->wire_tc->next = c;
        } else { /* the first packet ever: the far end starts here */
            n->ports[p->peer].wire_hc = c;
            n->ports[p->peer].wire_hi = 0;
        }
        p->wire_tc = c;
        p->wire_ti = 0;
    }
    struct packet *r = &p->wire_tc->p[p->wire_ti++];
    *r = *pk;
    pkt_tail_ahead(p->wire_tc, r);
    return 0;
}

/* The record after the head wire_pop just took (the caller knows there is
 * one: its link is written). */
static inline const struct packet *wire_next(const struct port *in)
{
    return in->wire_hi == PKT_CHUNK ? &in->wire_hc->next->p[0] : &in->wire_hc->p[in->wire_hi];
}

/* The head of the wire arriving at port in. */
static inline void wire_pop(struct pnet *n, struct port *in, struct packet *out)
{
    if (in->wire_hi == PKT_CHUNK) {
        struct pkt_chunk *c = in->wire_hc;
        in->wire_hc = c->next;
        in->wire_hi = 0;
        pnet_chunk_free(n, c);
    }
    const struct pkt_chunk *c = in->wire_hc;
    unsigned i = in->wire_hi++;
    *out = c->p[i];
    /* a line ahead: written a link delay ago, maybe by the other thread
     * (a prefetch of a slot not yet written is harmless) */
    if (i + 4u < PKT_CHUNK)
        ckpt_prefetch(&c->p[i + 4]);
}

/* The packets on port p's outgoing wire as one queue (end of run). */
static inline struct pktq wire_view(const struct pnet *n, const struct port *p)
{
    const struct port *far = &n->ports[p->peer];
    return (struct pktq){far->wire_hc, p->wire_tc, far->wire_hi, p->wire_ti, 0, 0};
}

/* Runs the body (the arguments after pk) with pk pointing at each packet
 * from chunk hc at index hi to chunk tc before index ti, head first, never
 * into a chunk after tc. pk is as const as *hc; hc NULL: none. continue
 * takes the next packet; a break would leave one chunk's. */
#define PKT_SPAN_FOR_EACH(hc, hi, tc, ti, pk, ...)                                    \
    for (__typeof__((hc) + 0) sc_ = (hc); sc_; sc_ = sc_ == (tc) ? NULL : sc_->next)  \
        for (unsigned si_ = sc_ == (hc) ? (unsigned)(hi) : 0,                         \
                      se_ = sc_ == (tc) ? (unsigned)(ti) : PKT_CHUNK;                 \
             si_ < se_; si_++) {                                                      \
            __typeof__(&sc_->p[0]) pk = &sc_->p[si_];                                 \
            __VA_ARGS__                                                               \
        }

/* Runs body with pk pointing at each packet of q (a queue, or a wire's
 * wire_view), head first. */
#define PKTQ_FOR_EACH(q, pk, body) PKT_SPAN_FOR_EACH((q)->hc, (q)->hi, (q)->tc, (q)->ti, pk, body;)

static inline uint64_t pkt_wire(const struct pnet *n, const struct packet *p)
{
    return (uint64_t)p->payload + n->kind_overhead[p->kind];
}

/* Wire bytes of a control record of kind (its payload CNP_PAYLOAD). */
static inline uint64_t pkt_ctl_wire(const struct pnet *n, enum pkt_kind kind)
{
    return (uint64_t)CNP_PAYLOAD + n->kind_overhead[kind];
}

static inline int is_switch_node(const struct pnet *n, uint32_t node)
{
    return node >= n->first_sw;
}

static inline struct sw *pnet_sw(struct pnet *n, uint32_t node)
{
    return &n->sws[node - n->first_sw];
}

/* Inline (forced: gcc otherwise keeps one out-of-line copy per file): the
 * per-packet paths schedule one or two events each. */
/* Tie key of the k-th event scheduled by partition c: events of one
 * partition at one time keep the order they were scheduled in; those of
 * different partitions go by partition (as the flows' set-up order did
 * before). It depends on nothing another partition did, so results do not
 * depend on the order partitions run in. */
static inline uint64_t pnet_tie(uint32_t c, uint64_t k)
{
    return (uint64_t)c << 40 | (k & ((UINT64_C(1) << 40) - 1));
}

/* Each of parts partitions' tie keys from their first (set-up). */
static inline void pnet_pseq_init(struct pseq *ps, uint32_t parts)
{
    for (uint32_t c = 0; c < parts; c++)
        ps[c].next = pnet_tie(c, 0);
}

/* An event's type word: its kind, then the partition it belongs to (24
 * bits: a fabric has fewer nodes than the packet engine's 2^24 ports), below
 * the event queue's EVQ_RUN bit. */
#define EV_KIND(type) ((type) & 0x7fu)
#define EV_PART(type) (((type) >> 7) & 0xffffffu)

/* The partition an event changes: its port's node (a wire arrival's and a
 * PFC frame's port is the one they reach), the sender's for a flow's
 * timers. */
static inline __attribute__((always_inline)) uint32_t
pnet_part_of(const struct pnet *n, enum ev_type type, const void *obj)
{
    switch (type) {
    case EV_CC_TIMER:
    case EV_CNP:
    case EV_RTO:
    case EV_ACK:
    case EV_FLOW_START:
        return n->part[((const struct flow *)obj)->src];
    case EV_DRAIN:
        return n->part[(const struct nic *)obj - n->nics];
    case EV_SAMPLE:
    case EV_TRAIN_STEP:
        return n->whole;
    default:
        return n->port_part[(const struct port *)obj - n->ports];
    }
}

int pnet_schedule_near(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj,
                       uint32_t arg);
int pnet_outbox(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj, uint32_t arg);
/* Room for one more event in the near FIFO (sched.c); -1: out of memory */
int pnet_fifo_grow(struct pnet *n);

/* Into the thread's queue. A lost event would read later as a transfer
 * that never ended: a failure stops the run as out of memory (n->oom). */
static inline __attribute__((always_inline)) int
pnet_push(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj, uint32_t arg)
{
    if (__builtin_expect(evq_push_seq(&n->q, t, seq, type, obj, arg) < 0, 0)) {
        n->oom = 1;
        return -1;
    }
    return 0;
}

/* The running partition's next tie key: what an event it schedules now
 * gets (pnet_schedule_seq may use it later, for the same place in order). */
static inline uint64_t pnet_next_tie(struct pnet *n)
{
    return n->cur_seq->next++;
}

/* The running partition: every change of n->cur goes through here, so
 * pnet_next_tie's pointer follows it. */
static inline void pnet_set_cur(struct pnet *n, uint32_t c)
{
    n->cur = c;
    n->cur_seq = &n->pseq[c];
}

/* Schedule with a tie key taken earlier (pnet_next_tie) for partition part. */
static inline __attribute__((always_inline)) int
pnet_schedule_seq(struct pnet *n, uint64_t t, uint64_t seq, enum ev_type kind, uint32_t part,
                  void *obj, uint32_t arg)
{
    uint32_t type = kind | part << 7;
    if (t < n->wend) {
        /* most are the running partition's own, in order (a transmit-done
         * a serialisation ahead): appended here without a call */
        struct event e = {t, seq, obj, type, arg};
        struct event *tl = n->wft;
        if (part == n->cur && tl < n->wfe && (tl == n->wfp || !evq_before(&e, tl - 1))) {
            /* t stored on its own: the pointer made opaque, gcc cannot
             * pack t and seq into one vector store (two instructions
             * more a site than two plain stores) */
            struct event *s = tl;
            tl->t = t;
            __asm__("" : "+r"(s));
            s->seq = seq;
            s->obj = obj;
            s->type = type;
            s->arg = arg;
            n->wft = s + 1;
            return 0;
        }
        return pnet_schedule_near(n, t, seq, type, obj, arg);
    }
    if (n->outbox_on)
        return pnet_outbox(n, t, seq, type, obj, arg);
    if (pnet_push(n, t, seq, type, obj, arg) < 0)
        return -1;
    if (evq_len(&n->q) > n->max_pending)
        n->max_pending = evq_len(&n->q);
    return 0;
}

/* Schedule for partition part (pnet_part_of's, known to the caller). */
static inline __attribute__((always_inline)) int
pnet_schedule_part(struct pnet *n, uint64_t t, enum ev_type kind, uint32_t part, void *obj,
                   uint32_t arg)
{
    return pnet_schedule_seq(n, t, pnet_next_tie(n), kind, part, obj, arg);
}

static inline __attribute__((always_inline)) int
pnet_schedule(struct pnet *n, uint64_t t, enum ev_type kind, void *obj, uint32_t arg)
{
    return pnet_schedule_part(n, t, kind, pnet_part_of(n, kind, obj), obj, arg);
}

/* The head of the wire into in arrives, into *pk (key: its arrival event's
 * tie key): the next packet's arrival is the far end's to schedule when
 * the sender left the gap to its key in this one's record (port.c). */
static inline __attribute__((always_inline)) void wire_arrive(struct pnet *n, struct port *in,
                                                              uint64_t key, struct packet *pk)
{
    wire_pop(n, in, pk);
    if (pk->in_port) {
        const struct packet *next = wire_next(in);
        /* the line of its flow that the next arrival reads (a switch its
         * route on line 0, a NIC its receiving line): at scale a flow's
         * record is cold by then, and the arrival is a serialisation away */
        ckpt_prefetch((const char *)&n->flows[next->flow] +
                      (is_switch_node(n, in->rx_node) ? 0 : offsetof(struct flow, recv)));
        pnet_schedule_seq(n, next->t, key + pk->in_port, EV_RX, n->cur, in, 0);
        pk->in_port = 0;
    }
}

/* port.c: egress service and the wire */
void port_queue(struct pnet *n, struct port *p, const struct packet *pk);
/* the same from a switch's arrival, with pk's wire bytes and priority
 * (mmu_admit_prio's): an idle port served without a call */
void port_queue_hop(struct pnet *n, struct port *p, const struct packet *pk, uint64_t wire,
                    unsigned prio);
void port_kick(struct pnet *n, struct port *p);
void port_wake_at(struct pnet *n, struct port *p, uint64_t t);
void port_on_tx_done(struct pnet *n, struct port *p);
/* key: the arrival event's tie key (the next one's follows from it) */
void port_on_rx(struct pnet *n, struct port *in, uint64_t key);
/* the same two, inlined into the window loop (link-time optimisation) */
void port_tx_done_inl(struct pnet *n, struct port *p);
void port_rx_inl(struct pnet *n, struct port *in, uint64_t key);
void port_on_wake(struct pnet *n, struct port *p, uint32_t gen);
void port_qhist_flush(struct pnet *n, struct port *p);
/* The queue to serve among the ready ones (bits of ready); DWRR's walk on
 * its own (tests compare the two) */
int port_pick_queue(struct pnet *n, struct port *p, unsigned ready);
int port_dwrr_walk(struct pnet *n, struct port *p, unsigned ready);

/* telemetry.c: time-series samples, end-of-run link figures and hottest
 * ports, the progress hook */
void telemetry_sample(struct pnet *n);
int telemetry_sample_room(struct pnet *n, uint32_t k);
void telemetry_collect(struct pnet *n, struct results *r);
void telemetry_progress(struct pnet *n);
/* The same with the run's totals given (two threads: both threads' sums) */
void telemetry_progress_of(struct pnet *n, uint64_t events, uint64_t delivered);

/* pfc.c: pause frames, pause expiry and refresh, the watchdog */
/* An EV_PAUSE event's argument: the priority in the low byte, the quanta
 * above it (0: an XON), PFC_TRAIN on an XOFF whose refreshes are implicit
 * (pfc.c). sched.c's prefetch reads it too. */
#define PFC_TRAIN 0x80000000u
static inline uint32_t pfc_arg(unsigned prio, uint32_t quanta)
{
    return prio | quanta << 8;
}
static inline unsigned pfc_arg_prio(uint32_t arg)
{
    return arg & 0xff;
}
static inline uint32_t pfc_arg_quanta(uint32_t arg)
{
    return (arg & ~PFC_TRAIN) >> 8;
}
void pfc_send(struct pnet *n, struct port *in, unsigned prio, int xoff);
/* set-up: pfc_half_ps, from the ports' rates and delays */
void pfc_setup(struct pnet *n);
void pfc_on_frame(struct pnet *n, struct port *p, uint32_t arg);
void pfc_on_pause_end(struct pnet *n, struct port *p, uint32_t arg);
/* End of run: count the implicit refreshes of pauses still on. */
void pfc_settle_all(struct pnet *n);
void pfc_on_refresh(struct pnet *n, struct port *in, uint32_t arg);
void pfc_on_watchdog(struct pnet *n, struct port *p, uint32_t arg);
/* Pause time of `quanta` 512-bit quanta at bps, in ps (rounded up, exact). */
uint64_t pfc_pause_ps(uint32_t quanta, uint64_t bps);
/* Whether in's XOFFs are refreshed as a train, counted when settled, not
 * as events: not where a frame is seen (capture), the watchdog watches
 * pause arrivals, or the link's two ends differ. pfc_send's test; hybrid's
 * frame credit reads it too. */
static inline int pfc_trains(const struct pnet *n, const struct port *in)
{
    const struct port *q = &n->ports[in->peer];
    return !n->cap && !n->sc->fabric.pfc_watchdog &&
           (n->pfc_half_ps || (q->bps == in->bps && q->delay_ps == in->delay_ps &&
                               pfc_pause_ps(n->sc->fabric.pfc_quanta, in->bps) / 2));
}

/* mmu.c: switch buffer admission (shared buffer, dynamic thresholds, PFC
 * headroom) and ECN marking */
int mmu_setup(struct pnet *n, struct err *e);
/* Th = alpha x the pool's free space (bytes; 0 once it is full). */
uint64_t mmu_threshold(const struct sw *s, unsigned k, double alpha);
/* A bound D with Th(F) - Th(F - w) < D for every w <= wmax and every free
 * space F of a pool of at most pool bytes; 0 where none is proven. */
uint64_t mmu_xoff_slack(double alpha, uint64_t wmax, uint64_t pool);
/* admitted: pk's wire bytes (> 0; a trim cut it to its headers), else -1 */
int mmu_admit(struct pnet *n, struct sw *s, struct port *in, struct port *out,
              struct packet *pk);
/* the same with pk's priority in *prio (switch.c; a trim changes both) */
int mmu_admit_prio(struct pnet *n, struct sw *s, struct port *in, struct port *out,
                   struct packet *pk, unsigned *prio);
void mmu_release(struct pnet *n, struct sw *s, struct packet *pk);
/* the same with pk's wire bytes and priority known (port.c) */
void mmu_release_prio(struct pnet *n, struct sw *s, const struct packet *pk, uint64_t wire,
                      unsigned prio);
void ecn_mark(struct pnet *n, struct sw *s, struct port *out, struct packet *pk);
/* the same with pk's queue known (q: out->q[pk->prio]) */
void ecn_mark_q(struct pnet *n, struct sw *s, struct port *out, const struct pktq *q,
                struct packet *pk);
double red_probability(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax);

/* lb.c: choice among equal-cost next hops */
int lb_setup(struct pnet *n, struct err *e);
uint32_t lb_pick(struct pnet *n, uint32_t node, struct sw *s, const struct route *r,
                 struct flow *f, const struct packet *pk);
void lb_note_tx(struct pnet *n, struct port *p, uint64_t wire);
/* The switch egress ports a flow's data crosses from its source leaf to
 * the last switch before its destination leaf's host port (neither NIC's
 * link), as the switches pick them: ports[0..k), k returned. -1 where the
 * scheme picks per packet or flowlet (no fixed path) or past max hops. */
int lb_path(struct pnet *n, const struct flow *f, uint32_t *ports, uint32_t max);
/* uec entropies (lb.c): the entropy value a sprayed packet is hashed by;
 * the sender's choice for a packet it sends (failed: the entropy field a
 * NACK echoed, or LB_EV_NEW, or LB_EV_REWIND: a resend after a timeout or
 * a go-back); an ACK's echo of an unmarked packet recycles its entropy */
enum { LB_EV_NEW = -1, LB_EV_REWIND = -2 };
static inline uint32_t pkt_entropy(const struct pnet *n, const struct packet *pk)
{
    return n->reps ? pk->ev : (uint32_t)(((uint64_t)pk->psn + pk->ev) % n->entropies);
}
void lb_entropy_send(struct pnet *n, struct flow *f, struct packet *pk, int failed);
void lb_entropy_ack(struct pnet *n, struct flow *f, const struct packet *ack);

/* switch.c: forwarding */
void switch_receive(struct pnet *n, uint32_t node, struct port *in,
                    struct packet *pk);

/* nic.c: RoCE endpoints */
/* The next data packet of the host port p into *out; 0 when none goes now. */
int nic_pull(struct pnet *n, struct port *p, struct packet *out);
void nic_receive(struct pnet *n, uint32_t node, struct packet *pk);
void nic_flow_start(struct pnet *n, struct flow *f);
/* The run's variant bytes (tx_plain, rx_plain) from its flags: set-up's
 * last step, once every flag is set. */
void nic_variants(struct pnet *n);
/* storage.protection replica (storage.c): whether forward f must wait for
 * its primary's bytes, and the primary's arrivals waking its forwards */
int store_fwd_held(const struct pnet *n, const struct flow *f);
void store_fwd_arrived(struct pnet *n, const struct flow *f);
void nic_rate_changed(struct pnet *n, struct flow *f);
int nic_setup(struct pnet *n, struct err *e);
void nic_on_drain(struct pnet *n, struct nic *s, uint32_t gen);
/* storage.c: a back end with a write cache. store_advance brings s's
 * ingest level and cache level from level_t to n->now; store_wait_ps is
 * how long the back end takes to absorb `bytes` more from now. */
void store_advance(struct pnet *n, struct nic *s);
/* s's ingest and cache levels at time at (>= level_t), s unchanged */
void store_levels_at(const struct nic *s, uint64_t at, uint64_t *level, double *cache);
uint64_t store_wait_ps(const struct nic *s, uint64_t bytes);
/* training: start the current step's flows (EV_TRAIN_STEP) */
void nic_train_step(struct pnet *n);
/* request.c: storage.protocol's requests (docs/storage.md, Requests).
 * req_setup allocates the per-writer slots (n->req stays NULL without the
 * model); req_gate says whether f may send its next new packet now (else
 * *soonest may fall to when a slot frees); req_sent records the requests a
 * packet of payload bytes at offset off started; req_on_ack completes those
 * an acknowledgement of `bytes` covers. */
int req_setup(struct pnet *n, struct err *e);
int req_gate(struct pnet *n, const struct flow *f, uint64_t *soonest);
void req_sent(struct pnet *n, const struct flow *f, uint64_t off, uint32_t payload);
void req_on_ack(struct pnet *n, const struct flow *f, uint32_t bytes);
/* f failed (retries exhausted): its unacknowledged requests free their slots */
void req_fail(struct pnet *n, const struct flow *f);
/* requests completed, their latencies' sum and largest (ps) */
void req_totals(const struct pnet *n, uint64_t *count, double *sum_ps, uint64_t *max_ps);
/* A CNP reaches f's sender (one sent direct: gen is f's generation then). */
void nic_on_cnp(struct pnet *n, struct flow *f, uint32_t gen);
/* f's retransmission timer (EV_RTO). */
void nic_on_rto(struct pnet *n, struct flow *f, uint32_t gen);
/* Loss recovery's set-up: whether it runs, and the ooo receivers' rings. */
int nic_recovery_setup(struct pnet *n, struct err *e);
/* A hybrid jump renumbers f's packets by d past its receiver's expect_psn
 * (called before expect_psn and max_psn move): the packets its ring holds
 * past a gap move with them, none to below or past (a drain's last PSN:
 * the jump took those; one at it or past stays). scratch: sack_win / 64
 * words. */
void nic_held_shift(struct pnet *n, struct flow *f, uint32_t d, uint32_t below,
                    uint64_t *scratch);
/* ... and its loss recovery's state d later, dpsn packets on (a quiet
 * sender: hybrid carries it for every transport, held says when one is
 * not quiet) */
void nic_recovery_shift(struct pnet *n, struct flow *f, uint64_t d, uint32_t dpsn);

/* transport.rto adaptive (RFC 6298's estimator): SRTT, RTTVAR and the one
 * packet being timed (psn, sent at t0; timing 0: none) */
struct rto_est {
    uint64_t srtt, rttvar, t0;
    uint32_t psn;
    uint8_t timing;
};
/* recovery.c: f's retransmission timeout now (n->rto_ps when fixed) */
uint64_t nic_rto_of(const struct pnet *n, const struct flow *f);
/* recovery.c: f sent pk (adaptive: a first send starts a measurement when
 * none runs; a resend at or below the timed PSN ends it, Karn) */
void nic_rto_sent(struct pnet *n, const struct flow *f, const struct packet *pk);
/* recovery.c: an RTT sample r into e (RFC 6298 2.2, 2.3) */
void rto_est_sample(struct rto_est *e, uint64_t r);

/* capture.c: record a frame that p starts to send (a packet, or a PFC frame
 * of `in`), with n->cap set */
void capture_packet(struct pnet *n, const struct port *p, const struct packet *pk);
void capture_pfc(struct pnet *n, const struct port *in, unsigned prio, uint32_t quanta);

/* nic.c: a CNP from f's receiver at node to its sender (a transport's
 * on_data hook), direct or through the fabric per transport.dcqcn.cnp_path */
void nic_send_cnp(struct pnet *n, uint32_t node, struct flow *f);
/* nic.c, for recovery.c: a control packet from f's receiver at node to
 * its sender (CNP priority); f back in its NIC's ring and its port kicked;
 * f out of its ring; f's next packet from its last at the transport's rate */
void nic_send_control(struct pnet *n, uint32_t node, struct flow *f, enum pkt_kind kind,
                      uint32_t psn);
/* REPS: the cumulative ACK psn that echoes the last arrival's entropy and mark */
void nic_send_echo(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn);
void nic_reactivate(struct pnet *n, struct flow *f);
void nic_park(struct pnet *n, struct flow *f);
void nic_repace(struct pnet *n, struct flow *f);

/* recovery.c: a data packet of a live flow at its receiver (1: keep it);
 * a NAK and a cumulative ACK at the sender; the retransmission timer */
int nic_accepts(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk);
void nic_on_nak(struct pnet *n, struct flow *f, uint32_t psn);
void nic_on_rc_ack(struct pnet *n, struct flow *f, uint32_t psn);
void nic_rto_arm(struct pnet *n, struct flow *f);
/* uec: a trimmed data packet at its receiver (it NACKs it) */
void nic_on_trimmed(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk);
#define UEC_RESEND_RING 256 /* a power of 2, at most 65536 (struct flow's rsq_n) */
/* uec selective ACKs: acceptance records a flow keeps (a power of 2) */
#define UEC_SACK_RING 1024
/* recovery.c: f's next packet to resend after a timeout (f->sent below
 * f->max_sent) moved past those its ACKs reported held */
void nic_sack_advance(struct pnet *n, struct flow *f);
/* recovery.c: f's selective-ACK state forgotten (a hybrid jump renumbered
 * its PSNs; a training step restarted it): the sender resends as if none */
void nic_sack_forget(struct pnet *n, const struct flow *f);
/* nscc.c: one way from -> to on an idle fabric, wire bytes a hop */
uint64_t pnet_one_way_ps(const struct pnet *n, uint32_t from, uint32_t to, uint16_t sport,
                         uint64_t wire);

/* tcp.c: TCP's receiver ACKs a data segment it placed (inorder: it was
 * the next expected; gap: a hole remains or was just filled) or one it
 * threw away (a duplicate, past its window) */
void tcp_rx_segment(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk,
                    int inorder, int gap);

/* nic.c: a cumulative ACK (packets below psn are in) from f's receiver at
 * node to its sender, through the fabric: the sender's on_ack hears it
 * (a transport's on_data hook, on a lossless fabric too) */
void nic_send_ack(struct pnet *n, uint32_t node, struct flow *f, uint32_t psn);
/* nic.c: control packet c from f's receiver at node on its way: into the
 * node's port, or (n->ack_lat, anything but a CNP) straight to the sender
 * after the reverse path's unloaded latency, one EV_ACK event */
void nic_control_out(struct pnet *n, uint32_t node, struct flow *f, const struct packet *c);
/* EV_ACK: the head of f's direct ACK pipe reaches its sender */
void nic_on_ack_direct(struct pnet *n, struct flow *f);
/* nic.c: how long the packet of `payload` bytes just accepted at node waits
 * in its storage node's ingest buffer before the back end writes it (0
 * without a buffer; UINT64_MAX on a stuck node) */
uint64_t nic_ingest_wait(struct pnet *n, uint32_t node, uint32_t payload);

/* A data packet that loss recovery sent again (a go-back-N or selective
 * resend), not its PSN's first send. */
static inline int pkt_resend(const struct packet *pk)
{
    return pk->echo_ce;
}

/* The side-table slot of f's packet psn (n->side set: transport.h). */
static inline struct side_slot *pnet_side(const struct pnet *n, const struct flow *f,
                                          uint32_t psn)
{
    return &n->side[(size_t)f->id * (n->side_mask + 1) + (psn & n->side_mask)];
}

#endif
