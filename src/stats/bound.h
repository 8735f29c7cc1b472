/* Analytic lower bound on checkpoint completion (max-flow bound): the
 * busiest of writer NIC, compute-leaf uplinks, storage-leaf uplinks and
 * storage NIC, in wire bytes, plus the minimum path latency of the last
 * packet after it. */
#ifndef CKPT_BOUND_H
#define CKPT_BOUND_H

#include "../topo/topo.h"
#include "../work/work.h"
#include "results.h"

/* Wire bytes of a transfer of `bytes` payload packetised at mtu. */
uint64_t wire_bytes(uint64_t bytes, uint32_t mtu);

/* Load balance from the bytes each port carried: the worst compute leaf's
 * max/mean over its uplinks and max/mean over spines toward storage. */
void balance_compute(struct results *r, const struct topo *t, const double *port_bytes);

/* Fill r->bound_* and r->base_latency_s. */
void bound_compute(struct results *r, const struct topo *t,
                   const struct workload *w, const struct scenario *sc);

#endif
