/* Bottleneck attribution: the checkpoint path segment by segment, and which
 * one set the completion time. */
#ifndef CKPT_SEGMENTS_H
#define CKPT_SEGMENTS_H

#include "../topo/topo.h"
#include "../work/work.h"
#include "results.h"

/* Fill r->segs[] and r->bottleneck from the engine's figures in r (link
 * figures, bytes per segment, completion, bound terms) and the workload.
 * Call after the engine ran. */
void segments_compute(struct results *r, const struct topo *t,
                      const struct workload *w, const struct scenario *sc);

#endif
