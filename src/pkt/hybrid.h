/* engine: hybrid, the packet engine with steady states fast-forwarded.
 *
 * It runs the packet engine in time order, stopping every observation
 * period (sim.hybrid.period) to record each transfer's delivered bytes and
 * every counter. When the last two windows of sim.hybrid.window periods
 * agree (each live transfer's bytes within sim.hybrid.tolerance, queues
 * growing by less than that share of what was delivered, no drop, the same
 * transfers live), it advances the whole state by k periods at once: every
 * pending event and every timestamp the dynamics read move k periods later,
 * each transfer is credited k times its mean bytes per period (its data in
 * flight renumbered past them) and every counter k times its mean delta.
 * k stops short of the next transfer start, of the first transfer coming
 * within two windows of its end, of the next telemetry sample and of the
 * time limit. Private to src/pkt. */
#ifndef CKPT_PKT_HYBRID_H
#define CKPT_PKT_HYBRID_H

struct pnet;

/* The run's event loop under engine: hybrid (pnet_loop calls it); fills
 * n->res->hybrid. */
void hybrid_loop(struct pnet *n);

#endif
