/* RCCC: Ultra Ethernet's receiver credit congestion control (UEC 1.0, June
 * 2025), on the packet engine (rccc.c; docs/engine.md, Ultra Ethernet).
 *
 * Credit is counted in packets of fabric.mtu payload. A sender holds the
 * cumulative credit its receiver granted (its initial credit included) and
 * the credit it spent (new packets and NACKed resends); it sends such a
 * packet only while spent < credit. Each receiving endpoint runs one credit
 * pacer: every rccc_pull packets of credit it grants cost their wire time
 * at rccc_rate x its line rate, and it serves the senders that still need
 * credit round robin, one grant each, sending a PK_CREDIT control packet,
 * and sends a flow's credit again when nothing of it arrives for a
 * retransmission timeout after its last grant.
 * State lives in tables allocated at set-up: the sender's and the
 * receiver's per flow on separate arrays (the two ends may run on
 * different threads), and one pacer per endpoint.
 */
#ifndef CKPT_RCCC_H
#define CKPT_RCCC_H

#include <stdint.h>

#include "../core/err.h"

struct pnet;
struct flow;
struct port;
struct results;

#define RCCC_NONE UINT32_MAX /* an empty ring, no flow */

struct rccc_tx {      /* a sender's, per flow */
    uint32_t credit;  /* cumulative packets of credit, the initial included */
    uint32_t spent;   /* packets sent against it */
};

struct rccc_rxf {     /* a receiver's, per flow */
    uint32_t need;    /* packets it must grant in all: the transfer, once its
                       * first packet asked, and one per NACK it sent */
    uint32_t granted; /* cumulative credit granted, the initial included */
    uint32_t next, prev; /* its pacer's ring of flows that need credit */
    uint64_t mark;    /* bytes received when its re-grant timer was set */
    uint8_t asked, queued, timer; /* timer: a re-grant check is pending */
};

struct rccc_node {    /* a receiving endpoint's credit pacer */
    uint32_t head;    /* the next flow served, RCCC_NONE = none waits */
    uint8_t armed;    /* an EV_CREDIT is pending */
    uint64_t free_at; /* the last grant's wire time ends */
    double ps_per_pkt; /* wire time of a packet of credit at the pacer's rate */
    uint64_t grants, granted; /* credit packets sent, packets of credit in them */
    uint64_t regrants;        /* credit packets the re-grant timer sent again */
};

struct rccc {
    struct rccc_tx *tx;
    struct rccc_rxf *rx;
    struct rccc_node *node; /* per node id (endpoints only are used) */
    uint32_t pull;          /* packets of credit per grant */
    uint64_t regrant_ps;    /* the re-grant timer: the transport's retransmission
                             * timeout */
};

/* Set-up (after the flows and loss recovery): the tables, each flow's
 * initial credit. 0, or -1 with e set. */
int rccc_setup(struct pnet *n, struct err *e);

/* Sender: 1 = f may not send its next packet now (it needs credit and has
 * none left); rccc_spend charges a packet that went. charged: the packet
 * is new data or a NACKed resend (not a timeout's go-back resend, nor
 * training traffic). */
int rccc_blocked(const struct pnet *n, const struct flow *f);
void rccc_spend(struct pnet *n, const struct flow *f);
/* Sender: a credit packet arrived carrying cumulative credit `credit`. */
void rccc_on_credit(struct pnet *n, struct flow *f, uint32_t credit);

/* Receiver at node: a packet of f arrived (its first asks for credit);
 * the receiver NACKed one of f's packets (its resend needs credit). */
void rccc_on_arrival(struct pnet *n, uint32_t node, struct flow *f);
void rccc_on_nack(struct pnet *n, uint32_t node, struct flow *f);
/* EV_CREDIT at the NIC port p: arg 0, the pacer grants the next flow;
 * arg id + 1, flow id's re-grant timer. A flow granted all it needs but
 * not all in is looked at each regrant_ps: with no byte in since, its
 * cumulative credit goes again (the last grant may have been dropped, and
 * a sender with nothing in flight has no timer of its own to recover it). */
void rccc_on_pull(struct pnet *n, struct port *p, uint32_t arg);

/* The run's credit counters into r (0 when RCCC is off). */
void rccc_collect(const struct pnet *n, struct results *r);

#endif
