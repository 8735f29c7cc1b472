/* The run-end invariants shared by the two engines (invariants.h). */
#include "invariants.h"

#include <stdio.h>
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

void invariants_time_limit(struct results *r, int hit, uint64_t limit_ps,
                           const struct stop_progress *p)
{
    if (!hit)
        return;
    double at = (double)limit_ps / 1e12;
    /* still delivering in the run's last tenth: slow, not stuck */
    if (p && p->all && p->last_ps && p->last_ps + limit_ps / 10 >= limit_ps) {
        double pace = (double)p->got * 8 / at;
        double want = r->bound_s > 0 ? (double)p->all * 8 / r->bound_s : 0;
        char low[64] = "";
        if (r->min_rate_bps > 0)
            snprintf(low, sizeof low, "; lowest sending rate %.3g Gbps", r->min_rate_bps / 1e9);
        double of = want > 0 ? pace / want : 0;
        results_violate(r, "stopped at the time limit (%.6g s simulated; sim.time_limit) with "
                           "transfers still delivering: %.3g%% of the data at %.4g Gbps, %.3g%% "
                           "of the bound's pace%s: %s; a longer sim.time_limit lets it finish",
                        at, 100.0 * (double)p->got / (double)p->all, pace / 1e9, 100 * of, low,
                        of >= 0.5 ? "the limit is shorter than the write"
                                  : "slower than the fabric allows (a transport held under "
                                    "its links: a target delay under the path's round trip, "
                                    "a window at its floor; a pause storm; or a limit within "
                                    "the first round trips)");
        return;
    }
    if (p && p->last_ps)
        results_violate(r, "stopped at the time limit (%.6g s simulated; sim.time_limit) with "
                           "transfers unfinished, no packet sent since %.6g s: a pause storm, "
                           "a stuck receiver or a deadlock",
                        at, (double)p->last_ps / 1e12);
    else
        results_violate(r, "stopped at the time limit (%.6g s simulated; sim.time_limit) with "
                           "transfers unfinished: a pause storm, a stuck receiver or a deadlock",
                        at);
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
