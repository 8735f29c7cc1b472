/* Data protection that crosses the fabric (storage.protection;
 * docs/storage.md, Data protection).
 *
 *  - ec: each file is k data fragments (the file's bytes split evenly, the
 *    remainder to the first) and m parity fragments, each the size of the
 *    largest data fragment, on k + m consecutive storage nodes from the
 *    file's start node; the writer sends all of them.
 *  - replica: the writer sends to the primary (the placement's node), which
 *    forwards r - 1 copies to the next r - 1 nodes: a forward transfer per
 *    received transfer, starting with it, never sending a byte its primary
 *    has not yet received (packet engine; the fluid engine runs it unheld).
 *  - chain (CRAQ): the writer sends to the head (the placement's node),
 *    each node of the chain forwards to the next, r nodes in all; a hop
 *    sends only what the previous one has received (packet engine), and
 *    the write commits when the tail's acknowledgement has come back along
 *    the chain to the head.
 * Restores read the data fragments (ec), the primary copy (replica) or
 * each file in r parts, one from every node of its chain (restore.c).
 */
#ifndef CKPT_PROTECT_H
#define CKPT_PROTECT_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"
#include "work.h"

/* Protection keys against the storage nodes and placement; fails naming
 * the key. No-op without protection. */
int protect_check(const struct scenario *sc, struct err *e);

/* ec: the fragments of a file of b bytes whose first node is start, over
 * M nodes: node[i], bytes[i] and kind[i] (XFER_DATA or XFER_PARITY) for i
 * below the count returned (at most k + m; empty fragments left out). */
uint32_t protect_ec_fragments(const struct scenario *sc, uint32_t start, uint32_t M, uint64_t b,
                              uint32_t *node, uint64_t *bytes, uint8_t *kind);

/* Bytes a writer sends for b bytes of its files under ec (b itself
 * otherwise), rounded up: for splitting rate caps by bytes. */
uint64_t protect_sent_bytes(const struct scenario *sc, uint64_t b);

/* replica: appends to w every data transfer's r - 1 forwards (storage NIC
 * of its primary to the next nodes' NICs, taken in turn through sturn[M]);
 * chain: its r - 1 hops, each from the NIC the previous copy arrived on,
 * consecutive, each fed by the one before;
 * adding their payload to sbytes[M] and wire bytes to swire[M]. */
int protect_forward(struct workload *w, const struct scenario *sc, const struct topo *t,
                    uint32_t *sturn, uint64_t *sbytes, uint64_t *swire, struct arena *a,
                    struct err *e);

/* Payload of a chain's acknowledgement, as a CNP's (BTH + 16 B). */
#define PROTECT_ACK_PAYLOAD 16

/* chain: the time the tail's acknowledgement takes from the tail (the
 * receiver of hop i) back along the chain to its head, unloaded: each
 * hop's path reversed, per port serialisation and link delay, per switch
 * its latency. */
uint64_t protect_chain_ack_ps(const struct workload *w, const struct scenario *sc,
                              const struct topo *t, uint32_t i);

/* chain: each tail's done[] becomes the latest of its chain's (a node has
 * the copy only once the nodes ahead of it have) plus its acknowledgement
 * (the write commits when the head hears it); UINT64_MAX stays. No-op
 * otherwise and for restores. */
void protect_commit(const struct workload *w, const struct scenario *sc, const struct topo *t,
                    uint64_t *done);

/* w without its protection's transfers, for the bound the protection
 * costs: d shares w's arrays but for its own transfers (in a) and has no
 * path cache. */
int protect_data_only(const struct workload *w, struct workload *d, struct arena *a);

#endif
