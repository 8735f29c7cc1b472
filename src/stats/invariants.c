/* The run-end invariants shared by the two engines (invariants.h). */
#include "invariants.h"
#include "../topo/path.h"

void invariants_begin(struct results *r)
{
    r->ok = 1;
    r->violation[0] = '\0';
}

void invariants_transfers(struct results *r, uint64_t unfinished, uint64_t total,
                          int interrupted)
{
    r->interrupted = interrupted;
    if (unfinished && !interrupted)
        results_violate(r, "%llu of %llu transfers did not complete",
                        (unsigned long long)unfinished, (unsigned long long)total);
}

void invariants_time_monotone(struct results *r, int went_back)
{
    if (went_back)
        results_violate(r, "time went backwards");
}

void invariants_time_limit(struct results *r, int hit, uint64_t limit_ps)
{
    if (hit)
        results_violate(r, "stopped at the time limit (%.6g s simulated; sim.time_limit) with "
                           "transfers unfinished: a pause storm, a stuck receiver or a deadlock",
                        (double)limit_ps / 1e12);
}

void invariants_training_steps(struct results *r, const struct train_clock *tc,
                               int interrupted, int time_limit_hit)
{
    if (!interrupted && !time_limit_hit && (tc->next_ps != UINT64_MAX || tc->left))
        results_violate(r, "training stopped at step %u of its run (time limit or a stuck step)",
                        tc->step);
}

void invariants_bound(struct results *r, const char *what)
{
    if (r->finished && r->bound_s > 0 && r->completion_s < r->bound_s * (1 - 1e-9) - 1e-12)
        results_violate(r, "%s completion %.9g s is below its lower bound %.9g s (%s)", what,
                        r->completion_s, r->bound_s, path_seg_label_io((int)r->bound_limit, r->phase == PHASE_RESTORE));
}
