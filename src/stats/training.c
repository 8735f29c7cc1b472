/* The training figures of the results: the steps, their slowdown during
 * the checkpoint and their percentiles (training.h). */
#include "training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"

void train_results(struct results *r, const struct training *tr, struct train_clock *c,
                   uint64_t ckpt_end_ps)
{
    struct train_figures *g = &r->training;
    if (!tr || !tr->on)
        return;
    g->on = 1;
    g->on_fabric = tr->on_fabric;
    g->isolation = tr->isolation;
    g->priority = tr->prio;
    g->baseline_step_s = (double)tr->baseline_ps / (double)PS_PER_S;
    g->compute_s = (double)tr->compute_ps / (double)PS_PER_S;
    g->comm0_s = (double)tr->comm0_ps / (double)PS_PER_S;
    g->flows_per_step = tr->n;
    g->bytes_per_step = tr->bytes_per_step;
    g->dp = tr->dp;
    g->dp_nodes = tr->dp_nodes;
    g->ckpt_end_s = (double)ckpt_end_ps / (double)PS_PER_S;
    if (!tr->on_fabric || !c) {
        /* physical: its own fabric; the steps are the baseline exactly */
        struct train_clock pc;
        train_clock_init(&pc, NULL);
        uint32_t want = tr->steps;
        if (!want) { /* until the checkpoint is done, then one clean step */
            double k = ceil((double)ckpt_end_ps / (double)tr->baseline_ps);
            want = k + 1 < TRAIN_MAX_STEPS ? (uint32_t)k + 1 : TRAIN_MAX_STEPS;
        }
        for (uint32_t s = 0; s < want && !pc.oom; s++)
            train_clock_record(&pc, s * tr->baseline_ps, tr->baseline_ps, tr->comm0_ps);
        g->steps = pc.n;
        g->begin_s = pc.begin_s;
        g->step_s = pc.step_s;
        g->comm_s = pc.comm_s;
    } else {
        g->steps = c->n;
        g->begin_s = c->begin_s;
        g->step_s = c->step_s;
        g->comm_s = c->comm_s;
        c->begin_s = c->step_s = c->comm_s = NULL;
        c->n = c->cap = 0;
    }
    g->bytes = g->on_fabric ? (uint64_t)g->steps * tr->bytes_per_step : 0;
    double base = g->baseline_step_s, lost = 0, during = 0, end_s = g->ckpt_end_s;
    uint32_t nd = 0;
    double *tmp = malloc((g->steps ? g->steps : 1) * sizeof *tmp);
    for (uint32_t s = 0; s < g->steps; s++) {
        double d = g->step_s[s] - base;
        lost += d > 0 ? d : 0;
        if (d > TRAIN_SLOWED * base)
            g->slowed++;
        if (g->begin_s[s] < end_s) { /* overlaps the checkpoint */
            during += g->step_s[s];
            nd++;
        }
    }
    g->lost_s = lost;
    g->during_step_s = nd ? during / nd : base;
    g->slowdown = base > 0 ? g->during_step_s / base - 1 : 0;
    if (tmp && g->steps) {
        memcpy(tmp, g->step_s, g->steps * sizeof *tmp);
        g->step_p50_s = results_percentile(tmp, g->steps, 0.5);
        g->step_p99_s = results_percentile(tmp, g->steps, 0.99);
        g->step_max_s = results_percentile(tmp, g->steps, 1.0);
        memcpy(tmp, g->comm_s, g->steps * sizeof *tmp);
        g->comm_p50_s = results_percentile(tmp, g->steps, 0.5);
        g->comm_p99_s = results_percentile(tmp, g->steps, 0.99);
        g->comm_max_s = results_percentile(tmp, g->steps, 1.0);
    }
    free(tmp);
}
