/* Transports of the packet engine: a table of hooks per congestion control.
 *
 * A transport is one const struct transport_ops: the sender's hooks (its
 * rate or window, its reaction to ACKs, NAKs, congestion notifications,
 * timers and timeouts) and the receiver's (what it does with a data packet
 * it accepted: a CNP, an echo). Its per-flow state is one member of union
 * cc_state, which only it reads. The registry (transport_of) maps the
 * scenario's transport.cc to the table; what a transport is for the other
 * layers (its name, keys, cost, what the fluid model keeps) is its
 * descriptor row, cc_schemes[] in src/scenario/tpscheme.h.
 *
 * Hot path rule: the engine calls on_send once per data packet sent (not
 * where the table says line_rate); every
 * other hook runs on rarer events (a CNP, an ACK, a timer), or, for the
 * receiver, only where the transport asks for it (on_data with
 * data_ce_only: marked packets only). Optional hooks are NULL.
 */
#ifndef CKPT_TRANSPORT_H
#define CKPT_TRANSPORT_H

#include <stdint.h>

#include "../core/err.h"
#include "../scenario/scenario.h"

struct pnet;
struct flow;
struct packet;

/* DCQCN's reaction point (dcqcn.c). */
struct dcqcn_state {
    double rc, rt, alpha;    /* current/target rate (bps), alpha */
    uint64_t alpha_t;        /* alpha brought up to date as of this time */
    uint64_t next_timer;     /* next rate-increase timer expiry */
    uint64_t timer_seq;      /* its tie key (taken when it was armed) */
    uint64_t last_decrease;
    uint64_t bytes;          /* since the last byte-counter event */
    uint32_t t_stage, b_stage; /* timer / byte-counter events since the cut */
    uint32_t timer_gen;      /* the live rate-increase timer event */
    uint8_t cut;             /* has had its first CNP */
    uint8_t pending;         /* a CNP arrived inside the decrease period */
    uint8_t dec_armed;       /* the end-of-period event is scheduled */
    uint8_t timer_pending;   /* a rate-timer event is in the queue (at or before next_timer) */
};

/* HPCC's sender (hpcc.c): windows in bytes, the INT of the last ACKed
 * packet kept in its side slot (int_psn), not here. */
struct hpcc_state {
    double w, wc;            /* window now, reference window W_c (bytes) */
    double u;                /* EWMA of the most utilised hop's U */
    uint64_t t_ps;           /* T: base RTT */
    uint32_t acked;          /* packets below it are ACKed */
    uint32_t last_update;    /* W_c updates when an ACK passes this PSN */
    uint32_t int_psn;        /* the side slot holding the last INT */
    uint8_t inc_stage, have_int;
};

/* NSCC's sender (nscc.c): its window and the state of its adjustments. */
struct nscc_state {
    double cwnd;             /* window, bytes */
    double inc;              /* increases owed to the next adjustment (bytes^2) */
    double avg_delay;        /* EWMA of the queueing delay, ps */
    uint64_t last_adjust;    /* last adjustment that added eta */
    uint64_t last_dec;       /* last multiplicative decrease */
    uint64_t qa_end;         /* end of the quick-adapt period (0: none yet) */
    uint32_t base_rtt, target; /* ps */
    uint32_t acked;          /* packets below it are acknowledged */
    uint32_t received;       /* bytes acknowledged since the last adjustment */
    uint32_t fi_count;       /* bytes acknowledged at near-zero delay in a row */
    uint32_t achieved;       /* bytes acknowledged in this quick-adapt period */
    uint32_t ignore;         /* after quick adapt: bytes of stale feedback left */
    uint8_t fast;            /* in fast increase */
    uint8_t trigger_qa;      /* a loss asks quick adapt to look */
};

/* Swift's sender (swift.c): the fabric and endpoint windows in packets
 * (the window is the smaller), each with its last decrease. */
struct swift_state {
    double fcwnd, ecwnd;
    uint64_t f_dec_ps, e_dec_ps; /* when each window last shrank */
    uint64_t rtt_ps;             /* the last RTT sample (pacing below one packet) */
    uint32_t acked;              /* packets below it are acknowledged */
    uint8_t hops;                /* switches on the flow's path */
    uint8_t nudge;               /* may send one packet past a full window */
};

