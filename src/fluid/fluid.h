/* The flow-level (fluid) engine: every transfer is a flow on its ECMP path
 * (the packet engine's path, topo_path) carrying wire bytes at its max-min
 * fair rate (maxmin.h) over every link capacity it crosses and its own rate
 * cap. Rates change only when a flow starts or drains, so events are flow
 * starts and completions. A flow is done one path latency after its last
 * byte leaves the source: propagation, switch latency and the last packet's
 * store-and-forward serialisation on every later hop, as in the packet engine.
 *
 * It knows nothing of packets: drops, PFC, queues and ECN are left unset and
 * r->has_packet_stats = 0. docs/fluid.md says what else it ignores. */
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
