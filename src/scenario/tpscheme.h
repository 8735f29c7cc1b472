/* Transports: one descriptor row per congestion control (transport.cc) and
 * per receiver (transport.receiver), read by the parser, the fluid engine,
 * the estimate, the reports and tune, so that what a transport is (its
 * name, its keys, what it costs and what the fluid engine keeps of it) is
 * said once. The packet engine's hooks stay in src/pkt (transport.h),
 * indexed by the same enums; its test checks every row has its table.
 *
 * It lives beside the scenario, as lbscheme.h does for balancers: the
 * parser needs the names and nothing here includes a higher layer.
 */
#ifndef CKPT_TPSCHEME_H
#define CKPT_TPSCHEME_H

#include <stdint.h>

/* transport.cc's values in order: the enum is made from this list; the
 * parser's names are the rows' (tpscheme.c: cc_schemes), which
 * test_transport checks against it. */
#define CC_KINDS(X) X(CC_NONE, "none") X(CC_DCQCN, "dcqcn") \
    X(CC_HPCC, "hpcc") X(CC_NSCC, "nscc") \
    X(CC_SWIFT, "swift") X(CC_DCTCP, "dctcp") X(CC_CUBIC, "cubic")
#define RX_KINDS(X) X(RX_GBN, "gbn") X(RX_OOO, "ooo") \
    X(RX_UEC, "uec") X(RX_TCP, "tcp")
/* transport.protocol's values: the framing around each packet's payload */
#define PROTOCOLS(X) X(PROTO_ROCE, "roce") X(PROTO_TCP, "tcp") \
    X(PROTO_UEC, "uec")

#define TP_ENUM_(e, s) e,
enum cc_kind { CC_KINDS(TP_ENUM_) CC_COUNT };
enum receiver_kind { RX_KINDS(TP_ENUM_) RX_COUNT };
enum protocol { PROTOCOLS(TP_ENUM_) PROTO_COUNT };

struct cc_scheme {
    const char *name;   /* transport.cc's value */
    const char *keys;   /* its own scenario keys' prefix, or NULL */
    /* describe and --engine auto: a packet's events as a multiple of the
     * fabric's (its CNPs, ACKs, timers), [0] with its control packets
     * through the fabric, [1] with them sent direct (CNPs by
     * transport.dcqcn.cnp_path, ACKs by transport.ack_path) */
    double events_scale[2];
    /* on a fabric that trims UEC data (lossy, fabric.trim) without RCCC:
     * what trimmed headers, NACKs and resends add to a packet's events, as
     * a multiple of the fabric's (0: not measured) */
    double trim_events;
    /* what the fluid engine models of it, or why not (describe) */
    const char *fluid;
    /* NULL when the fluid engine models it; else what it leaves out (the
     * run's unmodelled list, optimistic) */
    const char *fluid_leaves;
    /* it paces below line rate on congestion signals: flowlets can move
     * after its cuts */
    int rate_control;
    /* it sends CNPs (transport.dcqcn.cnp_path says how they travel) */
    int sends_cnps;
    /* its cuts come from ECN marks (CNPs, ECE, marked ACKs): with none
     * marked it does not slow down (the summary's ecn line) */
    int ecn_driven;
    /* a window its receiver's ACKs open (transport.ack_path auto sends
     * them direct) */
    int window;
    /* a TCP congestion control: a window, TCP's receiver (transport.receiver
     * tcp), transport.tcp.* keys */
    int tcp;
    /* tune's default knob: its values, ';'-joined keys, ','-separated */
    const char *tune;
    /* the fluid engine's entry instead of fluid_leaves when flows of
     * different round trips share a full link (NULL: not RTT-biased) */
    const char *fluid_rtt;
    /* ECN marking it is designed for, as queueing delay at each port's
     * speed (kmin at ecn_kmin_us x speed); 0 = the fabric's default
     * (DCQCN's 100 KB / 400 KB per 25G). Applies where fabric.ecn.kmin /
     * kmax are not set. */
    double ecn_kmin_us, ecn_kmax_us;
    /* what else it brings, "key=value;..." (NULL: nothing): each applies
     * unless the user set that key (scenario_resolve) */
    const char *defaults;
    /* why a hybrid jump cannot carry its state (the run's word for
     * it), NULL where it can: its packet-engine table then has a jump
     * row (transport.h jump_ops). scenario_hybrid_blocked reads it;
     * docs/engine.md "Hybrid" */
    const char *no_hybrid;
};

/* A receiver kind: what it does with a packet out of order. */
struct rx_scheme {
    const char *name;   /* transport.receiver's value */
    /* keeps a packet past a gap (selective repeat) rather than dropping
     * everything after it and rewinding the sender (go-back-N) */
    int keeps_out_of_order;
    /* the fluid engine's entry when packets can reorder (NULL: nothing
     * left out) */
    const char *fluid_reorder;
};

/* A protocol (transport.protocol): how a packet is framed on the wire.
 * fabric.mtu is the protocol's MTU: RoCE's path MTU is the payload itself
 * (4096 B), an IP MTU (TCP's 9000 B jumbo frame) also holds the headers
 * above the link layer, which mtu_headers takes back out. */
struct proto_scheme {
    const char *name;       /* transport.protocol's value */
    uint32_t mtu_headers;   /* bytes of fabric.mtu that are not payload
                             * (below fabric.mtu's 64 B floor) */
    uint32_t overhead;      /* wire bytes per packet beyond its payload
                             * (preamble and gap included) */
    const char *framing;    /* the headers counted, for describe and docs */
    /* wire bytes of the protocol's own ACK and NACK, preamble and gap
     * included (0: a control record in the data packets' framing, as
     * RoCE's ACK and NAK) */
    uint32_t ack_wire, nack_wire;
};

extern const struct cc_scheme cc_schemes[CC_COUNT];
extern const struct proto_scheme proto_schemes[PROTO_COUNT];
/* What each protocol brings, "key=value;..." (NULL: nothing): each applies
 * unless the user set that key (scenario_resolve). */
extern const char *const proto_defaults[PROTO_COUNT];
extern const struct rx_scheme rx_schemes[RX_COUNT];
/* transport.uec.rccc: a packet's events with cc none, as events_scale
 * ([0] credits through the fabric, [1] direct); with another cc the credits'
 * share (this less 1) adds to that cc's row. */
extern const double rccc_events_scale[2];

/* The row of cc / kind; an out-of-range value (a corrupt struct) gets the
 * first row rather than a read past the table. */
const struct cc_scheme *cc_scheme(int cc);
const struct rx_scheme *rx_scheme(int kind);
const struct proto_scheme *proto_scheme(int protocol);
/* By name; NULL when no row has it. */
const struct cc_scheme *cc_scheme_by_name(const char *name);
/* The retransmission timer the receiver kind's sender waits on, in ps, and
 * its key under transport. (the loss recovery's and the summary's one rule) */
struct scenario;
uint64_t transport_rto_ps(const struct scenario *sc, const char **key);
/* transport.sack_timeout auto under the uec receiver (htsim's UEC min_rto):
 * 15 us + 6 drains of *queue bytes at *bps (either may be NULL) */
uint64_t uec_auto_rto_ps(const struct scenario *sc, uint64_t *queue, uint64_t *bps);
#define SACK_TIMEOUT_IRN_PS UINT64_C(320000000) /* auto under ooo: IRN's RTO_high */

#endif