/* TCP's sender (tcp.c): a window in segments of fabric.mtu payload. One
 * state at a time, as Linux's: open, cwnd reduction after ECN (DCTCP),
 * fast recovery, or loss (after a timeout); high ends the last three. */
struct tcp_state {
    double cwnd, ssthresh;   /* segments */
    uint64_t rtt_t;          /* when the timed segment left */
    uint32_t una;            /* segments below it are acknowledged */
    uint32_t high;           /* the state ends when una reaches it */
    uint32_t sacked;         /* held past una by the receiver: one per duplicate ACK */
    uint32_t rtt_psn;        /* the ACK that times the segment of rtt_t */
    uint16_t dupacks;        /* in a row at una */
    uint8_t state;           /* enum tcp_ca in tcp.c */
    uint8_t ece;             /* the ACK on its way to on_ack echoes CE */
    uint8_t timing;          /* rtt_t times a segment */
    union {
        struct { /* DCTCP (RFC 8257): alpha and its observation window */
            double alpha;
            uint32_t acked, marked, win_end; /* segments */
            uint32_t srtt_ns;                /* RFC 6298's SRTT (pacing), 0 = no sample yet */
        } d;
        struct { /* CUBIC (RFC 9438): the epoch since the last cut */
            double w_max, w_est;             /* segments */
            uint64_t t_epoch;
            float k;                         /* seconds */
            uint32_t srtt_ns : 31;           /* RFC 6298's SRTT, 0 = no sample yet */
            uint32_t epoch : 1;              /* t_epoch is set */
        } c;
    } u;
};
_Static_assert(sizeof(struct tcp_state) <= 80, "no larger than DCQCN's member");

/* A flow's congestion state: one member per transport, owned by it. A
 * transport whose state outgrows the largest member grows every flow
 * (struct flow's sender lines): keep it to what the sender needs. */
union cc_state {
    struct dcqcn_state dcqcn;
    struct hpcc_state hpcc;
    struct nscc_state nscc;
    struct swift_state swift;
    struct tcp_state tcp;
};

/* Room beside the packet record (struct packet stays 24 bytes): a
 * transport that sets `side` gets a slot per (flow, PSN mod side_window),
 * allocated at set-up; the sender stamps it when it sends the packet
 * (SIDE_STAMP) and each switch appends its egress telemetry (SIDE_INT, as
 * HPCC's INT) when the packet leaves. on_data and on_ack read it with
 * pnet_side(). A transport keeps at most side_window packets of a flow in
 * flight, or a newer packet overwrites an older one's slot.
 * One slot serves every copy of a PSN, and a resend may leave while its
 * first copy is still queued, in another partition of the same window: so
 * what the receiver or a switch reads is written at the PSN's first send
 * only (psn, hops, ask), what the sender reads of the receiver's at its
 * accepted arrival only (flags, ep_ps), a resend's own request rides in
 * the packet (echo), and resends append no INT. */
enum { SIDE_STAMP = 1, SIDE_INT = 2 };
#define SIDE_HOPS 6 /* switches on the longest path (three tiers) */
struct side_hop {
    uint64_t t;        /* when the packet left the port */
    uint64_t tx_bytes; /* the port's bytes sent before it */
    uint64_t q_bytes;  /* the port's queue behind it */
    uint32_t port;     /* the port (topology index) */
};
struct side_slot {
    uint64_t sent_ps;  /* SIDE_STAMP: when the sender last sent it (the sender's) */
    uint32_t psn;      /* whose slot it is now (its first send) */
    uint8_t hops;      /* SIDE_INT: switches that appended (at most SIDE_HOPS) */
    uint8_t flags;     /* the receiver's, at its accepted arrival (NSCC: asked, CE) */
    uint8_t ask;       /* NSCC, Swift: its first send asks for its ACK */
    uint8_t resent;    /* the sender's: a resend went since its first send */
    uint64_t ep_ps;    /* Swift: the receiver's endpoint delay for it */
    struct side_hop hop[SIDE_HOPS];
};

