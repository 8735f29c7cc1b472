/* One row of the policy comparison (cost.compare_policies): a run's full
 * daily cost, split by cause (docs/checkpoint.md, The full daily cost). */
#include "policy_cost.h"

#include <stdio.h>
#include <string.h>

void cost_policy_row(struct policy_cost *row, int policy, const struct results *r)
{
    const struct cost_figures *c = &r->cost;
    memset(row, 0, sizeof *row);
    row->policy = policy;
    row->storage = -1;
    if (!r->finished) {
        snprintf(row->why, sizeof row->why, "the run did not finish");
        return;
    }
    row->ok = 1;
    row->stall_s = c->stall_s;
    row->end_s = c->end_s;
    row->lag_s = c->durability_lag_s;
    row->contention_s = c->contention_s;
    row->stall_money = c->money_per_day;
    row->contention_money = c->contention_money_per_day;
    row->lag_money = c->lag_money_per_day;
    row->lost_money = c->lost_money_per_day;
    /* the rest of the waste: work lost to failures, restarts, steps slowed
     * on the fabric */
    row->rework_money = c->lost_money_per_day - c->money_per_day -
                        c->contention_money_per_day - c->lag_money_per_day;
    row->capital_per_day = c->priced ? c->capital_per_day : 0.0;
    /* bytes alone set the wear: a policy that checkpoints more often wears
     * the drives faster than their amortisation */
    row->wear_money = r->endurance.on ? r->endurance.wear_cost_per_day : 0.0;
    row->total_per_day = row->lost_money + row->capital_per_day + row->wear_money;
    row->goodput = c->goodput;
    if (r->endurance.on)
        row->storage = r->endurance.over_capacity || r->endurance.over_endurance;
}
