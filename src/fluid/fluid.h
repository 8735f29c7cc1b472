/* The flow-level (fluid) engine: every transfer is a flow on the packet
 * engine's path (ECMP or WCMP hash; spray and per-packet adaptive routing:
 * an even split over all equal-cost paths) carrying wire bytes at its
 * max-min fair rate (maxmin.h) over every link capacity it crosses, its own
 * rate cap and the storage back end (drain rate, ingest buffer). Rates change
 * only when a flow starts or drains or an ingest buffer fills, so those are
 * the events. A flow is done one path latency after its last byte leaves the
 * source (propagation, switch latency and the last packet's store-and-forward
 * serialisation on every later hop, as in the packet engine; never less than
 * the analytic bound's way in and out of each resource it crosses, bound.h),
 * plus, with a back end, the time to write what is buffered ahead of it.
 *
 * It knows nothing of packets: drops, PFC, queues and ECN are left unset and
 * r->has_packet_stats = 0. With telemetry.interval it fills the time series
 * that have meaning for a fluid (fsample.h): throughput per segment, bytes
 * still to deliver, active transfers; with telemetry.ports, r->ports with
 * the bytes each link carried. A failed link has no capacity: a transfer
 * routed onto one is a violated invariant. docs/fluid.md says what else it
 * ignores. */
#ifndef CKPT_FLUID_H
#define CKPT_FLUID_H

#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

/* Run the transfers of w on t; fill the engine's part of r (completion,
 * writers, link figures, invariants, perf). Returns 0, or -1 with e set. */
int fluid_run(const struct scenario *sc, const struct topo *t,
              const struct workload *w, struct results *r, struct err *e);

#endif