/* A hybrid jump (hybrid.c) over d of steady time, as a transport's
 * jump_ops.carry sees it: dpsn of f's packets delivered (their ACKs would
 * have come), its level (jump_ops.level) x g along its receiver's trend
 * (1: none), uneven: a queue move renumbered its packets unevenly;
 * scratch: side_window slots. */
struct jump_move {
    uint64_t d;
    uint32_t dpsn;
    double g;
    uint8_t uneven;
    struct side_slot *scratch;
};

/* How a hybrid jump carries a transport's sender state: a transport
 * without a row runs hybrid as the packet engine (cc_schemes[].no_hybrid
 * says why, for the scenario's validation). */
struct jump_ops {
    double budget;       /* sim.hybrid.error auto: the error budget */
    /* each sender's figure (a rate, a window) whose sum per receiver
     * hybrid fits for a trend and carries over a jump; NULL: none */
    double (*level)(const struct pnet *n, const struct flow *f);
    /* the trend carried wherever it trends; 0: only where the receiver
     * takes less than its links' rate (a rate's swing about a full link
     * is its cuts, not a trend) */
    uint8_t trend_full;
    /* rate cuts dip a full link's periods: a receiver or switch link
     * that reached its rate in a period of the windows is full over the
     * jump, and each sender's own spread bounds the error */
    uint8_t cuts;
    /* the senders' shares of a receiver drift back toward its mean (cuts
     * at random): a sender a jump carried under the mean stays behind its
     * packet self, which the error estimate counts (its writers' tail) */
    uint8_t shares_revert;
    /* the senders' shares of a receiver scatter about its mean as their own
     * noise, which decays: a jump carries only the part that lasts
     * (hybrid's writer_draw) */
    uint8_t shares_draw;
    uint8_t side;        /* its side table is carried (renumbered) */
    /* each sender's level is fitted too, and a trend of one bounds the
     * span as the receiver's sum's does: its senders' shares drift apart
     * where their sum holds (senders narrower than their receiver only) */
    uint8_t sender_trend;
    /* optional: the least auto period given the unloaded round trip */
    uint64_t (*period_floor)(const struct pnet *n, uint64_t rtt);
    /* optional: f's state d later (before f->sent and f->expect_psn move) */
    void (*carry)(struct pnet *n, struct flow *f, const struct jump_move *m);
    /* optional, after the clock moved: what the renumbering left due */
    void (*after)(struct pnet *n, struct flow *f);
    /* optional: 1 = f's sending is no steady rate (paced under a
     * packet): no jump while it is */
    int (*held)(const struct pnet *n, const struct flow *f);
    /* what held says, for a run it kept from every jump ("Swift windows
     * under a packet (paced)"; the run's hybrid.why) */
    const char *held_why;
    /* held asked only of senders at least as wide as their receiver (the
     * narrower ones' shares are fitted: sender_trend) */
    uint8_t held_wide;
    /* optional: how far f's ACK clock can stand off the packets' after
     * a jump (a round trip, ps), added to the error estimate */
    uint64_t (*stands_off)(const struct flow *f);
};

/* Window transports' side slots over a jump (their jump_ops.carry): the
 * slots of the packets from acked on (in flight, or received and not yet
 * acknowledged) move to their PSNs m->dpsn on, their stamps m->d later.
 * Under ACKs every `every` PSNs the renumbering moves which are due: one
 * on its way that was due asks (ask), every slot where m->uneven; every
 * at most 1: no asks (ask may be NULL). */
void jump_side_carry(struct pnet *n, struct flow *f, uint32_t acked, uint32_t every,
                     const struct jump_move *m, void (*ask)(struct side_slot *sl));
/* After a jump, under ACKs every `every` PSNs: f's packets received
 * unacknowledged (below expect_psn, from acked) may have had their due
 * ACK renumbered away. All arrived: the receiver ACKs now; else the
 * newest on its way asks, unless one is due (every-th, or asked). */
void jump_side_acks(struct pnet *n, struct flow *f, uint32_t acked, uint32_t every,
                    int (*asked)(const struct side_slot *sl), void (*ask)(struct side_slot *sl));

struct transport_ops {
    /* its row in cc_schemes[] (src/scenario/tpscheme.h): name, keys,
     * events_scale, what the fluid engine models of it */
    enum cc_kind cc;

