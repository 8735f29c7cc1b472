/* The invariants both engines check at a run's end, each written once with
 * its message (results_violate), so the packet engine (src/pkt/collect.c)
 * and the fluid engine (src/fluid/fluid.c) report a broken one alike. The
 * checks an engine alone can break (bytes in flight, PFC drops, link loads)
 * stay in it. */
#ifndef CKPT_STATS_INVARIANTS_H
#define CKPT_STATS_INVARIANTS_H

#include <stdint.h>

#include "../work/train.h"
#include "results.h"

/* The checks start here: r->ok = 1 and no violation recorded. */
void invariants_begin(struct results *r);
/* Every one of total transfers completed (unfinished did not), unless the
 * run was interrupted: then it is partial, not wrong, and r->interrupted
 * says so. */
void invariants_transfers(struct results *r, uint64_t unfinished, uint64_t total,
                          int interrupted);
/* No event ran before the one before it. */
void invariants_time_monotone(struct results *r, int went_back);
/* What the transfers had done when a run stopped at its time limit: the
 * data delivered of all of it, and the last packet sent anywhere (ps). */
struct stop_progress {
    uint64_t got, all, last_ps;
};
/* The run did not stop at sim.time_limit (limit_ps) with work left; p
 * (or NULL) says whether it was still delivering (a slow run) or not (a
 * stuck one), and at what pace against the bound's. */
void invariants_time_limit(struct results *r, int hit, uint64_t limit_ps,
                           const struct stop_progress *p);
/* Training on the fabric ran all its steps (tc), unless the run was
 * interrupted or stopped at the time limit (reported on its own). */
void invariants_training_steps(struct results *r, const struct train_clock *tc,
                               int interrupted, int time_limit_hit);
/* A bound is a lower bound: a finished run that beats it (by more than
 * rounding) is wrong, an engine's or the bound's defect or hybrid's error,
 * never a result; what names the run ("the checkpoint's"). */
void invariants_bound(struct results *r, const char *what);

#endif
