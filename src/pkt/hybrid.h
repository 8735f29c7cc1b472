/* engine: hybrid, the packet engine with steady states fast-forwarded.
 *
 * It runs the packet engine in time order, stopping every observation
 * period (sim.hybrid.period) to record each transfer's delivered bytes and
 * every counter. When the last two windows of sim.hybrid.window periods
 * agree (each receiver's bytes within sim.hybrid.tolerance, and each
 * transfer's where a receiver has few; the summed pauses; queues growing by
 * less than that share of what was delivered; no drop; no start), it
 * advances the whole state by k periods at once: every pending event and
 * every timestamp the dynamics read move k periods later, each receiver's
 * mean bytes per period x k go to its senders by share (their data in
 * flight renumbered past them) and every counter gains k times its mean
 * delta. A lone receiver whose senders are done drains: its mean bytes
 * are taken from its transfers' queued tails (none where receivers share
 * queues). k stops short of the next transfer start, of most senders' ends,
 * of a receiver's senders running out, of the next telemetry sample and of
 * the time limit. Private to src/pkt. */
#ifndef CKPT_PKT_HYBRID_H
#define CKPT_PKT_HYBRID_H

struct pnet;

/* The run's event loop under engine: hybrid (pnet_loop calls it); fills
 * n->res->hybrid. */
void hybrid_loop(struct pnet *n);

#endif