    /* sender: on_send and rate are required */
    /* every data packet sent, pk (a resend: pkt_resend; the transport may
     * set its request bit, echo) of wire bytes: the pacing rate from now */
    uint64_t (*on_send)(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire);
    /* on_send is the flow's line rate and keeps no state: the engine takes
     * f->line_bps without the call (a table that replaces on_send clears it) */
    uint8_t line_rate;
    /* the rate it allows now (telemetry; a change of pacing) */
    double (*rate)(const struct pnet *n, const struct flow *f);
    /* optional: the flow starts (and each training step) */
    void (*start)(struct pnet *n, struct flow *f);
    /* a congestion notification: required when its on_data sends CNPs
     * (nic_send_cnp; no other sends them, so the call is not checked) */
    void (*on_cnp)(struct pnet *n, struct flow *f);
    /* its own timer (EV_CC_TIMER, arg as it scheduled it): required when
     * it schedules one */
    void (*on_timer)(struct pnet *n, struct flow *f, uint32_t gen);
    /* optional: the queue pair has data to send again after it had sent
     * everything (a resend): timers that stopped with it restart */
    void (*resume)(struct pnet *n, struct flow *f);
    /* optional, loss recovery's: a cumulative ACK (packets below psn are
     * in), a NAK asking for psn that the sender acts on, a retransmission
     * timeout that resends */
    void (*on_ack)(struct pnet *n, struct flow *f, uint32_t psn);
    void (*on_nak)(struct pnet *n, struct flow *f, uint32_t psn);
    void (*on_timeout)(struct pnet *n, struct flow *f);
    /* optional: the ACK about to reach on_ack echoes a CE mark (TCP's ECE
     * flag: the ACK's ce bit, which switches never set on control packets) */
    void (*on_ece)(struct pnet *n, struct flow *f);

    /* optional, a window: 0 = f may not send now (after on_send, and after
     * each on_ack: the queue pair waits for the ACK that opens it) */
    int (*may_send)(const struct pnet *n, const struct flow *f);

    /* receiver, optional: a data packet it accepted (after it is counted),
     * at the receiver's node; with data_ce_only, CE-marked ones only */
    void (*on_data)(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk);
    uint8_t data_ce_only;

    /* SIDE_STAMP | SIDE_INT: the side table; slots per flow (a power of 2) */
    uint8_t side;
    uint32_t side_window;
    /* optional: side_window from the run (its flows set up), over the
     * fixed one */
    uint32_t (*side_window_of)(const struct pnet *n);

    /* optional: how a hybrid jump carries it (NULL: hybrid runs packet) */
    const struct jump_ops *jump;
};

/* A receiver (transport.receiver): what it keeps of the data packets that
 * arrive, and its sender's side of loss recovery (nic.c). With loss
 * recovery (pnet.recover: a data class can drop) it ACKs, NAKs and times
 * out; on a lossless fabric only go-back-N NAKs (a reordering gap). */
struct receiver_ops {
    enum receiver_kind kind;  /* its row in rx_schemes[] */
    /* every data packet of a live flow: 1 = keep it, 0 = discard it (after
     * the reordering counters; it may NAK or ACK) */
    int (*accepts)(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk);
    /* sender: a NAK for psn from a live transfer's receiver */
    void (*on_nak)(struct pnet *n, struct flow *f, uint32_t psn);
    /* set-up where loss recovery runs: its timeout and per-flow state */
    int (*recovery_setup)(struct pnet *n, struct err *e);
    /* its NAK names one packet to resend, not the first one missing (it
     * says nothing of those below: uec) */
    uint8_t nak_names_one;
};

extern const struct receiver_ops receiver_gbn, receiver_ooo;
extern const struct receiver_ops receiver_uec;
extern const struct receiver_ops receiver_tcp;
const struct receiver_ops *receiver_of(enum receiver_kind kind);

/* The registry: every transport.cc value has its table. */
extern const struct transport_ops transport_line_rate, transport_dcqcn;
extern const struct transport_ops transport_hpcc;
extern const struct transport_ops transport_nscc;
extern const struct transport_ops transport_swift;
extern const struct transport_ops transport_dctcp, transport_cubic;
const struct transport_ops *transport_of(enum cc_kind cc);

#endif
